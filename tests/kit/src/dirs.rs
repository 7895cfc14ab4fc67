//! Where tests find the workspace, its binaries and a directory of their
//! own.

use std::path::PathBuf;

/// The directory holding the workspace's binaries: beside the running
/// executable, or one level up when it is a test in `target/<profile>/deps`
/// (cargo builds a package's binaries before its integration tests run).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("executable path");
    let dir = exe.parent().expect("executable directory");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.parent().expect("target/<profile>").to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of OpenSpiel 2.0.2's data (`fixtures/openspiel/`).
pub fn openspiel_fixture(name: &str) -> PathBuf {
    workspace().join("fixtures/openspiel").join(name)
}

/// A fresh, empty directory for the test `name`, under the build's target
/// directory (`target/<profile>/rnad-tests-tmp/<test executable>/<name>`),
/// emptied first if an earlier run left it. The test executable's name
/// keeps two test binaries that pick the same `name` apart when cargo runs
/// them at once.
pub fn scratch(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("executable path");
    let binary = exe
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("test");
    let dir = bin_dir().join("rnad-tests-tmp").join(binary).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_directory_starts_empty_and_is_the_tests_own() {
        let dir = scratch("starts-empty");
        std::fs::write(dir.join("left-over"), "x").unwrap();
        let again = scratch("starts-empty");
        assert_eq!(again, dir);
        assert_eq!(std::fs::read_dir(&again).unwrap().count(), 0);
        assert_ne!(scratch("another"), dir);
        assert!(workspace().join("Cargo.toml").is_file());
    }
}
