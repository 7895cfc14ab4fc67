//! The card torso: the network input's card blocks
//! ([`rnad_games::CardLayout`]: the hole cards, the board) as planes of
//! suits by ranks, two 3×3 convolutions over them (so that neighbouring
//! ranks and equal suits are seen together: pairs, straights, flushes),
//! and ReLU layers over the convolutions' output beside the whole input
//! (the betting is read there).

use candle_core::{Module, Result, Tensor};
use candle_nn::VarBuilder;
use rnad_games::CardLayout;

use super::conv::Conv;
use super::mlp::Mlp;

/// Two convolutions of `hidden[0]` filters over the card planes, then
/// ReLU layers of the widths `hidden[1..]`.
#[derive(Clone, Debug)]
pub struct CardConv {
    /// Input columns of each plane's cells, plane by plane, suit by suit.
    gather: Tensor,
    planes: usize,
    suits: usize,
    ranks: usize,
    convolutions: [Conv; 2],
    layers: Mlp,
}

impl CardConv {
    /// The torso over `input` features holding cards as `cards` says
    /// (tensors `conv.0.*`, `conv.1.*`, `layers.I.*` under `vb`), and its
    /// output width. `hidden` has two entries or more
    /// ([`super::TorsoKind::check_hidden`]).
    pub fn build(
        input: usize,
        hidden: &[usize],
        cards: &CardLayout,
        vb: VarBuilder,
    ) -> Result<(CardConv, usize)> {
        let (planes, suits, ranks) = (cards.blocks.len(), cards.suits, cards.ranks);
        let columns: Vec<u32> = cards
            .blocks
            .iter()
            .flat_map(|&block| {
                (0..suits).flat_map(move |suit| {
                    (0..ranks).map(move |rank| (block + rank * suits + suit) as u32)
                })
            })
            .collect();
        let gather = Tensor::from_vec(columns, planes * suits * ranks, vb.device())?;
        let filters = hidden[0];
        let conv = vb.pp("conv");
        let convolutions = [
            Conv::build(planes, filters, 3, conv.pp(0))?,
            Conv::build(filters, filters, 3, conv.pp(1))?,
        ];
        let (layers, width) = Mlp::build(
            filters * suits * ranks + input,
            &hidden[1..],
            vb.pp("layers"),
        )?;
        Ok((
            CardConv {
                gather,
                planes,
                suits,
                ranks,
                convolutions,
                layers,
            },
            width,
        ))
    }
}

#[cfg(test)]
impl CardConv {
    /// The input column of each plane cell, plane by plane, suit by suit,
    /// rank by rank.
    pub fn gather(&self) -> &Tensor {
        &self.gather
    }
}

impl Module for CardConv {
    fn forward(&self, obs: &Tensor) -> Result<Tensor> {
        let rows = obs.dim(0)?;
        let cards = obs.index_select(&self.gather, 1)?.reshape((
            rows,
            self.planes,
            self.suits,
            self.ranks,
        ))?;
        let [first, second] = &self.convolutions;
        let seen = second.forward(&first.forward(&cards)?.relu()?)?.relu()?;
        let features = Tensor::cat(&[&seen.flatten_from(1)?, obs], 1)?;
        self.layers.forward(&features)
    }
}
