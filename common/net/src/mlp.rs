//! The MLP torso: linear layers, each followed by a ReLU; the first over
//! mostly-zero inputs by their nonzeros ([`crate::sparse_input`]).

use std::sync::Arc;

use candle_core::{Module, Result, Tensor};
use candle_nn::{linear, Linear, VarBuilder};

use crate::sparse_input::{NetInput, SparseRows};

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

    /// The first layer's output before its ReLU, with `obs` as its
    /// nonzeros where that is how the layer read them: never under
    /// autograd (tracked weights), which the sparse path would bypass.
    pub(crate) fn first_layer(
        &self,
        input: &NetInput,
    ) -> Result<(Tensor, Option<Arc<SparseRows>>)> {
        let (first, obs) = (&self.layers[0], input.tensor());
        let sparse = match first.weight().track_op() || obs.track_op() {
            true => None,
            false => input.sparse()?,
        };
        match sparse {
            Some(sparse) => Ok((sparse.linear(first)?, Some(sparse))),
            None => Ok((first.forward(obs)?, None)),
        }
    }

    /// The torso's output on `input`.
    pub(crate) fn forward_input(&self, input: &NetInput) -> Result<Tensor> {
        let (first, _) = self.first_layer(input)?;
        self.layers[1..]
            .iter()
            .try_fold(first.relu()?, |h, layer| layer.forward(&h)?.relu())
    }
}

impl Module for Mlp {
    fn forward(&self, obs: &Tensor) -> Result<Tensor> {
        self.forward_input(&NetInput::new(obs.clone()))
    }
}
