//! Checkpoints: one safetensors file holding the four parameter sets and
//! Adam's moments, with counters, actor generator positions and the config
//! in its metadata. Written to a temporary file and renamed, so a crash
//! never leaves a torn checkpoint; the newest `keep` are kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};
use rnad_common::config::Config;
use rnad_common::game::GameSpec;
use rnad_common::net::{NetShape, ParamSet};
use serde::{Deserialize, Serialize};

use crate::adam::Adam;
use crate::error::LearnerError;
use crate::rnad::LearnerState;

const FORMAT: &str = "rnad-checkpoint-1";
const PREFIX: &str = "checkpoint-";
const SUFFIX: &str = ".safetensors";

/// Counters and settings stored beside the tensors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointMeta {
    /// Format tag.
    pub format: String,
    /// The game.
    pub game: GameSpec,
    /// Hidden layer widths of the network.
    pub hidden: Vec<usize>,
    /// Learner steps.
    pub step: u64,
    /// Regularisation rolls.
    pub rolls: u64,
    /// Decisions consumed.
    pub samples: u64,
    /// Adam updates applied.
    pub adam_count: u64,
    /// Wall-clock seconds of training so far, across restarts.
    pub wall_seconds: f64,
    /// Each actor's generator (seed, word position).
    pub actor_rngs: Vec<(u64, u128)>,
    /// The run's full config (TOML).
    pub config: String,
}

/// A loaded checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    /// The learner's state.
    pub state: LearnerState,
    /// Counters and settings.
    pub meta: CheckpointMeta,
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

/// Checkpoint files in `dir`, oldest first.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, LearnerError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(LearnerError::io(dir, source)),
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

/// Writes a checkpoint atomically and deletes all but the newest `keep`.
pub fn save(
    dir: &Path,
    state: &LearnerState,
    config: &Config,
    meta_extra: (f64, Vec<(u64, u128)>),
    keep: usize,
) -> Result<PathBuf, LearnerError> {
    let shape = NetShape::for_config(config);
    let mut tensors: HashMap<String, Tensor> = HashMap::new();
    for (prefix, set) in [
        ("online.", &state.online),
        ("target.", &state.target),
        ("reg.", &state.reg),
        ("reg_prev.", &state.reg_prev),
        ("adam_nu.", &ParamSet::from_tensors(state.adam.nu.clone())),
    ] {
        tensors.extend(set.named(&shape, prefix));
    }
    let meta = CheckpointMeta {
        format: FORMAT.into(),
        game: config.game.clone(),
        hidden: config.network.hidden.clone(),
        step: state.step,
        rolls: state.rolls,
        samples: state.samples,
        adam_count: state.adam.count,
        wall_seconds: meta_extra.0,
        actor_rngs: meta_extra.1,
        config: config.to_toml(),
    };
    let metadata = HashMap::from([(
        "rnad".to_string(),
        serde_json::to_string(&meta).expect("metadata serialises"),
    )]);
    let path = path_for(dir, state.step);
    let views: Vec<(String, Tensor)> = tensors.into_iter().collect();
    let data = serialize(&views, metadata).map_err(|e| LearnerError::Checkpoint {
        path: path.clone(),
        message: e,
    })?;
    rnad_common::files::write_atomically(&path, &data).map_err(|e| LearnerError::io(&path, e))?;
    let files = list(dir)?;
    for old in files.iter().take(files.len().saturating_sub(keep)) {
        std::fs::remove_file(old).map_err(|e| LearnerError::io(old, e))?;
    }
    Ok(path)
}

fn serialize(
    tensors: &[(String, Tensor)],
    metadata: HashMap<String, String>,
) -> Result<Vec<u8>, String> {
    let mut raw: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, t) in tensors {
        let values = t
            .flatten_all()
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| e.to_string())?;
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        raw.push((name.clone(), t.dims().to_vec(), bytes));
    }
    let views: Vec<(String, safetensors::tensor::TensorView)> = raw
        .iter()
        .map(|(name, dims, bytes)| {
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, dims.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    safetensors::serialize(views, Some(metadata)).map_err(|e| e.to_string())
}

/// Reads a checkpoint and checks it fits `config` (same game, same network).
pub fn load(path: &Path, config: &Config) -> Result<Checkpoint, LearnerError> {
    let corrupt = |message: String| LearnerError::Checkpoint {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| LearnerError::io(path, e))?;
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes)
        .map_err(|e| corrupt(format!("not a readable safetensors file ({e})")))?;
    let meta_json = header
        .metadata()
        .as_ref()
        .and_then(|m| m.get("rnad"))
        .ok_or_else(|| corrupt("no rnad metadata: not an rnad checkpoint".into()))?;
    let meta: CheckpointMeta =
        serde_json::from_str(meta_json).map_err(|e| corrupt(format!("bad metadata ({e})")))?;
    if meta.format != FORMAT {
        return Err(corrupt(format!(
            "format `{}`, expected `{FORMAT}`",
            meta.format
        )));
    }
    if meta.game != config.game {
        return Err(LearnerError::Mismatch {
            path: path.to_path_buf(),
            message: format!("it is for game {}, this run is {}", meta.game, config.game),
        });
    }
    if meta.hidden != config.network.hidden {
        return Err(LearnerError::Mismatch {
            path: path.to_path_buf(),
            message: format!(
                "its network has hidden layers {:?}, this run's config says {:?}",
                meta.hidden, config.network.hidden
            ),
        });
    }
    let tensors = candle_core::safetensors::load_buffer(&bytes, &Device::Cpu)
        .map_err(|e| corrupt(format!("tensors unreadable ({e})")))?;
    let shape = NetShape::for_config(config);
    let set = |prefix: &str| ParamSet::from_named(&shape, prefix, &tensors).map_err(corrupt);
    let r = &config.rnad;
    let adam = Adam {
        b2: r.adam_b2,
        eps: r.adam_eps,
        learning_rate: r.learning_rate,
        clip: r.clip_gradient,
        nu: set("adam_nu.")?.tensors().to_vec(),
        count: meta.adam_count,
    };
    let state = LearnerState {
        step: meta.step,
        rolls: meta.rolls,
        samples: meta.samples,
        online: set("online.")?,
        target: set("target.")?,
        reg: set("reg.")?,
        reg_prev: set("reg_prev.")?,
        adam,
    };
    Ok(Checkpoint { state, meta })
}
