//! A learned best response, trained and judged in one seat: exactly over
//! the public tree where the game has one (its value beside the exact best
//! response's), by sampled games otherwise (its gain with a 95% interval).
//! `rnad-evaluator br` and the evaluator's best-response service both
//! judge through this.

use std::ops::ControlFlow;

use rnad_games::exploitability::player_values;
use rnad_games::headtohead::play::expected_returns;
use rnad_games::headtohead::sampled::Player;
use rnad_games::headtohead::stats::mean_and_ci95;
use rnad_games::headtohead::tabular_player::TabularPlayer;
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::Game;
use rnad_run::history::PolicyKind;
use serde::Serialize;

use super::{
    greedy_player, learn_best_response, sample_returns, BrOptions, LearnedBestResponse,
    PROGRESS_EVERY,
};
use crate::error::EvaluatorError;
use crate::neural::{greedy, network_policy, NetworkInputs};

/// The frozen policy a best response learns against.
pub enum FrozenPolicy<'a> {
    /// Tabulated over the game's public tree: the response is judged
    /// exactly.
    Tabular {
        /// The tree.
        tree: &'a PublicTree,
        /// The policy at each of its information states.
        policy: &'a TabularPolicy,
    },
    /// Deciding state by state: the response is judged over sampled
    /// games.
    Sampled {
        /// A fresh player of the policy (one plays the frozen seats, one
        /// the seat itself for the policy's own value).
        make: &'a dyn Fn() -> Result<Box<dyn Player>, EvaluatorError>,
        /// Games judging each of the two.
        episodes: usize,
        /// Seed of the judging games.
        seed: u64,
    },
}

/// One seat's learned best response, judged.
#[derive(Clone, Debug, Serialize)]
pub struct SeatReport {
    /// The seat.
    pub seat: usize,
    /// Optimiser steps trained.
    pub steps: u64,
    /// Episodes played in training.
    pub episodes: u64,
    /// Seconds of training.
    pub seconds: f64,
    /// The learned response's value in the seat.
    pub learned_value: f64,
    /// How it played for that value.
    pub played: Played,
    /// The frozen policy's own value in the seat.
    pub policy_value: f64,
    /// `learned_value - policy_value`: what the learned response gains.
    pub learned_gain: f64,
    /// Half-width of the 95% interval of the gain (0 where exact).
    pub ci95: f64,
    /// The exact best response's value, where the game has a public tree.
    pub exact_value: Option<f64>,
    /// The exact best response's gain.
    pub exact_gain: Option<f64>,
    /// `learned_gain / exact_gain`.
    pub fraction: Option<f64>,
}

impl SeatReport {
    /// The report of `learned`, worth `learned_value` played as `played`,
    /// against the frozen policy's own `policy_value` (the gain's
    /// interval `ci95`) and, where known, the exact best response's value:
    /// the gains and the fraction follow from them.
    fn new(
        learned: &LearnedBestResponse,
        (learned_value, played): (f64, Played),
        policy_value: f64,
        ci95: f64,
        exact_value: Option<f64>,
    ) -> SeatReport {
        let learned_gain = learned_value - policy_value;
        let exact_gain = exact_value.map(|v| v - policy_value);
        SeatReport {
            seat: learned.seat,
            steps: learned.trained.steps,
            episodes: learned.trained.episodes,
            seconds: learned.trained.seconds,
            learned_value,
            played,
            policy_value,
            learned_gain,
            ci95,
            exact_value,
            exact_gain,
            fraction: exact_gain
                .filter(|&gain| gain > 1e-12)
                .map(|gain| learned_gain / gain),
        }
    }
}

/// How the learned response is played when judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Played {
    /// Its most probable action everywhere (always, where judged by
    /// sampling).
    Greedy,
    /// Its policy as trained, where that was worth more (judged exactly).
    AsTrained,
}

/// Trains a best response for `options.seat` of `game` against `frozen`
/// and judges it; `stop` is asked after every optimiser step, and a
/// stopped response is not judged (none).
pub fn respond_in_seat(
    game: &dyn Game,
    frozen: &FrozenPolicy,
    options: &BrOptions,
    stop: &dyn Fn() -> bool,
) -> Result<Option<SeatReport>, EvaluatorError> {
    let seat = options.seat;
    let mut player: Box<dyn Player> = match frozen {
        FrozenPolicy::Tabular { tree, policy } => Box::new(TabularPlayer::new(tree, policy)),
        FrozenPolicy::Sampled { make, .. } => make()?,
    };
    let mut last_reported = 0.0;
    let mut stopped = false;
    let learned = learn_best_response(game, player.as_mut(), options, |p| {
        if p.seconds - last_reported >= PROGRESS_EVERY.as_secs_f64() {
            last_reported = p.seconds;
            tracing::info!(
                seat,
                steps = p.steps,
                episodes = p.episodes,
                mean_return = p.mean_return,
                "learning a best response"
            );
        }
        stopped = stop();
        if stopped {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .map_err(|e| EvaluatorError::Usage(format!("training the best response: {e}")))?;
    if stopped {
        return Ok(None);
    }
    let report = match frozen {
        FrozenPolicy::Tabular { tree, policy } => judge_exactly(tree, policy, &learned)?,
        FrozenPolicy::Sampled {
            make,
            episodes,
            seed,
        } => judge_by_sampling(game, player.as_mut(), make, (*episodes, *seed), &learned)?,
    };
    Ok(Some(report))
}

/// The learned response's exact value in its seat against `frozen`
/// elsewhere, beside the exact best response's.
fn judge_exactly(
    tree: &PublicTree,
    frozen: &TabularPolicy,
    learned: &LearnedBestResponse,
) -> Result<SeatReport, EvaluatorError> {
    let seat = learned.seat;
    let inputs = NetworkInputs::new(tree);
    let network =
        network_policy(tree, &inputs, &learned.shape, &learned.params).map_err(|source| {
            EvaluatorError::Network {
                kind: PolicyKind::Online,
                source,
            }
        })?;
    // Both the greedy policy and the policy as trained are exact values of
    // strategies the seat can play, so the better of them still bounds
    // the best response from below.
    // The response (policy 1) in its seat, the frozen policy (0) in the
    // others.
    let seating: Vec<usize> = (0..tree.num_players())
        .map(|s| usize::from(s == seat))
        .collect();
    let value_of =
        |played: TabularPolicy| expected_returns(tree, &[frozen.clone(), played], &seating)[seat];
    let greedy_value = value_of(greedy(tree, inputs.choices(&learned.shape), &network));
    let trained_value = value_of(network);
    let (learned_value, played) = if greedy_value >= trained_value {
        (greedy_value, Played::Greedy)
    } else {
        (trained_value, Played::AsTrained)
    };
    let (exact_value, policy_value) = player_values(tree, frozen, seat);
    Ok(SeatReport::new(
        learned,
        (learned_value, played),
        policy_value,
        0.0,
        Some(exact_value),
    ))
}

/// The learned response's value in its seat and the frozen policy's own
/// (a fresh player from `make` in the seat), each over the same
/// `episodes` deals from `seed` (all-in run-outs averaged over), and the
/// interval of the gain over the deals' differences.
fn judge_by_sampling(
    game: &dyn Game,
    frozen: &mut dyn Player,
    make: &dyn Fn() -> Result<Box<dyn Player>, EvaluatorError>,
    (episodes, seed): (usize, u64),
    learned: &LearnedBestResponse,
) -> Result<SeatReport, EvaluatorError> {
    let seat = learned.seat;
    let mut response = greedy_player(learned).map_err(|source| EvaluatorError::Network {
        kind: PolicyKind::Online,
        source,
    })?;
    let episodes = episodes.max(2);
    tracing::info!(seat, episodes, "judging the response over sampled deals");
    let with_response = sample_returns(game, seat, &mut response, frozen, episodes, seed);
    let mut own = make()?;
    tracing::info!(
        seat,
        episodes,
        "judging the policy's own play on the same deals"
    );
    let with_policy = sample_returns(game, seat, own.as_mut(), frozen, episodes, seed);
    let (learned_value, _) = mean_and_ci95(&with_response);
    let (policy_value, _) = mean_and_ci95(&with_policy);
    let gains: Vec<f64> = with_response
        .iter()
        .zip(&with_policy)
        .map(|(r, p)| r - p)
        .collect();
    let (_, gain_ci) = mean_and_ci95(&gains);
    Ok(SeatReport::new(
        learned,
        (learned_value, Played::Greedy),
        policy_value,
        gain_ci,
        None,
    ))
}
