//! `rnad-learner local`: learner, actors and evaluator in one process.
//!
//! Actor threads play batched self-play games with the latest published
//! parameters and push finished games into a bounded crossbeam channel (a
//! full channel blocks them: backpressure). The learner thread takes a batch,
//! drops games played with parameters too many versions old, steps, and
//! publishes the new parameters. Evaluation (exact NashConv of every policy
//! kind) runs in the learner thread at its interval, and checkpoints at
//! theirs; a stop request (Ctrl-C, SIGTERM, or the step limit) writes a final
//! evaluation and checkpoint.
//!
//! With `actors.lockstep` the learner plays each batch itself with the
//! current parameters (one generator, no threads): slower, but a run is
//! bit-for-bit reproducible, across restarts too.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, SendTimeoutError, Sender};
use rnad_actor::selfplay::{PolicySnapshot, SelfPlay};
use rnad_common::config::{Config, ConfigError};
use rnad_common::trajectory::Trajectory;
use rnad_common::tree::GameTree;

use crate::checkpoint;
use crate::error::LearnerError;
use crate::evaluation::{append_history, evaluate, HistoryEntry, NashConvs};
use crate::rnad::{Learner, StepStats};

/// How often progress is printed.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(2);
/// How long blocking channel operations wait before checking for a stop.
const POLL: Duration = Duration::from_millis(50);

/// Options of a local run beyond the config.
#[derive(Clone, Debug, Default)]
pub struct LocalOptions {
    /// Stop when the learner reaches this step (counted across restarts).
    pub max_steps: Option<u64>,
    /// Print progress lines on stderr.
    pub progress: bool,
}

/// Where a run ended.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The learner step reached.
    pub step: u64,
    /// The last evaluation.
    pub last: Option<NashConvs>,
    /// The final checkpoint.
    pub checkpoint: PathBuf,
    /// Trajectories dropped for being too stale.
    pub dropped: u64,
}

/// The latest parameters, shared with actor threads.
type Published = Arc<RwLock<Arc<PolicySnapshot>>>;

/// Files of a run directory.
struct RunDir {
    config: PathBuf,
    history: PathBuf,
    checkpoints: PathBuf,
}

impl RunDir {
    fn new(root: &Path) -> Result<RunDir, LearnerError> {
        std::fs::create_dir_all(root).map_err(|e| LearnerError::io(root, e))?;
        Ok(RunDir {
            config: root.join("config.toml"),
            history: root.join("history.jsonl"),
            checkpoints: root.join("checkpoints"),
        })
    }
}

/// Runs until `stop` is set or the step limit is reached; returns where it
/// ended. Resumes from the newest checkpoint in the run directory.
pub fn run_local(
    config: Config,
    options: LocalOptions,
    stop: Arc<AtomicBool>,
) -> Result<RunSummary, LearnerError> {
    config.validate()?;
    if config.actors.lockstep && config.actors.count != 1 {
        return Err(ConfigError::Invalid {
            key: "actors.count",
            message: format!(
                "lockstep runs use exactly 1 actor, got {}",
                config.actors.count
            ),
        }
        .into());
    }
    let dir = RunDir::new(&config.run_dir)?;
    std::fs::write(&dir.config, config.to_toml()).map_err(|e| LearnerError::io(&dir.config, e))?;
    let tree = GameTree::build(config.game.load().as_ref())?;

    let (mut learner, wall_offset, actor_rngs) = match checkpoint::list(&dir.checkpoints)?.last() {
        Some(path) => {
            let loaded = checkpoint::load(path, &config)?;
            if options.progress {
                eprintln!(
                    "resuming from {} (step {})",
                    path.display(),
                    loaded.meta.step
                );
            }
            let meta = loaded.meta;
            (
                Learner::from_state(&config, loaded.state),
                meta.wall_seconds,
                meta.actor_rngs,
            )
        }
        None => (Learner::new(&config)?, 0.0, Vec::new()),
    };
    let shape = learner.shape().clone();
    let published: Published = Arc::new(RwLock::new(Arc::new(snapshot(&learner))));
    let mut source =
        TrajectorySource::start(&config, &published, &actor_rngs, learner.state().step);

    let started = Instant::now();
    let wall = |offset: f64| offset + started.elapsed().as_secs_f64();
    let mut progress = Progress::new(learner.state().step, learner.state().samples);
    let mut last_eval: Option<(u64, Instant)> = None;
    let mut last: Option<NashConvs> = None;
    let mut dropped = 0u64;
    let reached = |step: u64| options.max_steps.is_some_and(|m| step >= m);

    while !stop.load(Ordering::SeqCst) && !reached(learner.state().step) {
        let Some(batch) = source.next_batch(
            &config,
            learner.state().step,
            &published,
            &stop,
            &mut dropped,
        )?
        else {
            break;
        };
        let stats = learner.step(&batch)?;
        *published.write().expect("snapshot lock") = Arc::new(snapshot(&learner));
        let step = learner.state().step;
        let due = match last_eval {
            None => true,
            Some((at, when)) => {
                let by_steps = config.evaluation.interval_steps > 0
                    && step >= at + config.evaluation.interval_steps;
                let by_time = config.evaluation.interval_seconds > 0.0
                    && when.elapsed().as_secs_f64() >= config.evaluation.interval_seconds;
                by_steps || by_time
            }
        };
        if due {
            last = Some(record(
                &tree,
                &shape,
                &learner,
                wall(wall_offset),
                &dir.history,
            )?);
            last_eval = Some((step, Instant::now()));
        }
        if step % config.checkpoint.interval_steps == 0 {
            save(&dir, &learner, &config, wall(wall_offset), &source)?;
        }
        if options.progress {
            progress.report(&learner, &stats, last.as_ref());
        }
    }
    source.shut_down();
    let step = learner.state().step;
    if last_eval.is_none_or(|(at, _)| at != step) {
        last = Some(record(
            &tree,
            &shape,
            &learner,
            wall(wall_offset),
            &dir.history,
        )?);
    }
    let checkpoint = save(&dir, &learner, &config, wall(wall_offset), &source)?;
    if options.progress {
        eprintln!(
            "stopped at step {step}; checkpoint {}",
            checkpoint.display()
        );
    }
    Ok(RunSummary {
        step,
        last,
        checkpoint,
        dropped,
    })
}

fn snapshot(learner: &Learner) -> PolicySnapshot {
    PolicySnapshot {
        version: learner.state().step,
        params: learner.state().online.clone(),
    }
}

fn record(
    tree: &GameTree,
    shape: &rnad_common::net::NetShape,
    learner: &Learner,
    wall_seconds: f64,
    history: &Path,
) -> Result<NashConvs, LearnerError> {
    let state = learner.state();
    let nash_conv = evaluate(tree, shape, state)?;
    append_history(
        history,
        &HistoryEntry {
            learner_step: state.step,
            wall_seconds,
            samples: state.samples,
            nash_conv: nash_conv.clone(),
        },
    )?;
    Ok(nash_conv)
}

fn save(
    dir: &RunDir,
    learner: &Learner,
    config: &Config,
    wall_seconds: f64,
    source: &TrajectorySource,
) -> Result<PathBuf, LearnerError> {
    checkpoint::save(
        &dir.checkpoints,
        learner.state(),
        config,
        (wall_seconds, source.rng_positions()),
        config.checkpoint.keep,
    )
}

/// Where batches come from: the learner's own lockstep actor, or actor
/// threads through a bounded channel.
enum TrajectorySource {
    Lockstep(Box<SelfPlay>),
    Threads {
        receiver: Receiver<Trajectory>,
        handles: Vec<JoinHandle<()>>,
        stop: Arc<AtomicBool>,
    },
}

impl TrajectorySource {
    fn start(
        config: &Config,
        published: &Published,
        rngs: &[(u64, u128)],
        step: u64,
    ) -> TrajectorySource {
        let game = config.game.load();
        let shape = crate::rnad::net_shape(config);
        if config.actors.lockstep {
            let mut play = SelfPlay::new(game, shape, 0, actor_seed(config.seed, 0, 0));
            if let Some(&(seed, pos)) = rngs.first() {
                play.set_rng_position(seed, pos);
            }
            return TrajectorySource::Lockstep(Box::new(play));
        }
        let (sender, receiver) = crossbeam_channel::bounded(config.actors.queue_capacity);
        let stop = Arc::new(AtomicBool::new(false));
        let handles = (0..config.actors.count)
            .map(|index| {
                let play = SelfPlay::new(
                    game.clone(),
                    shape.clone(),
                    config.actors.games_per_actor,
                    actor_seed(config.seed, index as u64, step),
                );
                let (published, sender, stop) = (published.clone(), sender.clone(), stop.clone());
                std::thread::Builder::new()
                    .name(format!("actor-{index}"))
                    .spawn(move || actor_loop(play, &published, &sender, &stop))
                    .expect("spawn actor thread")
            })
            .collect();
        TrajectorySource::Threads {
            receiver,
            handles,
            stop,
        }
    }

    /// The next batch, or `None` when a stop was requested while waiting.
    fn next_batch(
        &mut self,
        config: &Config,
        step: u64,
        published: &Published,
        stop: &AtomicBool,
        dropped: &mut u64,
    ) -> Result<Option<Vec<Trajectory>>, LearnerError> {
        let size = config.rnad.batch_size;
        match self {
            TrajectorySource::Lockstep(play) => {
                let snapshot = published.read().expect("snapshot lock").clone();
                Ok(Some(play.play_fresh(&snapshot, size)?))
            }
            TrajectorySource::Threads { receiver, .. } => {
                let mut batch = Vec::with_capacity(size);
                while batch.len() < size {
                    if stop.load(Ordering::SeqCst) {
                        return Ok(None);
                    }
                    match receiver.recv_timeout(POLL) {
                        Ok(t)
                            if step.saturating_sub(t.param_version)
                                > config.actors.max_policy_lag =>
                        {
                            *dropped += 1
                        }
                        Ok(t) => batch.push(t),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => return Ok(None),
                    }
                }
                Ok(Some(batch))
            }
        }
    }

    fn rng_positions(&self) -> Vec<(u64, u128)> {
        match self {
            TrajectorySource::Lockstep(play) => vec![play.rng_position()],
            TrajectorySource::Threads { .. } => Vec::new(),
        }
    }

    fn shut_down(&mut self) {
        if let TrajectorySource::Threads { handles, stop, .. } = self {
            stop.store(true, Ordering::SeqCst);
            for handle in handles.drain(..) {
                let _ = handle.join();
            }
        }
    }
}

/// A distinct generator seed per (run seed, actor, starting step), so that
/// a resumed run does not replay the games it already learned from.
fn actor_seed(seed: u64, actor: u64, step: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ actor.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ step.wrapping_mul(0x1656_67B1_9E37_79F9)
}

fn actor_loop(
    mut play: SelfPlay,
    published: &Published,
    sender: &Sender<Trajectory>,
    stop: &AtomicBool,
) {
    while !stop.load(Ordering::SeqCst) {
        let snapshot = published.read().expect("snapshot lock").clone();
        let finished = match play.step(&snapshot) {
            Ok(finished) => finished,
            Err(e) => {
                eprintln!("actor: forward pass failed: {e}");
                return;
            }
        };
        for mut trajectory in finished {
            loop {
                match sender.send_timeout(trajectory, POLL) {
                    Ok(()) => break,
                    Err(SendTimeoutError::Timeout(t)) if !stop.load(Ordering::SeqCst) => {
                        trajectory = t
                    }
                    Err(_) => return,
                }
            }
        }
    }
}

/// Live progress on stderr.
struct Progress {
    since: Instant,
    step: u64,
    samples: u64,
}

impl Progress {
    fn new(step: u64, samples: u64) -> Progress {
        Progress {
            since: Instant::now(),
            step,
            samples,
        }
    }

    fn report(&mut self, learner: &Learner, stats: &StepStats, last: Option<&NashConvs>) {
        let elapsed = self.since.elapsed().as_secs_f64();
        if elapsed < PROGRESS_INTERVAL.as_secs_f64() {
            return;
        }
        let state = learner.state();
        let steps_per_s = (state.step - self.step) as f64 / elapsed;
        let samples_per_s = (state.samples - self.samples) as f64 / elapsed;
        let nash = last.map_or_else(
            || "not evaluated yet".to_string(),
            |n| {
                format!(
                    "NashConv online {:.4} target {:.4} target_pp {:.4} reg {:.4}",
                    n.online, n.target, n.target_postprocessed, n.reg
                )
            },
        );
        eprintln!(
            "step {:>8} | {steps_per_s:7.1} steps/s | {samples_per_s:9.0} decisions/s | loss v {:.4} neurd {:.4} | {nash}",
            state.step, stats.loss_value, stats.loss_neurd
        );
        *self = Progress::new(state.step, state.samples);
    }
}
