//! Backpropagation through the policy-value MLP, written out.
//!
//! The learner knows its loss's gradient with respect to the network's
//! outputs in closed form (docs/rnad-update.md), so it needs no autograd
//! graph: from a [`RecordedForward`] and those output gradients, the
//! parameter gradients are two matrix products and a sum per layer. Done
//! by hand this skips what candle's generic backward pays for: a zeroed
//! accumulator and an addition per graph node, and the gradient with
//! respect to the observations, which nothing uses.

use candle_core::{Result, Tensor};

use super::{PolicyValueNet, RecordedForward};

impl PolicyValueNet {
    /// The gradient of a loss with respect to every parameter, in
    /// [`super::NetShape::param_names`] order, given the loss's gradient
    /// with respect to `recorded`'s logits (`[N, actions]`) and values
    /// (`[N]`). `recorded` must come from this network's
    /// [`PolicyValueNet::forward_recorded`].
    pub fn parameter_gradients(
        &self,
        recorded: &RecordedForward,
        d_logits: &Tensor,
        d_values: &Tensor,
    ) -> Result<Vec<Tensor>> {
        let depth = self.torso.len();
        let top = &recorded.inputs[depth];
        let d_values = d_values.unsqueeze(1)?;
        let policy = linear_gradients(d_logits, top)?;
        let value = linear_gradients(&d_values, top)?;
        let mut d_input =
            (d_logits.matmul(self.policy.weight())? + d_values.matmul(self.value.weight())?)?;
        let mut torso = Vec::with_capacity(depth);
        for layer in (0..depth).rev() {
            // ReLU passes the gradient where its input was ≥ 0 (candle's
            // convention, so both agree even on an exact 0).
            let z = &recorded.pre_activations[layer];
            let d_z = (&d_input * z.ge(0f32)?.to_dtype(z.dtype())?)?;
            if layer > 0 {
                d_input = d_z.matmul(self.torso[layer].weight())?;
            }
            torso.push(linear_gradients(&d_z, &recorded.inputs[layer])?);
        }
        Ok(torso
            .into_iter()
            .rev()
            .chain([policy, value])
            .flatten()
            .collect())
    }
}

/// A linear layer's weight and bias gradients, from the gradient at its
/// output (`[N, out]`) and its input (`[N, in]`).
fn linear_gradients(d_output: &Tensor, input: &Tensor) -> Result<[Tensor; 2]> {
    Ok([d_output.t()?.matmul(input)?, d_output.sum(0)?])
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Var};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::super::{NetShape, ParamSet};
    use super::*;

    fn random(rng: &mut ChaCha8Rng, dims: &[usize]) -> Tensor {
        let n = dims.iter().product();
        let values: Vec<f32> = (0..n).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect();
        Tensor::from_vec(values, dims, &Device::Cpu).unwrap()
    }

    /// Against candle's autograd on the loss Σ logits·g + Σ values·h,
    /// whose gradient with respect to the outputs is (g, h): every
    /// parameter's gradient agrees, on nets of one, two and three hidden
    /// layers with biases moved off zero.
    #[test]
    fn parameter_gradients_agree_with_candles_autograd() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for hidden in [vec![8], vec![8, 6], vec![5, 7, 4]] {
            let shape = NetShape {
                input: 5,
                hidden,
                actions: 3,
            };
            let params: Vec<Tensor> = ParamSet::init(&shape, 3)
                .unwrap()
                .tensors()
                .iter()
                .map(|t| (t + random(&mut rng, t.dims()) * 0.1).unwrap())
                .collect();
            let rows = 9;
            let obs = random(&mut rng, &[rows, shape.input]);
            let d_logits = random(&mut rng, &[rows, shape.actions]);
            let d_values = random(&mut rng, &[rows]);

            let vars: Vec<Var> = params
                .iter()
                .map(|t| Var::from_tensor(t).unwrap())
                .collect();
            let tracked: Vec<Tensor> = vars.iter().map(|v| v.as_tensor().clone()).collect();
            let (logits, values) = PolicyValueNet::new(&shape, &tracked).forward(&obs).unwrap();
            let loss = ((logits * &d_logits).unwrap().sum_all().unwrap()
                + (values * &d_values).unwrap().sum_all().unwrap())
            .unwrap();
            let autograd = loss.backward().unwrap();

            let net = PolicyValueNet::new(&shape, &params);
            let recorded = net.forward_recorded(&obs).unwrap();
            let ours = net
                .parameter_gradients(&recorded, &d_logits, &d_values)
                .unwrap();
            assert_eq!(ours.len(), vars.len());
            for ((var, ours), (name, dims)) in vars.iter().zip(&ours).zip(shape.param_names()) {
                assert_eq!(ours.dims(), dims.as_slice(), "{name}");
                let expected = autograd
                    .get(var.as_tensor())
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f32>()
                    .unwrap();
                let got = ours.flatten_all().unwrap().to_vec1::<f32>().unwrap();
                assert!(
                    expected.iter().any(|g| g.abs() > 1e-3),
                    "{name}: {expected:?}"
                );
                for (e, g) in expected.iter().zip(&got) {
                    assert!((e - g).abs() <= 1e-5 + 1e-4 * e.abs(), "{name}: {e} vs {g}");
                }
            }
        }
    }
}
