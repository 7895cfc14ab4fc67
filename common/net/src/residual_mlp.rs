//! The residual MLP torso: a linear stem to one width, then blocks that
//! add a two-layer correction to what they receive (He et al.'s residual
//! learning), so depth does not cost the gradient its path to the input.

use candle_core::{Module, Result, Tensor};
use candle_nn::{linear, Linear, VarBuilder};

/// A stem to `hidden[0]`, then one block per entry of `hidden`.
#[derive(Clone, Debug)]
pub struct ResidualMlp {
    stem: Linear,
    blocks: Vec<[Linear; 2]>,
}

impl ResidualMlp {
    /// The torso over `input` features (tensors `stem.*`, `blocks.B.0.*`,
    /// `blocks.B.1.*` under `vb`), and its output width. `hidden` holds
    /// one width, once per block ([`super::TorsoKind::check_hidden`]).
    pub fn build(input: usize, hidden: &[usize], vb: VarBuilder) -> Result<(ResidualMlp, usize)> {
        let width = hidden[0];
        let stem = linear(input, width, vb.pp("stem"))?;
        let blocks = (0..hidden.len())
            .map(|b| {
                let block = vb.pp("blocks").pp(b);
                Ok([
                    linear(width, width, block.pp(0))?,
                    linear(width, width, block.pp(1))?,
                ])
            })
            .collect::<Result<_>>()?;
        Ok((ResidualMlp { stem, blocks }, width))
    }
}

impl Module for ResidualMlp {
    fn forward(&self, obs: &Tensor) -> Result<Tensor> {
        let stem = self.stem.forward(obs)?.relu()?;
        self.blocks.iter().try_fold(stem, |h, [inner, outer]| {
            let correction = outer.forward(&inner.forward(&h)?.relu()?)?;
            (h + correction)?.relu()
        })
    }
}
