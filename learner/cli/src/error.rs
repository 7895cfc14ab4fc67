//! The `rnad-learner` command's one error type: the learner's, the
//! evaluator's (the local run judges with it) and its own commands'.

use std::path::{Path, PathBuf};

use rnad_evaluator::error::EvaluatorError;
use rnad_evaluator::experiments::ExperimentError;
use rnad_learner::error::LearnerError;
use rnad_run::config::ConfigError;

/// Everything a `rnad-learner` command can fail on, saying where.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The learner failed.
    #[error(transparent)]
    Learner(#[from] LearnerError),
    /// The local run's evaluator could not be set up.
    #[error(transparent)]
    Evaluator(#[from] EvaluatorError),
    /// A bad config.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A tensor computation failed (the benchmark's own plays and steps).
    #[error("tensor computation failed: {0}")]
    Tensor(#[from] candle_core::Error),
    /// A sweep's runs could not be summarised.
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    /// A file or directory operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A command-line value that cannot be used (the message names it).
    #[error("{0}")]
    Usage(String),
    /// A sweep that cannot go on, and why.
    #[error("sweep: {0}")]
    Sweep(String),
    /// Work stopped by a signal before its end, which the same command
    /// resumes (exit status 75).
    #[error("{0}")]
    Unfinished(String),
}

impl CliError {
    /// Whether the command line asked for something that cannot be done
    /// (exit status 2) rather than the work failing (status 1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            CliError::Usage(_) | CliError::Config(ConfigError::Override { .. })
        ) || matches!(
            self,
            CliError::Learner(LearnerError::Config(ConfigError::Override { .. }))
        )
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> CliError {
        CliError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
