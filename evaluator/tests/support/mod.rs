//! What the evaluator's integration tests share: running the binary, the
//! OpenSpiel fixtures, and reading a `--json` report.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs `rnad-evaluator` with `args` to its end.
pub fn evaluator(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rnad-evaluator"))
        .args(args)
        .output()
        .expect("rnad-evaluator runs")
}

/// A file of `fixtures/openspiel/`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/openspiel")
        .join(name)
}

/// The one line of JSON a `--json` command printed.
pub fn stdout_json(output: &Output) -> Value {
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(
        text.trim().lines().count(),
        1,
        "exactly one line of JSON: {text}"
    );
    serde_json::from_str(&text).expect("stdout is one JSON object")
}
