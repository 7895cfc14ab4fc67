//! The evaluator's Prometheus metrics.

use prometheus::{GaugeVec, Histogram, HistogramOpts, IntCounter, IntGauge, Opts, Registry};

/// Every metric the evaluator exports, registered in one registry.
#[derive(Clone, Debug)]
pub struct EvaluatorMetrics {
    /// The registry to serve.
    pub registry: Registry,
    /// NashConv per policy kind (`policy`).
    pub nash_conv: GaugeVec,
    /// OpenSpiel's exploitability (NashConv / players) per policy kind.
    pub exploitability: GaugeVec,
    /// Best-response value per policy kind and player.
    pub best_response_value: GaugeVec,
    /// Head-to-head mode: mean payoff per game of the evaluated policy
    /// against each opponent of the panel (`opponent`).
    pub head_to_head: GaugeVec,
    /// The half-width of the 95% interval of `head_to_head`.
    pub head_to_head_ci95: GaugeVec,
    /// Seconds per evaluation.
    pub eval_seconds: Histogram,
    /// Learner step of the last evaluated parameters.
    pub evaluated_step: IntGauge,
    /// History lines that could not be written.
    pub write_failures_total: IntCounter,
}

impl EvaluatorMetrics {
    /// Creates and registers every metric.
    pub fn new() -> EvaluatorMetrics {
        let gauges = |name: &str, help: &str, labels: &[&str]| {
            GaugeVec::new(Opts::new(name, help), labels).expect("valid metric")
        };
        let metrics = EvaluatorMetrics {
            registry: Registry::new(),
            nash_conv: gauges(
                "rnad_evaluator_nash_conv",
                "NashConv (sum of best-response gains) of each policy kind.",
                &["policy"],
            ),
            exploitability: gauges(
                "rnad_evaluator_exploitability",
                "OpenSpiel's exploitability (NashConv / number of players) of each policy kind.",
                &["policy"],
            ),
            best_response_value: gauges(
                "rnad_evaluator_best_response_value",
                "Best-response value against each policy kind, per player.",
                &["policy", "player"],
            ),
            head_to_head: gauges(
                "rnad_evaluator_head_to_head",
                "Mean payoff per game (chips) of the evaluated policy against each opponent of the head-to-head panel.",
                &["opponent"],
            ),
            head_to_head_ci95: gauges(
                "rnad_evaluator_head_to_head_ci95",
                "Half-width of the 95% confidence interval of rnad_evaluator_head_to_head.",
                &["opponent"],
            ),
            eval_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "rnad_evaluator_eval_seconds",
                    "Seconds per evaluation (exact: every policy kind; head to head: the whole panel).",
                )
                .buckets(prometheus::exponential_buckets(0.001, 2.0, 14).expect("valid buckets")),
            )
            .expect("valid metric"),
            evaluated_step: IntGauge::new(
                "rnad_evaluator_evaluated_step",
                "Learner step of the last evaluated parameters.",
            )
            .expect("valid metric"),
            write_failures_total: IntCounter::new(
                "rnad_evaluator_write_failures_total",
                "History lines that could not be written.",
            )
            .expect("valid metric"),
        };
        let collectors: [Box<dyn prometheus::core::Collector>; 8] = [
            Box::new(metrics.nash_conv.clone()),
            Box::new(metrics.exploitability.clone()),
            Box::new(metrics.best_response_value.clone()),
            Box::new(metrics.head_to_head.clone()),
            Box::new(metrics.head_to_head_ci95.clone()),
            Box::new(metrics.eval_seconds.clone()),
            Box::new(metrics.evaluated_step.clone()),
            Box::new(metrics.write_failures_total.clone()),
        ];
        for c in collectors {
            metrics
                .registry
                .register(c)
                .expect("metric names are unique");
        }
        metrics
    }
}

impl Default for EvaluatorMetrics {
    fn default() -> Self {
        Self::new()
    }
}
