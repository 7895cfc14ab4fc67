//! The torsos a policy-value network can have, chosen by the config's
//! `network.torso`: each maps observations `[N, input]` to features
//! `[N, width]` that the policy and value heads read. Adding one means a
//! file with its module (built from a candle `VarBuilder`) and a variant
//! here.

use candle_core::{Module, Result, Tensor};
use candle_nn::VarBuilder;
use serde::{Deserialize, Serialize};

use rnad_games::CardLayout;

use super::card_conv::CardConv;
use super::mlp::Mlp;
use super::residual_mlp::ResidualMlp;
use super::sparse_input::NetInput;

/// Which torso (config `network.torso`); `network.hidden` sizes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TorsoKind {
    /// ReLU layers of the widths in `hidden`. Its gradient has a closed
    /// form, the learner's fast path.
    #[default]
    Mlp,
    /// A linear stem to the width `hidden[0]` and then one residual block
    /// per entry of `hidden` (all one width): `h ← relu(h + W₂·relu(W₁·h))`.
    ResidualMlp,
    /// Two 3×3 convolutions of `hidden[0]` filters over the cards as
    /// suit-by-rank planes, then ReLU layers of `hidden[1..]` over them
    /// and the whole input; for games whose input holds cards
    /// ([`rnad_games::Game::card_layout`]).
    CardConv,
}

impl TorsoKind {
    /// Whether `hidden` sizes this torso, and if not why.
    pub fn check_hidden(self, hidden: &[usize]) -> std::result::Result<(), String> {
        match self {
            TorsoKind::Mlp => Ok(()),
            TorsoKind::ResidualMlp => match hidden.first() {
                Some(&width) if hidden.iter().all(|&w| w == width) => Ok(()),
                _ => Err(format!(
                    "a residual_mlp's blocks add their input to their output, so every entry of network.hidden must be one width, got {hidden:?}"
                )),
            },
            TorsoKind::CardConv if hidden.len() >= 2 => Ok(()),
            TorsoKind::CardConv => Err(format!(
                "a card_conv torso needs its filters and at least one layer width in network.hidden ([filters, width, ...]), got {hidden:?}"
            )),
        }
    }
}

impl std::fmt::Display for TorsoKind {
    /// The config's name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TorsoKind::Mlp => "mlp",
            TorsoKind::ResidualMlp => "residual_mlp",
            TorsoKind::CardConv => "card_conv",
        })
    }
}

/// A built torso.
#[derive(Clone, Debug)]
pub enum Torso {
    /// [`TorsoKind::Mlp`].
    Mlp(Mlp),
    /// [`TorsoKind::ResidualMlp`].
    ResidualMlp(ResidualMlp),
    /// [`TorsoKind::CardConv`].
    CardConv(CardConv),
}

impl Torso {
    /// The torso of `kind` over `input` features (with `cards` where they
    /// hold cards), sized by `hidden`, its tensors taken from `vb`; with the
    /// width of its output.
    pub fn build(
        kind: TorsoKind,
        input: usize,
        hidden: &[usize],
        cards: Option<&CardLayout>,
        vb: VarBuilder,
    ) -> Result<(Torso, usize)> {
        Ok(match kind {
            TorsoKind::Mlp => {
                let (mlp, width) = Mlp::build(input, hidden, vb)?;
                (Torso::Mlp(mlp), width)
            }
            TorsoKind::ResidualMlp => {
                let (residual, width) = ResidualMlp::build(input, hidden, vb)?;
                (Torso::ResidualMlp(residual), width)
            }
            TorsoKind::CardConv => {
                let Some(cards) = cards else {
                    candle_core::bail!("a card_conv torso needs a game whose input holds cards")
                };
                let (conv, width) = CardConv::build(input, hidden, cards, vb)?;
                (Torso::CardConv(conv), width)
            }
        })
    }

    /// The features of `input`, read by its nonzeros where the torso can.
    pub(crate) fn forward_input(&self, input: &NetInput) -> Result<Tensor> {
        match self {
            Torso::Mlp(mlp) => mlp.forward_input(input),
            Torso::ResidualMlp(_) | Torso::CardConv(_) => self.forward(input.tensor()),
        }
    }
}

impl Module for Torso {
    fn forward(&self, obs: &Tensor) -> Result<Tensor> {
        match self {
            Torso::Mlp(mlp) => mlp.forward(obs),
            Torso::ResidualMlp(residual) => residual.forward(obs),
            Torso::CardConv(conv) => conv.forward(obs),
        }
    }
}
