//! Writing files so that neither a crash nor a power loss leaves half of
//! one counted, and putting unusable files out of the way without losing
//! them.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `contents` to `path` through a temporary file beside it, then
/// renames it into place, creating the parent directory if needed.
///
/// The temporary file is fsynced before the rename and the directory after
/// it: without the first, a power loss can leave the new name pointing at
/// an empty or partial file; without the second, the rename itself may not
/// have reached the disk. So after a crash `path` holds either the old
/// contents or the new ones, whole.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = parent(path);
    std::fs::create_dir_all(&dir)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut file = File::create(&tmp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    sync_dir(&dir)
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

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rnad-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

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
