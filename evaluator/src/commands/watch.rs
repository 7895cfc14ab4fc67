//! `rnad-evaluator watch`: evaluate a running learner's policies.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::error::EvaluatorError;
use crate::metrics::EvaluatorMetrics;
use crate::watch::{run as watch, WatchOptions};

/// Arguments of `watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The learner's address (HOST:PORT).
    #[arg(long)]
    pub learner: String,
    /// Where to serve Prometheus metrics (/metrics), e.g. 0.0.0.0:9102.
    #[arg(long)]
    pub metrics: Option<SocketAddr>,
    /// Seconds between looks at the learner's parameter version.
    #[arg(long, default_value_t = 5.0)]
    pub interval: f64,
    /// History file: one JSON line per evaluated version (learner_step,
    /// wall_seconds since the watcher started, samples, nash_conv per kind).
    #[arg(long)]
    pub history: PathBuf,
}

/// Runs `watch` until SIGINT or SIGTERM.
pub fn run(args: &WatchArgs) -> Result<(), EvaluatorError> {
    let stop = rnad_common::lifecycle::stop_on_signals();
    let metrics = EvaluatorMetrics::new();
    let _endpoint = match args.metrics {
        Some(addr) => {
            let (runtime, bound) =
                rnad_common::metrics::serve_blocking(addr, metrics.registry.clone())
                    .map_err(|source| EvaluatorError::Bind { addr, source })?;
            eprintln!("rnad-evaluator: metrics on http://{bound}/metrics");
            Some(runtime)
        }
        None => None,
    };
    let options = WatchOptions {
        learner: args.learner.clone(),
        interval: Duration::from_secs_f64(args.interval.max(0.01)),
        history: args.history.clone(),
    };
    eprintln!("rnad-evaluator: watching the learner at {}", args.learner);
    watch(&options, &stop, &metrics);
    eprintln!("rnad-evaluator: stopped");
    Ok(())
}
