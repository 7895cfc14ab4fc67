//! The policy-value network: a torso ([`super::torso`]) read by a policy
//! head ([`super::head`]: logits over the game's distinct actions, or only
//! the legal ones) and a value head, built from a candle `VarBuilder` over
//! one [`super::ParamSet`]; and one forward pass recorded for the
//! parameter gradients.

use candle_core::{Module, Result, Tensor, Var};
use candle_nn::{linear, Linear, VarBuilder};
use rnad_games::{CardLayout, Game};

use super::autograd;
use super::builder::{parameter_names, ParameterList};
use super::cells::DeviceCells;
use super::head::{HeadKind, PolicyHead};
use super::legal_policy;
use super::sparse_input::NetInput;
use super::torso::{Torso, TorsoKind};

mod backprop;

/// What the network looks like: the game's tensor size and action count
/// around the configured torso.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetShape {
    /// Information-state tensor size.
    pub input: usize,
    /// The torso.
    pub torso: TorsoKind,
    /// The torso's widths ([`TorsoKind`] says how each kind reads them).
    pub hidden: Vec<usize>,
    /// Policy logits: one for each of the game's distinct actions, or
    /// where `grouped`, for each of its action groups.
    pub actions: usize,
    /// How the policy head computes them (the parameters are the same
    /// either way).
    pub head: HeadKind,
    /// Whether the policy scores the game's action groups
    /// ([`rnad_games::Game::num_action_groups`]) and shares each group's
    /// probability evenly among its actions, instead of scoring actions.
    pub grouped: bool,
    /// Where the input holds cards, if it does (the card torso reads them).
    pub cards: Option<CardLayout>,
}

impl NetShape {
    /// The network with `torso` of `hidden` widths around `game`'s
    /// information-state tensor and actions, under the dense head.
    pub fn for_game(game: &dyn Game, torso: TorsoKind, hidden: &[usize]) -> NetShape {
        NetShape {
            input: game.information_state_tensor_size(),
            torso,
            hidden: hidden.to_vec(),
            actions: game.num_distinct_actions(),
            head: HeadKind::Dense,
            grouped: false,
            cards: game.card_layout(),
        }
    }

    /// The same network under the `head` policy head.
    pub fn with_head(self, head: HeadKind) -> NetShape {
        NetShape { head, ..self }
    }

    /// The same network scoring `game`'s action groups instead of its
    /// actions; `None` where the game does not group its actions.
    pub fn with_action_groups(self, game: &dyn Game) -> Option<NetShape> {
        Some(NetShape {
            actions: game.num_action_groups()?,
            grouped: true,
            ..self
        })
    }

    /// Names and shapes of every parameter tensor, in [`super::ParamSet`]
    /// order: the order in which building the network asks for them
    /// (`torso.…`, then `policy.weight`, `policy.bias`, `value.weight`,
    /// `value.bias`).
    pub fn param_names(&self) -> Vec<(String, Vec<usize>)> {
        parameter_names(|vb| PolicyValueNet::build(self, vb))
            .expect("a recorder hands out every shape")
    }

    /// Total number of parameters.
    pub fn num_params(&self) -> usize {
        self.param_names()
            .iter()
            .map(|(_, shape)| shape.iter().product::<usize>())
            .sum()
    }
}

/// The policy-value network over one parameter set.
#[derive(Clone, Debug)]
pub struct PolicyValueNet {
    torso: Torso,
    policy: PolicyHead,
    value: Linear,
}

impl PolicyValueNet {
    /// The network of `shape` with its tensors from `vb` (`torso.*`,
    /// `policy.*`, `value.*`).
    pub fn build(shape: &NetShape, vb: VarBuilder) -> Result<PolicyValueNet> {
        let (torso, width) = Torso::build(
            shape.torso,
            shape.input,
            &shape.hidden,
            shape.cards.as_ref(),
            vb.pp("torso"),
        )?;
        Ok(PolicyValueNet {
            torso,
            policy: PolicyHead::new(shape.head, linear(width, shape.actions, vb.pp("policy"))?),
            value: linear(width, 1, vb.pp("value"))?,
        })
    }

    /// The network over `params` (tensors in [`NetShape::param_names`]
    /// order; they may be candle `Var`s to take gradients).
    pub fn new(shape: &NetShape, params: &[Tensor]) -> Result<PolicyValueNet> {
        let list = ParameterList::new(params);
        let net = PolicyValueNet::build(shape, list.builder())?;
        list.all_taken()?;
        Ok(net)
    }

    /// The legal policy `[N, actions]` for observations `[N, input]` and
    /// legal masks `[N, actions]`: the evaluator's inference. (Actors and
    /// the learner's lockstep play run [`PolicyValueNet::forward`] once per
    /// distinct observation and apply [`legal_policy`] to each row.)
    pub fn policy(&self, obs: &Tensor, legal: &Tensor) -> Result<Tensor> {
        let (logits, _) = self.forward(obs)?;
        legal_policy(&logits, legal)
    }

    /// Logits `[N, actions]` and values `[N]` for observations `[N, input]`.
    pub fn forward(&self, obs: &Tensor) -> Result<(Tensor, Tensor)> {
        let features = self.torso.forward(obs)?;
        Ok((self.policy.logits(&features)?, self.values(&features)?))
    }

    /// The logits of `cells` (`[cells]`, each cell a row of `obs` and an
    /// action) and the values `[N]` for observations `[N, input]`: the
    /// learner's and the actors' forward pass, which the gathered head
    /// computes at the legal cells only.
    pub fn forward_cells(&self, obs: &NetInput, cells: &DeviceCells) -> Result<(Tensor, Tensor)> {
        let features = self.torso.forward_input(obs)?;
        Ok((
            self.policy.cell_logits(&features, cells)?,
            self.values(&features)?,
        ))
    }

    fn values(&self, features: &Tensor) -> Result<Tensor> {
        self.value.forward(features)?.squeeze(1)
    }
}

/// How a recorded forward pass turns the gradients at its outputs into
/// parameter gradients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Differentiation {
    /// Written out for the MLP ([`TorsoKind::Mlp`] only): two matrix
    /// products and a sum per layer, none of the graph's bookkeeping.
    ClosedForm,
    /// candle's autograd, for any torso.
    Autograd,
}

impl Differentiation {
    /// The fastest that works for `torso`.
    fn fastest(torso: TorsoKind) -> Differentiation {
        match torso {
            TorsoKind::Mlp => Differentiation::ClosedForm,
            TorsoKind::ResidualMlp | TorsoKind::CardConv => Differentiation::Autograd,
        }
    }
}

/// One forward pass at a batch's legal cells with what its parameter
/// gradients need.
#[derive(Debug)]
pub struct RecordedForward {
    /// The cells' logits `[cells]`.
    pub logits: Tensor,
    /// Values `[N]`.
    pub values: Tensor,
    backward: Backward,
}

#[derive(Debug)]
enum Backward {
    ClosedForm(Box<ClosedForm>),
    /// The parameters as tracked variables, in order.
    Autograd(Vec<Var>),
}

/// What the written-out backward reads: the torso's record, the heads, the
/// features they read and the cells.
#[derive(Debug)]
struct ClosedForm {
    torso: backprop::MlpRecord,
    net: PolicyValueNet,
    features: Tensor,
    cells: DeviceCells,
}

impl RecordedForward {
    /// The network of `shape` over `params` on `obs` at `cells`, recorded
    /// for its gradients: written out for the MLP torso, by autograd for
    /// the others.
    pub fn record(
        shape: &NetShape,
        params: &[Tensor],
        obs: &NetInput,
        cells: &DeviceCells,
    ) -> Result<RecordedForward> {
        let how = Differentiation::fastest(shape.torso);
        RecordedForward::record_by(shape, params, obs, cells, how)
    }

    /// [`RecordedForward::record`] for a chosen differentiation (the
    /// closed form only for the MLP).
    pub(crate) fn record_by(
        shape: &NetShape,
        params: &[Tensor],
        obs: &NetInput,
        cells: &DeviceCells,
        how: Differentiation,
    ) -> Result<RecordedForward> {
        match how {
            Differentiation::ClosedForm => {
                let net = PolicyValueNet::new(shape, params)?;
                let Torso::Mlp(mlp) = &net.torso else {
                    candle_core::bail!(
                        "the closed-form gradient is the MLP's; a {:?} torso needs autograd",
                        shape.torso
                    )
                };
                let (torso, features) = backprop::MlpRecord::forward(mlp, obs)?;
                let logits = net.policy.cell_logits(&features, cells)?;
                let values = net.values(&features)?;
                Ok(RecordedForward {
                    logits,
                    values,
                    backward: Backward::ClosedForm(Box::new(ClosedForm {
                        torso,
                        net,
                        features,
                        cells: cells.clone(),
                    })),
                })
            }
            Differentiation::Autograd => {
                let (vars, tracked) = autograd::tracked(params)?;
                let (logits, values) =
                    PolicyValueNet::new(shape, &tracked)?.forward_cells(obs, cells)?;
                Ok(RecordedForward {
                    logits,
                    values,
                    backward: Backward::Autograd(vars),
                })
            }
        }
    }

    /// The gradient of a loss with respect to every parameter, in
    /// [`NetShape::param_names`] order, given the loss's gradient with
    /// respect to the cells' logits (`[cells]`) and the values (`[N]`).
    pub fn parameter_gradients(&self, d_logits: &Tensor, d_values: &Tensor) -> Result<Vec<Tensor>> {
        match &self.backward {
            Backward::ClosedForm(record) => {
                let ClosedForm {
                    torso,
                    net,
                    features,
                    cells,
                } = &**record;
                let (d_features, policy) = net.policy.gradients(features, cells, d_logits)?;
                let d_values = d_values.unsqueeze(1)?;
                let d_features = (d_features + d_values.matmul(net.value.weight())?)?;
                let value = backprop::linear_gradients(&d_values, features)?;
                let mut gradients = torso.parameter_gradients(d_features)?;
                gradients.extend(policy.into_iter().chain(value));
                Ok(gradients)
            }
            Backward::Autograd(vars) => {
                // Σ logits·d_logits + Σ values·d_values has exactly the
                // given output gradients.
                let surrogate = ((&self.logits * d_logits)?.sum_all()?
                    + (&self.values * d_values)?.sum_all()?)?;
                autograd::gradients(&surrogate, vars)
            }
        }
    }
}

#[cfg(test)]
mod tests;
