//! The MLP torso: linear layers, each followed by a ReLU.

use candle_core::{Module, Result, Tensor};
use candle_nn::{linear, Linear, VarBuilder};

/// ReLU layers of the widths in `network.hidden`.
#[derive(Clone, Debug)]
pub struct Mlp {
    layers: Vec<Linear>,
}

impl Mlp {
    /// The MLP over `input` features with layers `hidden` wide (tensors
    /// `0.weight`, `0.bias`, `1.weight`, … under `vb`), and its output
    /// width.
    pub fn build(input: usize, hidden: &[usize], vb: VarBuilder) -> Result<(Mlp, usize)> {
        let mut layers = Vec::with_capacity(hidden.len());
        let mut width = input;
        for (i, &next) in hidden.iter().enumerate() {
            layers.push(linear(width, next, vb.pp(i))?);
            width = next;
        }
        Ok((Mlp { layers }, width))
    }

    /// The layers, first to last.
    pub fn layers(&self) -> &[Linear] {
        &self.layers
    }
}

impl Module for Mlp {
    fn forward(&self, obs: &Tensor) -> Result<Tensor> {
        self.layers
            .iter()
            .try_fold(obs.clone(), |h, layer| layer.forward(&h)?.relu())
    }
}
