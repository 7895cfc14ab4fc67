//! `rnad-evaluator watch`: evaluate a running learner's policies.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use rnad_process::shutdown::Shutdown;
use rnad_run::config::EvaluationMode;
use rnad_wire::handshake::Token;

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
    /// Seconds between looks at the learner's parameter version (0.01 to
    /// 300; the learner drops connections that stay silent for longer).
    #[arg(long, default_value_t = 5.0)]
    pub interval: f64,
    /// History file: one JSON line per evaluated version (learner_step,
    /// wall_seconds since the watcher started, decisions, and nash_conv per
    /// kind or head_to_head per opponent). Exact mode writes the target's
    /// average beside it (target_average.json and its sums,
    /// target_average.sums.json, which a restarted watcher goes on from):
    /// one exact watcher per directory.
    #[arg(long)]
    pub history: PathBuf,
    /// Evaluate in this mode (exact or head_to_head) instead of the run's
    /// evaluation.mode: e.g. a second watcher playing the panel beside an
    /// exact one.
    #[arg(long)]
    pub mode: Option<EvaluationMode>,
    /// A tabular policy file (OpenSpiel JSON) that joins the panel in
    /// head-to-head mode.
    #[arg(long)]
    pub panel_policy: Option<PathBuf>,
    /// File holding the token the learner requires (default: the
    /// RNAD_TOKEN environment variable; none if unset).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
}

/// Runs `watch` until SIGINT or SIGTERM.
pub fn run(args: &WatchArgs) -> Result<(), EvaluatorError> {
    if !(0.01..=300.0).contains(&args.interval) {
        return Err(EvaluatorError::Usage(format!(
            "--interval {}: must be between 0.01 and 300 seconds",
            args.interval
        )));
    }
    let token = Token::load(args.token_file.as_deref()).map_err(EvaluatorError::Usage)?;
    let shutdown = Shutdown::on_signals();
    let metrics = EvaluatorMetrics::new();
    let _endpoint = match args.metrics {
        Some(addr) => {
            let (runtime, bound) =
                rnad_process::metrics::serve_blocking(addr, metrics.registry.clone())
                    .map_err(|source| EvaluatorError::Bind { addr, source })?;
            tracing::info!("metrics on http://{bound}/metrics");
            Some(runtime)
        }
        None => None,
    };
    let options = WatchOptions {
        learner: args.learner.clone(),
        token,
        interval: Duration::from_secs_f64(args.interval),
        history: args.history.clone(),
        mode: args.mode,
        panel_policy: args.panel_policy.clone(),
    };
    tracing::info!(learner = %args.learner, "watching the learner");
    watch(&options, &shutdown, &metrics);
    tracing::info!("stopped");
    Ok(())
}
