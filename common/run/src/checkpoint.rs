//! The checkpoint file format: one safetensors file holding named parameter
//! sets, with counters, actor generator positions and the run's config as
//! JSON metadata under the key `rnad`. The learner writes and resumes from
//! these files; the evaluator reads their policies (`eval --checkpoint`,
//! `export`, `checkpoint:` players). The format lives here, beside both.
//!
//! Parameter tensors (`f32`) are named `KIND.NAME`, NAME as
//! [`NetShape::param_names`] lists them for the network (`torso.…`, then
//! `policy.weight` `[actions, width]`, `policy.bias`, `value.weight`
//! `[1, width]`, `value.bias`; docs/evaluation.md spells out each torso's),
//! for KIND in `online` (θ), `target` (θ_target), `reg` (θ_reg), `reg_prev`
//! (θ_reg') and `adam_nu` (Adam's second moments, shaped like θ), and where
//! the run trains an averaged network, `average_network` and
//! `average_network_adam_nu` (its Adam updates counted in the metadata's
//! `average_network_adam_count`).
//!
//! A run that keeps the `target_average` policy kind also stores its running
//! sums, so that a resumed run goes on averaging where it stopped: the `f64`
//! tensors `target_average.weighted_probs` `[slots]` and
//! `target_average.weighted_reach` `[information states]`, with their
//! counters under `target_average` in the metadata. Older checkpoints
//! without them still load; their run's average starts afresh.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::Tensor;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::tensor_file::RawTensor;
use rnad_games::GameSpec;
use rnad_net::{NetShape, ParamSet, TorsoKind};

/// The format tag a checkpoint carries.
pub const FORMAT: &str = "rnad-checkpoint-1";
const PREFIX: &str = "checkpoint-";
const SUFFIX: &str = ".safetensors";

/// Why a checkpoint file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// It could not be read.
    #[error("checkpoint {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Its contents are not a checkpoint (torn, foreign, damaged).
    #[error("checkpoint {} is unreadable: {message}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

fn unscaled() -> f64 {
    1.0
}

/// Counters and settings stored beside the tensors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointMeta {
    /// Format tag.
    pub format: String,
    /// The game.
    pub game: GameSpec,
    /// The network's torso (files from before there was a choice hold
    /// MLPs).
    #[serde(default)]
    pub torso: TorsoKind,
    /// The torso's widths.
    pub hidden: Vec<usize>,
    /// Learner steps.
    pub step: u64,
    /// Regularisation rolls.
    pub rolls: u64,
    /// Decisions consumed.
    /// (Files written before the name was settled call it `samples`.)
    #[serde(alias = "samples")]
    pub decisions: u64,
    /// Adam updates applied.
    pub adam_count: u64,
    /// What the learning rate schedule is multiplied by after the
    /// divergence guard's roll-backs (1 in files written before them).
    #[serde(default = "unscaled")]
    pub learning_rate_scale: f64,
    /// Roll-backs since the learner last trained through a checkpoint
    /// interval (0 in files written before them).
    #[serde(default)]
    pub rollbacks: u64,
    /// Wall-clock seconds of training so far, across restarts.
    pub wall_seconds: f64,
    /// Each lockstep actor's generator (seed, word position).
    pub actor_rngs: Vec<(u64, u128)>,
    /// The run's full config (TOML).
    pub config: String,
    /// The counters of the saved average of the target policy (absent where
    /// the run keeps none, and in checkpoints older than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average: Option<AverageCounters>,
    /// The averaged network's Adam updates (absent where the run trains
    /// none, and in checkpoints older than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_network_adam_count: Option<u64>,
}

/// The counters of a saved average of the target policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AverageCounters {
    /// Its horizon, in learner steps (`evaluation.average_horizon_steps`).
    pub horizon_steps: u64,
    /// The NeuRD threshold its held actions were dropped at.
    pub beta: f64,
    /// The learner step of the first policy averaged.
    pub first_step: u64,
    /// The learner step of the newest.
    pub step: u64,
}

/// The running sums of the `target_average` policy kind, as a checkpoint
/// stores them: per slot the weighted own reach times the probability, per
/// information state the weighted own reach. `rnad-evaluator watch`, which
/// writes no checkpoints, keeps them as JSON beside its history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedAverage {
    /// Settings and steps.
    pub counters: AverageCounters,
    /// Per slot of the game's public tree.
    pub weighted_probs: Vec<f64>,
    /// Per information state of the game's public tree.
    pub weighted_reach: Vec<f64>,
}

const AVERAGE_PROBS: &str = "target_average.weighted_probs";
const AVERAGE_REACH: &str = "target_average.weighted_reach";

/// A checkpoint read from disk: its metadata and its named tensors.
#[derive(Debug)]
pub struct CheckpointFile {
    /// The file.
    pub path: PathBuf,
    /// Counters and settings.
    pub meta: CheckpointMeta,
    tensors: HashMap<String, Tensor>,
}

impl CheckpointFile {
    /// Reads and checks a checkpoint file.
    pub fn read(path: &Path) -> Result<CheckpointFile, CheckpointError> {
        let unreadable = |message: String| CheckpointError::Unreadable {
            path: path.to_path_buf(),
            message,
        };
        let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let (meta_json, tensors) =
            crate::tensor_file::read(&bytes, "rnad", "an rnad checkpoint").map_err(unreadable)?;
        let meta: CheckpointMeta = serde_json::from_str(&meta_json)
            .map_err(|e| unreadable(format!("bad metadata ({e})")))?;
        if meta.format != FORMAT {
            return Err(unreadable(format!(
                "format `{}`, expected `{FORMAT}`",
                meta.format
            )));
        }
        Ok(CheckpointFile {
            path: path.to_path_buf(),
            meta,
            tensors,
        })
    }

    /// The run's config as the checkpoint recorded it.
    pub fn config(&self) -> Result<Config, CheckpointError> {
        Config::from_toml(
            &self.meta.config,
            &format!("{}'s config", self.path.display()),
        )
        .map_err(|e| CheckpointError::Unreadable {
            path: self.path.clone(),
            message: e.to_string(),
        })
    }

    /// The saved average of the target policy, where the checkpoint has one.
    pub fn saved_average(&self) -> Result<Option<SavedAverage>, CheckpointError> {
        let Some(counters) = &self.meta.target_average else {
            return Ok(None);
        };
        let vector = |name: &str| {
            self.tensors
                .get(name)
                .ok_or_else(|| format!("the metadata has a target_average but no tensor {name}"))
                .and_then(|t| {
                    t.to_vec1::<f64>()
                        .map_err(|e| format!("tensor {name}: {e}"))
                })
                .map_err(|message| CheckpointError::Unreadable {
                    path: self.path.clone(),
                    message,
                })
        };
        Ok(Some(SavedAverage {
            counters: counters.clone(),
            weighted_probs: vector(AVERAGE_PROBS)?,
            weighted_reach: vector(AVERAGE_REACH)?,
        }))
    }

    /// Whether the file holds a parameter set under `kind`.
    pub fn has_params(&self, kind: &str) -> bool {
        let prefix = format!("{kind}.");
        self.tensors.keys().any(|name| name.starts_with(&prefix))
    }

    /// The parameter set stored under `kind` (`online`, `target`, `reg`,
    /// `reg_prev`, `adam_nu`, `average_network`, …), checked against
    /// `shape`.
    pub fn params(&self, shape: &NetShape, kind: &str) -> Result<ParamSet, CheckpointError> {
        ParamSet::from_named(shape, &format!("{kind}."), &self.tensors).map_err(|message| {
            CheckpointError::Unreadable {
                path: self.path.clone(),
                message: message.to_string(),
            }
        })
    }
}

/// Writes a checkpoint of `sets` (kind, parameters), the saved `average`
/// and `meta` to `path`, atomically; the metadata's `target_average` is
/// the average's counters, whatever `meta` says.
pub fn write(
    path: &Path,
    shape: &NetShape,
    sets: &[(&str, &ParamSet)],
    average: Option<&SavedAverage>,
    meta: &CheckpointMeta,
) -> Result<(), CheckpointError> {
    let io = |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut raw = Vec::new();
    for (kind, set) in sets {
        for (name, tensor) in set.named(shape, &format!("{kind}.")) {
            raw.push(
                RawTensor::f32(name, &tensor)
                    .map_err(|e| io(std::io::Error::other(e.to_string())))?,
            );
        }
    }
    if let Some(average) = average {
        raw.push(RawTensor::f64(
            AVERAGE_PROBS.into(),
            &average.weighted_probs,
        ));
        raw.push(RawTensor::f64(
            AVERAGE_REACH.into(),
            &average.weighted_reach,
        ));
    }
    let meta = CheckpointMeta {
        target_average: average.map(|a| a.counters.clone()),
        ..meta.clone()
    };
    let metadata = serde_json::to_string(&meta).expect("metadata serialises");
    crate::tensor_file::write(path, raw, "rnad", metadata).map_err(io)
}

/// The checkpoint file for `step` in `dir`.
pub fn path_for(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("{PREFIX}{step:012}{SUFFIX}"))
}

/// The step a checkpoint file's name records.
pub fn step_of(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix(PREFIX)?
        .strip_suffix(SUFFIX)?
        .parse()
        .ok()
}

/// Checkpoint files in `dir`, oldest first (none if `dir` does not exist).
pub fn list(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(SUFFIX))
        })
        .collect();
    files.sort();
    Ok(files)
}
