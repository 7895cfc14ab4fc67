//! `rnad-evaluator plot`: NashConv of one or more policy kinds (or any
//! numeric column of the training log or history) against steps or wall
//! time for a set of runs, one colour per variant and kind, the mean over
//! seeds with its min–max band (a single seed's match or LBR column with
//! its own logged 95% interval).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::emit;
use crate::error::EvaluatorError;
use crate::experiments::group::group;
use crate::experiments::plot::{plot, Format, PlotSpec};
use crate::experiments::runs::load_runs;
use rnad_run::history::PolicyKind;

use crate::experiments::stats::{Axis, Measure};
use crate::experiments::ExperimentError;

/// Arguments of `plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Run directories (each with config.toml and history.jsonl), or
    /// directories holding them, such as a sweep's output.
    #[arg(long, num_args = 1.., required = true)]
    pub runs: Vec<PathBuf>,
    /// The figure: .png or .svg.
    #[arg(long)]
    pub out: PathBuf,
    /// Horizontal axis: learner steps, training wall time or decisions
    /// consumed (to compare runs with different batch sizes on equal data).
    #[arg(long, value_enum, default_value_t = Axis::Steps)]
    pub x: Axis,
    /// Logarithmic vertical axis, from the smallest positive value drawn
    /// (at most 8 decades below the largest); values at or below zero sit
    /// on its bottom, and a measure with no positive value is refused.
    #[arg(long)]
    pub log_y: bool,
    /// Draw this numeric column instead of NashConv: any field of
    /// training.jsonl (loss_value, loss_neurd, alpha, steps_per_second,
    /// decisions_per_second, queue_depth, policy_lag_p99, ...) or, failing
    /// that, of history.jsonl with dots for nested fields (nash_conv.reg,
    /// head_to_head.heuristic.mean: arrays by index or opponent,
    /// lbr.mbb_per_hand), or of best_response.jsonl (best_response.gain,
    /// best_response.seats.0.gain): a single run draws these three with
    /// their logged 95% interval. Not with --kind.
    #[arg(long, conflicts_with = "kind")]
    pub metric: Option<String>,
    /// Which policy's NashConv; repeat it to draw several kinds, a line
    /// per variant and kind. target_postprocessed is what OpenSpiel's
    /// R-NaD solver plays (seed 000's measure).
    #[arg(long, default_values_t = [PolicyKind::Target])]
    pub kind: Vec<PolicyKind>,
    /// The figure's title. Default: the game and the policy kinds (or the
    /// column).
    #[arg(long)]
    pub title: Option<String>,
}

/// Runs `plot`: loads every run (any unusable one is an error naming it),
/// groups them into variants and writes the figure.
pub fn run(args: &PlotArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    Format::of(&args.out)?;
    let runs = load_runs(&args.runs)?;
    let count = runs.len();
    let game = runs[0].config.game.clone();
    let measures: Vec<Measure> = match &args.metric {
        Some(name) => vec![Measure::Column(name.clone())],
        None => {
            // A kind given twice is drawn once.
            let mut kinds: Vec<PolicyKind> = Vec::new();
            for &kind in &args.kind {
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            kinds.into_iter().map(Measure::NashConv).collect()
        }
    };
    for measure in &measures {
        if let Some(run) = runs.iter().find(|r| measure.curve(r, args.x).is_empty()) {
            return Err(ExperimentError::Unusable {
                path: run.dir.clone(),
                message: format!(
                    "no numeric values of `{}` in training.jsonl or history.jsonl",
                    measure.title()
                ),
            }
            .into());
        }
    }
    let variants = group(runs);
    let default_title = match measures.as_slice() {
        [Measure::Column(name)] => format!("{game}: {name}"),
        _ => {
            let kinds: Vec<String> = measures.iter().map(Measure::name).collect();
            let noun = if kinds.len() == 1 {
                "policy"
            } else {
                "policies"
            };
            format!("{game}: NashConv of the {} {noun}", kinds.join(", "))
        }
    };
    let spec = PlotSpec {
        title: args.title.clone().unwrap_or(default_title),
        measures,
        axis: args.x,
        log_y: args.log_y,
    };
    plot(&variants, &spec, &args.out)?;
    emit(
        out,
        &format!(
            "{} runs in {} variants drawn to {}",
            count,
            variants.len(),
            args.out.display()
        ),
    )?;
    for variant in &variants {
        let name = if variant.label == variant.settings {
            variant.label.clone()
        } else {
            format!("{} ({})", variant.label, variant.settings)
        };
        emit(out, &format!("  {name}: seeds {:?}", variant.seeds()))?;
    }
    Ok(())
}
