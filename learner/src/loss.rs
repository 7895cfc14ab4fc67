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
//! (k over row r's legal cells), so its gradient is `2 w_r (v_r − T_r)` on
//! each value and `−c_rk + Σ_j c_rj / (legal count)` on each cell's logit.
//! Rows of the same information state share one network output, so their
//! value gradients add up there, and the network adds up their cells'
//! ([`rnad_net::RecordedForward::parameter_gradients`]).

use crate::neurd::legal_mean;

/// One batch's rows, and their legal cells where a row has several
/// entries.
pub struct LossInputs<'a> {
    /// θ's value per row.
    pub values: &'a [f32],
    /// v-trace's value target per row.
    pub value_targets: &'a [f32],
    /// Per-row weight (1 / number of the acting player's rows).
    pub weights: &'a [f32],
    /// θ's logit at each cell.
    pub logits: &'a [f32],
    /// The NeuRD coefficient at each cell
    /// ([`crate::neurd::neurd_coefficients`]).
    pub coefficients: &'a [f32],
    /// Where each row's cells start, then where the last row's end.
    pub cells: &'a [usize],
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
    /// The gradient with respect to each cell's logit.
    pub d_logits: Vec<f32>,
    /// The gradient with respect to each distinct state's value.
    pub d_values: Vec<f32>,
}

impl Loss {
    /// The loss of `inputs` and its gradient.
    pub fn new(inputs: &LossInputs) -> Loss {
        let mut loss = Loss {
            value: 0.0,
            neurd: 0.0,
            d_logits: vec![0.0; inputs.logits.len()],
            d_values: vec![0.0; inputs.distinct],
        };
        for (row, &state) in inputs.index.iter().enumerate() {
            let state = state as usize;
            let error = inputs.values[row] - inputs.value_targets[row];
            let weight = inputs.weights[row];
            loss.value += f64::from(weight * error * error);
            loss.d_values[state] += 2.0 * weight * error;

            let cells = inputs.cells[row]..inputs.cells[row + 1];
            let logits = &inputs.logits[cells.clone()];
            let coefficients = &inputs.coefficients[cells.clone()];
            let mean = legal_mean(logits);
            let count = cells.len() as f32;
            let total: f32 = coefficients.iter().sum();
            let d_logits = &mut loss.d_logits[cells];
            for k in 0..logits.len() {
                loss.neurd -= f64::from(coefficients[k] * (logits[k] - mean));
                d_logits[k] = -coefficients[k] + total / count;
            }
        }
        loss
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Tensor, Var};

    use super::*;

    /// Worked by hand: one state, two rows. Row 0: legal actions 0 and 1,
    /// logits [2, 0] (legal mean 1), c [0.5, −0.25]; value 1, target 0.5,
    /// weight 2. Row 1: legal actions 0 and 2, logits [2, 5] (mean 3.5),
    /// c [1, 0]; value 1, target 2.5, weight 1.
    #[test]
    fn worked_example() {
        let loss = Loss::new(&LossInputs {
            values: &[1.0, 1.0],
            value_targets: &[0.5, 2.5],
            weights: &[2.0, 1.0],
            logits: &[2.0, 0.0, 2.0, 5.0],
            coefficients: &[0.5, -0.25, 1.0, 0.0],
            cells: &[0, 2, 4],
            index: &[0, 0],
            distinct: 1,
        });
        // 2·0.25 + 1·2.25.
        assert_eq!(loss.value, 2.75);
        // −(0.5·1 − 0.25·(−1)) − (1·(−1.5)).
        assert_eq!(loss.neurd, 0.75);
        // 2·2·0.5 + 2·1·(−1.5).
        assert_eq!(loss.d_values, vec![-1.0]);
        // Row 0: −c + 0.25/2; row 1: −c + 1/2.
        assert_eq!(loss.d_logits, vec![-0.375, 0.375, -0.5, 0.5]);
    }

    /// Against candle's autograd on the loss as tensors (each row's legal
    /// mean as a product with a row-averaging matrix, then the two parts as
    /// written above).
    #[test]
    fn gradient_agrees_with_candles_autograd() {
        let (distinct, rows) = (3, 7);
        let index: Vec<u32> = vec![0, 2, 1, 0, 2, 2, 1];
        let state_legal: [&[f32]; 3] = [&[0.0, 1.0], &[0.0, 1.0, 2.0], &[1.0, 2.0]];
        let mut cells = vec![0];
        for &s in &index {
            cells.push(cells[cells.len() - 1] + state_legal[s as usize].len());
        }
        let count = cells[rows];
        let logits: Vec<f32> = (0..count)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) * 0.7)
            .collect();
        let state_values: Vec<f32> = vec![0.3, -1.2, 0.8];
        let values: Vec<f32> = index.iter().map(|&s| state_values[s as usize]).collect();
        let value_targets: Vec<f32> = (0..rows).map(|r| r as f32 * 0.25 - 0.8).collect();
        let weights: Vec<f32> = (0..rows).map(|r| 1.0 / (1 + r % 3) as f32).collect();
        let coefficients: Vec<f32> = (0..count)
            .map(|i| ((i * 5 % 7) as f32 - 3.0) * 0.3)
            .collect();
        let loss = Loss::new(&LossInputs {
            values: &values,
            value_targets: &value_targets,
            weights: &weights,
            logits: &logits,
            coefficients: &coefficients,
            cells: &cells,
            index: &index,
            distinct,
        });

        let cpu = &Device::Cpu;
        let logits_var = Var::from_vec(logits, count, cpu).unwrap();
        let values_var = Var::from_vec(state_values, distinct, cpu).unwrap();
        let index_t = Tensor::from_vec(index.clone(), rows, cpu).unwrap();
        let row_values = values_var.index_select(&index_t, 0).unwrap();
        let mut averaging = vec![0.0f32; rows * count];
        let mut row_of_cell = vec![0u32; count];
        for r in 0..rows {
            for c in cells[r]..cells[r + 1] {
                averaging[r * count + c] = 1.0 / (cells[r + 1] - cells[r]) as f32;
                row_of_cell[c] = r as u32;
            }
        }
        let averaging = Tensor::from_vec(averaging, (rows, count), cpu).unwrap();
        let row_of_cell = Tensor::from_vec(row_of_cell, count, cpu).unwrap();
        let targets = Tensor::from_vec(value_targets, rows, cpu).unwrap();
        let weights = Tensor::from_vec(weights, rows, cpu).unwrap();
        let c = Tensor::from_vec(coefficients, count, cpu).unwrap();
        let value_loss = ((row_values - targets).unwrap().sqr().unwrap() * weights)
            .unwrap()
            .sum_all()
            .unwrap();
        let mean = averaging
            .matmul(&logits_var.unsqueeze(1).unwrap())
            .unwrap()
            .squeeze(1)
            .unwrap();
        let centred =
            (logits_var.as_tensor() - mean.index_select(&row_of_cell, 0).unwrap()).unwrap();
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
