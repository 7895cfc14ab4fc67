//! The evaluator as the learner's judge in a local run: every evaluation
//! of the run evaluator (exact NashConv of each policy kind, or the
//! head-to-head panel), recorded in the evaluator's metrics on the local
//! run's registry, with the target's average as the policy file the run
//! keeps.

use std::time::Instant;

use rnad_evaluator::best_response::service::Version;
use rnad_evaluator::error::EvaluatorError;
use rnad_evaluator::metrics::EvaluatorMetrics;
use rnad_evaluator::run_eval::RunEvaluator;
use rnad_learner::evaluate::{Evaluate, EvaluateError, Evaluated};
use rnad_learner::resume::Opened;
use rnad_learner::rnad::LearnerState;
use rnad_run::checkpoint::SavedAverage;
use rnad_run::config::EvaluationMode;

/// The local run's judge.
pub struct LocalEvaluation {
    evaluator: RunEvaluator,
    metrics: EvaluatorMetrics,
}

impl LocalEvaluation {
    /// The judge of the opened run: its evaluator goes on from the average
    /// the resumed checkpoint kept, and its metrics join the run's registry.
    /// None for exact evaluation of a game too large for it (hold'em),
    /// which trains unjudged: head-to-head mode judges such games.
    pub fn new(opened: &mut Opened) -> Result<Option<LocalEvaluation>, EvaluatorError> {
        let run = opened.hub.run();
        let config = run.config();
        if run.game().hands().is_none() && config.evaluation.mode == EvaluationMode::Exact {
            tracing::warn!(
                game = %config.game,
                "no exact evaluation: the game is too large for a public tree; training runs \
                 unjudged (evaluation.mode = \"head_to_head\" plays it against a panel, \
                 `rnad-evaluator match` plays its checkpoints)"
            );
            return Ok(None);
        }
        let learner = &opened.resumed.learner;
        let mut evaluator = RunEvaluator::new(run, config.evaluation.mode, None)?;
        // A learner that rolls back to a checkpoint finds the average as it
        // stood there.
        evaluator.keep_sums_at_checkpoints(config.checkpoint.interval_steps);
        evaluator.resume_average(opened.resumed.target_average.take(), learner.state().step);
        let metrics = EvaluatorMetrics::in_registry(opened.hub.metrics.registry.clone());
        Ok(Some(LocalEvaluation { evaluator, metrics }))
    }
}

impl Evaluate for LocalEvaluation {
    fn evaluate(
        &mut self,
        state: &LearnerState,
        wall_seconds: f64,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Evaluated>, EvaluateError> {
        let kinds = state.published();
        let timer = Instant::now();
        let average_network = state.average_network.as_ref().map(|a| &a.params);
        let version = Version {
            step: state.step,
            wall_seconds,
            decisions: state.decisions,
        };
        let evaluation = match self
            .evaluator
            .evaluate(kinds, average_network, version, stop)
        {
            Ok(evaluation) => evaluation,
            Err(EvaluatorError::Stopped(stopped)) => {
                tracing::info!(
                    step = state.step,
                    "evaluation {stopped}: the run is stopping"
                );
                return Ok(None);
            }
            Err(error) => return Err(error.into()),
        };
        self.metrics.record(
            &evaluation,
            self.evaluator.game(),
            state.step,
            timer.elapsed(),
        );
        let best_responses = self.evaluator.finished_best_responses();
        for line in &best_responses {
            self.metrics.record_best_response(line);
        }
        Ok(Some(Evaluated {
            entry: (!evaluation.is_empty())
                .then(|| evaluation.entry(state.step, wall_seconds, state.decisions)),
            target_average: self.evaluator.target_average_file(&evaluation),
            best_responses,
        }))
    }

    fn saved_average(&self) -> Option<SavedAverage> {
        self.evaluator.saved_average()
    }

    fn went_back_to(&mut self, step: u64) {
        self.evaluator.learner_went_back_to(step);
    }
}
