//! Duplicate matches for games too large for a public tree (hold'em):
//! players that act from a state alone, each deal's chance moves fixed by
//! its own random stream so that every seating sees the same cards in the
//! same seats, and beside the raw payoffs an all-in-equity estimate: when
//! no decision is left before the board is complete, the rest of the board
//! is averaged over instead of dealt once (exactly where the run-outs are
//! few, by sampling otherwise), which removes the luck of the run-out
//! without changing the expectation. Where a value function is given, a
//! third estimate subtracts, at every chance move and every decision (each
//! player's policy is known here), how much the move taken moved each
//! seat's value above its expectation over every move (AIVAT, Burch et al.
//! 2018): each correction has mean zero whatever the value function, so
//! the estimate keeps the expectation, and the better the values the more
//! luck it removes; with exact values nothing but the expectation is left.

use std::ops::ControlFlow;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::play::action_rng;
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

/// A seat's expected payoff at any state, in chips: the control variate's
/// value function (a network's value head).
pub trait ValueFunction {
    /// `seat`'s expected payoff at each of `states` (as far as it can
    /// tell), with `seating[s]` the player in seat `s`.
    fn values(&mut self, states: &[&dyn State], seat: usize, seating: &[usize]) -> Vec<f64>;
}

/// Run-outs averaged exactly up to this many, sampled beyond.
const EXACT_RUN_OUTS: usize = 2_000;
/// Run-outs sampled when there are more than [`EXACT_RUN_OUTS`].
const SAMPLED_RUN_OUTS: usize = 500;

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
            let mut run_out_value = None;
            let mut history = Vec::new();
            let mut corrections = vec![0.0; seats];
            loop {
                match state.turn() {
                    Turn::Terminal => break,
                    Turn::Chance => {
                        if run_out_value.is_none() {
                            run_out_value = run_outs_left(state.as_ref())
                                .map(|count| expected_run_out(state.as_ref(), count, seed, deal));
                        }
                        let outcome = inverse_cdf(chance.random::<f64>(), state.chance_outcomes());
                        if let Some(value) = value.as_mut() {
                            let moves = state.chance_outcomes();
                            let at = (state.as_ref(), moves.as_slice(), outcome);
                            correct(at, seating, *value, &mut corrections);
                        }
                        state.apply_action(outcome);
                        history.push(outcome);
                    }
                    Turn::Player(p) => {
                        let legal = state.legal_actions();
                        let probs = players[seating[p]].policy(state.as_ref(), &legal);
                        let pick = inverse_cdf(
                            actions.random::<f64>(),
                            legal.iter().copied().zip(probs.iter().copied()),
                        );
                        if let Some(value) = value.as_mut() {
                            let moves: Vec<(Action, f64)> =
                                legal.iter().copied().zip(probs).collect();
                            let at = (state.as_ref(), moves.as_slice(), pick);
                            correct(at, seating, *value, &mut corrections);
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
            equity.record(deal, seating, run_out_value.as_deref().unwrap_or(&returns));
            let less: Vec<f64> = returns
                .iter()
                .zip(&corrections)
                .map(|(r, c)| r - c)
                .collect();
            corrected.record(deal, seating, &less);
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

/// Adds to each seat's correction how far taking `taken` at `state`, where
/// `moves` are the moves with their probabilities (chance's or the acting
/// player's), moves the seat's value from its expectation over the moves.
fn correct(
    (state, moves, taken): (&dyn State, &[(Action, f64)], Action),
    seating: &[usize],
    value: &mut dyn ValueFunction,
    corrections: &mut [f64],
) {
    let children: Vec<Box<dyn State>> = moves
        .iter()
        .map(|&(m, _)| {
            let mut child = state.clone_box();
            child.apply_action(m);
            child
        })
        .collect();
    let refs: Vec<&dyn State> = children.iter().map(|c| c.as_ref()).collect();
    let taken = moves
        .iter()
        .position(|&(m, _)| m == taken)
        .expect("the move taken is one of the moves");
    for (seat, correction) in corrections.iter_mut().enumerate() {
        let values = value.values(&refs, seat, seating);
        let expected: f64 = moves.iter().zip(&values).map(|((_, p), v)| p * v).sum();
        *correction += values[taken] - expected;
    }
}

/// The chance stream of a deal: the same in every seating, so the k-th
/// card dealt is the same whoever sits where.
fn chance_rng(seed: u64, deal: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xDEA1_DEA1_DEA1_DEA1);
    rng.set_stream(deal as u64);
    rng
}

/// How many run-outs the chance moves left from `state` have, if the game
/// goes to its end through chance alone (the players are all in, or
/// everyone but one is); `None` while a decision is still to come.
fn run_outs_left(state: &dyn State) -> Option<usize> {
    let mut count = 1usize;
    let mut probe = state.clone_box();
    loop {
        match probe.turn() {
            Turn::Terminal => return Some(count),
            Turn::Player(_) => return None,
            Turn::Chance => {
                let outcomes = probe.chance_outcomes();
                count = count.saturating_mul(outcomes.len());
                probe.apply_action(outcomes[0].0);
            }
        }
    }
}

/// The expected returns over the `count` run-outs of the chance moves left
/// from `state` (where no decision is left): all of them when they are
/// few, a seeded sample of them otherwise.
fn expected_run_out(state: &dyn State, count: usize, seed: u64, deal: usize) -> Vec<f64> {
    if count <= EXACT_RUN_OUTS {
        return exact_run_out(state);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0E0E_0E0E_0E0E_0E0E);
    rng.set_stream(deal as u64);
    let mut total: Vec<f64> = Vec::new();
    for _ in 0..SAMPLED_RUN_OUTS {
        let mut run = state.clone_box();
        while run.turn() == Turn::Chance {
            let outcome = inverse_cdf(rng.random::<f64>(), run.chance_outcomes());
            run.apply_action(outcome);
        }
        let returns = run.returns();
        total.resize(returns.len(), 0.0);
        for (t, r) in total.iter_mut().zip(returns) {
            *t += r;
        }
    }
    total.iter().map(|t| t / SAMPLED_RUN_OUTS as f64).collect()
}

/// The expectation of the returns over every chance move left.
fn exact_run_out(state: &dyn State) -> Vec<f64> {
    if state.turn() != Turn::Chance {
        return state.returns();
    }
    let outcomes = state.chance_outcomes();
    let mut total = Vec::new();
    for (outcome, p) in outcomes {
        let mut child = state.clone_box();
        child.apply_action(outcome);
        let values = exact_run_out(child.as_ref());
        total.resize(values.len(), 0.0);
        for (t, v) in total.iter_mut().zip(values) {
            *t += p * v;
        }
    }
    total
}
