//! The learner's one error type.

use std::path::{Path, PathBuf};

use rnad_common::config::ConfigError;
use rnad_common::tree::TreeError;

/// Everything the learner can fail on, saying where.
#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    /// A bad config.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A file or directory operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A checkpoint that cannot be read.
    #[error("checkpoint {} is unusable: {message}; move it away to resume from an older one", path.display())]
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
    /// A sweep that cannot go on, and why.
    #[error("sweep: {0}")]
    Sweep(String),
    /// A sweep's runs could not be summarised.
    #[error(transparent)]
    Experiment(#[from] rnad_evaluator::experiments::ExperimentError),
    /// The game could not be enumerated for evaluation.
    #[error(transparent)]
    Tree(#[from] TreeError),
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
