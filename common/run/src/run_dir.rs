//! The files of a run directory: everything about one training run in one
//! place, so that a run can be resumed, plotted and audited from it alone.

use std::path::{Path, PathBuf};

/// Where a run keeps each of its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// The run directory at `root` (nothing is created).
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    /// The directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config.toml`: the run's full resolved config.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// `history.jsonl`: one line per evaluation ([`crate::history`]).
    pub fn history(&self) -> PathBuf {
        self.root.join("history.jsonl")
    }

    /// `best_response.jsonl`: one line per learned best response
    /// ([`crate::best_response_log`]).
    pub fn best_responses(&self) -> PathBuf {
        self.root.join("best_response.jsonl")
    }

    /// `training.jsonl`: losses, throughput and lag every
    /// `training_log.interval_steps` steps ([`crate::training_log`]).
    pub fn training_log(&self) -> PathBuf {
        self.root.join("training.jsonl")
    }

    /// `config-changes.jsonl`: one line per accepted change of the config
    /// on resume ([`crate::training_dir::ConfigChangeRecord`]).
    pub fn config_changes(&self) -> PathBuf {
        self.root.join("config-changes.jsonl")
    }

    /// `target_average.json`: the `target_average` policy kind (the
    /// evaluator's moving average of the target policy) as a tabular policy
    /// file, rewritten at every evaluation of a run whose config keeps one.
    /// This is where it leaves the run (checkpoints hold only its sums).
    pub fn target_average_policy(&self) -> PathBuf {
        self.root.join("target_average.json")
    }

    /// `target_average.sums.json`: the running sums behind
    /// [`RunDir::target_average_policy`] as `rnad-evaluator watch` keeps
    /// them, rewritten at every evaluation, so a restarted watcher goes on
    /// averaging (a learner that evaluates keeps them in its checkpoints).
    pub fn target_average_sums(&self) -> PathBuf {
        self.root.join("target_average.sums.json")
    }

    /// `checkpoints/`: the newest checkpoints.
    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }
}
