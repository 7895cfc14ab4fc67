//! `rnad-evaluator watch`: evaluates each new parameter version of a
//! running learner in the mode its config names (exact NashConv of every
//! policy kind, or head to head against a panel, and learned best
//! responses beside them; see [`crate::run_eval`]).
//!
//! Each session connects (a fresh tarpc client), learns the run's config,
//! then every interval fetches the parameters if their version moved,
//! evaluates them, appends a history line and sets the gauges. Any
//! error ends the session; the watcher waits with capped exponential backoff
//! and starts a new one, so it survives learner restarts. A history line
//! that cannot be written is logged and counted; watching goes on.
//!
//! The target's average outlives sessions in memory and the watcher's own
//! restarts in `target_average.sums.json` beside the history. A learner
//! that restarts from its checkpoint is a new process (its
//! [`Incarnation`]); the average goes back to the sums it kept at that
//! checkpoint step (those of the last two are kept, in that file too), so
//! neither a learner crash nor a host reboot that restarts both costs it
//! more than the steps the learner lost.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rnad_net::{NetShape, PublishedSet, PublishedSets};
use rnad_process::lifecycle::{run_sessions, Attempt};
use rnad_process::shutdown::Shutdown;
use rnad_run::config::EvaluationMode;
use rnad_run::run_dir::RunDir;
use rnad_wire::handshake::Token;
use rnad_wire::{ClientError, Incarnation, Params};
use serde::{Deserialize, Serialize};

use crate::best_response::service::Version;
use crate::error::EvaluatorError;
use crate::metrics::EvaluatorMetrics;
use crate::output::write_json;
use crate::policy_average::{PolicyAverage, SavedSums};
use crate::run_eval::{Evaluation, RunEvaluator};

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

/// Watches until `shutdown` is cancelled. A last history line left
/// unfinished by a crash is cut off first, so the file stays readable.
pub fn run(options: &WatchOptions, shutdown: &Shutdown, metrics: &EvaluatorMetrics) {
    match rnad_run::jsonl::cut_torn_tail(&options.history) {
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
    // restart, a timeout) keeps it, and a learner that went back to its
    // checkpoint finds it in the sums kept there. The first session goes
    // on from the sums an earlier watcher of this history left.
    let file = read_saved_average(&average_sums_path(&options.history));
    let mut average = CarriedAverage {
        live: None,
        learner: file.as_ref().and_then(|file| file.learner),
        saved: file.map(|file| file.sums),
    };
    run_sessions(
        shutdown,
        &options.learner,
        |attempt| {
            // The shutdown ends a session wherever it waits; an evaluation
            // and the writes after it have no await between them, so they
            // finish or never start, and a long one (a panel of many deals,
            // LBR) asks the shutdown between games and gives up.
            runtime.block_on(async {
                tokio::select! {
                    ended = session(options, metrics, shutdown, attempt, &mut average) => ended,
                    () = shutdown.cancelled() => Ok(()),
                }
            })
        },
        |_, _| {},
    );
}

/// The target's average between sessions.
struct CarriedAverage {
    /// The last session's.
    live: Option<PolicyAverage>,
    /// The sums an earlier watcher saved, until a session takes them up.
    saved: Option<SavedSums>,
    /// The learner process whose policies it averaged last.
    learner: Option<Incarnation>,
}

/// `target_average.sums.json`: the average's sums and the learner process
/// whose policies they hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SumsFile {
    #[serde(flatten)]
    sums: SavedSums,
    /// Absent in files from before it was saved.
    #[serde(default)]
    learner: Option<Incarnation>,
}

/// The sums an earlier watcher saved at `path`: none where there is no
/// file; one that does not parse as sums is moved aside (kept for the
/// user) and the average starts afresh. One that cannot be read at all
/// is left (and overwritten at the next evaluation).
fn read_saved_average(path: &Path) -> Option<SumsFile> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => {
            tracing::error!(file = %path.display(), %error, "cannot read the target's saved average; it starts afresh");
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(saved) => Some(saved),
        Err(error) => {
            match rnad_run::files::move_aside(path) {
                Ok(aside) => {
                    tracing::warn!(file = %path.display(), %error, aside = %aside.display(), "the target's saved average does not parse, moved aside; it starts afresh")
                }
                Err(move_error) => {
                    tracing::error!(file = %path.display(), %error, %move_error, "the target's saved average does not parse and cannot be moved aside; it starts afresh")
                }
            }
            None
        }
    }
}

async fn session(
    options: &WatchOptions,
    metrics: &EvaluatorMetrics,
    shutdown: &Shutdown,
    attempt: &mut Attempt<'_, '_>,
    average: &mut CarriedAverage,
) -> Result<(), ClientError> {
    let joined = rnad_wire::join(&options.learner, options.token.as_ref()).await?;
    let (run, learner) = (&joined.run, joined.learner);
    let config = run.config();
    let mode = options.mode.unwrap_or(config.evaluation.mode);
    let shape = run.shape();
    let mut evaluator = RunEvaluator::new(run, mode, options.panel_policy.as_deref())
        .map_err(|e| ClientError::Other(e.to_string()))?;
    evaluator.carry_over_average(average.live.take());
    if let Some(saved) = average.saved.take() {
        let sums = average_sums_path(&options.history);
        evaluator.restore_average(saved, &sums.display().to_string());
    }
    // A learner that crashes goes back to its newest checkpoint, or where
    // that is unreadable to the one before.
    evaluator.keep_sums_at_checkpoints(config.checkpoint.interval_steps);
    // A new learner process went on from its checkpoint, maybe past the
    // newest policy averaged by now: the average goes back with it.
    if average
        .learner
        .is_some_and(|before| before.id != learner.id)
    {
        evaluator.learner_went_back_to(learner.resumed_at_step);
    }
    average.learner = Some(learner);
    let watched = watch_params(
        &joined,
        shape,
        &mut evaluator,
        (options, metrics, shutdown),
        attempt,
    )
    .await;
    average.live = evaluator.take_average();
    watched
}

/// Evaluates each new version of the joined learner's parameters until the
/// connection fails, or the shutdown drops this future or stops an
/// evaluation.
async fn watch_params(
    joined: &rnad_wire::Joined,
    shape: &NetShape,
    evaluator: &mut RunEvaluator,
    (options, metrics, shutdown): (&WatchOptions, &EvaluatorMetrics, &Shutdown),
    attempt: &mut Attempt<'_, '_>,
) -> Result<(), ClientError> {
    let mut have = None;
    loop {
        let reply = joined
            .client
            .fetch_params(
                rnad_wire::context(),
                joined.hello.clone(),
                have,
                PublishedSet::ALL.to_vec(),
            )
            .await
            .map_err(|e| ClientError::rpc("fetching parameters", e))??;
        if let Some(params) = reply {
            let timer = Instant::now();
            let evaluation = evaluate_params(evaluator, shape, &params, shutdown)?;
            metrics.record(
                &evaluation,
                evaluator.game(),
                params.version,
                timer.elapsed(),
            );
            let entry = evaluation.entry(params.version, params.wall_seconds, params.decisions);
            if evaluation.is_empty() {
                // Mode best_response: its lines go to their own file.
            } else if let Err(error) = rnad_run::jsonl::append(&options.history, &entry) {
                metrics.write_failures_total.inc();
                tracing::error!(file = %options.history.display(), %error, "cannot append to the history; watching goes on");
            }
            save_average(
                evaluator,
                &evaluation,
                joined.learner,
                &options.history,
                metrics,
            );
            attempt.connected();
            have = Some(params.version);
        }
        record_best_responses(evaluator, &options.history, metrics);
        tokio::time::sleep(options.interval).await;
    }
}

/// Writes the target's average as a policy file and its sums beside the
/// history, after an exact evaluation (a head-to-head watcher of the same
/// run leaves them be); a failure is logged and counted, and watching goes
/// on.
fn save_average(
    evaluator: &RunEvaluator,
    evaluation: &Evaluation,
    learner: Incarnation,
    history: &Path,
    metrics: &EvaluatorMetrics,
) {
    let policy = average_policy_path(history);
    if let Some(file) = evaluator.target_average_file(evaluation) {
        if let Err(error) = write_json(&policy, &file) {
            metrics.write_failures_total.inc();
            tracing::error!(file = %policy.display(), %error, "cannot write the target's average; watching goes on");
        }
    }
    let Some(saved) = evaluation.exact.as_ref().and(evaluator.saved_sums()) else {
        return;
    };
    let file = SumsFile {
        sums: saved,
        learner: Some(learner),
    };
    let sums = average_sums_path(history);
    let json = serde_json::to_vec(&file).expect("sums serialise");
    if let Err(error) = rnad_run::files::write_atomically(&sums, &json) {
        metrics.write_failures_total.inc();
        tracing::error!(file = %sums.display(), %error, "cannot save the target's average; watching goes on");
    }
}

/// The best responses finished since the last look: in the metrics, and
/// in `best_response.jsonl` beside the history (a failed write is logged
/// and counted, and watching goes on).
fn record_best_responses(evaluator: &RunEvaluator, history: &Path, metrics: &EvaluatorMetrics) {
    let file = run_dir_of(history).best_responses();
    for line in evaluator.finished_best_responses() {
        metrics.record_best_response(&line);
        if let Err(error) = rnad_run::jsonl::append(&file, &line) {
            metrics.write_failures_total.inc();
            tracing::error!(file = %file.display(), %error, "cannot append the best response; watching goes on");
        }
    }
}

/// The run directory the history lies in.
fn run_dir_of(history: &Path) -> RunDir {
    RunDir::new(history.parent().unwrap_or(Path::new(".")))
}

/// Where the target's average goes: beside the history, under the name a
/// run directory gives it.
fn average_policy_path(history: &Path) -> PathBuf {
    run_dir_of(history).target_average_policy()
}

/// Where its sums go, for a restarted watcher to go on from.
fn average_sums_path(history: &Path) -> PathBuf {
    run_dir_of(history).target_average_sums()
}

/// The parameter sets of `params`, evaluated unless `shutdown` stops it
/// (logged here; the error it returns then ends [`run_sessions`] without a
/// word, the shutdown being under way).
fn evaluate_params(
    evaluator: &mut RunEvaluator,
    shape: &NetShape,
    params: &Params,
    shutdown: &Shutdown,
) -> Result<Evaluation, ClientError> {
    let set = |kind: PublishedSet| {
        params
            .sets
            .iter()
            .find(|(k, _)| *k == kind)
            .ok_or_else(|| format!("the learner sent no {kind:?} parameters"))
            .and_then(|(_, w)| w.to_set(shape).map_err(|e| e.to_string()))
            .map_err(ClientError::Other)
    };
    let (online, target, reg) = (
        set(PublishedSet::Online)?,
        set(PublishedSet::Target)?,
        set(PublishedSet::Reg)?,
    );
    let kinds = PublishedSets {
        online: &online,
        target: &target,
        reg: &reg,
    };
    let version = Version {
        step: params.version,
        wall_seconds: params.wall_seconds,
        decisions: params.decisions,
    };
    match evaluator.evaluate(kinds, None, version, &|| shutdown.is_cancelled()) {
        Ok(evaluation) => Ok(evaluation),
        Err(EvaluatorError::Stopped(stopped)) => {
            tracing::info!(
                version = params.version,
                "evaluation {stopped}: the watcher is stopping"
            );
            Err(ClientError::Other(format!("evaluation {stopped}")))
        }
        Err(error) => Err(ClientError::Other(format!("evaluating: {error}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_run::checkpoint::{AverageCounters, SavedAverage};
    use rnad_testkit::scratch;

    fn sums_at(first_step: u64, step: u64, probs: Vec<f64>) -> SavedAverage {
        SavedAverage {
            counters: AverageCounters {
                horizon_steps: 400_000,
                beta: 2.0,
                first_step,
                step,
            },
            weighted_probs: probs,
            weighted_reach: vec![std::f64::consts::PI, 1e-300],
        }
    }

    #[test]
    fn saved_sums_are_read_back_exactly() {
        let path = scratch("sums").join("target_average.sums.json");
        let saved = SumsFile {
            sums: SavedSums {
                newest: sums_at(100, 90_100, vec![0.1, 1.0 / 3.0, 2.5e-17, 0.0]),
                earlier: vec![
                    sums_at(100, 88_000, vec![0.2, 2.0 / 3.0, 1e-20, 0.0]),
                    sums_at(100, 89_050, vec![0.3, 1.0 / 7.0, 0.0, 5e-324]),
                ],
            },
            learner: Some(Incarnation {
                id: u64::MAX - 7,
                resumed_at_step: 88_000,
            }),
        };
        std::fs::write(&path, serde_json::to_vec(&saved).unwrap()).unwrap();
        assert_eq!(read_saved_average(&path), Some(saved));
        assert!(path.exists(), "a readable file stays where it is");
    }

    #[test]
    fn a_sums_file_of_newest_sums_only_reads_as_none_kept_of_no_known_learner() {
        let path = scratch("newest-only").join("target_average.sums.json");
        let newest = sums_at(100, 90_100, vec![0.1, 1.0 / 3.0]);
        std::fs::write(&path, serde_json::to_vec(&newest).unwrap()).unwrap();
        let read = read_saved_average(&path).expect("the older file parses");
        assert_eq!(read.sums.newest, newest);
        assert!(read.sums.earlier.is_empty());
        assert_eq!(read.learner, None);
    }

    #[test]
    fn no_sums_file_starts_afresh() {
        let path = scratch("none").join("target_average.sums.json");
        assert_eq!(read_saved_average(&path), None);
    }

    #[test]
    fn unreadable_sums_are_moved_aside_not_deleted() {
        let dir = scratch("unreadable");
        let path = dir.join("target_average.sums.json");
        std::fs::write(&path, "{\"counters\": {\"horizon_steps\": 4").unwrap();
        assert_eq!(read_saved_average(&path), None);
        assert!(!path.exists());
        let aside = dir.join("target_average.sums.json.unreadable");
        assert_eq!(
            std::fs::read_to_string(aside).unwrap(),
            "{\"counters\": {\"horizon_steps\": 4"
        );
    }
}
