//! Gathers what happens between two lines of the training log and writes
//! the line ([`rnad_run::training_log`]).

use std::time::Instant;

use prometheus::core::Collector;
use rnad_run::training_log::{quantile, TrainingRecord};

use crate::metrics::LearnerMetrics;
use crate::rnad::{LearnerState, StepStats};

/// The interval being gathered.
#[derive(Debug)]
pub struct TrainingLog {
    since: Instant,
    start_step: u64,
    start_decisions: u64,
    steps: u64,
    loss_value: f64,
    loss_neurd: f64,
    /// The averaged network's losses: their sum and how many steps had one.
    loss_average_network: (f64, u64),
    pinned_logits: f64,
    /// The largest importance weight of the interval.
    importance_max: f64,
    /// The sum over its steps of each batch's mean |log ρ|.
    importance_mean_abs_log_sum: f64,
    alpha: f64,
    lags: Vec<u64>,
    dropped_at_start: u64,
    rejected_at_start: u64,
}

impl TrainingLog {
    /// Starts an interval at the learner's current step.
    pub fn new(state: &LearnerState, metrics: &LearnerMetrics) -> TrainingLog {
        TrainingLog {
            since: Instant::now(),
            start_step: state.step,
            start_decisions: state.decisions,
            steps: 0,
            loss_value: 0.0,
            loss_neurd: 0.0,
            loss_average_network: (0.0, 0),
            pinned_logits: 0.0,
            importance_max: 0.0,
            importance_mean_abs_log_sum: 0.0,
            alpha: 0.0,
            lags: Vec::new(),
            dropped_at_start: metrics.dropped_trajectories_total.get(),
            rejected_at_start: rejected(metrics),
        }
    }

    /// Counts one learner step.
    pub fn step(&mut self, stats: &StepStats) {
        self.steps += 1;
        self.loss_value += stats.loss_value;
        self.loss_neurd += stats.loss_neurd;
        if let Some(loss) = stats.average_loss {
            self.loss_average_network.0 += loss;
            self.loss_average_network.1 += 1;
        }
        self.pinned_logits += stats.pinned_logits;
        self.importance_max = self.importance_max.max(stats.importance.max);
        self.importance_mean_abs_log_sum += stats.importance.mean_abs_log;
        self.alpha = stats.alpha;
    }

    /// Notes the policy lag of one trajectory taken from the queue.
    pub fn lag(&mut self, lag: u64) {
        self.lags.push(lag);
    }

    /// Whether the interval has steps to report.
    pub fn is_empty(&self) -> bool {
        self.steps == 0
    }

    /// The interval's line, and a fresh interval from here.
    pub fn finish(
        &mut self,
        state: &LearnerState,
        metrics: &LearnerMetrics,
        wall_seconds: f64,
        learning_rate: f64,
        queue_depth: usize,
    ) -> TrainingRecord {
        let elapsed = self.since.elapsed().as_secs_f64().max(f64::MIN_POSITIVE);
        let steps = self.steps.max(1) as f64;
        let record = TrainingRecord {
            learner_step: state.step,
            wall_seconds,
            decisions: state.decisions,
            steps: self.steps,
            loss_value: self.loss_value / steps,
            loss_neurd: self.loss_neurd / steps,
            loss_average_network: match self.loss_average_network {
                (_, 0) => None,
                (sum, count) => Some(sum / count as f64),
            },
            pinned_logits: self.pinned_logits / steps,
            importance_weight_max: self.importance_max,
            importance_weight_mean_abs_log: self.importance_mean_abs_log_sum / steps,
            alpha: self.alpha,
            learning_rate,
            steps_per_second: (state.step - self.start_step) as f64 / elapsed,
            decisions_per_second: (state.decisions - self.start_decisions) as f64 / elapsed,
            queue_depth,
            policy_lag_median: quantile(&mut self.lags, 0.5),
            policy_lag_p99: quantile(&mut self.lags, 0.99),
            dropped_trajectories: metrics.dropped_trajectories_total.get() - self.dropped_at_start,
            rejected_batches: rejected(metrics) - self.rejected_at_start,
        };
        *self = TrainingLog::new(state, metrics);
        record
    }
}

/// Batches refused so far by this process, every reason together.
fn rejected(metrics: &LearnerMetrics) -> u64 {
    metrics
        .rejected_batches_total
        .collect()
        .iter()
        .flat_map(|family| family.get_metric())
        .map(|m| m.get_counter().get_value() as u64)
        .sum()
}
