//! Policy files: a tabular policy in OpenSpiel's JSON format (`policy`,
//! the map from every information-state string to [[action, probability],
//! ...]) with what it is beside it (`game`, `description`, `step`, `kind`,
//! `nash_conv`), as `export` writes a checkpoint's and the training
//! evaluation writes the target's average. `eval --policy` and `match
//! --players policy:FILE` read them back.

use std::path::Path;

use rnad_common::history::PolicyKind;
use rnad_common::policy::TabularPolicy;
use rnad_common::public_tree::PublicTree;
use serde_json::{json, Value};

use crate::error::EvaluatorError;

/// The file's JSON: `policy` of `kind` at learner step `step`, whose
/// NashConv is `nash_conv`.
pub fn policy_file_json(
    tree: &PublicTree,
    policy: &TabularPolicy,
    kind: PolicyKind,
    step: u64,
    nash_conv: f64,
    description: String,
) -> Value {
    json!({
        "game": tree.spec().to_string(),
        "description": description,
        "step": step,
        "kind": kind.name(),
        "nash_conv": nash_conv,
        "policy": policy.to_json(tree),
    })
}

/// Writes `file` to `path` atomically (a reader sees the old file or the
/// new one, never half of one).
pub fn write_policy_file(path: &Path, file: &Value) -> Result<(), EvaluatorError> {
    let text = serde_json::to_string_pretty(file).expect("JSON values serialise");
    crate::commands::write_atomically(path, text.as_bytes())
}
