//! The actor's Prometheus metrics.

use prometheus::{IntCounter, Registry};

/// Every metric an actor exports, registered in one registry.
#[derive(Clone, Debug)]
pub struct ActorMetrics {
    /// The registry to serve.
    pub registry: Registry,
    /// Games finished.
    pub games_total: IntCounter,
    /// Decisions taken.
    pub decisions_total: IntCounter,
    /// Batches of games the learner accepted.
    pub submits_total: IntCounter,
    /// Parameter sets fetched from the learner.
    pub param_fetches_total: IntCounter,
    /// Connections lost and retried.
    pub reconnects_total: IntCounter,
    /// Errors from the learner or the network.
    pub errors_total: IntCounter,
}

impl ActorMetrics {
    /// Creates every metric in a registry of its own.
    pub fn new() -> ActorMetrics {
        ActorMetrics::in_registry(Registry::new())
    }

    /// Creates every metric in `registry` (shared with the learner's in a
    /// local run, so one endpoint serves all).
    pub fn in_registry(registry: Registry) -> ActorMetrics {
        let counter = |name: &str, help: &str| IntCounter::new(name, help).expect("valid metric");
        let metrics = ActorMetrics {
            registry,
            games_total: counter("rnad_actor_games_total", "Self-play games finished."),
            decisions_total: counter(
                "rnad_actor_decisions_total",
                "Decisions taken in self-play.",
            ),
            submits_total: counter(
                "rnad_actor_submits_total",
                "Batches of finished games the learner accepted.",
            ),
            param_fetches_total: counter(
                "rnad_actor_param_fetches_total",
                "Parameter sets fetched from the learner.",
            ),
            reconnects_total: counter(
                "rnad_actor_reconnects_total",
                "Connections to the learner lost and retried.",
            ),
            errors_total: counter(
                "rnad_actor_errors_total",
                "Errors from the learner or the network.",
            ),
        };
        for c in [
            &metrics.games_total,
            &metrics.decisions_total,
            &metrics.submits_total,
            &metrics.param_fetches_total,
            &metrics.reconnects_total,
            &metrics.errors_total,
        ] {
            metrics
                .registry
                .register(Box::new(c.clone()))
                .expect("metric names are unique");
        }
        metrics
    }
}

impl Default for ActorMetrics {
    fn default() -> Self {
        Self::new()
    }
}
