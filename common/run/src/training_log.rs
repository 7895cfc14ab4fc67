//! `training.jsonl`: what the learner did, every `training_log.interval_steps`
//! steps, so that losses, throughput and lag outlive the Prometheus
//! scrape. One JSON object per line; like `history.jsonl` it is cut back to
//! the checkpoint's step when a run resumes, and `rnad-evaluator plot
//! --metric COLUMN` draws any of its numeric columns.

use serde::{Deserialize, Serialize};

/// One line of `training.jsonl`: the interval since the previous line (or
/// since this process started training).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingRecord {
    /// The learner step at the end of the interval.
    pub learner_step: u64,
    /// Training wall time so far (across restarts), seconds.
    pub wall_seconds: f64,
    /// Decisions consumed so far.
    /// (Files written before the name was settled call it `samples`.)
    #[serde(alias = "samples")]
    pub decisions: u64,
    /// Learner steps in the interval.
    pub steps: u64,
    /// Mean value loss over the interval's steps.
    pub loss_value: f64,
    /// Mean NeuRD loss over the interval's steps.
    pub loss_neurd: f64,
    /// Mean cross-entropy of the averaged network on the states it
    /// trained on (`[average_network]`); absent where the run trains none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_average_network: Option<f64>,
    /// Mean fraction of the batches' legal logits held at NeuRD's
    /// threshold (centred |logit| ≥ `rnad.beta_neurd`); older logs lack it.
    #[serde(default)]
    pub pinned_logits: f64,
    /// The largest importance weight π(a)/μ(a) of a taken action in the
    /// interval's batches (θ's probability over the behaviour policy's);
    /// older logs lack it.
    #[serde(default)]
    pub importance_weight_max: f64,
    /// The interval's mean of |log π(a)/μ(a)| over taken actions (0 when
    /// the actors play θ itself); older logs lack it.
    #[serde(default)]
    pub importance_weight_mean_abs_log: f64,
    /// The entropy schedule's α at the last step.
    pub alpha: f64,
    /// Adam's learning rate for the next update (the schedule's at
    /// `learner_step`, `rnad.learning_rate_decay_steps`).
    pub learning_rate: f64,
    /// Learner steps per second over the interval.
    pub steps_per_second: f64,
    /// Decisions consumed per second over the interval.
    pub decisions_per_second: f64,
    /// Trajectories waiting in the learner's queue at the end.
    pub queue_depth: usize,
    /// Median policy lag (parameter versions) of the trajectories taken
    /// from the queue in the interval; absent for a lockstep run, whose
    /// lag is always 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_lag_median: Option<f64>,
    /// 99th percentile of the same lags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_lag_p99: Option<f64>,
    /// Trajectories dropped in the interval for being too stale.
    pub dropped_trajectories: u64,
    /// Submitted batches refused in the interval (any reason).
    pub rejected_batches: u64,
}

/// The `q`-quantile (0..=1) of `values` by the nearest rank; `None` when
/// there are none. Sorts `values`.
pub fn quantile(values: &mut [u64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    Some(values[rank - 1] as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        let mut lags: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(quantile(&mut lags, 0.5), Some(50.0));
        assert_eq!(quantile(&mut lags, 0.99), Some(99.0));
        assert_eq!(quantile(&mut lags, 1.0), Some(100.0));
        assert_eq!(quantile(&mut [7], 0.99), Some(7.0));
        assert_eq!(quantile(&mut [], 0.5), None);
    }
}
