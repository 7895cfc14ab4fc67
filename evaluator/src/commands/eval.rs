//! `rnad-evaluator eval`: exact NashConv of a policy file, or of every
//! policy kind in a learner checkpoint.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{ArgGroup, Args};
use rnad_games::policy_file::read_policy_file;
use rnad_games::{Game, GameSpec};
use rnad_run::history::PolicyKind;
use serde_json::{json, Value};

use super::{build_tree, emit, game_help};
use crate::checkpoint_policy::CheckpointPolicies;
use crate::error::EvaluatorError;
use crate::neural::NetworkInputs;
use rnad_games::exploitability::{nash_conv, NashConvReport};

/// Arguments of `eval`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["policy", "checkpoint"])))]
pub struct EvalArgs {
    /// Game the policy is for (required with --policy; with --checkpoint the
    /// checkpoint names its game, and a --game given must agree).
    #[arg(long, long_help = game_help())]
    pub game: Option<GameSpec>,
    /// Policy file: a JSON object mapping every information-state string to
    /// [[action, probability], ...] (OpenSpiel's tabular format), bare or
    /// under a `policy` field.
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// A learner checkpoint: every policy kind in it (online, target,
    /// target_postprocessed, reg) is evaluated.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Print exactly one JSON object instead of text. For a policy: keys
    /// game, nash_conv, exploitability, best_response_values,
    /// on_policy_values, seconds_per_eval; for a checkpoint: game,
    /// checkpoint, step and kinds, an object with one such report (without
    /// game and timing) per policy kind.
    #[arg(long)]
    pub json: bool,
    /// Evaluate this many times and report the mean time per evaluation.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
}

/// Runs `eval`.
pub fn run(args: &EvalArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    match (&args.policy, &args.checkpoint) {
        (Some(policy), None) => {
            let game = args.game.as_ref().ok_or_else(|| {
                EvaluatorError::Usage("--policy needs --game: the file's game".into())
            })?;
            eval_policy(args, game, policy, out)
        }
        (None, Some(checkpoint)) => eval_checkpoint(args, checkpoint, out),
        _ => Err(EvaluatorError::Usage(
            "give either --policy or --checkpoint".into(),
        )),
    }
}

fn eval_policy(
    args: &EvalArgs,
    game: &GameSpec,
    path: &Path,
    out: &mut dyn Write,
) -> Result<(), EvaluatorError> {
    let tree = build_tree(game)?;
    let policy = read_policy_file(&tree, path)?;
    let start = Instant::now();
    let mut report = nash_conv(&tree, &policy);
    for _ in 1..args.repeat {
        report = nash_conv(&tree, &policy);
    }
    let seconds_per_eval = start.elapsed().as_secs_f64() / f64::from(args.repeat);
    if args.json {
        let mut object = report_json(&report, tree.game().as_ref());
        object["game"] = json!(game.to_string());
        object["seconds_per_eval"] = json!(seconds_per_eval);
        emit(out, &object.to_string())
    } else {
        emit(out, &format!("game: {game}"))?;
        emit(out, &describe(&report, tree.game().as_ref()))?;
        emit(
            out,
            &format!("seconds per evaluation: {seconds_per_eval:.3e}"),
        )
    }
}

fn eval_checkpoint(
    args: &EvalArgs,
    path: &Path,
    out: &mut dyn Write,
) -> Result<(), EvaluatorError> {
    let checkpoint = CheckpointPolicies::read(path)?;
    let game = checkpoint.game().clone();
    if let Some(given) = &args.game {
        if *given != game {
            return Err(EvaluatorError::Usage(format!(
                "--game {given}, but {} is a checkpoint of {game}",
                path.display()
            )));
        }
    }
    let tree = build_tree(&game)?;
    let inputs = NetworkInputs::new(&tree);
    let mut kinds = PolicyKind::OF_PARAMETERS.to_vec();
    if checkpoint.has_average_network() {
        kinds.push(PolicyKind::AverageNetwork);
    }
    let mut reports = Vec::with_capacity(kinds.len());
    for kind in kinds {
        let policy = checkpoint.policy(&tree, &inputs, kind)?;
        reports.push((kind, nash_conv(&tree, &policy)));
    }
    let game_rules = tree.game();
    if args.json {
        let kinds: serde_json::Map<String, Value> = reports
            .iter()
            .map(|(kind, report)| {
                (
                    kind.name().to_string(),
                    report_json(report, game_rules.as_ref()),
                )
            })
            .collect();
        let object = json!({
            "game": game.to_string(),
            "checkpoint": path.display().to_string(),
            "step": checkpoint.step(),
            "kinds": kinds,
        });
        emit(out, &object.to_string())
    } else {
        emit(out, &format!("game: {game}"))?;
        emit(
            out,
            &format!(
                "checkpoint: {} (learner step {})",
                path.display(),
                checkpoint.step()
            ),
        )?;
        for (kind, report) in &reports {
            emit(out, &format!("\n{kind}:"))?;
            emit(out, &describe(report, game_rules.as_ref()))?;
        }
        Ok(())
    }
}

/// A report as JSON: nash_conv, exploitability, best_response_values,
/// on_policy_values.
fn report_json(report: &NashConvReport, game: &dyn Game) -> Value {
    json!({
        "nash_conv": report.nash_conv,
        "exploitability": report.exploitability(game),
        "best_response_values": report.best_response_values,
        "on_policy_values": report.on_policy_values,
    })
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
