//! Writing files so that readers never see half of one.

use std::path::Path;

/// Writes `contents` to `path` through a temporary file beside it and a
/// rename, creating the parent directory if needed: a crash leaves either
/// the old file or the new one, never a torn one.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path)
}
