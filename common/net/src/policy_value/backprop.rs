//! Backpropagation through the MLP torso, written out.
//!
//! The learner knows its loss's gradient with respect to the network's
//! outputs in closed form (docs/rnad-update.md), and the heads turn it into
//! the gradient at the torso's output ([`crate::head`]), so for the MLP it
//! needs no autograd graph: from the recorded layer inputs and
//! pre-activations, the parameter gradients are two matrix products and a
//! sum per layer. Done
//! by hand this skips what candle's generic backward pays for: a zeroed
//! accumulator and an addition per graph node, and the gradient with
//! respect to the observations, which nothing uses.

use candle_core::{Module, Result, Tensor};
use candle_nn::Linear;

use crate::mlp::Mlp;
use std::sync::Arc;

use crate::sparse_input::{NetInput, SparseRows};

/// An MLP torso's forward pass, kept for its gradients.
#[derive(Clone, Debug)]
pub struct MlpRecord {
    layers: Vec<Linear>,
    /// The input of every layer: the observations, then each layer's
    /// output but the last.
    inputs: Vec<Tensor>,
    /// Each torso layer's output before its ReLU.
    pre_activations: Vec<Tensor>,
    /// The observations as their nonzeros, where the first layer read
    /// them so.
    sparse_obs: Option<Arc<SparseRows>>,
}

impl MlpRecord {
    /// `mlp` on `obs`, recorded, with its output (the features the heads
    /// read).
    pub fn forward(mlp: &Mlp, input: &NetInput) -> Result<(MlpRecord, Tensor)> {
        let (first, sparse_obs) = mlp.first_layer(input)?;
        let mut inputs = vec![input.tensor().clone(), first.relu()?];
        let mut pre_activations = Vec::with_capacity(mlp.layers().len());
        pre_activations.push(first);
        for layer in &mlp.layers()[1..] {
            let z = layer.forward(&inputs[inputs.len() - 1])?;
            inputs.push(z.relu()?);
            pre_activations.push(z);
        }
        let features = inputs.pop().expect("the observations are the first input");
        let record = MlpRecord {
            layers: mlp.layers().to_vec(),
            inputs,
            pre_activations,
            sparse_obs,
        };
        Ok((record, features))
    }

    /// The gradient of a loss with respect to every torso parameter, in
    /// layer order, given the loss's gradient with respect to the torso's
    /// output (`[N, width]`).
    pub fn parameter_gradients(&self, d_features: Tensor) -> Result<Vec<Tensor>> {
        let depth = self.layers.len();
        let mut d_input = d_features;
        let mut torso = Vec::with_capacity(depth);
        for layer in (0..depth).rev() {
            // ReLU passes the gradient where its input was ≥ 0 (candle's
            // convention, so both agree even on an exact 0).
            let z = &self.pre_activations[layer];
            let d_z = (&d_input * z.ge(0f32)?.to_dtype(z.dtype())?)?;
            if layer > 0 {
                d_input = d_z.matmul(self.layers[layer].weight())?;
            }
            torso.push(match (layer, &self.sparse_obs) {
                (0, Some(sparse)) => [sparse.weight_gradient(&d_z)?, d_z.sum(0)?],
                _ => linear_gradients(&d_z, &self.inputs[layer])?,
            });
        }
        Ok(torso.into_iter().rev().flatten().collect())
    }
}

/// A linear layer's weight and bias gradients, from the gradient at its
/// output (`[N, out]`) and its input (`[N, in]`).
pub(super) fn linear_gradients(d_output: &Tensor, input: &Tensor) -> Result<[Tensor; 2]> {
    Ok([d_output.t()?.matmul(input)?, d_output.sum(0)?])
}
