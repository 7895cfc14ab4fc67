//! One trainer per run directory: an OS file lock on `RUN_DIR/lock`, held
//! for the trainer's whole life. The kernel releases it when the holder
//! exits however it exits (a SIGKILL, a power cut), so a dead holder never
//! blocks a restart; a live one makes a second trainer fail at once, naming
//! the holder's process and host as the lock file records them. Two
//! learners on one run directory (a restart policy, a copied command, a
//! rolling update) would otherwise both write its checkpoints and logs.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A held run-directory lock; dropping it releases the lock.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// Why a run directory could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another live process holds it.
    #[error("run directory {} is in use by {holder}: one trainer per run directory (stop it, or use another --run-dir)", dir.display())]
    Held {
        /// The run directory.
        dir: PathBuf,
        /// Who holds it, as its lock file says.
        holder: String,
    },
    /// The lock file could not be opened, locked or written.
    #[error("cannot lock run directory {}: {source}", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl RunLock {
    /// The lock file of a run directory.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("lock")
    }

    /// Locks `dir` (which must exist) for this process, recording its pid
    /// and host in the lock file.
    pub fn acquire(dir: &Path) -> Result<RunLock, LockError> {
        let path = RunLock::path(dir);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = match holder.trim() {
                    "" => "another process (it has not written its name yet)".to_string(),
                    named => named.to_string(),
                };
                return Err(LockError::Held {
                    dir: dir.to_path_buf(),
                    holder,
                });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        let holder = format!("pid {} on host {}", std::process::id(), host_name());
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(format!("{holder}\n").as_bytes()))
            .and_then(|()| file.sync_all())
            .map_err(io)?;
        Ok(RunLock { _file: file })
    }
}

/// This machine's name, as the kernel has it.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_string())
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "an unknown host".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_until_the_first_is_dropped() {
        let dir = rnad_testkit::scratch("second-lock");
        let first = RunLock::acquire(&dir).unwrap();
        let error = RunLock::acquire(&dir).unwrap_err().to_string();
        assert!(
            error.contains(&format!("pid {}", std::process::id())) && error.contains("host "),
            "{error}"
        );
        drop(first);
        let again = RunLock::acquire(&dir).unwrap();
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
