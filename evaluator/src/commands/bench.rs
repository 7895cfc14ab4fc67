//! `rnad-evaluator bench`: the speed of the exact passes, written to a file.
//!
//! Times one exact NashConv (both best responses and both on-policy values)
//! of a non-trivial tabular policy, and one CFR+ iteration, each repeated
//! until a time budget is spent; reports mean, median and minimum seconds.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use rnad_common::game::GameName;
use serde::Serialize;

use super::{build_tree, emit, parse_game, write_atomically};
use crate::cfr::CfrPlusSolver;
use crate::error::EvaluatorError;
use crate::exploitability::BestResponse;

/// Arguments of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Game to time: kuhn_poker or leduc_poker.
    #[arg(long, value_parser = parse_game, default_value = "leduc_poker")]
    pub game: GameName,
    /// Time spent on each measurement, in seconds.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Where to write the figures (JSON); default `target/bench/GAME.json`.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Timings of one repeated operation.
#[derive(Debug, Serialize)]
pub struct Timing {
    /// How many times it ran.
    pub runs: usize,
    /// Mean seconds per run.
    pub mean_seconds: f64,
    /// Median seconds per run.
    pub median_seconds: f64,
    /// Fastest run, in seconds.
    pub min_seconds: f64,
}

/// Everything `bench` measures.
#[derive(Debug, Serialize)]
pub struct BenchReport {
    /// The game.
    pub game: GameName,
    /// Histories in the tree.
    pub nodes: usize,
    /// Information states.
    pub info_states: usize,
    /// Seconds to enumerate the tree (once per process).
    pub tree_build_seconds: f64,
    /// One exact NashConv of a tabular policy.
    pub nash_conv: Timing,
    /// One CFR+ iteration (both players' updates).
    pub cfr_plus_iteration: Timing,
}

/// Runs `op` until `budget` is spent (at least 10 times) and summarises.
fn time(budget: Duration, mut op: impl FnMut()) -> Timing {
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 10 || start.elapsed() < budget {
        let t = Instant::now();
        op();
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    Timing {
        runs: samples.len(),
        mean_seconds: samples.iter().sum::<f64>() / samples.len() as f64,
        median_seconds: samples[samples.len() / 2],
        min_seconds: samples[0],
    }
}

/// Runs `bench`.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let budget = Duration::from_secs_f64(args.seconds.max(0.0));
    let start = Instant::now();
    let tree = build_tree(args.game)?;
    let tree_build_seconds = start.elapsed().as_secs_f64();

    let mut solver = CfrPlusSolver::new(&tree);
    let cfr_plus_iteration = time(budget, || solver.iterate());
    let policy = solver.average_policy();
    let mut best_response = BestResponse::new(&tree);
    let nash_conv = time(budget, || {
        std::hint::black_box(best_response.nash_conv(&policy));
    });

    let report = BenchReport {
        game: args.game,
        nodes: tree.num_nodes(),
        info_states: tree.info_states().len(),
        tree_build_seconds,
        nash_conv,
        cfr_plus_iteration,
    };
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("target/bench/{}.json", args.game)));
    let text = serde_json::to_string_pretty(&report).expect("bench report serialises");
    write_atomically(&path, text.as_bytes())?;
    emit(
        out,
        &format!(
            "{}: {} nodes, {} information states, tree built in {:.1} ms\n\
             exact NashConv:     mean {:.1} µs, median {:.1} µs, min {:.1} µs over {} runs\n\
             CFR+ iteration:     mean {:.1} µs, median {:.1} µs, min {:.1} µs over {} runs\n\
             figures written to {}",
            report.game,
            report.nodes,
            report.info_states,
            tree_build_seconds * 1e3,
            report.nash_conv.mean_seconds * 1e6,
            report.nash_conv.median_seconds * 1e6,
            report.nash_conv.min_seconds * 1e6,
            report.nash_conv.runs,
            report.cfr_plus_iteration.mean_seconds * 1e6,
            report.cfr_plus_iteration.median_seconds * 1e6,
            report.cfr_plus_iteration.min_seconds * 1e6,
            report.cfr_plus_iteration.runs,
            path.display()
        ),
    )
}
