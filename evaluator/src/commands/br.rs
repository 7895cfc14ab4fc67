//! `rnad-evaluator br`: a best response learned against a frozen policy
//! ([`crate::best_response`]), its gain over the policy's own value in
//! each seat, and, where the game has a public tree, the exact best
//! response's gain beside it and the fraction the learned one reached.

use std::io::Write;

use clap::Args;
use rnad_games::GameSpec;
use serde::Serialize;

use super::{build_tree, emit, game_help};
use crate::best_response::judge::{respond_in_seat, FrozenPolicy, Played, SeatReport};
use crate::best_response::{
    BrOptions, Budget, DEFAULT_ENTROPY, DEFAULT_ENTROPY_FROM_A_NETWORK, DEFAULT_EPISODES_PER_STEP,
    DEFAULT_LEARNING_RATE,
};
use crate::checkpoint_policy::CheckpointPolicies;
use crate::error::EvaluatorError;
use crate::players::{PlayerSpec, Tabulator};
use rnad_run::history::PolicyKind;

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
    #[arg(long, conflicts_with = "start")]
    pub from_policy: bool,
    /// Start the response from this checkpoint's target network (of the
    /// same game) rather than a fresh MLP: a strong player of the game to
    /// improve on against any frozen policy (the rule-based player, say).
    #[arg(long, value_name = "CHECKPOINT")]
    pub start: Option<std::path::PathBuf>,
    /// Widths of the best response's MLP.
    #[arg(long, value_delimiter = ',', default_value = "128,128")]
    pub hidden: Vec<usize>,
    /// Episodes played for each optimiser step.
    #[arg(long, default_value_t = DEFAULT_EPISODES_PER_STEP)]
    pub episodes_per_step: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = DEFAULT_LEARNING_RATE)]
    pub learning_rate: f64,
    /// Entropy bonus at the start (returns in units of the game's largest
    /// payoff), decaying linearly to zero. Default 0.1, or 0.01 with
    /// --from-policy or --start (a larger bonus first undoes the play it
    /// starts from).
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
    let start = match (&args.policy, args.from_policy, &args.start) {
        (_, false, None) => None,
        (_, false, Some(path)) => {
            let checkpoint = CheckpointPolicies::read(path)?;
            if !checkpoint.game().plays_as(&args.game) {
                return Err(EvaluatorError::Usage(format!(
                    "--start {}: the checkpoint is for {}, not {}",
                    path.display(),
                    checkpoint.game(),
                    args.game
                )));
            }
            Some(checkpoint.network(PolicyKind::Target)?)
        }
        (PlayerSpec::Checkpoint { path, kind, .. }, true, _) => {
            Some(CheckpointPolicies::read(path)?.network(*kind)?)
        }
        (other, true, _) => {
            return Err(EvaluatorError::Usage(format!(
                "--from-policy starts from a checkpoint's network; {other} is none"
            )))
        }
    };
    let from_a_network = start.is_some();
    let mut reports = Vec::with_capacity(seats.len());
    for seat in seats {
        let options = BrOptions {
            seat,
            hidden: args.hidden.clone(),
            episodes_per_step: args.episodes_per_step,
            learning_rate: args.learning_rate,
            entropy: args.entropy.unwrap_or(if from_a_network {
                DEFAULT_ENTROPY_FROM_A_NETWORK
            } else {
                DEFAULT_ENTROPY
            }),
            budget: args.budget,
            seed: args.seed.wrapping_add(seat as u64),
            start: start.clone(),
        };
        let make = || args.policy.state_player(&args.game, args.seed);
        let frozen = match (&tree, &frozen_table) {
            (Some(tree), Some(policy)) => FrozenPolicy::Tabular { tree, policy },
            _ => FrozenPolicy::Sampled {
                make: &make,
                episodes: args.judge_episodes,
                seed: args.seed,
            },
        };
        let report = respond_in_seat(game.as_ref(), &frozen, &options, &|| false)?
            .expect("a best response nothing stops is judged");
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
