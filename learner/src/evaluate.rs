//! How the training loop has its policies judged without knowing the
//! judge: the all-in-one local run passes the exact evaluator in through
//! [`Evaluate`], and a served learner passes nothing and leaves judging to
//! `rnad-evaluator watch`. The loop writes what an evaluation produces into
//! the run directory and keeps the judge's state in its checkpoints.

use rnad_run::best_response_log::BestResponseLine;
use rnad_run::checkpoint::SavedAverage;
use rnad_run::history::HistoryEntry;
use serde_json::Value;

use crate::rnad::LearnerState;

/// Why an evaluation failed (the judge's own error, kept whole).
pub type EvaluateError = Box<dyn std::error::Error + Send + Sync>;

/// What one evaluation produced.
#[derive(Clone, Debug)]
pub struct Evaluated {
    /// The history line; none where the evaluation judges nothing of its
    /// own (mode best_response: its results go to `best_response.jsonl`
    /// as they finish).
    pub entry: Option<HistoryEntry>,
    /// The `target_average` policy file, where the judge keeps that
    /// average and has a policy to write.
    pub target_average: Option<Value>,
    /// Learned best responses that finished since the last evaluation
    /// (against earlier versions, each naming its own).
    pub best_responses: Vec<BestResponseLine>,
}

/// A judge of the learner's policies during training.
pub trait Evaluate {
    /// Evaluates the learner's parameter sets at its current step, after
    /// `wall_seconds` of training; none where `stop` (the shutdown, asked
    /// between the games of a long evaluation) ended it first.
    fn evaluate(
        &mut self,
        state: &LearnerState,
        wall_seconds: f64,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Evaluated>, EvaluateError>;

    /// The judge's state a checkpoint keeps (its running average of the
    /// target policy), so that a resumed run's judge goes on from it.
    fn saved_average(&self) -> Option<SavedAverage>;

    /// The learner rolled back to its checkpoint at `step`: what the judge
    /// keeps of later steps belongs to steps the run abandoned.
    fn went_back_to(&mut self, step: u64);
}
