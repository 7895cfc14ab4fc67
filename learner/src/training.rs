//! The training loop shared by `local` and `serve`.
//!
//! It takes batches from a [`Source`] (the learner's own lockstep actor, or
//! the queue the tarpc service fills), drops games played with parameters
//! too many versions old, steps, publishes the new parameters through the
//! [`Hub`], updates the metrics, evaluates at its interval (when asked to)
//! and checkpoints at its interval. A stop request (Ctrl-C, SIGTERM, or the
//! step limit) ends it with a final evaluation and checkpoint.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
use rnad_common::checkpoint::SavedAverage;
use rnad_common::config::Config;
use rnad_common::history::HistoryEntry;
use rnad_common::logging::{self, LogFormat};
use rnad_common::net::NetShape;
use rnad_common::run_dir::RunDir;
use rnad_common::trajectory::Trajectory;
use rnad_evaluator::kinds::PolicyKinds;
use rnad_evaluator::metrics::EvaluatorMetrics;
use rnad_evaluator::run_eval::RunEvaluator;

use crate::checkpoint::{self, RunClock};
use crate::error::LearnerError;
use crate::resume::published;
use crate::rnad::{Learner, StepStats};
use crate::service::Hub;
use crate::training_log::TrainingLog;

/// How often progress is printed.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(2);
/// How long waiting for trajectories blocks before checking for a stop.
const POLL: Duration = Duration::from_millis(50);

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

/// Where batches come from.
pub enum Source {
    /// The learner plays each batch itself with the current parameters.
    Lockstep(Box<SelfPlay>),
    /// Trajectories submitted through the service.
    Queue(Receiver<Trajectory>),
}

impl Source {
    /// A lockstep actor, at its saved generator position if there is one.
    pub fn lockstep(config: &Config, rngs: &[(u64, u128)]) -> Source {
        let mut play = SelfPlay::new(
            config.game.load(),
            NetShape::for_config(config),
            0,
            RngStream::of(config.seed),
        );
        if let Some(&(seed, pos)) = rngs.first() {
            play.set_rng_position(seed, pos);
        }
        Source::Lockstep(Box::new(play))
    }

    fn rng_positions(&self) -> Vec<(u64, u128)> {
        match self {
            Source::Lockstep(play) => vec![play.rng_position()],
            Source::Queue(_) => Vec::new(),
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
    /// Evaluate every policy kind exactly at the config's interval and write
    /// the history (the local run; a served learner leaves it to
    /// `rnad-evaluator watch`).
    pub evaluate: bool,
}

/// Everything one training loop works on.
pub struct Trainer<'a> {
    /// The run's config.
    pub config: &'a Config,
    /// The run directory.
    pub dir: &'a RunDir,
    /// Where parameters are published and metrics kept.
    pub hub: &'a Hub,
    /// Where batches come from.
    pub source: Source,
    /// Training wall time before this process.
    pub wall_offset: f64,
    /// The checkpoint's average of the target policy, which the run's
    /// evaluator goes on from (taken when training starts; a run without
    /// an evaluator keeps it for its own checkpoints).
    pub target_average: Option<SavedAverage>,
}

impl Trainer<'_> {
    /// Trains until `stop` is set or the step limit is reached.
    pub fn run(
        &mut self,
        learner: &mut Learner,
        options: &TrainOptions,
        stop: &AtomicBool,
    ) -> Result<RunSummary, LearnerError> {
        // Only runs that evaluate need the public tree.
        let mut evaluator = if options.evaluate {
            let mut run_evaluator = RunEvaluator::new(self.config, learner.shape().clone(), None)?;
            run_evaluator.resume_average(self.target_average.take(), learner.state().step);
            let metrics = EvaluatorMetrics::in_registry(self.hub.metrics.registry.clone());
            Some((run_evaluator, metrics))
        } else {
            None
        };
        let started = Instant::now();
        let mut progress = Progress::new(learner);
        let mut last = None;
        let mut last_eval = (learner.state().step, Instant::now());
        let mut log = TrainingLog::new(learner.state(), &self.hub.metrics);
        // A fresh run records its initial policy, so curves start at step 0;
        // a resumed run's history already holds its checkpoint's step.
        if let Some(evaluator) = evaluator.as_mut().filter(|_| learner.state().step == 0) {
            last = Some(self.evaluate(evaluator, learner, started)?);
        }
        let reached = |step: u64| options.max_steps.is_some_and(|m| step >= m);
        while !stop.load(Ordering::SeqCst) && !reached(learner.state().step) {
            let Some(batch) = self.next_batch(learner.state().step, stop, &mut log)? else {
                break;
            };
            let timer = Instant::now();
            let stats = learner.step(&batch)?;
            self.hub
                .metrics
                .update_seconds
                .observe(timer.elapsed().as_secs_f64());
            self.hub
                .publish(published(learner, self.wall_seconds(started)));
            self.record_step(learner, &stats);
            log.step(&stats);
            let step = learner.state().step;
            if step % self.config.training_log.interval_steps == 0 {
                self.write_training_log(&mut log, learner, started);
            }
            if let Some(evaluator) = evaluator
                .as_mut()
                .filter(|_| self.evaluation_due(step, last_eval.1))
            {
                last = Some(self.evaluate(evaluator, learner, started)?);
                last_eval = (step, Instant::now());
            }
            if step % self.config.checkpoint.interval_steps == 0 {
                // A failed write (disk full, out of descriptors) costs one
                // checkpoint, not the run: the next interval tries again.
                if let Err(error) = self.save(learner, evaluator.as_ref().map(|(e, _)| e), started)
                {
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
        if let Some(evaluator) = evaluator.as_mut().filter(|_| last_eval.0 != step) {
            last = Some(self.evaluate(evaluator, learner, started)?);
        }
        let checkpoint = self.save(learner, evaluator.as_ref().map(|(e, _)| e), started)?;
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
        if let Err(error) = rnad_common::jsonl::append(&path, &record) {
            self.write_failed("training_log", &LearnerError::io(&path, error));
        }
    }

    /// Step-based evaluations fall on multiples of the interval, so runs
    /// (and a run and its resumption) are evaluated at the same steps.
    fn evaluation_due(&self, step: u64, since: Instant) -> bool {
        let e = &self.config.evaluation;
        let by_steps = e.interval_steps > 0 && step % e.interval_steps == 0;
        let by_time =
            e.interval_seconds > 0.0 && since.elapsed().as_secs_f64() >= e.interval_seconds;
        by_steps || by_time
    }

    /// The next batch, once `step` steps are done, or `None` when a stop
    /// was requested while waiting.
    fn next_batch(
        &mut self,
        step: u64,
        stop: &AtomicBool,
        log: &mut TrainingLog,
    ) -> Result<Option<Vec<Trajectory>>, LearnerError> {
        let size = self.config.rnad.batch_size_after(step);
        match &mut self.source {
            Source::Lockstep(play) => {
                let online = self.hub.latest().online.clone();
                let snapshot = PolicySnapshot {
                    version: step,
                    params: online,
                };
                Ok(Some(play.play_fresh(&snapshot, size)?))
            }
            Source::Queue(receiver) => {
                let mut batch = Vec::with_capacity(size);
                while batch.len() < size {
                    if stop.load(Ordering::SeqCst) {
                        return Ok(None);
                    }
                    match receiver.recv_timeout(POLL) {
                        Ok(t) => {
                            let lag = self.hub.policy_lag(t.param_version);
                            self.hub.metrics.policy_lag.observe(lag as f64);
                            log.lag(lag);
                            if self.hub.is_stale(t.param_version) {
                                self.hub.metrics.dropped_trajectories_total.inc();
                            } else {
                                batch.push(t);
                            }
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => return Ok(None),
                    }
                }
                Ok(Some(batch))
            }
        }
    }

    fn evaluate(
        &self,
        (evaluator, metrics): &mut (RunEvaluator, EvaluatorMetrics),
        learner: &Learner,
        started: Instant,
    ) -> Result<HistoryEntry, LearnerError> {
        let state = learner.state();
        let kinds = PolicyKinds {
            online: &state.online,
            target: &state.target,
            reg: &state.reg,
        };
        let timer = Instant::now();
        let evaluation = evaluator.evaluate(kinds, state.step)?;
        metrics.record(
            &evaluation,
            evaluator.tree().game().as_ref(),
            state.step,
            timer.elapsed(),
        );
        let entry = evaluation.entry(state.step, self.wall_seconds(started), state.samples);
        let path = self.dir.history();
        if let Err(error) = rnad_common::jsonl::append(&path, &entry) {
            self.write_failed("history", &LearnerError::io(&path, error));
        }
        let average = self.dir.target_average_policy();
        if let Err(error) = evaluator.write_target_average(&average, &evaluation) {
            self.write_failed("target_average", &error.into());
        }
        Ok(entry)
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

    /// Checkpoints the learner, with the evaluator's average of the target
    /// policy; a run that does not evaluate (`serve`) passes on the average
    /// it resumed with, whose newest policy is no newer than this step.
    fn save(
        &self,
        learner: &Learner,
        evaluator: Option<&RunEvaluator>,
        started: Instant,
    ) -> Result<PathBuf, LearnerError> {
        let average =
            evaluator.map_or_else(|| self.target_average.clone(), RunEvaluator::saved_average);
        checkpoint::save(
            &self.dir.checkpoints(),
            learner.state(),
            self.config,
            RunClock {
                wall_seconds: self.wall_seconds(started),
                actor_rngs: self.source.rng_positions(),
            },
            average.as_ref(),
            self.config.checkpoint.keep,
        )
    }
}

/// Live progress: a plain line on stderr for a terminal, or an event with
/// the figures as fields when logs are JSON.
struct Progress {
    since: Instant,
    step: u64,
    samples: u64,
}

impl Progress {
    fn new(learner: &Learner) -> Progress {
        Progress {
            since: Instant::now(),
            step: learner.state().step,
            samples: learner.state().samples,
        }
    }

    fn report(&mut self, learner: &Learner, stats: &StepStats, last: Option<&HistoryEntry>) {
        let elapsed = self.since.elapsed().as_secs_f64();
        if elapsed < PROGRESS_INTERVAL.as_secs_f64() {
            return;
        }
        let state = learner.state();
        let steps_per_s = (state.step - self.step) as f64 / elapsed;
        let samples_per_s = (state.samples - self.samples) as f64 / elapsed;
        if logging::format() == LogFormat::Json {
            let exact = last.and_then(|e| e.nash_conv.as_ref());
            tracing::info!(
                step = state.step,
                steps_per_s,
                decisions_per_s = samples_per_s,
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
                "step {:>8} | {steps_per_s:7.1} steps/s | {samples_per_s:9.0} decisions/s | loss v {:.4} neurd {:.4} | {nash}\n",
                state.step, stats.loss_value, stats.loss_neurd
            );
            // The terminal's progress line, not a log record.
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        *self = Progress::new(learner);
    }
}
