//! `rnad-evaluator solve`: tabular CFR or CFR+ to reference strategies,
//! with snapshots of the average policy along the way.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use serde_json::json;

use super::{build_tree, emit, game_help};
use crate::error::EvaluatorError;
use crate::output::write_atomically;
use rnad_games::cfr::{CfrSolver, CfrVariant};
use rnad_games::exploitability::{nash_conv, NashConvReport};

/// The solvers on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algorithm {
    /// Vanilla CFR, as OpenSpiel's CFRSolver.
    Cfr,
    /// CFR+, as OpenSpiel's CFRPlusSolver.
    #[value(name = "cfr+")]
    CfrPlus,
}

impl From<Algorithm> for CfrVariant {
    fn from(a: Algorithm) -> CfrVariant {
        match a {
            Algorithm::Cfr => CfrVariant::Cfr,
            Algorithm::CfrPlus => CfrVariant::CfrPlus,
        }
    }
}

/// Arguments of `solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Game to solve.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// The solver.
    #[arg(long, value_enum, default_value = "cfr+")]
    pub algorithm: Algorithm,
    /// Iterations (each updates every player once).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), required_unless_present = "seconds")]
    pub iterations: Option<u64>,
    /// Instead of a number of iterations, iterate for this many seconds.
    #[arg(long, conflicts_with = "iterations")]
    pub seconds: Option<f64>,
    /// Also write the average policy, with its NashConv, every this many
    /// iterations: OUT's name with `-iter-N` before `.json`.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub snapshot_every: Option<u64>,
    /// Where to write the final average policy (OpenSpiel's JSON format,
    /// with the game, algorithm, iterations and NashConv alongside).
    #[arg(long)]
    pub out: PathBuf,
    /// Print exactly one JSON object (keys game, algorithm, iterations,
    /// nash_conv, seconds) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `solve`, with a progress bar on stderr when it is a terminal.
pub fn run(args: &SolveArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let budget = match (args.iterations, args.seconds) {
        (_, Some(s)) if !(s.is_finite() && s > 0.0) => {
            return Err(EvaluatorError::Usage(format!(
                "--seconds {s}: must be a positive number"
            )))
        }
        (Some(n), _) => Budget::Iterations(n),
        (None, Some(s)) => Budget::Time(Duration::from_secs_f64(s)),
        (None, None) => unreachable!("clap requires one of them"),
    };
    let variant = CfrVariant::from(args.algorithm);
    let tree = build_tree(&args.game)?;
    let mut solver = CfrSolver::new(&tree, variant);
    let progress = match budget {
        Budget::Iterations(n) => ProgressBar::new(n),
        Budget::Time(_) => ProgressBar::new_spinner(),
    }
    .with_style(
        ProgressStyle::with_template("{msg} {bar:40} {pos} iterations, {per_sec}, {elapsed}")
            .expect("valid progress template"),
    )
    .with_message(variant.name());
    let start = Instant::now();
    while !budget.spent(solver.iterations(), start.elapsed()) {
        solver.iterate();
        progress.inc(1);
        let iteration = solver.iterations();
        if args
            .snapshot_every
            .is_some_and(|k| iteration.is_multiple_of(k))
        {
            let path = snapshot_path(&args.out, iteration);
            let report = write_policy(&tree, &solver, variant, &path)?;
            tracing::info!(
                iteration,
                nash_conv = report.nash_conv,
                "snapshot written to {}",
                path.display()
            );
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    progress.finish_and_clear();
    let report = write_policy(&tree, &solver, variant, &args.out)?;

    if args.json {
        let summary = json!({
            "game": args.game.to_string(),
            "algorithm": variant.name(),
            "iterations": solver.iterations(),
            "nash_conv": report.nash_conv,
            "seconds": seconds,
        });
        emit(out, &summary.to_string())
    } else {
        emit(
            out,
            &format!(
                "{} on {}: {} iterations in {seconds:.3} s\naverage policy written to {}",
                variant.name(),
                args.game,
                solver.iterations(),
                args.out.display()
            ),
        )?;
        emit(out, &super::eval::describe(&report, tree.game().as_ref()))
    }
}

/// How long to iterate.
#[derive(Clone, Copy, Debug)]
enum Budget {
    Iterations(u64),
    Time(Duration),
}

impl Budget {
    fn spent(self, iterations: u64, elapsed: Duration) -> bool {
        match self {
            Budget::Iterations(n) => iterations >= n,
            Budget::Time(limit) => elapsed >= limit,
        }
    }
}

/// `OUT` with `-iter-N` before its extension.
fn snapshot_path(out: &Path, iteration: u64) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "policy".into(), |s| s.to_string_lossy().into_owned());
    let extension = out
        .extension()
        .map_or_else(|| "json".into(), |e| e.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}-iter-{iteration}.{extension}"))
}

/// Writes the solver's average policy with its NashConv to `path`.
fn write_policy(
    tree: &PublicTree,
    solver: &CfrSolver,
    variant: CfrVariant,
    path: &Path,
) -> Result<NashConvReport, EvaluatorError> {
    let policy: TabularPolicy = solver.average_policy();
    let report = nash_conv(tree, &policy);
    let file = json!({
        "game": tree.spec().to_string(),
        "description": format!(
            "average policy of rnad's tabular {} (as OpenSpiel's {}) after {} iterations",
            variant.name(),
            variant.openspiel_name(),
            solver.iterations()
        ),
        "algorithm": variant.name(),
        "iterations": solver.iterations(),
        "nash_conv": report.nash_conv,
        "policy": policy.to_json(tree),
    });
    let text = serde_json::to_string_pretty(&file).expect("JSON values serialise");
    write_atomically(path, text.as_bytes())?;
    Ok(report)
}
