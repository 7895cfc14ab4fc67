//! The evaluator's one error type.

use std::path::PathBuf;

use rnad_games::headtohead::sampled::Stopped;
use rnad_games::policy::PolicyError;
use rnad_run::history::PolicyKind;

use crate::neural::NetworkError;
use rnad_games::policy_file::PolicyFileError;
use rnad_games::public_tree::PublicTreeError;

impl EvaluatorError {
    /// Whether the command line asked for something that cannot be done
    /// (exit status 2) rather than the work failing (status 1).
    pub fn is_usage(&self) -> bool {
        matches!(self, EvaluatorError::Usage(_))
    }
}

/// Everything an evaluator command can fail on, with the file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum EvaluatorError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A policy file that does not describe a valid policy for the game.
    #[error("policy file {}: {source}", path.display())]
    Policy {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: PolicyError,
    },
    /// A policy file that cannot be read or used.
    #[error(transparent)]
    PolicyFile(#[from] PolicyFileError),
    /// An address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// A command-line value that cannot be used (the message names it).
    #[error("{0}")]
    Usage(String),
    /// A gain network file (seed 004's) that cannot be used.
    #[error("gain network {}: {message}", path.display())]
    GainNetwork {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A config that cannot be used (a checkpoint's, a learner's).
    #[error(transparent)]
    Config(#[from] rnad_run::config::ConfigError),
    /// A checkpoint that cannot be read.
    #[error(transparent)]
    Checkpoint(#[from] rnad_run::checkpoint::CheckpointError),
    /// Runs that cannot be plotted or summarised.
    #[error(transparent)]
    Experiment(#[from] crate::experiments::ExperimentError),
    /// A tensor computation failed.
    #[error("tensor computation failed: {0}")]
    Tensor(#[from] candle_core::Error),
    /// A policy kind's network could not be turned into a policy (its
    /// outputs are not finite, say).
    #[error("policy {kind}: {source}")]
    Network {
        /// Which policy.
        kind: PolicyKind,
        /// Why.
        source: NetworkError,
    },
    /// The game's public tree could not be built.
    #[error(transparent)]
    Tree(#[from] PublicTreeError),
    /// An evaluation was asked to stop (a shutdown) before it finished.
    #[error("evaluation {0}")]
    Stopped(#[from] Stopped),
}
