//! The workspace's own promises about how it builds: the minimum Rust
//! version it declares is no lower than what any locked dependency
//! declares, and the games layer compiles without the runtime crates.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

/// `cargo` with the workspace's manifest.
fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .arg("--manifest-path")
        .arg(rnad_testkit::workspace().join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The triple of the machine cargo builds for (`host:` in `cargo -vV`).
fn host() -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo).arg("-vV").output().expect("cargo runs");
    String::from_utf8(output.stdout)
        .expect("cargo -vV prints text")
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("cargo -vV names the host")
        .to_string()
}

fn version(text: &str) -> Vec<u64> {
    text.split('.').map(|part| part.parse().unwrap()).collect()
}

#[test]
fn the_declared_rust_version_covers_every_locked_dependency() {
    let declared = env!("CARGO_PKG_RUST_VERSION");
    // Only this platform's packages: a machine whose cargo cache holds just
    // what `cargo test` downloaded has no Windows-only crates, and offline
    // metadata for every platform would fail there. The crates this check
    // guards are the ones built here.
    let host = host();
    let metadata: Value = serde_json::from_str(&cargo(&[
        "metadata",
        "--locked",
        "--offline",
        "--filter-platform",
        &host,
        "--format-version",
        "1",
    ]))
    .unwrap();
    let needs: Vec<(Vec<u64>, String)> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| {
            let needed = p["rust_version"].as_str()?;
            Some((version(needed), format!("{} {needed}", p["name"])))
        })
        .collect();
    assert!(needs.len() > 20, "the dependencies declare their versions");
    let mut higher: Vec<&String> = needs
        .iter()
        .filter(|(needed, _)| *needed > version(declared))
        .map(|(_, name)| name)
        .collect();
    higher.sort();
    assert!(
        higher.is_empty(),
        "rust-version = {declared} in Cargo.toml, but these need more: {higher:?}"
    );
}

#[test]
fn the_games_layer_compiles_without_the_runtime_crates() {
    let tree = cargo(&[
        "tree",
        "--locked",
        "--offline",
        "-e",
        "normal",
        "-p",
        "rnad-games",
        "--prefix",
        "none",
    ]);
    let crates: BTreeSet<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    for runtime in ["candle-core", "candle-nn", "tokio", "tarpc", "prometheus"] {
        assert!(
            !crates.contains(runtime),
            "rnad-games depends on {runtime}: {crates:?}"
        );
    }
    let learner = cargo(&[
        "tree",
        "--locked",
        "--offline",
        "-e",
        "normal",
        "-p",
        "rnad-learner",
        "--prefix",
        "none",
    ]);
    for above in ["rnad-evaluator", "rnad-actor"] {
        assert!(
            !learner.lines().any(|l| l.starts_with(above)),
            "the learner library depends on {above}"
        );
    }
}
