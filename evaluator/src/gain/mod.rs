//! Seed 004's players: a convolutional network
//! ([`network::GainCnn`]) that predicts the chips a
//! hold'em action wins, learnt from hand histories, and the player that
//! takes the legal action with the highest prediction.
//!
//! A sample is one decision of a logged hand: the state before it, the
//! player and its action, and as target the chips that player won or lost
//! in the hand divided by the buy-in (its stack), so in [−1, 1].

pub mod adadelta;
pub mod file;
pub mod network;
mod player;
mod trainer;

use candle_core::{Device, Result, Tensor};
use rnad_games::encodings::card_planes::{PLANES, SIDE, SIZE};
use rnad_games::universal_poker::acpc_log::{replay_line, LogLineError};
use rnad_games::universal_poker::UniversalPokerState;
use rnad_games::{Action, Game, GameSpec, State, UniversalPoker};

use crate::error::EvaluatorError;

pub use player::{GainPlayer, BATCH_DECISIONS};
pub use trainer::GainTrainer;

/// One decision of a logged hand and what it came to.
#[derive(Clone, Debug)]
pub struct GainSample {
    /// The state before the decision.
    pub state: UniversalPokerState,
    /// Who decided.
    pub player: usize,
    /// What it did.
    pub action: Action,
    /// Its chips won in the hand over the buy-in.
    pub target: f32,
}

/// Every decision of every hand in `log` (ACPC log lines; other lines,
/// such as comments, are skipped), with `buy_in` chips per player.
pub fn samples_from_log(
    game: &UniversalPoker,
    log: &str,
    buy_in: f64,
) -> std::result::Result<Vec<GainSample>, LogLineError> {
    let mut samples = Vec::new();
    for (number, line) in log.lines().enumerate() {
        if !line.starts_with("STATE:") {
            continue;
        }
        let refuse = |why: String| LogLineError(format!("line {}: {why}", number + 1));
        let replayed = replay_line(game, line).map_err(|e| refuse(e.0))?;
        // The engine's payoffs, which the line's must equal: a target
        // comes from a hand as it was played.
        let payoffs = replayed.state.returns();
        if payoffs != replayed.payoffs {
            return Err(refuse(format!(
                "the line pays {:?}, the hand as played pays {payoffs:?}",
                replayed.payoffs
            )));
        }
        for (state, player, action) in replayed.decisions {
            let target = (payoffs[player] / buy_in).clamp(-1.0, 1.0) as f32;
            samples.push(GainSample {
                state,
                player,
                action,
                target,
            });
        }
    }
    Ok(samples)
}

/// The game of `spec` if seed 004's network can read it: heads-up
/// universal_poker with a 52-card deck, two hole cards, no board before
/// the first betting and at most four rounds.
pub fn heads_up_poker_with_planes(
    spec: &GameSpec,
) -> std::result::Result<UniversalPoker, EvaluatorError> {
    if let Some(game) = UniversalPoker::of(spec) {
        if game.num_players() == 2 && game.initial_state().has_cnn_planes() {
            return Ok(game);
        }
    }
    Err(EvaluatorError::Usage(format!(
        "seed 004's network reads heads-up universal_poker with 4 suits, 13 ranks, 2 hole cards, no board before the first betting and at most 4 rounds, not {spec}"
    )))
}

/// The planes `[N, 33, 17, 17]` of `(state, player, action)` triples.
pub fn planes<'a>(
    decisions: impl ExactSizeIterator<Item = (&'a UniversalPokerState, usize, Action)>,
) -> Result<Tensor> {
    let n = decisions.len();
    let mut values = vec![0.0f32; n * SIZE];
    for ((state, player, action), out) in decisions.zip(values.chunks_mut(SIZE)) {
        state.cnn_planes(player, action, out);
    }
    Tensor::from_vec(values, (n, PLANES, SIDE, SIDE), &Device::Cpu)
}
