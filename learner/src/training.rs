//! The training loop shared by `local` and `serve`.
//!
//! It takes batches from a [`Source`] (a lockstep actor the caller passes
//! in, or the queue the tarpc service fills), drops games played with
//! parameters too many versions old, steps, publishes the new parameters
//! through the [`Hub`], updates the metrics, evaluates at its interval
//! (when given a judge, [`Evaluate`]) and checkpoints at its interval. A
//! shutdown (Ctrl-C, SIGTERM) or the step limit ends it with a final
//! evaluation and checkpoint.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rnad_net::ParamSet;
use rnad_process::logging::{self, LogFormat};
use rnad_process::shutdown::Shutdown;
use rnad_run::checkpoint::SavedAverage;
use rnad_run::config::Config;
use rnad_run::history::HistoryEntry;
use rnad_run::training_dir::TrainingDir;
use rnad_wire::trajectory::Trajectory;
use tokio::runtime::Handle;
use tokio::sync::mpsc;

use crate::checkpoint::{self, RunClock};
use crate::error::LearnerError;
use crate::evaluate::Evaluate;
use crate::guard::NonFinite;
use crate::resume::{newest_readable, published};
use crate::rnad::{Learner, StepStats, Stepped};
use crate::service::Hub;
use crate::training_log::TrainingLog;

/// How often progress is printed.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(2);

/// Where a run ended.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The learner step reached.
    pub step: u64,
    /// The last evaluation (runs that evaluate).
    pub last: Option<HistoryEntry>,
    /// The final checkpoint.
    pub checkpoint: PathBuf,
}

/// An actor the learner waits for: each batch is played with the current
/// parameters, so a run is bit-for-bit reproducible (the local run passes
/// the actors' self-play in).
pub trait Lockstep: Send {
    /// `size` fresh games played with `params`, parameter version
    /// `version`.
    fn play(
        &mut self,
        params: &ParamSet,
        version: u64,
        size: usize,
    ) -> candle_core::Result<Vec<Trajectory>>;

    /// Its random number generator as (seed, word position), which
    /// checkpoints keep so a resumed run plays the same games.
    fn rng_position(&self) -> (u64, u128);
}

/// Where batches come from.
pub enum Source {
    /// A lockstep actor plays each batch with the current parameters.
    Lockstep(Box<dyn Lockstep>),
    /// Trajectories submitted through the service, received on the
    /// service's runtime.
    Queue {
        /// The queue the service fills.
        receiver: mpsc::Receiver<Trajectory>,
        /// The service's runtime, which wakes the wait for them.
        runtime: Handle,
    },
}

impl Source {
    fn rng_positions(&self) -> Vec<(u64, u128)> {
        match self {
            Source::Lockstep(play) => vec![play.rng_position()],
            Source::Queue { .. } => Vec::new(),
        }
    }
}

/// How a training loop behaves.
#[derive(Clone, Debug, Default)]
pub struct TrainOptions {
    /// Stop when the learner reaches this step (counted across restarts).
    pub max_steps: Option<u64>,
    /// Print progress lines on stderr.
    pub progress: bool,
}

/// Everything one training loop works on.
pub struct Trainer<'a> {
    /// The run directory, locked by this process.
    pub dir: &'a TrainingDir,
    /// Where parameters are published and metrics kept.
    pub hub: &'a Hub,
    /// Where batches come from.
    pub source: Source,
    /// Training wall time before this process.
    pub wall_offset: f64,
    /// The judge of the policies at the config's evaluation interval,
    /// whose history it writes; none where `rnad-evaluator watch` judges.
    pub evaluation: Option<Box<dyn Evaluate + 'a>>,
    /// The checkpoint's average of the target policy, which a run without
    /// a judge passes on to its own checkpoints (a judge went on from it).
    pub target_average: Option<SavedAverage>,
}

impl<'a> Trainer<'a> {
    /// The run's config (borrowed from the hub, not from the trainer).
    fn config(&self) -> &'a Config {
        self.hub.run().config()
    }

    /// Trains until `shutdown` is cancelled or the step limit is reached.
    pub fn run(
        &mut self,
        learner: &mut Learner,
        options: &TrainOptions,
        shutdown: &Shutdown,
    ) -> Result<RunSummary, LearnerError> {
        let started = Instant::now();
        let mut progress = Progress::new(learner);
        let mut last = None;
        let mut last_eval = (learner.state().step, Instant::now());
        let mut log = TrainingLog::new(learner.state(), &self.hub.metrics);
        // A fresh run records its initial policy, so curves start at step 0;
        // a resumed run's history already holds its checkpoint's step.
        if learner.state().step == 0 {
            last = self.evaluate(learner, started, shutdown)?.or(last);
        }
        let reached = |step: u64| options.max_steps.is_some_and(|m| step >= m);
        let mut guard = Guard::default();
        while !shutdown.is_cancelled() && !reached(learner.state().step) {
            let Some(batch) = self.next_batch(learner.state().step, shutdown, &mut log)? else {
                break;
            };
            let timer = Instant::now();
            let stats = match learner.step(&batch)? {
                Stepped::Applied(stats) => {
                    guard.in_a_row = 0;
                    stats
                }
                Stepped::Skipped(bad) => {
                    if self.skipped(learner, bad, &mut guard, &mut log, started)? {
                        // Everything counted since the checkpoint belongs
                        // to the abandoned steps.
                        log = TrainingLog::new(learner.state(), &self.hub.metrics);
                        progress = Progress::new(learner);
                        last = None;
                        last_eval = (learner.state().step, Instant::now());
                    }
                    continue;
                }
            };
            self.hub
                .metrics
                .update_seconds
                .observe(timer.elapsed().as_secs_f64());
            self.hub
                .publish(published(learner, self.wall_seconds(started))?);
            self.record_step(learner, &stats);
            log.step(&stats);
            let step = learner.state().step;
            if step.is_multiple_of(self.config().training_log.interval_steps) {
                self.write_training_log(&mut log, learner, started);
            }
            if self.evaluation_due(step, last_eval.1) {
                last = self.evaluate(learner, started, shutdown)?.or(last);
                last_eval = (step, Instant::now());
            }
            if step.is_multiple_of(self.config().checkpoint.interval_steps) {
                // A checkpoint interval trained through since a roll-back:
                // the run recovered, and its roll-backs count afresh.
                learner.recovered();
                // A failed write (disk full, out of descriptors) costs one
                // checkpoint, not the run: the next interval tries again.
                if let Err(error) = self.save(learner, started) {
                    self.write_failed("checkpoint", &error);
                }
            }
            if options.progress {
                progress.report(learner, &stats, last.as_ref());
            }
        }
        if !log.is_empty() {
            self.write_training_log(&mut log, learner, started);
        }
        let step = learner.state().step;
        // A run that reached its step limit is judged where it ended; one
        // stopped by a signal is not: a scheduler's grace period (30 s in
        // Kubernetes) can be shorter than an evaluation, and the checkpoint
        // is what must not be lost. The resumed run's next evaluation
        // covers it.
        if last_eval.0 != step && !shutdown.is_cancelled() {
            last = self.evaluate(learner, started, shutdown)?.or(last);
        }
        let checkpoint = self.save(learner, started)?;
        tracing::info!(
            "stopped at step {step}; checkpoint {}",
            checkpoint.display()
        );
        Ok(RunSummary {
            step,
            last,
            checkpoint,
        })
    }

    /// A step the guard did not apply: counted and logged; after
    /// `rnad.max_nonfinite_steps` in a row the learner rolls back to the
    /// run's newest checkpoint with a smaller learning rate (true: it
    /// rolled back), and when it has rolled back `rnad.max_rollbacks`
    /// times since it last trained through a checkpoint interval, the run
    /// stops with an error.
    fn skipped(
        &mut self,
        learner: &mut Learner,
        bad: NonFinite,
        guard: &mut Guard,
        log: &mut TrainingLog,
        started: Instant,
    ) -> Result<bool, LearnerError> {
        let rnad = &self.config().rnad;
        self.hub.metrics.nonfinite_steps_total.inc();
        guard.in_a_row += 1;
        tracing::warn!(
            "{bad}: the step is skipped ({} in a row of {} allowed)",
            guard.in_a_row,
            rnad.max_nonfinite_steps
        );
        if guard.in_a_row < rnad.max_nonfinite_steps {
            return Ok(false);
        }
        let rollbacks = learner.state().rollbacks;
        if rollbacks >= rnad.max_rollbacks {
            if !log.is_empty() {
                self.write_training_log(log, learner, started);
            }
            return Err(LearnerError::Diverged { bad, rollbacks });
        }
        guard.in_a_row = 0;
        let from = self.roll_back(learner, started)?;
        self.hub.metrics.rollbacks_total.inc();
        tracing::error!(
            "{bad} in {} steps in a row: rolled back to {from} (step {}) with the learning rate scaled by {} (roll-back {} of {})",
            rnad.max_nonfinite_steps,
            learner.state().step,
            learner.state().learning_rate_scale,
            learner.state().rollbacks,
            rnad.max_rollbacks
        );
        Ok(true)
    }

    /// Puts the learner back at the run's newest readable checkpoint (or
    /// its start, where it has none) with its learning rate scaled by
    /// `rnad.rollback_learning_rate_factor` and one more roll-back counted,
    /// checkpoints that at once (so a restarted process goes on from it),
    /// cuts the run's training log back to it (and its history, where this
    /// process writes it: in `serve` it is the watcher's, whose lines of
    /// the abandoned steps readers supersede), and publishes it, making
    /// every client join again; says where it went.
    fn roll_back(
        &mut self,
        learner: &mut Learner,
        started: Instant,
    ) -> Result<String, LearnerError> {
        let scale =
            learner.state().learning_rate_scale * self.config().rnad.rollback_learning_rate_factor;
        let rollbacks = learner.state().rollbacks + 1;
        let (mut state, from) = match newest_readable(self.hub.run(), &self.dir.checkpoints())? {
            Some((path, loaded)) => {
                if self.evaluation.is_none() {
                    self.target_average = loaded.target_average;
                }
                (loaded.state, path.display().to_string())
            }
            None => (
                Learner::new(self.hub.run(), learner.device())?
                    .state()
                    .clone(),
                "the run's start".to_string(),
            ),
        };
        state.learning_rate_scale = scale;
        state.rollbacks = rollbacks;
        *learner = Learner::from_state(self.hub.run(), state, learner.device())?;
        let step = learner.state().step;
        if let Some(evaluation) = self.evaluation.as_mut() {
            evaluation.went_back_to(step);
        }
        self.save(learner, started)?;
        self.dir
            .cut_log_back_to(&self.dir.training_log(), Some(step))?;
        if self.evaluation.is_some() {
            self.dir.cut_log_back_to(&self.dir.history(), Some(step))?;
            self.dir
                .cut_log_back_to(&self.dir.best_responses(), Some(step))?;
        }
        self.hub
            .went_back(published(learner, self.wall_seconds(started))?);
        self.hub.metrics.step.set(step as i64);
        Ok(from)
    }

    fn record_step(&self, learner: &Learner, stats: &StepStats) {
        let m = &self.hub.metrics;
        m.step.set(learner.state().step as i64);
        m.updates_total.inc();
        m.decisions_total.inc_by(stats.decisions as u64);
        m.loss.with_label_values(&["value"]).set(stats.loss_value);
        m.loss.with_label_values(&["neurd"]).set(stats.loss_neurd);
        m.alpha.set(stats.alpha);
        m.queue_depth.set(self.hub.queue_depth() as i64);
    }

    /// Appends the interval's line to `training.jsonl`; a failed write is
    /// counted and training goes on.
    fn write_training_log(&self, log: &mut TrainingLog, learner: &Learner, started: Instant) {
        let record = log.finish(
            learner.state(),
            &self.hub.metrics,
            self.wall_seconds(started),
            learner.learning_rate(),
            self.hub.queue_depth(),
        );
        let path = self.dir.training_log();
        if let Err(error) = rnad_run::jsonl::append(&path, &record) {
            self.write_failed("training_log", &LearnerError::io(&path, error));
        }
    }

    /// Step-based evaluations fall on multiples of the interval, so runs
    /// (and a run and its resumption) are evaluated at the same steps.
    fn evaluation_due(&self, step: u64, since: Instant) -> bool {
        let e = &self.config().evaluation;
        let by_steps = e.interval_steps > 0 && step.is_multiple_of(e.interval_steps);
        let by_time =
            e.interval_seconds > 0.0 && since.elapsed().as_secs_f64() >= e.interval_seconds;
        by_steps || by_time
    }

    /// The next batch, once `step` steps are done, or `None` when the
    /// shutdown came while waiting for it.
    fn next_batch(
        &mut self,
        step: u64,
        shutdown: &Shutdown,
        log: &mut TrainingLog,
    ) -> Result<Option<Vec<Trajectory>>, LearnerError> {
        let size = self.config().rnad.batch_size_after(step);
        match &mut self.source {
            Source::Lockstep(play) => {
                let online = self.hub.latest().online.clone();
                Ok(Some(play.play(&online, step, size)?))
            }
            Source::Queue { receiver, runtime } => {
                let mut batch = Vec::with_capacity(size);
                let mut received = Vec::with_capacity(size);
                while batch.len() < size {
                    let wanted = size - batch.len();
                    let count = runtime.block_on(async {
                        tokio::select! {
                            count = receiver.recv_many(&mut received, wanted) => count,
                            () = shutdown.cancelled() => 0,
                        }
                    });
                    if count == 0 {
                        return Ok(None);
                    }
                    for t in received.drain(..) {
                        let lag = self.hub.policy_lag(t.param_version);
                        self.hub.metrics.policy_lag.observe(lag as f64);
                        log.lag(lag);
                        if self.hub.is_stale(t.param_version) {
                            self.hub.metrics.dropped_trajectories_total.inc();
                        } else {
                            batch.push(t);
                        }
                    }
                }
                Ok(Some(batch))
            }
        }
    }

    /// Has the judge, if there is one, evaluate the learner's policies;
    /// appends the history line (if it judged anything of its own) and
    /// the best responses that finished, and rewrites the target
    /// average's policy file (a failed write is counted and training goes
    /// on). An evaluation the shutdown stops writes nothing.
    fn evaluate(
        &mut self,
        learner: &Learner,
        started: Instant,
        shutdown: &Shutdown,
    ) -> Result<Option<HistoryEntry>, LearnerError> {
        let wall_seconds = self.wall_seconds(started);
        let Some(evaluation) = self.evaluation.as_mut() else {
            return Ok(None);
        };
        let Some(evaluated) = evaluation
            .evaluate(learner.state(), wall_seconds, &|| shutdown.is_cancelled())
            .map_err(LearnerError::Evaluation)?
        else {
            return Ok(None);
        };
        let path = self.dir.history();
        if let Some(entry) = &evaluated.entry {
            if let Err(error) = rnad_run::jsonl::append(&path, entry) {
                self.write_failed("history", &LearnerError::io(&path, error));
            }
        }
        let path = self.dir.best_responses();
        for line in &evaluated.best_responses {
            if let Err(error) = rnad_run::jsonl::append(&path, line) {
                self.write_failed("best_response", &LearnerError::io(&path, error));
            }
        }
        if let Some(file) = &evaluated.target_average {
            let path = self.dir.target_average_policy();
            let text = serde_json::to_string_pretty(file).expect("JSON values serialise");
            if let Err(error) = rnad_run::files::write_atomically(&path, text.as_bytes()) {
                self.write_failed("target_average", &LearnerError::io(&path, error));
            }
        }
        Ok(evaluated.entry)
    }

    /// Training wall time across restarts: the checkpoint's time plus this
    /// process's since `started`.
    fn wall_seconds(&self, started: Instant) -> f64 {
        self.wall_offset + started.elapsed().as_secs_f64()
    }

    /// Logs and counts a failed write of one of the run's files; training
    /// goes on.
    fn write_failed(&self, file: &'static str, error: &LearnerError) {
        self.hub
            .metrics
            .write_failures_total
            .with_label_values(&[file])
            .inc();
        tracing::error!(file, %error, "write failed; training goes on and retries at the next interval");
    }

    /// Checkpoints the learner, with the judge's average of the target
    /// policy; a run without a judge (`serve`) passes on the average it
    /// resumed with, whose newest policy is no newer than this step.
    fn save(&self, learner: &Learner, started: Instant) -> Result<PathBuf, LearnerError> {
        let average = match &self.evaluation {
            Some(evaluation) => evaluation.saved_average(),
            None => self.target_average.clone(),
        };
        checkpoint::save(
            &self.dir.checkpoints(),
            learner.state(),
            self.hub.run(),
            RunClock {
                wall_seconds: self.wall_seconds(started),
                actor_rngs: self.source.rng_positions(),
            },
            average.as_ref(),
            self.config().checkpoint.keep,
        )
    }
}

/// The divergence guard's count within one training loop (the roll-backs
/// are the learner's state, kept in checkpoints).
#[derive(Clone, Copy, Debug, Default)]
struct Guard {
    /// Non-finite steps since the last applied one.
    in_a_row: u64,
}

/// Live progress: a plain line on stderr for a terminal, or an event with
/// the figures as fields when logs are JSON.
struct Progress {
    since: Instant,
    step: u64,
    decisions: u64,
}

impl Progress {
    fn new(learner: &Learner) -> Progress {
        Progress {
            since: Instant::now(),
            step: learner.state().step,
            decisions: learner.state().decisions,
        }
    }

    fn report(&mut self, learner: &Learner, stats: &StepStats, last: Option<&HistoryEntry>) {
        let elapsed = self.since.elapsed().as_secs_f64();
        if elapsed < PROGRESS_INTERVAL.as_secs_f64() {
            return;
        }
        let state = learner.state();
        let steps_per_s = (state.step - self.step) as f64 / elapsed;
        let decisions_per_s = (state.decisions - self.decisions) as f64 / elapsed;
        if logging::format() == LogFormat::Json {
            let exact = last.and_then(|e| e.nash_conv.as_ref());
            tracing::info!(
                step = state.step,
                steps_per_s,
                decisions_per_s,
                loss_value = stats.loss_value,
                loss_neurd = stats.loss_neurd,
                nash_conv_target = exact.map(|n| n.target),
                nash_conv_reg = exact.map(|n| n.reg),
                last_evaluation = last.map(HistoryEntry::describe),
                "progress"
            );
        } else {
            let nash =
                last.map_or_else(|| "not evaluated here".to_string(), HistoryEntry::describe);
            let line = format!(
                "step {:>8} | {steps_per_s:7.1} steps/s | {decisions_per_s:9.0} decisions/s | loss v {:.4} neurd {:.4} | {nash}\n",
                state.step, stats.loss_value, stats.loss_neurd
            );
            // The terminal's progress line, not a log record.
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        *self = Progress::new(learner);
    }
}
