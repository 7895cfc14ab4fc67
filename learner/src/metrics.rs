//! The learner's Prometheus metrics.

use prometheus::{Gauge, GaugeVec};
use prometheus::{
    Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
};
use rnad_run::config::Config;
use rnad_wire::config_hash;

/// Every metric the learner exports, registered in one registry.
#[derive(Clone, Debug)]
pub struct LearnerMetrics {
    /// The registry to serve.
    pub registry: Registry,
    /// The run's learner step (continues across restarts).
    pub step: IntGauge,
    /// Learner updates (steps) made by this process.
    pub updates_total: IntCounter,
    /// Decisions consumed by this process.
    pub decisions_total: IntCounter,
    /// Loss terms of the last step (`term` = value, neurd).
    pub loss: GaugeVec,
    /// Trajectories waiting in the queue.
    pub queue_depth: IntGauge,
    /// Trajectories the queue holds at most (`actors.queue_capacity`).
    pub queue_capacity: IntGauge,
    /// Version of the published parameters.
    pub param_version: IntGauge,
    /// Parameter versions between a trajectory's and the learner's.
    pub policy_lag: Histogram,
    /// Seconds per learner update.
    pub update_seconds: Histogram,
    /// Batches refused (`reason` = protocol, config, invalid, unavailable).
    pub rejected_batches_total: IntCounterVec,
    /// Trajectories dropped for being too stale.
    pub dropped_trajectories_total: IntCounter,
    /// The entropy schedule's α at the last step.
    pub alpha: Gauge,
    /// RPC connections open now (handshake done or not).
    pub connections: IntGauge,
    /// RPC connections closed before serving (`reason` = busy, handshake,
    /// not_rnad, protocol, token).
    pub refused_connections_total: IntCounterVec,
    /// Writes of the run's files that failed (`file` = checkpoint,
    /// history, training_log); each is retried at its next interval.
    pub write_failures_total: IntCounterVec,
    /// Always 1, labelled with what the run is: `game`, `averaging` and
    /// `config_hash` (what actors and evaluators check they agree on).
    pub run_info: IntGaugeVec,
    /// Steps not applied because something they computed was not finite.
    pub nonfinite_steps_total: IntCounter,
    /// Roll-backs to the newest checkpoint after non-finite steps in a row.
    pub rollbacks_total: IntCounter,
}

impl LearnerMetrics {
    /// Creates and registers every metric.
    pub fn new() -> LearnerMetrics {
        let registry = Registry::new();
        let lag_buckets = vec![0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0, 55.0];
        let metrics = LearnerMetrics {
            step: IntGauge::new(
                "rnad_learner_step",
                "The run's current learner step (continues across restarts).",
            )
            .unwrap(),
            updates_total: IntCounter::new(
                "rnad_learner_updates_total",
                "Learner updates (one per step) made by this process.",
            )
            .unwrap(),
            decisions_total: IntCounter::new(
                "rnad_learner_decisions_total",
                "Decisions consumed by this process.",
            )
            .unwrap(),
            loss: GaugeVec::new(
                Opts::new("rnad_learner_loss", "Loss terms of the last learner step."),
                &["term"],
            )
            .unwrap(),
            queue_depth: IntGauge::new(
                "rnad_learner_queue_depth",
                "Trajectories waiting in the learner's queue.",
            )
            .unwrap(),
            queue_capacity: IntGauge::new(
                "rnad_learner_queue_capacity",
                "Trajectories the learner's queue holds at most.",
            )
            .unwrap(),
            param_version: IntGauge::new(
                "rnad_learner_param_version",
                "Version of the published parameters.",
            )
            .unwrap(),
            policy_lag: Histogram::with_opts(
                HistogramOpts::new(
                    "rnad_learner_policy_lag",
                    "Parameter versions between a consumed trajectory and the learner.",
                )
                .buckets(lag_buckets),
            )
            .unwrap(),
            update_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "rnad_learner_update_seconds",
                    "Seconds per learner update (one step).",
                )
                .buckets(prometheus::exponential_buckets(0.0005, 2.0, 14).unwrap()),
            )
            .unwrap(),
            rejected_batches_total: IntCounterVec::new(
                Opts::new(
                    "rnad_learner_rejected_batches_total",
                    "Submitted batches refused, by reason.",
                ),
                &["reason"],
            )
            .unwrap(),
            dropped_trajectories_total: IntCounter::new(
                "rnad_learner_dropped_trajectories_total",
                "Trajectories dropped for being older than the allowed policy lag.",
            )
            .unwrap(),
            alpha: Gauge::new(
                "rnad_learner_alpha",
                "The entropy schedule's alpha at the last step.",
            )
            .unwrap(),
            connections: IntGauge::new("rnad_learner_connections", "RPC connections open now.")
                .unwrap(),
            refused_connections_total: IntCounterVec::new(
                Opts::new(
                    "rnad_learner_refused_connections_total",
                    "RPC connections closed before serving, by reason.",
                ),
                &["reason"],
            )
            .unwrap(),
            run_info: IntGaugeVec::new(
                Opts::new(
                    "rnad_learner_run_info",
                    "Always 1; the labels say what the run is.",
                ),
                &["game", "averaging", "config_hash"],
            )
            .unwrap(),
            write_failures_total: IntCounterVec::new(
                Opts::new(
                    "rnad_learner_write_failures_total",
                    "Failed writes of the run's files (retried at the next interval), by file.",
                ),
                &["file"],
            )
            .unwrap(),
            nonfinite_steps_total: IntCounter::new(
                "rnad_learner_nonfinite_steps_total",
                "Learner steps skipped because their loss, gradients, parameters or outputs were not finite.",
            )
            .unwrap(),
            rollbacks_total: IntCounter::new(
                "rnad_learner_rollbacks_total",
                "Roll-backs to the newest checkpoint after too many non-finite steps in a row.",
            )
            .unwrap(),
            registry,
        };
        let collectors: [Box<dyn prometheus::core::Collector>; 18] = [
            Box::new(metrics.step.clone()),
            Box::new(metrics.updates_total.clone()),
            Box::new(metrics.decisions_total.clone()),
            Box::new(metrics.loss.clone()),
            Box::new(metrics.queue_depth.clone()),
            Box::new(metrics.queue_capacity.clone()),
            Box::new(metrics.param_version.clone()),
            Box::new(metrics.policy_lag.clone()),
            Box::new(metrics.update_seconds.clone()),
            Box::new(metrics.rejected_batches_total.clone()),
            Box::new(metrics.dropped_trajectories_total.clone()),
            Box::new(metrics.alpha.clone()),
            Box::new(metrics.connections.clone()),
            Box::new(metrics.refused_connections_total.clone()),
            Box::new(metrics.write_failures_total.clone()),
            Box::new(metrics.run_info.clone()),
            Box::new(metrics.nonfinite_steps_total.clone()),
            Box::new(metrics.rollbacks_total.clone()),
        ];
        for c in collectors {
            metrics
                .registry
                .register(c)
                .expect("metric names are unique");
        }
        for reason in ["protocol", "config", "invalid", "unavailable"] {
            metrics.rejected_batches_total.with_label_values(&[reason]);
        }
        for reason in ["busy", "handshake", "not_rnad", "protocol", "token"] {
            metrics
                .refused_connections_total
                .with_label_values(&[reason]);
        }
        for file in ["checkpoint", "history", "training_log"] {
            metrics.write_failures_total.with_label_values(&[file]);
        }
        for term in ["value", "neurd"] {
            metrics.loss.with_label_values(&[term]);
        }
        metrics
    }
}

impl LearnerMetrics {
    /// Sets what the config says about the run: `rnad_learner_run_info`'s
    /// labels and the queue's capacity.
    pub fn describe_run(&self, config: &Config) {
        self.queue_capacity
            .set(i64::try_from(config.actors.queue_capacity).unwrap_or(i64::MAX));
        let averaging = config.settings()["rnad.averaging"].clone();
        let hash = format!("{:016x}", config_hash(config));
        self.run_info
            .with_label_values(&[
                config.game.to_string().as_str(),
                averaging.as_str(),
                hash.as_str(),
            ])
            .set(1);
    }
}

impl Default for LearnerMetrics {
    fn default() -> Self {
        Self::new()
    }
}
