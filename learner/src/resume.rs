//! Opening a run directory to train: the directory locked for this
//! process ([`TrainingDir`]), the config checked against the one the run
//! recorded, the newest readable checkpoint loaded, and the append-only
//! files repaired and cut back to it.
//!
//! * A restart whose config changes the experiment (any key not declared
//!   operational, [`rnad_run::config::Resume`]) is refused naming every
//!   changed key, unless the change is accepted explicitly; every change
//!   made, accepted or operational, is appended to `config-changes.jsonl`
//!   with the step it took effect at.
//! * A newest checkpoint that cannot be read (torn by a power loss, say) is
//!   moved aside, never deleted, and the one before it is used; only when no
//!   checkpoint is readable does the learner refuse, naming each file.
//! * A last line of `history.jsonl` or `training.jsonl` cut short by a
//!   crash is removed, and the lines past the checkpoint's step are dropped
//!   (they are made again).

use std::path::PathBuf;
use std::sync::Arc;

use candle_core::Device;
use rnad_run::checkpoint::SavedAverage;
use rnad_run::config::SettingChange;
use rnad_run::training_dir::TrainingDir;
use rnad_run::ResolvedRun;
use rnad_wire::trajectory::Trajectory;
use tokio::sync::mpsc;

use crate::checkpoint::{self, Checkpoint};
use crate::error::LearnerError;
use crate::metrics::LearnerMetrics;
use crate::rnad::Learner;
use crate::service::{Hub, Published};

/// How a run directory is opened.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// Continue the run even if the config changes the experiment (the
    /// change is recorded).
    pub accept_config_change: bool,
    /// Where the learner computes.
    pub device: Device,
}

impl Default for OpenOptions {
    /// No config change accepted; the CPU.
    fn default() -> Self {
        OpenOptions {
            accept_config_change: false,
            device: Device::Cpu,
        }
    }
}

/// A learner resumed from the newest readable checkpoint, or a fresh one.
pub struct Resumed {
    /// The learner.
    pub learner: Learner,
    /// Training wall time before this process.
    pub wall_offset: f64,
    /// Saved actor generator positions (lockstep runs).
    pub actor_rngs: Vec<(u64, u128)>,
    /// The checkpoint's average of the target policy, for the run's
    /// evaluator to go on from.
    pub target_average: Option<SavedAverage>,
}

/// A run directory opened for training: the learner resumed (or fresh) and
/// the hub it publishes through, with the receiving end of its queue.
pub struct Opened {
    /// The run directory, locked for this process while this lives.
    pub dir: TrainingDir,
    /// The learner and what its checkpoint carried.
    pub resumed: Resumed,
    /// Published parameters, queue and metrics.
    pub hub: Arc<Hub>,
    /// Where submitted trajectories arrive.
    pub queue: mpsc::Receiver<Trajectory>,
}

/// Checks the config for training, opens and locks the run directory,
/// checks the config against the run's recorded one, resumes from the
/// newest readable checkpoint and records the config.
pub fn open(run: ResolvedRun, options: &OpenOptions) -> Result<Opened, LearnerError> {
    let config = run.config();
    config.validate_for_training()?;
    let dir = TrainingDir::open(&config.run_dir)?;
    let changes = match dir.recorded_config()? {
        Some(recorded) => config.changes_from(&recorded),
        None => Vec::new(),
    };
    let experiment: Vec<SettingChange> = changes
        .iter()
        .filter(|c| c.changes_experiment())
        .cloned()
        .collect();
    if !experiment.is_empty() && !options.accept_config_change {
        return Err(LearnerError::ConfigChanged {
            path: dir.config(),
            changes: experiment,
        });
    }
    let resumed = resume(&run, &dir, &options.device)?;
    if !changes.is_empty() {
        dir.record_changes(resumed.learner.state().step, changes)?;
    }
    dir.record_config(config)?;
    let metrics = LearnerMetrics::new();
    metrics.describe_run(config);
    let (hub, queue) = Hub::new(
        run,
        published(&resumed.learner, resumed.wall_offset)?,
        metrics,
    );
    Ok(Opened {
        dir,
        resumed,
        hub,
        queue,
    })
}

/// Loads the newest readable checkpoint under `dir` (moving unreadable
/// newer ones aside), repairs the history and cuts it back to the
/// checkpoint's step; a fresh learner when there is no checkpoint.
fn resume(run: &ResolvedRun, dir: &TrainingDir, device: &Device) -> Result<Resumed, LearnerError> {
    let newest = newest_readable(run, &dir.checkpoints())?;
    dir.cut_logs_back_to(newest.as_ref().map(|(_, loaded)| loaded.meta.step))?;
    let Some((path, loaded)) = newest else {
        return Ok(Resumed {
            learner: Learner::new(run, device)?,
            wall_offset: 0.0,
            actor_rngs: Vec::new(),
            target_average: None,
        });
    };
    tracing::info!(
        "resuming from {} (step {})",
        path.display(),
        loaded.meta.step
    );
    Ok(Resumed {
        learner: Learner::from_state(run, loaded.state, device)?,
        wall_offset: loaded.meta.wall_seconds,
        actor_rngs: loaded.meta.actor_rngs,
        target_average: loaded.target_average,
    })
}

/// The newest checkpoint that loads, with the unreadable ones newer than
/// it moved aside. A checkpoint of another game or network is an error (the
/// run directory belongs to another experiment), as is having checkpoints
/// of which none is readable (nothing is moved then).
pub(crate) fn newest_readable(
    run: &ResolvedRun,
    dir: &std::path::Path,
) -> Result<Option<(PathBuf, Checkpoint)>, LearnerError> {
    let mut unreadable: Vec<(PathBuf, String)> = Vec::new();
    for path in checkpoint::list(dir)?.into_iter().rev() {
        match checkpoint::load(&path, run) {
            Ok(loaded) => {
                for (bad, why) in &unreadable {
                    let aside =
                        rnad_run::files::move_aside(bad).map_err(|e| LearnerError::io(bad, e))?;
                    tracing::warn!(
                        checkpoint = %bad.display(),
                        moved_to = %aside.display(),
                        reason = %why,
                        "unreadable checkpoint moved aside; resuming from an older one"
                    );
                }
                return Ok(Some((path, loaded)));
            }
            Err(LearnerError::Checkpoint { message, .. }) => unreadable.push((path, message)),
            Err(LearnerError::Io { source, .. }) => unreadable.push((path, source.to_string())),
            Err(other) => return Err(other),
        }
    }
    if unreadable.is_empty() {
        Ok(None)
    } else {
        Err(LearnerError::NoReadableCheckpoint {
            dir: dir.to_path_buf(),
            failures: unreadable,
        })
    }
}

/// What the learner currently publishes, at training wall time
/// `wall_seconds`: copies on the CPU, whatever device the learner trains
/// on, where evaluators compute and from where actors take them (as bytes,
/// or copied to their own device).
pub fn published(learner: &Learner, wall_seconds: f64) -> candle_core::Result<Published> {
    let state = learner.state();
    Ok(Published {
        version: state.step,
        decisions: state.decisions,
        wall_seconds,
        online: state.online.to_device(&Device::Cpu)?,
        target: state.target.to_device(&Device::Cpu)?,
        reg: state.reg.to_device(&Device::Cpu)?,
    })
}
