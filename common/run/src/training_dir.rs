//! A run directory opened by the process that trains in it: created,
//! locked against a second trainer for as long as this value lives,
//! cleared of the temporary files a crash left, and the keeper of its own
//! records (the config it runs, the changes to it, the append-only logs cut
//! back to the checkpoint a run resumes from).

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigError, SettingChange};
use crate::run_dir::RunDir;
use crate::run_lock::{LockError, RunLock};

/// Why a run directory cannot be trained in.
#[derive(Debug, thiserror::Error)]
pub enum TrainingDirError {
    /// Another trainer holds it.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// Its recorded config cannot be read.
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
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TrainingDirError + '_ {
    move |source| TrainingDirError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One line of `config-changes.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigChangeRecord {
    /// The learner step from which the new values apply.
    pub learner_step: u64,
    /// When the restart happened (seconds since the Unix epoch).
    pub unix_time: u64,
    /// Every key that changed.
    pub changes: Vec<SettingChange>,
}

/// A run directory this process trains in (it holds the directory's lock).
#[derive(Debug)]
pub struct TrainingDir {
    dir: RunDir,
    _lock: RunLock,
}

impl Deref for TrainingDir {
    type Target = RunDir;

    fn deref(&self) -> &RunDir {
        &self.dir
    }
}

impl TrainingDir {
    /// Creates the run directory at `root` if needed, takes its lock (or
    /// fails at once, naming the holder) and removes the temporary files a
    /// crashed write of the trainer's left: any in its checkpoints, and
    /// those of the files only the trainer writes (an evaluator writing
    /// beside them, as `watch` does in compose, keeps its own).
    pub fn open(root: &Path) -> Result<TrainingDir, TrainingDirError> {
        let dir = RunDir::new(root);
        std::fs::create_dir_all(dir.root()).map_err(io(dir.root()))?;
        let lock = RunLock::acquire(dir.root())?;
        let checkpoints = dir.checkpoints();
        let mut removed =
            crate::files::remove_temporaries(&checkpoints).map_err(io(&checkpoints))?;
        for own in [
            dir.config(),
            dir.history(),
            dir.training_log(),
            dir.config_changes(),
        ] {
            if let Some(file) = crate::files::remove_temporary_of(&own).map_err(io(&own))? {
                removed.push(file);
            }
        }
        for file in removed {
            tracing::info!(file = %file.display(), "removed a temporary file a write that did not finish left behind");
        }
        Ok(TrainingDir { dir, _lock: lock })
    }

    /// The config the run recorded (none for a new run).
    pub fn recorded_config(&self) -> Result<Option<Config>, TrainingDirError> {
        let path = self.config();
        if !path.exists() {
            return Ok(None);
        }
        Ok(Some(Config::load(&path)?))
    }

    /// Records `config` as the run's `config.toml`.
    pub fn record_config(&self, config: &Config) -> Result<(), TrainingDirError> {
        let path = self.config();
        crate::files::write_atomically(&path, config.to_toml().as_bytes()).map_err(io(&path))
    }

    /// Appends the changes of a restart at learner step `step` to
    /// `config-changes.jsonl`, logging each.
    pub fn record_changes(
        &self,
        step: u64,
        changes: Vec<SettingChange>,
    ) -> Result<(), TrainingDirError> {
        for change in &changes {
            if change.changes_experiment() {
                tracing::warn!(step, %change, "config change accepted: the experiment changes from here on");
            } else {
                tracing::info!(step, %change, "operational setting changed");
            }
        }
        let record = ConfigChangeRecord {
            learner_step: step,
            unix_time: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            changes,
        };
        let path = self.config_changes();
        crate::jsonl::cut_torn_tail(&path).map_err(io(&path))?;
        crate::jsonl::append(&path, &record).map_err(io(&path))
    }

    /// Repairs the run's append-only logs (a last line cut short by a
    /// crash is removed) and drops their lines past `step`, the checkpoint
    /// the run resumes from (none: every line), which training makes again.
    pub fn cut_logs_back_to(&self, step: Option<u64>) -> Result<(), TrainingDirError> {
        for path in [self.history(), self.training_log(), self.best_responses()] {
            self.cut_log_back_to(&path, step)?;
        }
        Ok(())
    }

    /// [`TrainingDir::cut_logs_back_to`] for one log.
    pub fn cut_log_back_to(&self, path: &Path, step: Option<u64>) -> Result<(), TrainingDirError> {
        let cut = crate::jsonl::cut_torn_tail(path).map_err(io(path))?;
        if cut > 0 {
            tracing::warn!(
                file = %path.display(),
                bytes = cut,
                "cut off a last line left unfinished by a crash"
            );
        }
        let dropped = crate::jsonl::drop_after_step(path, step).map_err(io(path))?;
        if dropped > 0 {
            tracing::info!(
                file = %path.display(),
                dropped,
                "dropped lines written after the checkpoint the run went on from (they will be made again)"
            );
        }
        Ok(())
    }
}
