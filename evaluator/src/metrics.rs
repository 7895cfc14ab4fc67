//! The evaluator's Prometheus metrics.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus::{Gauge, GaugeVec, Histogram, HistogramOpts, IntCounter, IntGauge, Opts, Registry};
use rnad_games::Game;
use rnad_run::best_response_log::BestResponseLine;
use rnad_run::history::{HeadToHead, PolicyKind};

use crate::kinds::KindReports;
use crate::run_eval::Evaluation;

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
    /// The latest local best response's winnings, mbb/hand (heads-up
    /// hold'em in head-to-head mode).
    pub lbr: Gauge,
    /// The half-width of the 95% interval of `lbr`.
    pub lbr_ci95: Gauge,
    /// The learner step whose policy the latest LBR played.
    pub lbr_step: IntGauge,
    /// What the latest learned best response gained, per seat (`seat`)
    /// and summed (`seat="all"`), in `unit` (the history line's).
    pub br_gain: GaugeVec,
    /// The half-width of the 95% interval of `br_gain`.
    pub br_ci95: GaugeVec,
    /// The learner step whose policy the latest learned best response
    /// played against.
    pub br_step: IntGauge,
    /// Seconds the latest learned best response took, all seats.
    pub br_seconds: Gauge,
    /// Seconds per evaluation.
    pub eval_seconds: Histogram,
    /// Learner step of the last evaluated parameters.
    pub evaluated_step: IntGauge,
    /// Unix time at which the last evaluation finished, or the metrics
    /// were created before the first (what an alert on a stale evaluation
    /// compares with `time()`).
    pub last_evaluation: Gauge,
    /// History lines that could not be written.
    pub write_failures_total: IntCounter,
}

impl EvaluatorMetrics {
    /// Creates every metric in a registry of its own.
    pub fn new() -> EvaluatorMetrics {
        EvaluatorMetrics::in_registry(Registry::new())
    }

    /// Creates every metric in `registry` (the learner's, in a local run,
    /// so one endpoint serves all).
    pub fn in_registry(registry: Registry) -> EvaluatorMetrics {
        let gauges = |name: &str, help: &str, labels: &[&str]| {
            GaugeVec::new(Opts::new(name, help), labels).expect("valid metric")
        };
        let metrics = EvaluatorMetrics {
            registry,
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
            lbr: Gauge::new(
                "rnad_evaluator_lbr_mbb_per_hand",
                "What the latest local best response (fcpa) won from the evaluated policy, milli-big-blinds per hand: a lower bound on its exploitability.",
            )
            .expect("valid metric"),
            lbr_ci95: Gauge::new(
                "rnad_evaluator_lbr_ci95_mbb",
                "Half-width of the 95% confidence interval of rnad_evaluator_lbr_mbb_per_hand.",
            )
            .expect("valid metric"),
            lbr_step: IntGauge::new(
                "rnad_evaluator_lbr_step",
                "Learner step of the policy the latest local best response played.",
            )
            .expect("valid metric"),
            br_gain: gauges(
                "rnad_evaluator_br_gain",
                "What the latest learned best response gained over the evaluated policy's own value, per seat and summed (seat=\"all\": a lower bound on NashConv), in unit (payoff or mbb/hand).",
                &["seat", "unit"],
            ),
            br_ci95: gauges(
                "rnad_evaluator_br_ci95",
                "Half-width of the 95% confidence interval of rnad_evaluator_br_gain (0 where judged exactly).",
                &["seat", "unit"],
            ),
            br_step: IntGauge::new(
                "rnad_evaluator_br_step",
                "Learner step of the policy the latest learned best response played against.",
            )
            .expect("valid metric"),
            br_seconds: Gauge::new(
                "rnad_evaluator_br_seconds",
                "Seconds the latest learned best response took to train and judge, all seats.",
            )
            .expect("valid metric"),
            eval_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "rnad_evaluator_eval_seconds",
                    "Seconds per evaluation (exact: every policy kind; head to head: the whole panel, and LBR where it ran).",
                )
                .buckets(prometheus::exponential_buckets(0.001, 2.0, 19).expect("valid buckets")),
            )
            .expect("valid metric"),
            evaluated_step: IntGauge::new(
                "rnad_evaluator_evaluated_step",
                "Learner step of the last evaluated parameters.",
            )
            .expect("valid metric"),
            last_evaluation: Gauge::new(
                "rnad_evaluator_last_evaluation_timestamp_seconds",
                "Unix time at which the last evaluation finished (the evaluator's start, before the first).",
            )
            .expect("valid metric"),
            write_failures_total: IntCounter::new(
                "rnad_evaluator_write_failures_total",
                "History lines that could not be written.",
            )
            .expect("valid metric"),
        };
        let collectors: [Box<dyn prometheus::core::Collector>; 16] = [
            Box::new(metrics.nash_conv.clone()),
            Box::new(metrics.exploitability.clone()),
            Box::new(metrics.best_response_value.clone()),
            Box::new(metrics.head_to_head.clone()),
            Box::new(metrics.head_to_head_ci95.clone()),
            Box::new(metrics.lbr.clone()),
            Box::new(metrics.lbr_ci95.clone()),
            Box::new(metrics.lbr_step.clone()),
            Box::new(metrics.br_gain.clone()),
            Box::new(metrics.br_ci95.clone()),
            Box::new(metrics.br_step.clone()),
            Box::new(metrics.br_seconds.clone()),
            Box::new(metrics.eval_seconds.clone()),
            Box::new(metrics.evaluated_step.clone()),
            Box::new(metrics.last_evaluation.clone()),
            Box::new(metrics.write_failures_total.clone()),
        ];
        for c in collectors {
            metrics
                .registry
                .register(c)
                .expect("metric names are unique");
        }
        // Until the first evaluation, the age counts from the start: an
        // evaluator that never finishes one goes stale too.
        metrics.last_evaluation.set(unix_now());
        // No local best response yet (none ever, outside hold'em): not 0.
        metrics.lbr.set(f64::NAN);
        metrics.lbr_ci95.set(f64::NAN);
        metrics
    }
}

impl EvaluatorMetrics {
    /// Records one finished evaluation of learner step `step` that took
    /// `took`: its time, step and every result.
    pub fn record(&self, evaluation: &Evaluation, game: &dyn Game, step: u64, took: Duration) {
        self.eval_seconds.observe(took.as_secs_f64());
        self.evaluated_step.set(step as i64);
        self.last_evaluation.set(unix_now());
        if let Some(reports) = &evaluation.exact {
            self.record_exact(reports, game);
        }
        self.record_head_to_head(&evaluation.head_to_head);
        if let Some(lbr) = &evaluation.lbr {
            self.lbr.set(lbr.mbb_per_hand);
            self.lbr_ci95.set(lbr.ci95_mbb);
            self.lbr_step.set(step as i64);
        }
    }

    /// A finished learned best response: each seat's gain and the sum,
    /// with their intervals, the step it judged and what it took.
    pub fn record_best_response(&self, line: &BestResponseLine) {
        let r = &line.best_response;
        let unit = r.unit.as_str();
        let seats = r
            .seats
            .iter()
            .map(|s| (s.seat.to_string(), s.gain, s.ci95))
            .chain([("all".to_string(), r.gain, r.ci95)]);
        for (seat, gain, ci95) in seats {
            self.br_gain.with_label_values(&[&seat, unit]).set(gain);
            self.br_ci95.with_label_values(&[&seat, unit]).set(ci95);
        }
        self.br_step.set(line.learner_step as i64);
        self.br_seconds.set(r.seconds);
    }

    /// Each opponent's mean and interval half-width.
    fn record_head_to_head(&self, results: &[HeadToHead]) {
        for result in results {
            let opponent = [result.opponent.as_str()];
            self.head_to_head
                .with_label_values(&opponent)
                .set(result.mean);
            self.head_to_head_ci95
                .with_label_values(&opponent)
                .set(result.ci95);
        }
    }

    /// Sets the gauges of every kind (exploitability only for two-player
    /// zero-sum games, where it is defined).
    fn record_exact(&self, reports: &KindReports, game: &dyn Game) {
        for (kind, report) in reports.named() {
            self.nash_conv
                .with_label_values(&[kind])
                .set(report.nash_conv);
            if let Some(value) = report.exploitability(game) {
                self.exploitability.with_label_values(&[kind]).set(value);
            }
            for (player, value) in report.best_response_values.iter().enumerate() {
                self.best_response_value
                    .with_label_values(&[kind, player.to_string().as_str()])
                    .set(*value);
            }
        }
        if reports.target_average.is_none() {
            // A run resumed without the average leaves no stale value.
            let kind = PolicyKind::TargetAverage.name();
            let _ = self.nash_conv.remove_label_values(&[kind]);
            let _ = self.exploitability.remove_label_values(&[kind]);
            for player in 0..game.num_players() {
                let _ = self
                    .best_response_value
                    .remove_label_values(&[kind, player.to_string().as_str()]);
            }
        }
    }
}

/// Seconds since the Unix epoch.
fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Default for EvaluatorMetrics {
    fn default() -> Self {
        Self::new()
    }
}
