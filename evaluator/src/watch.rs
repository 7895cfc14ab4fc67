//! `rnad-evaluator watch`: evaluates each new parameter version of a
//! running learner in the mode its config names (exact NashConv of every
//! policy kind, or head to head against a panel; see [`crate::run_eval`]).
//!
//! Each session connects (a fresh tarpc client), learns the run's config,
//! then every interval fetches the parameters if their version moved,
//! evaluates them, appends a history line and sets the gauges. Any
//! error ends the session; the watcher waits with capped exponential backoff
//! and starts a new one, so it survives learner restarts. A history line
//! that cannot be written is logged and counted; watching goes on.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rnad_common::config::EvaluationMode;
use rnad_common::lifecycle::{run_sessions, Attempt};
use rnad_common::net::NetShape;
use rnad_common::proto::handshake::Token;
use rnad_common::proto::{self, ClientError, ParamKind, Params};
use rnad_common::run_dir::RunDir;

use crate::kinds::PolicyKinds;
use crate::metrics::EvaluatorMetrics;
use crate::policy_average::PolicyAverage;
use crate::run_eval::{Evaluation, RunEvaluator};

/// Granularity of the wait between looks, so a stop is seen promptly.
const STOP_POLL: Duration = Duration::from_millis(50);

/// What a watcher does.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// The learner's address (`HOST:PORT`).
    pub learner: String,
    /// The token the learner requires, if any.
    pub token: Option<Token>,
    /// Seconds between looks at the learner.
    pub interval: Duration,
    /// The history file to append to.
    pub history: PathBuf,
    /// Evaluate in this mode instead of the one the run's config names.
    pub mode: Option<EvaluationMode>,
    /// A tabular policy file that joins the head-to-head panel.
    pub panel_policy: Option<PathBuf>,
}

/// Watches until `stop` is set. A last history line left unfinished by a
/// crash is cut off first, so the file stays readable.
pub fn run(options: &WatchOptions, stop: &AtomicBool, metrics: &EvaluatorMetrics) {
    match rnad_common::jsonl::cut_torn_tail(&options.history) {
        Ok(0) => {}
        Ok(bytes) => tracing::warn!(
            file = %options.history.display(),
            bytes,
            "cut off a last line left unfinished by a crash"
        ),
        Err(error) => {
            tracing::error!(file = %options.history.display(), %error, "cannot repair the history file")
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    // The target's average outlives a session: a reconnect (a learner
    // restart, a timeout) keeps it, and only a learner that went back to
    // an earlier step starts it afresh.
    let mut average = None;
    run_sessions(
        stop,
        &options.learner,
        |attempt| runtime.block_on(session(options, stop, metrics, attempt, &mut average)),
        |_, _| {},
    );
}

async fn session(
    options: &WatchOptions,
    stop: &AtomicBool,
    metrics: &EvaluatorMetrics,
    attempt: &mut Attempt<'_, '_>,
    average: &mut Option<PolicyAverage>,
) -> Result<(), ClientError> {
    let proto::Joined {
        client,
        mut config,
        hello,
    } = proto::join(&options.learner, options.token.as_ref()).await?;
    if let Some(mode) = options.mode {
        config.evaluation.mode = mode;
    }
    let shape = NetShape::for_config(&config);
    let mut evaluator = RunEvaluator::new(&config, shape.clone(), options.panel_policy.as_deref())
        .map_err(|e| ClientError::Other(e.to_string()))?;
    evaluator.carry_over_average(average.take());
    attempt.connected();
    let watched = watch_params(
        &client,
        &hello,
        &shape,
        &mut evaluator,
        options,
        stop,
        metrics,
    )
    .await;
    *average = evaluator.take_average();
    watched
}

/// Evaluates each new version of the learner's parameters until `stop` is
/// set or the connection fails.
async fn watch_params(
    client: &proto::LearnerServiceClient,
    hello: &proto::Hello,
    shape: &NetShape,
    evaluator: &mut RunEvaluator,
    options: &WatchOptions,
    stop: &AtomicBool,
    metrics: &EvaluatorMetrics,
) -> Result<(), ClientError> {
    let mut have = None;
    while !stop.load(Ordering::SeqCst) {
        let reply = client
            .fetch_params(
                proto::context(),
                hello.clone(),
                have,
                ParamKind::ALL.to_vec(),
            )
            .await
            .map_err(|e| ClientError::rpc("fetching parameters", e))??;
        if let Some(params) = reply {
            let timer = Instant::now();
            let evaluation = evaluate_params(evaluator, shape, &params)?;
            metrics.record(
                &evaluation,
                evaluator.tree().game().as_ref(),
                params.version,
                timer.elapsed(),
            );
            let entry = evaluation.entry(params.version, params.wall_seconds, params.samples);
            if let Err(error) = rnad_common::jsonl::append(&options.history, &entry) {
                metrics.write_failures_total.inc();
                tracing::error!(file = %options.history.display(), %error, "cannot append to the history; watching goes on");
            }
            let average = average_policy_path(&options.history);
            if let Err(error) = evaluator.write_target_average(&average, &evaluation) {
                metrics.write_failures_total.inc();
                tracing::error!(file = %average.display(), %error, "cannot write the target's average; watching goes on");
            }
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

/// Where the target's average goes: beside the history, under the name a
/// run directory gives it.
fn average_policy_path(history: &Path) -> PathBuf {
    RunDir::new(history.parent().unwrap_or(Path::new("."))).target_average_policy()
}

/// The parameter sets of `params`, evaluated.
fn evaluate_params(
    evaluator: &mut RunEvaluator,
    shape: &NetShape,
    params: &Params,
) -> Result<Evaluation, ClientError> {
    let set = |kind: ParamKind| {
        params
            .sets
            .iter()
            .find(|(k, _)| *k == kind)
            .ok_or_else(|| format!("the learner sent no {kind:?} parameters"))
            .and_then(|(_, w)| w.to_set(shape))
            .map_err(ClientError::Other)
    };
    let (online, target, reg) = (
        set(ParamKind::Online)?,
        set(ParamKind::Target)?,
        set(ParamKind::Reg)?,
    );
    let kinds = PolicyKinds {
        online: &online,
        target: &target,
        reg: &reg,
    };
    evaluator
        .evaluate(kinds, params.version)
        .map_err(|e| ClientError::Other(format!("evaluating: {e}")))
}
