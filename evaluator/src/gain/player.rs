//! Seed 004's player: at each decision, every legal action's predicted
//! gain in one forward pass, and the action with the highest played for
//! sure (the first on ties).

use crate::gain::network::GainCnn;
use candle_core::Result;
use rnad_games::headtohead::sampled::Player;
use rnad_games::universal_poker::UniversalPokerState;
use rnad_games::{Action, State};
use rnad_net::ParameterList;

use super::planes;

/// A trained gain network as a player.
pub struct GainPlayer {
    net: GainCnn,
}

impl GainPlayer {
    /// The player of the network with `params` (in
    /// [`rnad_net::parameter_names`] order).
    pub fn new(params: &[candle_core::Tensor]) -> Result<GainPlayer> {
        let list = ParameterList::new(params);
        let net = GainCnn::build(list.builder())?;
        list.all_taken()?;
        Ok(GainPlayer { net })
    }

    /// The predicted gain of each of `legal` at `state`, for the player to
    /// act there.
    pub fn gains(&self, state: &UniversalPokerState, legal: &[Action]) -> Result<Vec<f32>> {
        Ok(self.gains_at(&[state], legal)?.remove(0))
    }

    /// [`GainPlayer::gains`] at each of `states` (which share `legal`), in
    /// forward passes of up to [`BATCH_DECISIONS`] state-action pairs: a
    /// local best response asks this for every hand of a range at once.
    pub fn gains_at(
        &self,
        states: &[&UniversalPokerState],
        legal: &[Action],
    ) -> Result<Vec<Vec<f32>>> {
        if legal.is_empty() {
            return Ok(vec![Vec::new(); states.len()]);
        }
        let mut decisions = Vec::with_capacity(states.len() * legal.len());
        for state in states {
            let rnad_games::Turn::Player(player) = state.turn() else {
                candle_core::bail!("gains are predicted where a player acts")
            };
            decisions.extend(legal.iter().map(|&a| (*state, player, a)));
        }
        // A pass may end inside a state's actions: the gains are joined in
        // order and cut per state after the last pass.
        let mut gains = Vec::with_capacity(decisions.len());
        for batch in decisions.chunks(BATCH_DECISIONS) {
            let planes = planes(batch.iter().copied())?;
            gains.extend(self.net.forward(&planes)?.to_vec1::<f32>()?);
        }
        Ok(gains.chunks(legal.len()).map(<[f32]>::to_vec).collect())
    }
}

/// The most state-action pairs in one forward pass: enough to spread a
/// pass's fixed cost, few enough that the convolutions' intermediate
/// tensors (they grow with the batch) stay small.
pub const BATCH_DECISIONS: usize = 128;

/// The first of the highest of `gains` for sure.
fn greedy(gains: &[f32]) -> Vec<f64> {
    let best = gains
        .iter()
        .enumerate()
        .fold(0, |best, (i, g)| if *g > gains[best] { i } else { best });
    (0..gains.len()).map(|i| f64::from(i == best)).collect()
}

fn poker(state: &dyn State) -> &UniversalPokerState {
    state
        .as_any()
        .downcast_ref::<UniversalPokerState>()
        .expect("seed 004's player plays universal_poker")
}

impl Player for GainPlayer {
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
        self.policies(&[state], legal).remove(0)
    }

    fn policies(&mut self, states: &[&dyn State], legal: &[Action]) -> Vec<Vec<f64>> {
        let states: Vec<&UniversalPokerState> = states.iter().map(|s| poker(*s)).collect();
        self.gains_at(&states, legal)
            .expect("the network runs on the planes it was built for")
            .iter()
            .map(|gains| greedy(gains))
            .collect()
    }
}
