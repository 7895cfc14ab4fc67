//! The learner's one error type.

use std::path::{Path, PathBuf};

use rnad_run::config::{operational_keys, ConfigError, SettingChange};
use rnad_run::training_dir::TrainingDirError;

use crate::evaluate::EvaluateError;
use crate::guard::NonFinite;
/// Everything the learner can fail on, saying where.
#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    /// A bad config.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The run directory cannot be trained in (another trainer holds it,
    /// its records cannot be read or written).
    #[error(transparent)]
    RunDir(#[from] TrainingDirError),
    /// A file or directory operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A checkpoint that cannot be read.
    #[error("checkpoint {} is unreadable: {message}", path.display())]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A checkpoint for another game or network.
    #[error("checkpoint {} does not belong to this run: {message}; use another run directory", path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs.
        message: String,
    },
    /// Checkpoints exist but none can be read; nothing was moved.
    #[error("no checkpoint in {} can be read: {}; move them away to start the run afresh, or restore a good one", dir.display(), list_failures(failures))]
    NoReadableCheckpoint {
        /// The checkpoint directory.
        dir: PathBuf,
        /// Each file and why it cannot be read.
        failures: Vec<(PathBuf, String)>,
    },
    /// A restart with a config that changes the experiment.
    #[error("{} records another experiment: {}; pass --accept-config-change to continue this run with the new settings (the change is recorded in config-changes.jsonl), or use another run directory (settings that may change freely: {})", path.display(), list_changes(changes), operational_keys().join(", "))]
    ConfigChanged {
        /// The run's recorded config.
        path: PathBuf,
        /// Every setting that changes the experiment.
        changes: Vec<SettingChange>,
    },
    /// An address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// A tensor computation failed.
    #[error("tensor computation failed: {0}")]
    Tensor(#[from] candle_core::Error),
    /// Non-finite steps kept coming after every roll-back allowed.
    #[error("the run keeps diverging: {bad}, after {rollbacks} roll-back(s) (rnad.max_rollbacks); lower rnad.learning_rate or rnad.clip_gradient and resume with --accept-config-change")]
    Diverged {
        /// The last step the guard refused.
        bad: NonFinite,
        /// Roll-backs made.
        rollbacks: u64,
    },
    /// An evaluation during training failed.
    #[error("evaluation failed: {0}")]
    Evaluation(#[source] EvaluateError),
}

impl LearnerError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> LearnerError {
        LearnerError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

fn list_failures(failures: &[(PathBuf, String)]) -> String {
    failures
        .iter()
        .map(|(path, why)| format!("{} ({why})", path.display()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_changes(changes: &[SettingChange]) -> String {
    changes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
