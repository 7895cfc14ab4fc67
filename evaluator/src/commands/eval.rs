//! `rnad-evaluator eval`: exact NashConv of a policy file.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rnad_common::game::{Game, GameSpec};
use rnad_common::policy::TabularPolicy;
use rnad_common::public_tree::PublicTree;
use serde_json::json;

use super::{build_tree, emit, game_help, parse_game};
use crate::error::EvaluatorError;
use crate::exploitability::{nash_conv, NashConvReport};

/// Arguments of `eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Game the policy is for.
    #[arg(long, value_parser = parse_game, long_help = game_help())]
    pub game: GameSpec,
    /// Policy file: a JSON object mapping every information-state string to
    /// [[action, probability], ...] (OpenSpiel's tabular format), bare or
    /// under a `policy` field.
    #[arg(long)]
    pub policy: PathBuf,
    /// Print exactly one JSON object (keys game, nash_conv, exploitability,
    /// best_response_values, on_policy_values, seconds_per_eval) instead of
    /// text.
    #[arg(long)]
    pub json: bool,
    /// Evaluate this many times and report the mean time per evaluation.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
}

/// Reads and validates a policy file for `tree`'s game.
pub fn load_policy(tree: &PublicTree, path: &PathBuf) -> Result<TabularPolicy, EvaluatorError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvaluatorError::Read {
        path: path.clone(),
        source,
    })?;
    TabularPolicy::from_json(tree, &text).map_err(|source| EvaluatorError::Policy {
        path: path.clone(),
        source,
    })
}

/// Runs `eval`.
pub fn run(args: &EvalArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let tree = build_tree(&args.game)?;
    let policy = load_policy(&tree, &args.policy)?;
    let start = Instant::now();
    let mut report = nash_conv(&tree, &policy);
    for _ in 1..args.repeat {
        report = nash_conv(&tree, &policy);
    }
    let seconds_per_eval = start.elapsed().as_secs_f64() / f64::from(args.repeat);
    if args.json {
        let object = json!({
            "game": args.game.to_string(),
            "nash_conv": report.nash_conv,
            "exploitability": report.exploitability(tree.game().as_ref()),
            "best_response_values": report.best_response_values,
            "on_policy_values": report.on_policy_values,
            "seconds_per_eval": seconds_per_eval,
        });
        emit(out, &object.to_string())
    } else {
        emit(out, &format!("game: {}", args.game))?;
        emit(out, &describe(&report, tree.game().as_ref()))?;
        emit(
            out,
            &format!("seconds per evaluation: {seconds_per_eval:.3e}"),
        )
    }
}

/// The text lines for a NashConv report, naming each quantity unambiguously.
pub fn describe(report: &NashConvReport, game: &dyn Game) -> String {
    let mut lines = vec![format!(
        "NashConv (sum of best-response gains): {}",
        report.nash_conv
    )];
    match report.exploitability(game) {
        Some(value) => lines.push(format!(
            "exploitability (NashConv / 2, OpenSpiel's convention): {value}"
        )),
        None => lines.push(format!(
            "exploitability: not defined ({} players; OpenSpiel's NashConv / 2 needs a two-player zero-sum game)",
            game.num_players()
        )),
    }
    for (player, value) in report.best_response_values.iter().enumerate() {
        lines.push(format!("best-response value, player {player}: {value}"));
    }
    for (player, value) in report.on_policy_values.iter().enumerate() {
        lines.push(format!("on-policy value, player {player}: {value}"));
    }
    lines.join("\n")
}
