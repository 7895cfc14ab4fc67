//! Backpropagation through the MLP network, written out.
//!
//! The learner knows its loss's gradient with respect to the network's
//! outputs in closed form (docs/rnad-update.md), so for the MLP it needs no
//! autograd graph: from the recorded layer inputs and pre-activations, the
//! parameter gradients are two matrix products and a sum per layer. Done
//! by hand this skips what candle's generic backward pays for: a zeroed
//! accumulator and an addition per graph node, and the gradient with
//! respect to the observations, which nothing uses.

use candle_core::{Module, Result, Tensor};
use candle_nn::Linear;

use crate::mlp::Mlp;

/// An MLP network's forward pass, kept for its gradients.
#[derive(Clone, Debug)]
pub struct MlpRecord {
    layers: Vec<Linear>,
    /// The policy and value heads reading the torso's output.
    heads: [Linear; 2],
    /// The input of every torso layer and of the heads: the observations,
    /// then each torso layer's output.
    inputs: Vec<Tensor>,
    /// Each torso layer's output before its ReLU.
    pre_activations: Vec<Tensor>,
}

impl MlpRecord {
    /// `mlp` on `obs`, recorded, with its output (the input of `heads`,
    /// the policy and value heads).
    pub fn forward(mlp: &Mlp, heads: [&Linear; 2], obs: &Tensor) -> Result<(MlpRecord, Tensor)> {
        let mut inputs = vec![obs.clone()];
        let mut pre_activations = Vec::with_capacity(mlp.layers().len());
        for layer in mlp.layers() {
            let z = layer.forward(&inputs[inputs.len() - 1])?;
            inputs.push(z.relu()?);
            pre_activations.push(z);
        }
        let features = inputs[inputs.len() - 1].clone();
        let record = MlpRecord {
            layers: mlp.layers().to_vec(),
            heads: heads.map(Linear::clone),
            inputs,
            pre_activations,
        };
        Ok((record, features))
    }

    /// The gradient of a loss with respect to every parameter (torso
    /// layers, then the policy and value heads), given the loss's gradient
    /// with respect to the logits (`[N, actions]`) and values (`[N]`).
    pub fn parameter_gradients(&self, d_logits: &Tensor, d_values: &Tensor) -> Result<Vec<Tensor>> {
        let [policy_head, value_head] = &self.heads;
        let depth = self.layers.len();
        let top = &self.inputs[depth];
        let d_values = d_values.unsqueeze(1)?;
        let policy = linear_gradients(d_logits, top)?;
        let value = linear_gradients(&d_values, top)?;
        let mut d_input =
            (d_logits.matmul(policy_head.weight())? + d_values.matmul(value_head.weight())?)?;
        let mut torso = Vec::with_capacity(depth);
        for layer in (0..depth).rev() {
            // ReLU passes the gradient where its input was ≥ 0 (candle's
            // convention, so both agree even on an exact 0).
            let z = &self.pre_activations[layer];
            let d_z = (&d_input * z.ge(0f32)?.to_dtype(z.dtype())?)?;
            if layer > 0 {
                d_input = d_z.matmul(self.layers[layer].weight())?;
            }
            torso.push(linear_gradients(&d_z, &self.inputs[layer])?);
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
