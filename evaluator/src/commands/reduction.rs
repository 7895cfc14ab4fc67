//! `rnad-evaluator reduction`: seed 002's experiment (see
//! [`crate::reduction`]), with its table and figures.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::emit;
use crate::error::EvaluatorError;
use crate::experiments::plot::{plot_intervals, IntervalSeries, IntervalTitles};
use crate::output::write_atomically;
use crate::reduction::{run as run_experiment, ReductionReport, ReductionSpec};

/// Arguments of `reduction`.
#[derive(Debug, Args)]
pub struct ReductionArgs {
    /// Ranks of the Leduc deck (two suits each).
    #[arg(long, default_value_t = 7)]
    pub ranks: i64,
    /// Player counts to play, comma-separated (each at least 3); CFR runs
    /// for every count from 2 to the largest.
    #[arg(long, value_delimiter = ',', default_value = "3,4")]
    pub players: Vec<usize>,
    /// CFR's wall-clock budget per player count, seconds.
    #[arg(long, default_value_t = 300.0)]
    pub seconds: f64,
    /// Deals per match (each played with the hero in every seat).
    #[arg(long, default_value_t = 20_000)]
    pub deals: usize,
    /// Seed of the deals.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Directory for results.json, results.csv, results.md and
    /// payoff-nN.png.
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `reduction`.
pub fn run(args: &ReductionArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        return Err(EvaluatorError::Usage(format!(
            "--seconds {}: must be a positive number",
            args.seconds
        )));
    }
    if args.deals < 2 {
        return Err(EvaluatorError::Usage(
            "--deals must be at least 2 (an interval needs two)".into(),
        ));
    }
    std::fs::create_dir_all(&args.out).map_err(|source| EvaluatorError::Write {
        path: args.out.clone(),
        source,
    })?;
    let spec = ReductionSpec {
        ranks: args.ranks,
        players: args.players.clone(),
        seconds: args.seconds,
        deals: args.deals,
        seed: args.seed,
    };
    let report = run_experiment(&spec, &|message| tracing::info!("{message}"))?;
    let json = serde_json::to_string_pretty(&report).expect("report serialises");
    write_atomically(&args.out.join("results.json"), json.as_bytes())?;
    write_atomically(&args.out.join("results.csv"), report.csv().as_bytes())?;
    let markdown = report.markdown();
    write_atomically(&args.out.join("results.md"), markdown.as_bytes())?;
    for &n in &args.players {
        plot_intervals(
            &series(&report, n),
            &IntervalTitles {
                title: format!(
                    "Leduc, {n} players, {} ranks: one hero against {} CFR players",
                    report.ranks,
                    n - 1
                ),
                x: format!("iterations of the {n}-player CFR in the other seats"),
                y: "hero's payoff per game (chips, 95% interval)".into(),
            },
            &args.out.join(format!("payoff-n{n}.png")),
        )?;
    }
    emit(out, &markdown)
}

/// Per hero, its payoff against each field snapshot.
fn series(report: &ReductionReport, players: usize) -> Vec<IntervalSeries> {
    let mut series: Vec<IntervalSeries> = Vec::new();
    for row in report.rows.iter().filter(|r| r.players == players) {
        let point = (row.field_iterations as f64, row.mean, row.ci95);
        match series.iter_mut().find(|s| s.label == row.hero) {
            Some(s) => s.points.push(point),
            None => series.push(IntervalSeries {
                label: row.hero.clone(),
                points: vec![point],
            }),
        }
    }
    series
}
