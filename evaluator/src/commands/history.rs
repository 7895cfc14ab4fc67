//! `rnad-evaluator history`: one run's NashConv history as the tables a
//! quality goal asks for (first time under a threshold and the highest
//! after it, wall-clock bins, one row per period of the entropy schedule).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use rnad_run::history::PolicyKind;

use super::emit;
use crate::error::EvaluatorError;
use crate::experiments::runs::load_run;
use crate::experiments::tables::{by_minutes, by_period, first_and_highest, TableSpec};

/// Arguments of `history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The run directory (config.toml and history.jsonl).
    pub run: PathBuf,
    /// The played policy whose threshold is reported.
    #[arg(long, default_value_t = PolicyKind::TargetAverage)]
    pub kind: PolicyKind,
    /// The goal's NashConv.
    #[arg(long, default_value_t = 0.1)]
    pub threshold: f64,
    /// Width of the wall-clock bins, minutes.
    #[arg(long, default_value_t = 10.0)]
    pub minutes: f64,
    /// Leave out the periods that start before this learner step (a quiet
    /// phase from 300k steps: --from-step 300000).
    #[arg(long, default_value_t = 0)]
    pub from_step: u64,
}

/// Runs `history`.
pub fn run(args: &HistoryArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    if !(args.minutes.is_finite() && args.minutes > 0.0) {
        return Err(EvaluatorError::Usage(format!(
            "--minutes {}: must be a positive number",
            args.minutes
        )));
    }
    let run = load_run(&args.run)?;
    if run.history.iter().all(|e| e.nash_conv.is_none()) {
        return Err(EvaluatorError::Usage(format!(
            "{}: no exact evaluations: the run evaluates head to head (evaluation.mode); \
             plot --metric head_to_head.OPPONENT.mean draws it",
            args.run.display()
        )));
    }
    let spec = TableSpec {
        kind: args.kind,
        threshold: args.threshold,
        minutes: args.minutes,
        from_step: args.from_step,
    };
    emit(out, &first_and_highest(&run.history, &spec))?;
    emit(out, "")?;
    emit(out, by_minutes(&run.history, &spec).trim_end())?;
    emit(out, "")?;
    emit(out, by_period(&run, &spec).trim_end())
}
