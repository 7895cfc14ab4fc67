//! `rnad-evaluator watch`: exact NashConv of every policy kind for each new
//! parameter version of a running learner.
//!
//! Each session connects (a fresh tarpc client), learns the run's config,
//! then every interval fetches the parameters if their version moved,
//! evaluates every kind, appends a history line and sets the gauges. Any
//! error ends the session; the watcher waits with capped exponential backoff
//! and starts a new one, so it survives learner restarts.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rnad_common::lifecycle::run_sessions;
use rnad_common::net::NetShape;
use rnad_common::proto::{self, PolicyKind};
use rnad_common::tree::GameTree;

use crate::history::{append_history, evaluate, HistoryEntry, PolicyKinds};
use crate::metrics::EvaluatorMetrics;

/// Granularity of the wait between looks, so a stop is seen promptly.
const STOP_POLL: Duration = Duration::from_millis(50);

/// What a watcher does.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// The learner's address (`HOST:PORT`).
    pub learner: String,
    /// Seconds between looks at the learner.
    pub interval: Duration,
    /// The history file to append to.
    pub history: PathBuf,
}

/// Watches until `stop` is set.
pub fn run(options: &WatchOptions, stop: &AtomicBool, metrics: &EvaluatorMetrics) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let started = Instant::now();
    run_sessions(
        stop,
        |connected| runtime.block_on(session(options, stop, metrics, started, connected)),
        |error, wait| {
            eprintln!(
                "rnad-evaluator: {error}; reconnecting to {} in {wait:?}",
                options.learner
            )
        },
    );
}

async fn session(
    options: &WatchOptions,
    stop: &AtomicBool,
    metrics: &EvaluatorMetrics,
    started: Instant,
    connected: &mut bool,
) -> Result<(), String> {
    let proto::Joined {
        client,
        config,
        hello,
    } = proto::join(&options.learner).await?;
    let shape = NetShape::for_config(&config);
    let tree = GameTree::build(config.game.load().as_ref()).map_err(|e| e.to_string())?;
    *connected = true;
    let mut have = None;
    while !stop.load(Ordering::SeqCst) {
        let reply = client
            .fetch_params(
                proto::context(),
                hello.clone(),
                have,
                PolicyKind::ALL.to_vec(),
            )
            .await
            .map_err(|e| format!("fetching parameters: {e}"))?
            .map_err(|e| e.to_string())?;
        if let Some(params) = reply {
            let set = |kind: PolicyKind| {
                params
                    .sets
                    .iter()
                    .find(|(k, _)| *k == kind)
                    .ok_or_else(|| format!("the learner sent no {kind:?} parameters"))
                    .and_then(|(_, w)| w.to_set(&shape))
            };
            let (online, target, reg) = (
                set(PolicyKind::Online)?,
                set(PolicyKind::Target)?,
                set(PolicyKind::Reg)?,
            );
            let timer = Instant::now();
            let kinds = PolicyKinds {
                online: &online,
                target: &target,
                reg: &reg,
            };
            let reports = evaluate(&tree, &shape, kinds).map_err(|e| format!("evaluating: {e}"))?;
            metrics.eval_seconds.observe(timer.elapsed().as_secs_f64());
            metrics.evaluated_step.set(params.version as i64);
            for (kind, report) in reports.named() {
                metrics
                    .nash_conv
                    .with_label_values(&[kind])
                    .set(report.nash_conv);
                metrics
                    .exploitability
                    .with_label_values(&[kind])
                    .set(report.exploitability());
                for (player, value) in report.best_response_values.iter().enumerate() {
                    metrics
                        .best_response_value
                        .with_label_values(&[kind, player.to_string().as_str()])
                        .set(*value);
                }
            }
            let entry = HistoryEntry {
                learner_step: params.version,
                wall_seconds: started.elapsed().as_secs_f64(),
                samples: params.samples,
                nash_conv: reports.nash_convs(),
            };
            append_history(&options.history, &entry)
                .map_err(|e| format!("{}: {e}", options.history.display()))?;
            have = Some(params.version);
        }
        let mut left = options.interval;
        while !left.is_zero() && !stop.load(Ordering::SeqCst) {
            let slice = left.min(STOP_POLL);
            tokio::time::sleep(slice).await;
            left -= slice;
        }
    }
    Ok(())
}
