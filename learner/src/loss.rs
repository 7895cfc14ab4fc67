//! The learner's loss on one batch (docs/rnad-update.md, steps 4 and 5):
//! its two parts and its gradient with respect to the network's outputs.
//!
//! With v-trace's value targets `T`, the row weights `w` and the NeuRD
//! coefficients `c` held constant, the loss over rows `r` is
//!
//! ```text
//! value loss  Σ_r w_r (v_r − T_r)²
//! NeuRD loss  −Σ_r Σ_k c_rk (l_rk − m_r),   m_r = mean of row r's legal logits
//! ```
//!
//! so its gradient is `2 w_r (v_r − T_r)` on each value and
//! `−c_rk + legal_rk · Σ_j c_rj / (legal count)` on each logit. Rows of the
//! same information state share one network output, so their gradients
//! add up there; [`rnad_net::RecordedForward::parameter_gradients`]
//! takes it from there.

use crate::neurd::legal_mean;

/// One batch's rows, all row-major (`actions` entries per row where a row
/// has several).
pub struct LossInputs<'a> {
    /// θ's value per row.
    pub values: &'a [f32],
    /// v-trace's value target per row.
    pub value_targets: &'a [f32],
    /// Per-row weight (1 / number of the acting player's rows).
    pub weights: &'a [f32],
    /// θ's logits per row.
    pub logits: &'a [f32],
    /// Legal mask per row.
    pub legal: &'a [f32],
    /// The NeuRD coefficients per row ([`crate::neurd::neurd_coefficients`]).
    pub coefficients: &'a [f32],
    /// Actions per row.
    pub actions: usize,
    /// Each row's information state among the `distinct` ones the network
    /// ran on.
    pub index: &'a [u32],
    /// How many distinct information states the network ran on.
    pub distinct: usize,
}

/// The loss's parts and its gradient at the network's outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Loss {
    /// The value loss.
    pub value: f64,
    /// The NeuRD loss.
    pub neurd: f64,
    /// The gradient with respect to each distinct state's logits,
    /// `distinct × actions`.
    pub d_logits: Vec<f32>,
    /// The gradient with respect to each distinct state's value.
    pub d_values: Vec<f32>,
}

impl Loss {
    /// The loss of `inputs` and its gradient.
    pub fn new(inputs: &LossInputs) -> Loss {
        let a = inputs.actions;
        let mut loss = Loss {
            value: 0.0,
            neurd: 0.0,
            d_logits: vec![0.0; inputs.distinct * a],
            d_values: vec![0.0; inputs.distinct],
        };
        for (row, &state) in inputs.index.iter().enumerate() {
            let state = state as usize;
            let error = inputs.values[row] - inputs.value_targets[row];
            let weight = inputs.weights[row];
            loss.value += f64::from(weight * error * error);
            loss.d_values[state] += 2.0 * weight * error;

            let cells = row * a..(row + 1) * a;
            let logits = &inputs.logits[cells.clone()];
            let legal = &inputs.legal[cells.clone()];
            let coefficients = &inputs.coefficients[cells];
            let mean = legal_mean(logits, legal);
            let count: f32 = legal.iter().sum();
            let total: f32 = coefficients.iter().sum();
            let d_logits = &mut loss.d_logits[state * a..(state + 1) * a];
            for k in 0..a {
                loss.neurd -= f64::from(coefficients[k] * (logits[k] - mean));
                d_logits[k] += -coefficients[k] + legal[k] * total / count;
            }
        }
        loss
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Tensor, Var};

    use super::*;

    /// Worked by hand: one state, two rows. Row 0: legal [1, 1, 0],
    /// logits [2, 0, 5] (legal mean 1), c [0.5, −0.25, 0]; value 1, target
    /// 0.5, weight 2. Row 1: legal [1, 0, 1], logits [2, 0, 5] (mean 3.5),
    /// c [1, 0, 0]; value 1, target 2.5, weight 1.
    #[test]
    fn worked_example() {
        let loss = Loss::new(&LossInputs {
            values: &[1.0, 1.0],
            value_targets: &[0.5, 2.5],
            weights: &[2.0, 1.0],
            logits: &[2.0, 0.0, 5.0, 2.0, 0.0, 5.0],
            legal: &[1.0, 1.0, 0.0, 1.0, 0.0, 1.0],
            coefficients: &[0.5, -0.25, 0.0, 1.0, 0.0, 0.0],
            actions: 3,
            index: &[0, 0],
            distinct: 1,
        });
        // 2·0.25 + 1·2.25.
        assert_eq!(loss.value, 2.75);
        // −(0.5·1 − 0.25·(−1)) − (1·(−1.5)).
        assert_eq!(loss.neurd, 0.75);
        // 2·2·0.5 + 2·1·(−1.5).
        assert_eq!(loss.d_values, vec![-1.0]);
        // Row 0: −c + [1, 1, 0]·0.25/2; row 1: −c + [1, 0, 1]·1/2.
        assert_eq!(loss.d_logits, vec![-0.375 - 0.5, 0.375, 0.5]);
    }

    /// Against candle's autograd on the loss as tensors (gathering rows
    /// from distinct states, then the two parts as written above).
    #[test]
    fn gradient_agrees_with_candles_autograd() {
        let (distinct, rows, a) = (3, 7, 3);
        let index: Vec<u32> = vec![0, 2, 1, 0, 2, 2, 1];
        let state_logits: Vec<f32> = (0..distinct * a)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) * 0.7)
            .collect();
        let state_values: Vec<f32> = vec![0.3, -1.2, 0.8];
        let state_legal = [[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]];
        let legal: Vec<f32> = index
            .iter()
            .flat_map(|&s| state_legal[s as usize])
            .collect();
        let logits: Vec<f32> = index
            .iter()
            .flat_map(|&s| state_logits[s as usize * a..(s as usize + 1) * a].to_vec())
            .collect();
        let values: Vec<f32> = index.iter().map(|&s| state_values[s as usize]).collect();
        let value_targets: Vec<f32> = (0..rows).map(|r| r as f32 * 0.25 - 0.8).collect();
        let weights: Vec<f32> = (0..rows).map(|r| 1.0 / (1 + r % 3) as f32).collect();
        let coefficients: Vec<f32> = (0..rows * a)
            .map(|i| legal[i] * ((i * 5 % 7) as f32 - 3.0) * 0.3)
            .collect();
        let loss = Loss::new(&LossInputs {
            values: &values,
            value_targets: &value_targets,
            weights: &weights,
            logits: &logits,
            legal: &legal,
            coefficients: &coefficients,
            actions: a,
            index: &index,
            distinct,
        });

        let cpu = &Device::Cpu;
        let logits_var = Var::from_vec(state_logits, (distinct, a), cpu).unwrap();
        let values_var = Var::from_vec(state_values, distinct, cpu).unwrap();
        let index_t = Tensor::from_vec(index.clone(), rows, cpu).unwrap();
        let row_logits = logits_var.index_select(&index_t, 0).unwrap();
        let row_values = values_var.index_select(&index_t, 0).unwrap();
        let mask = Tensor::from_vec(legal, (rows, a), cpu).unwrap();
        let targets = Tensor::from_vec(value_targets, rows, cpu).unwrap();
        let weights = Tensor::from_vec(weights, rows, cpu).unwrap();
        let c = Tensor::from_vec(coefficients, (rows, a), cpu).unwrap();
        let value_loss = ((row_values - targets).unwrap().sqr().unwrap() * weights)
            .unwrap()
            .sum_all()
            .unwrap();
        let mean = (&row_logits * &mask)
            .unwrap()
            .sum_keepdim(1)
            .unwrap()
            .broadcast_div(&mask.sum_keepdim(1).unwrap())
            .unwrap();
        let centred = row_logits.broadcast_sub(&mean).unwrap();
        let neurd_loss = (centred * c).unwrap().sum_all().unwrap().neg().unwrap();
        let grads = (&value_loss + &neurd_loss).unwrap().backward().unwrap();

        let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 + 1e-5 * a.abs();
        let scalar = |t: &Tensor| f64::from(t.to_scalar::<f32>().unwrap());
        assert!(close(scalar(&value_loss), loss.value), "{}", loss.value);
        assert!(close(scalar(&neurd_loss), loss.neurd), "{}", loss.neurd);
        for (var, ours) in [
            (logits_var.as_tensor(), &loss.d_logits),
            (values_var.as_tensor(), &loss.d_values),
        ] {
            let expected = grads
                .get(var)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            assert_eq!(expected.len(), ours.len());
            assert!(expected.iter().any(|g| g.abs() > 0.1), "{expected:?}");
            for (e, g) in expected.iter().zip(ours.iter()) {
                assert!(
                    close(f64::from(*e), f64::from(*g)),
                    "{expected:?} vs {ours:?}"
                );
            }
        }
    }
}
