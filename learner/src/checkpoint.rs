//! The learner's checkpoints: its whole state (four parameter sets, Adam's
//! moments, the averaged network where the run trains one, counters,
//! lockstep generator positions, the config), with the
//! sums of the run's `target_average` policy where it keeps one, in the file
//! format of [`rnad_run::checkpoint`], written atomically, the newest
//! `keep` kept.

use std::path::{Path, PathBuf};

use rnad_net::{first_nonfinite, ParamSet};
use rnad_run::checkpoint::{
    self as format, CheckpointError, CheckpointFile, CheckpointMeta, SavedAverage,
};
use rnad_run::ResolvedRun;

pub use rnad_run::checkpoint::{path_for, step_of};

use crate::adam::{Adam, AdamSettings};
use crate::average_network::AverageNetwork;
use crate::error::LearnerError;
use crate::rnad::LearnerState;

/// The averaged network's parameter set and its Adam moments in a file.
const AVERAGE_NETWORK: &str = "average_network";
const AVERAGE_NETWORK_NU: &str = "average_network_adam_nu";

/// A loaded checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    /// The learner's state.
    pub state: LearnerState,
    /// Counters and settings.
    pub meta: CheckpointMeta,
    /// The run's average of the target policy when it was saved.
    pub target_average: Option<SavedAverage>,
}

/// What a checkpoint records beyond the learner's state.
#[derive(Clone, Debug, Default)]
pub struct RunClock {
    /// Wall-clock seconds of training so far, across restarts.
    pub wall_seconds: f64,
    /// Each lockstep actor's generator (seed, word position).
    pub actor_rngs: Vec<(u64, u128)>,
}

/// Checkpoint files in `dir`, oldest first.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, LearnerError> {
    format::list(dir).map_err(|e| LearnerError::io(dir, e))
}

/// Writes a checkpoint (with the run's `average` of the target policy, where
/// it keeps one) atomically and deletes all but the newest `keep`.
pub fn save(
    dir: &Path,
    state: &LearnerState,
    run: &ResolvedRun,
    clock: RunClock,
    average: Option<&SavedAverage>,
    keep: usize,
) -> Result<PathBuf, LearnerError> {
    let (config, shape) = (run.config(), run.shape());
    let meta = CheckpointMeta {
        format: format::FORMAT.into(),
        game: config.game.clone(),
        torso: config.network.torso,
        hidden: config.network.hidden.clone(),
        step: state.step,
        rolls: state.rolls,
        decisions: state.decisions,
        adam_count: state.adam.count,
        learning_rate_scale: state.learning_rate_scale,
        rollbacks: state.rollbacks,
        wall_seconds: clock.wall_seconds,
        actor_rngs: clock.actor_rngs,
        config: config.to_toml(),
        // `format::write` records the average's counters.
        target_average: None,
        average_network_adam_count: state.average_network.as_ref().map(|a| a.adam.count),
    };
    let nu = ParamSet::from_tensors(state.adam.nu.clone());
    let mut sets = vec![
        ("online", &state.online),
        ("target", &state.target),
        ("reg", &state.reg),
        ("reg_prev", &state.reg_prev),
        ("adam_nu", &nu),
    ];
    let average_network = state
        .average_network
        .as_ref()
        .map(|a| (&a.params, ParamSet::from_tensors(a.adam.nu.clone())));
    if let Some((params, nu)) = &average_network {
        sets.push((AVERAGE_NETWORK, params));
        sets.push((AVERAGE_NETWORK_NU, nu));
    }
    let path = path_for(dir, state.step);
    format::write(&path, shape, &sets, average, &meta).map_err(checkpoint_error)?;
    let files = list(dir)?;
    for old in files.iter().take(files.len().saturating_sub(keep)) {
        std::fs::remove_file(old).map_err(|e| LearnerError::io(old, e))?;
    }
    Ok(path)
}

/// Reads a checkpoint and checks it fits `run` (same game, same network).
pub fn load(path: &Path, run: &ResolvedRun) -> Result<Checkpoint, LearnerError> {
    let config = run.config();
    let file = CheckpointFile::read(path).map_err(checkpoint_error)?;
    let meta = &file.meta;
    if meta.game != config.game {
        return Err(LearnerError::Mismatch {
            path: path.to_path_buf(),
            message: format!("it is for game {}, this run is {}", meta.game, config.game),
        });
    }
    if (meta.torso, &meta.hidden) != (config.network.torso, &config.network.hidden) {
        return Err(LearnerError::Mismatch {
            path: path.to_path_buf(),
            message: format!(
                "its network is torso {} of widths {:?}, this run's config says torso {} of widths {:?}",
                meta.torso, meta.hidden, config.network.torso, config.network.hidden
            ),
        });
    }
    let shape = run.shape();
    let set = |kind: &str| file.params(shape, kind).map_err(checkpoint_error);
    let adam = |nu: &str, count: u64| -> Result<Adam, LearnerError> {
        Ok(Adam {
            settings: AdamSettings::from_config(&config.rnad),
            nu: set(nu)?.tensors().to_vec(),
            count,
        })
    };
    let average_network = if file.has_params(AVERAGE_NETWORK) {
        Some(AverageNetwork {
            params: set(AVERAGE_NETWORK)?,
            adam: adam(
                AVERAGE_NETWORK_NU,
                meta.average_network_adam_count.unwrap_or(0),
            )?,
        })
    } else {
        None
    };
    let state = LearnerState {
        step: meta.step,
        rolls: meta.rolls,
        decisions: meta.decisions,
        online: set("online")?,
        target: set("target")?,
        reg: set("reg")?,
        reg_prev: set("reg_prev")?,
        adam: adam("adam_nu", meta.adam_count)?,
        learning_rate_scale: meta.learning_rate_scale,
        rollbacks: meta.rollbacks,
        average_network,
    };
    // A checkpoint from before the divergence guard may hold what the
    // guard now keeps out: such a file is unusable, like a torn one.
    let mut sets = vec![
        ("online", &state.online),
        ("target", &state.target),
        ("reg", &state.reg),
        ("reg_prev", &state.reg_prev),
    ];
    if let Some(average) = &state.average_network {
        sets.push((AVERAGE_NETWORK, &average.params));
    }
    for (name, set) in sets {
        if let Some(i) = first_nonfinite(set.tensors())? {
            return Err(LearnerError::Checkpoint {
                path: path.to_path_buf(),
                message: format!(
                    "its {name} parameters hold non-finite values ({})",
                    shape.param_names()[i].0
                ),
            });
        }
    }
    // The parameters are what a checkpoint is for: sums of the average that
    // cannot be read cost the average, not the checkpoint.
    let target_average = file.saved_average().unwrap_or_else(|error| {
        tracing::warn!(%error, "target_average not restored; it starts afresh");
        None
    });
    Ok(Checkpoint {
        state,
        target_average,
        meta: file.meta,
    })
}

/// The learner's error for a checkpoint file's.
fn checkpoint_error(e: CheckpointError) -> LearnerError {
    match e {
        CheckpointError::Io { path, source } => LearnerError::Io { path, source },
        CheckpointError::Unreadable { path, message } => LearnerError::Checkpoint { path, message },
    }
}
