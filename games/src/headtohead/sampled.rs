//! Duplicate matches for games too large for a public tree (hold'em):
//! players that act from a state alone, each deal's chance moves fixed by
//! its own random stream so that every seating sees the same cards in the
//! same seats, and beside the raw payoffs an all-in-equity estimate: when
//! no decision is left before the board is complete, the rest of the board
//! is averaged over instead of dealt once (exactly where the run-outs are
//! few, by sampling otherwise), which removes the luck of the run-out
//! without changing the expectation. Where a value function is given, a
//! third estimate subtracts the luck of every chance event and every
//! decision (each player's policy is known here) as AIVAT measures it
//! ([`super::control_variate`]): the estimate keeps the expectation, and
//! the better the values the more luck it removes.

use std::ops::ControlFlow;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::control_variate::ControlVariate;
pub use super::control_variate::ValueFunction;
use super::play::action_rng;
use super::run_out::run_out_value;
use super::seating::seatings;
use super::stats::{PlayerResult, Tally};
use crate::sampling::inverse_cdf;
use crate::{Action, Game, State, Turn};

/// A player that decides from the state it is in: a baseline, a network,
/// a tabular policy looked up by information state.
pub trait Player: Send {
    /// The probability of each of `legal` (in that order) at `state`, where
    /// the player to act is this player.
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64>;

    /// [`Player::policy`] at each of `states`, which share `legal` and
    /// whose player to act is this player: one call for a player that
    /// decides many at once (a network's one forward pass over all of a
    /// range's hands).
    fn policies(&mut self, states: &[&dyn State], legal: &[Action]) -> Vec<Vec<f64>> {
        states.iter().map(|s| self.policy(*s, legal)).collect()
    }

    /// [`Player::policy`] at each of `states`, each with its own legal
    /// actions (`legal[i]` at `states[i]`): one call for a player that
    /// decides a batch of games at once.
    fn policies_each(&mut self, states: &[&dyn State], legal: &[Vec<Action>]) -> Vec<Vec<f64>> {
        states
            .iter()
            .zip(legal)
            .map(|(s, legal)| self.policy(*s, legal))
            .collect()
    }
}

/// A duplicate match's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct DuplicateReport {
    /// The game.
    pub game: String,
    /// Deals played, each in every seating.
    pub deals: usize,
    /// Seatings per deal.
    pub seatings: usize,
    /// Games played.
    pub games: usize,
    /// Games per second.
    pub games_per_second: f64,
    /// The big blind in chips (results in big blinds divide by it).
    pub big_blind: f64,
    /// Each player's raw result (chips per game; mbb per game).
    pub raw: Vec<PlayerResult>,
    /// Each player's result with all-in run-outs replaced by their
    /// expectation.
    pub all_in_equity: Vec<PlayerResult>,
    /// Each player's result less the value function's chance corrections,
    /// where one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_variate: Option<Vec<PlayerResult>>,
}

/// What a match shows of each finished game: the deal, the seating
/// (`seating[seat]` indexes the players), every action (chance included)
/// and the returns by seat. `Break` ends the match there (a shutdown: a
/// match of many deals can take hours).
pub type GameRecord<'a> = dyn FnMut(usize, &[usize], &[Action], &[f64]) -> ControlFlow<()> + 'a;

/// A match or a local best response ended before its last game because
/// its caller asked it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("stopped after {finished} of {planned} games")]
pub struct Stopped {
    /// Games finished.
    pub finished: usize,
    /// Games it would have played.
    pub planned: usize,
}

/// Plays every seating of `players` (named `names`) on `deals` deals drawn
/// from `seed`, showing each finished game to `record`; with `value`, the
/// control-variate estimate too. Stopped where `record` breaks.
pub fn play_duplicate(
    game: &dyn Game,
    names: &[String],
    players: &mut [Box<dyn Player>],
    (deals, seed): (usize, u64),
    big_blind: f64,
    mut value: Option<&mut dyn ValueFunction>,
    record: &mut GameRecord<'_>,
) -> Result<DuplicateReport, Stopped> {
    let seats = game.num_players();
    assert_eq!(players.len(), seats, "one player per seat");
    let seatings = seatings(seats);
    let mut raw = Tally::new(seats, seats, deals);
    let mut equity = Tally::new(seats, seats, deals);
    let mut corrected = Tally::new(seats, seats, deals);
    let started = Instant::now();
    for deal in 0..deals {
        for (s, seating) in seatings.iter().enumerate() {
            let mut chance = chance_rng(seed, deal);
            let mut actions = action_rng(seed, deal, s);
            let mut state = game.new_initial_state();
            let mut all_in_value = None;
            let mut history = Vec::new();
            let mut control = value
                .as_mut()
                .map(|value| ControlVariate::new(game, *value, (seed, deal), s));
            loop {
                match state.turn() {
                    Turn::Terminal => break,
                    Turn::Chance => {
                        if all_in_value.is_none() {
                            all_in_value = run_out_value(state.as_ref(), seed, deal);
                        }
                        if let Some(control) = control.as_mut() {
                            control.chance_at(state.as_ref(), all_in_value.as_deref(), seating);
                        }
                        let outcome = inverse_cdf(chance.random::<f64>(), state.chance_outcomes());
                        state.apply_action(outcome);
                        history.push(outcome);
                        if let Some(control) = control.as_mut() {
                            control.chance_moved(state.as_ref(), seating);
                        }
                    }
                    Turn::Player(p) => {
                        let legal = state.legal_actions();
                        let probs = players[seating[p]].policy(state.as_ref(), &legal);
                        let pick = inverse_cdf(
                            actions.random::<f64>(),
                            legal.iter().copied().zip(probs.iter().copied()),
                        );
                        if let Some(control) = control.as_mut() {
                            let moves: Vec<(Action, f64)> =
                                legal.iter().copied().zip(probs).collect();
                            control.decided(state.as_ref(), &moves, pick, seating);
                        }
                        state.apply_action(pick);
                        history.push(pick);
                    }
                }
            }
            let returns = state.returns();
            if record(deal, seating, &history, &returns).is_break() {
                return Err(Stopped {
                    finished: deal * seatings.len() + s + 1,
                    planned: deals * seatings.len(),
                });
            }
            raw.record(deal, seating, &returns);
            equity.record(deal, seating, all_in_value.as_deref().unwrap_or(&returns));
            if let Some(control) = &control {
                let less: Vec<f64> = returns
                    .iter()
                    .zip(control.corrections())
                    .map(|(r, c)| r - c)
                    .collect();
                corrected.record(deal, seating, &less);
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let games = deals * seatings.len();
    Ok(DuplicateReport {
        game: game.spec().to_string(),
        deals,
        seatings: seatings.len(),
        games,
        games_per_second: games as f64 / seconds.max(1e-9),
        big_blind,
        raw: raw.results(names, Some(big_blind)),
        all_in_equity: equity.results(names, Some(big_blind)),
        control_variate: value
            .is_some()
            .then(|| corrected.results(names, Some(big_blind))),
    })
}

/// The chance stream of a deal: the same in every seating, so the k-th
/// card dealt is the same whoever sits where.
fn chance_rng(seed: u64, deal: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xDEA1_DEA1_DEA1_DEA1);
    rng.set_stream(deal as u64);
    rng
}
