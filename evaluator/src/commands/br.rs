//! `rnad-evaluator br`: a best response learned against a frozen policy
//! ([`crate::best_response`]), its gain over the policy's own value in
//! each seat, and, where the game has a public tree, the exact best
//! response's gain beside it and the fraction the learned one reached.

use std::io::Write;

use clap::Args;
use rnad_games::exploitability::player_values;
use rnad_games::headtohead::play::expected_returns;
use rnad_games::headtohead::stats::mean_and_ci95;
use rnad_games::headtohead::tabular_player::TabularPlayer;
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use serde::Serialize;

use super::{build_tree, emit, game_help};
use crate::best_response::{
    greedy_player, learn_best_response, sample_returns, BrOptions, Budget, LearnedBestResponse,
};
use crate::checkpoint_policy::CheckpointPolicies;
use crate::error::EvaluatorError;
use crate::neural::{greedy, network_policy, NetworkInputs};
use crate::players::{PlayerSpec, Tabulator};

/// Arguments of `br`.
#[derive(Debug, Args)]
pub struct BrArgs {
    /// The game.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// The frozen policy, in every seat but the learning one (as for
    /// `match`).
    #[arg(long)]
    pub policy: PlayerSpec,
    /// The seat that learns, or `all` (one best response per seat; their
    /// gains sum to a NashConv estimate).
    #[arg(long, default_value = "all")]
    pub seat: String,
    /// Training per seat: steps (2000) or time (90s, 10m).
    #[arg(long, default_value = "2000")]
    pub budget: Budget,
    /// Start the response from the frozen checkpoint's own network (its
    /// parameters of the policy's kind) rather than a fresh MLP: it starts
    /// at the policy's value and learns only what improves on it. For
    /// `checkpoint:FILE` policies.
    #[arg(long)]
    pub from_policy: bool,
    /// Widths of the best response's MLP.
    #[arg(long, value_delimiter = ',', default_value = "128,128")]
    pub hidden: Vec<usize>,
    /// Episodes played for each optimiser step.
    #[arg(long, default_value_t = 128)]
    pub episodes_per_step: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 3e-3)]
    pub learning_rate: f64,
    /// Entropy bonus at the start (returns in units of the game's largest
    /// payoff), decaying linearly to zero. Default 0.1, or 0.01 with
    /// --from-policy (a larger bonus first undoes the policy it starts
    /// from).
    #[arg(long)]
    pub entropy: Option<f64>,
    /// Episodes that judge a game without a public tree: the learned
    /// response in its seat, and the frozen policy in every seat.
    #[arg(long, default_value_t = 20_000)]
    pub judge_episodes: usize,
    /// Seed of the networks, the cards and the actions.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// One seat's learned best response, judged.
#[derive(Debug, Serialize)]
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

/// Every seat's report and their sums.
#[derive(Debug, Serialize)]
pub struct BrReport {
    /// The game.
    pub game: String,
    /// The frozen policy.
    pub policy: String,
    /// Each learning seat.
    pub seats: Vec<SeatReport>,
    /// The learned gains' sum: a lower bound on NashConv (with every seat).
    pub learned_nash_conv: f64,
    /// The exact NashConv (with every seat, where there is a tree).
    pub exact_nash_conv: Option<f64>,
}

/// Runs `br`.
pub fn run(args: &BrArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let game = args.game.load();
    let players = game.num_players();
    let seats: Vec<usize> = match args.seat.as_str() {
        "all" => (0..players).collect(),
        seat => match seat.parse::<usize>() {
            Ok(s) if s < players => vec![s],
            _ => {
                return Err(EvaluatorError::Usage(format!(
                    "--seat {seat:?}: give a seat from 0 to {} or `all`",
                    players - 1
                )))
            }
        },
    };
    if args.hidden.is_empty() || args.hidden.contains(&0) || args.episodes_per_step == 0 {
        return Err(EvaluatorError::Usage(
            "--hidden needs widths above zero and --episodes-per-step at least 1".into(),
        ));
    }
    let exact = game.hands().is_some();
    let tree = if exact {
        Some(build_tree(&args.game)?)
    } else {
        None
    };
    let frozen_table = match &tree {
        Some(tree) => Some(Tabulator::new(tree).policy(&args.policy)?),
        None => None,
    };
    let start = match (&args.policy, args.from_policy) {
        (_, false) => None,
        (PlayerSpec::Checkpoint { path, kind, .. }, true) => {
            Some(CheckpointPolicies::read(path)?.network(*kind)?)
        }
        (other, true) => {
            return Err(EvaluatorError::Usage(format!(
                "--from-policy starts from a checkpoint's network; {other} is none"
            )))
        }
    };
    let mut reports = Vec::with_capacity(seats.len());
    for seat in seats {
        let options = BrOptions {
            seat,
            hidden: args.hidden.clone(),
            episodes_per_step: args.episodes_per_step,
            learning_rate: args.learning_rate,
            entropy: args
                .entropy
                .unwrap_or(if args.from_policy { 0.01 } else { 0.1 }),
            budget: args.budget,
            seed: args.seed.wrapping_add(seat as u64),
            start: start.clone(),
        };
        let mut frozen = match (&tree, &frozen_table) {
            (Some(tree), Some(table)) => Box::new(TabularPlayer::new(tree, table)),
            _ => args.policy.state_player(&args.game, args.seed)?,
        };
        let mut last_reported = 0.0;
        let learned = learn_best_response(game.as_ref(), frozen.as_mut(), &options, |p| {
            if p.seconds - last_reported >= 10.0 {
                last_reported = p.seconds;
                tracing::info!(
                    seat,
                    steps = p.steps,
                    episodes = p.episodes,
                    mean_return = p.mean_return,
                    "learning a best response"
                );
            }
        })
        .map_err(|e| EvaluatorError::Usage(format!("training the best response: {e}")))?;
        let report = match (&tree, &frozen_table) {
            (Some(tree), Some(table)) => judge_exactly(tree, table, &learned)?,
            _ => judge_by_sampling(args, game.as_ref(), frozen.as_mut(), &learned)?,
        };
        if !args.json {
            emit(out, &seat_line(&report))?;
        }
        reports.push(report);
    }
    let whole = reports.len() == players;
    let report = BrReport {
        game: args.game.to_string(),
        policy: args.policy.to_string(),
        learned_nash_conv: reports.iter().map(|r| r.learned_gain).sum(),
        exact_nash_conv: if whole {
            reports.iter().map(|r| r.exact_gain).sum()
        } else {
            None
        },
        seats: reports,
    };
    if args.json {
        return emit(
            out,
            &serde_json::to_string(&report).expect("report serialises"),
        );
    }
    if whole {
        let exact = report
            .exact_nash_conv
            .map_or(String::new(), |e| format!(" (exact {e:.4})"));
        emit(
            out,
            &format!(
                "learned NashConv {:.4}{exact}: a lower bound on the policy's",
                report.learned_nash_conv
            ),
        )?;
    }
    Ok(())
}

/// One seat's line of the text report.
fn seat_line(r: &SeatReport) -> String {
    let exact = match (r.exact_gain, r.fraction) {
        (Some(gain), Some(fraction)) => {
            format!(
                ", exact best response gains {gain:.4}: {:.1}%",
                100.0 * fraction
            )
        }
        (Some(gain), None) => format!(", exact best response gains {gain:.4}"),
        _ => String::new(),
    };
    let played = match r.played {
        Played::Greedy => "greedy",
        Played::AsTrained => "as trained",
    };
    format!(
        "seat {}: learned best response ({played}) gains {:.4} ± {:.4} over the policy's own \
         {:.4}{exact} ({} steps, {} episodes, {:.0} s)",
        r.seat, r.learned_gain, r.ci95, r.policy_value, r.steps, r.episodes, r.seconds
    )
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
                kind: rnad_run::history::PolicyKind::Online,
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
    let greedy_value = value_of(greedy(tree, &network));
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

/// The learned response's value in its seat and the frozen policy's own,
/// each over `judge_episodes` sampled episodes, and the gain's interval.
fn judge_by_sampling(
    args: &BrArgs,
    game: &dyn rnad_games::Game,
    frozen: &mut dyn rnad_games::headtohead::sampled::Player,
    learned: &LearnedBestResponse,
) -> Result<SeatReport, EvaluatorError> {
    let seat = learned.seat;
    let mut response = greedy_player(learned).map_err(|source| EvaluatorError::Network {
        kind: rnad_run::history::PolicyKind::Online,
        source,
    })?;
    let episodes = args.judge_episodes.max(2);
    let with_response = sample_returns(game, seat, &mut response, frozen, episodes, args.seed);
    let mut own = args.policy.state_player(&args.game, args.seed)?;
    let with_policy = sample_returns(game, seat, own.as_mut(), frozen, episodes, args.seed);
    let (learned_value, learned_ci) = mean_and_ci95(&with_response);
    let (policy_value, policy_ci) = mean_and_ci95(&with_policy);
    Ok(SeatReport::new(
        learned,
        (learned_value, Played::Greedy),
        policy_value,
        (learned_ci * learned_ci + policy_ci * policy_ci).sqrt(),
        None,
    ))
}
