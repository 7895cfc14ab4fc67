//! `rnad-evaluator solve`: tabular CFR+ to a reference equilibrium.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rnad_common::game::GameName;
use serde_json::json;

use super::{build_tree, emit, parse_game, write_atomically};
use crate::cfr::CfrPlusSolver;
use crate::error::EvaluatorError;
use crate::exploitability::BestResponse;

/// Arguments of `solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Game to solve: kuhn_poker or leduc_poker.
    #[arg(long, value_parser = parse_game)]
    pub game: GameName,
    /// CFR+ iterations (each updates both players once).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,
    /// Where to write the average policy (OpenSpiel's JSON format, with the
    /// game, iterations and NashConv alongside).
    #[arg(long)]
    pub out: PathBuf,
    /// Print exactly one JSON object (keys game, iterations, nash_conv,
    /// seconds) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `solve`, with a progress bar on stderr when it is a terminal.
pub fn run(args: &SolveArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let tree = build_tree(args.game)?;
    let mut solver = CfrPlusSolver::new(&tree);
    let progress = ProgressBar::new(args.iterations).with_style(
        ProgressStyle::with_template("CFR+ {bar:40} {pos}/{len} iterations, {per_sec}, eta {eta}")
            .expect("valid progress template"),
    );
    let start = Instant::now();
    for _ in 0..args.iterations {
        solver.iterate();
        progress.inc(1);
    }
    let seconds = start.elapsed().as_secs_f64();
    progress.finish_and_clear();

    let policy = solver.average_policy();
    let report = BestResponse::new(&tree).nash_conv(&policy);
    let file = json!({
        "game": args.game.as_str(),
        "description": format!(
            "average policy of rnad's tabular CFR+ (regret matching+, alternating updates, linear averaging) after {} iterations",
            args.iterations
        ),
        "iterations": args.iterations,
        "nash_conv": report.nash_conv,
        "policy": policy.to_json(&tree),
    });
    let text = serde_json::to_string_pretty(&file).expect("JSON values serialise");
    write_atomically(&args.out, text.as_bytes())?;

    if args.json {
        let summary = json!({
            "game": args.game.as_str(),
            "iterations": args.iterations,
            "nash_conv": report.nash_conv,
            "seconds": seconds,
        });
        emit(out, &summary.to_string())
    } else {
        emit(
            out,
            &format!(
                "CFR+ on {}: {} iterations in {seconds:.3} s\naverage policy written to {}",
                args.game,
                args.iterations,
                args.out.display()
            ),
        )?;
        emit(out, &super::eval::describe(&report))
    }
}
