//! Writing files so that neither a crash nor a power loss leaves half of
//! one counted, nor a failed write a temporary file behind, and putting
//! unusable files out of the way without losing them.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What [`write_atomically`] appends to a file's name for the temporary
/// file it writes first.
pub const TEMPORARY_SUFFIX: &str = ".tmp";

/// Writes `contents` to `path` through a temporary file beside it, then
/// renames it into place, creating the parent directory if needed.
///
/// The temporary file is fsynced before the rename and the directory after
/// it: without the first, a power loss can leave the new name pointing at
/// an empty or partial file; without the second, the rename itself may not
/// have reached the disk. So after a crash `path` holds either the old
/// contents or the new ones, whole. A write that fails (a full disk)
/// removes its temporary file: a run that fails every checkpoint for a day
/// must not leave one behind per attempt.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = parent(path);
    std::fs::create_dir_all(&dir)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(TEMPORARY_SUFFIX);
    let tmp = PathBuf::from(tmp);
    let written = File::create(&tmp).and_then(|mut file| {
        file.write_all(contents)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    });
    if let Err(error) = written {
        // The temporary is this write's own (one writer per file); a
        // directory squatting on its name, or a file never created, is not.
        if std::fs::symlink_metadata(&tmp).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&tmp);
        }
        return Err(error);
    }
    sync_dir(&dir)
}

/// Removes the temporary file [`write_atomically`] left for `path` when
/// the process died mid-write, if there is one (and it is a file); returns
/// it.
pub fn remove_temporary_of(path: &Path) -> std::io::Result<Option<PathBuf>> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(TEMPORARY_SUFFIX);
    let tmp = PathBuf::from(tmp);
    match std::fs::symlink_metadata(&tmp) {
        Ok(meta) if meta.is_file() => {
            std::fs::remove_file(&tmp)?;
            Ok(Some(tmp))
        }
        Ok(_) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Removes the temporary files [`write_atomically`] left in `dir` when the
/// process died mid-write (they never hold a user's data: the write they
/// belong to did not happen), and returns them. Directories are left be.
pub fn remove_temporaries(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry?;
        let is_temporary = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.ends_with(TEMPORARY_SUFFIX));
        if is_temporary && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
            removed.push(entry.path());
        }
    }
    Ok(removed)
}

/// Flushes a directory's entries (new, renamed or removed names) to disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The directory holding `path` (`.` for a bare file name).
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Renames an unusable file to `NAME.unreadable` (or `NAME.unreadable-2`,
/// … when that is taken) in the same directory, and returns the new path.
/// Nothing is deleted: the user can inspect or restore it.
pub fn move_aside(path: &Path) -> std::io::Result<PathBuf> {
    let base = path.as_os_str().to_owned();
    let aside = (1..)
        .map(|n| {
            let mut name = base.clone();
            name.push(if n == 1 {
                ".unreadable".to_string()
            } else {
                format!(".unreadable-{n}")
            });
            PathBuf::from(name)
        })
        .find(|candidate| !candidate.exists())
        .expect("some suffix is free");
    std::fs::rename(path, &aside)?;
    sync_dir(&parent(path))?;
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_testkit::scratch;

    #[test]
    fn atomic_writes_replace_the_whole_file_and_leave_no_temporary() {
        let dir = scratch("atomic");
        let path = dir.join("sub/out.json");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_and_the_old_contents() {
        let dir = scratch("failed");
        let path = dir.join("out.json");
        write_atomically(&path, b"old").unwrap();
        // A directory where the file should be makes the rename fail after
        // the temporary is written.
        let blocked = dir.join("blocked");
        std::fs::create_dir_all(blocked.join("inside")).unwrap();
        assert!(write_atomically(&blocked, b"new").is_err());
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(
            !names.iter().any(|n| n.ends_with(TEMPORARY_SUFFIX)),
            "{names:?}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_crashs_temporaries_are_removed_and_directories_left() {
        let dir = scratch("litter");
        std::fs::create_dir_all(dir.join("squatter.tmp")).unwrap();
        std::fs::write(dir.join("checkpoint-1.safetensors.tmp"), b"half").unwrap();
        std::fs::write(dir.join("history.jsonl"), b"{}").unwrap();
        let removed = remove_temporaries(&dir).unwrap();
        assert_eq!(removed, [dir.join("checkpoint-1.safetensors.tmp")]);
        assert!(dir.join("squatter.tmp").is_dir() && dir.join("history.jsonl").exists());
        assert!(remove_temporaries(&dir.join("absent")).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_moved_aside_keep_their_bytes_under_a_free_name() {
        let dir = scratch("aside");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("checkpoint-1.safetensors");
        std::fs::write(&path, b"torn").unwrap();
        let first = move_aside(&path).unwrap();
        assert_eq!(first, dir.join("checkpoint-1.safetensors.unreadable"));
        std::fs::write(&path, b"torn again").unwrap();
        let second = move_aside(&path).unwrap();
        assert_eq!(second, dir.join("checkpoint-1.safetensors.unreadable-2"));
        assert!(!path.exists());
        assert_eq!(std::fs::read(first).unwrap(), b"torn");
        assert_eq!(std::fs::read(second).unwrap(), b"torn again");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
