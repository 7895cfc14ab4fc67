//! Seed 004's player: at each decision, every legal action's predicted
//! gain in one forward pass, and the action with the highest played for
//! sure (the first on ties).

use candle_core::Result;
use rnad_common::net::gain_cnn::GainCnn;
use rnad_common::net::ParameterList;
use rnad_games::headtohead::sampled::Player;
use rnad_games::universal_poker::UniversalPokerState;
use rnad_games::{Action, State};

use super::planes;

/// A trained gain network as a player.
pub struct GainPlayer {
    net: GainCnn,
}

impl GainPlayer {
    /// The player of the network with `params` (in
    /// [`rnad_common::net::parameter_names`] order).
    pub fn new(params: &[candle_core::Tensor]) -> Result<GainPlayer> {
        let list = ParameterList::new(params);
        let net = GainCnn::build(list.builder())?;
        list.all_taken()?;
        Ok(GainPlayer { net })
    }

    /// The predicted gain of each of `legal` at `state`, for the player to
    /// act there.
    pub fn gains(&self, state: &UniversalPokerState, legal: &[Action]) -> Result<Vec<f32>> {
        let rnad_games::Turn::Player(player) = state.turn() else {
            candle_core::bail!("gains are predicted where a player acts")
        };
        let planes = planes(legal.iter().map(|&a| (state, player, a)))?;
        self.net.forward(&planes)?.to_vec1::<f32>()
    }
}

impl Player for GainPlayer {
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
        let poker = state
            .as_any()
            .downcast_ref::<UniversalPokerState>()
            .expect("seed 004's player plays universal_poker");
        let gains = self
            .gains(poker, legal)
            .expect("the network runs on the planes it was built for");
        let best = gains
            .iter()
            .enumerate()
            .fold(0, |best, (i, g)| if *g > gains[best] { i } else { best });
        (0..legal.len()).map(|i| f64::from(i == best)).collect()
    }
}
