//! Policy files: a tabular policy in OpenSpiel's JSON format (`policy`,
//! the map from every information-state string to [[action, probability],
//! ...]) with what it is beside it (`game`, `description`, `step`, `kind`,
//! `nash_conv`), as `export` writes a checkpoint's and the training
//! evaluation writes the target's average. `eval --policy` and `match
//! --players policy:FILE` read them back.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::policy::{PolicyError, TabularPolicy};
use crate::public_tree::PublicTree;

/// A policy file that cannot be read, naming it.
#[derive(Debug, thiserror::Error)]
pub enum PolicyFileError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file does not describe a valid policy for the game.
    #[error("policy file {}: {source}", path.display())]
    Policy {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: PolicyError,
    },
}

/// What a policy file says about its policy.
#[derive(Clone, Debug)]
pub struct PolicyFileHeader {
    /// Which policy of the run (`target_average`, `target_postprocessed`).
    pub kind: &'static str,
    /// The learner step it comes from.
    pub step: u64,
    /// Its NashConv.
    pub nash_conv: f64,
    /// What it is, for people.
    pub description: String,
}

/// The file's JSON: `policy` over `tree`'s game, with its header.
pub fn policy_file_json(
    tree: &PublicTree,
    policy: &TabularPolicy,
    header: PolicyFileHeader,
) -> Value {
    json!({
        "game": tree.spec().to_string(),
        "description": header.description,
        "step": header.step,
        "kind": header.kind,
        "nash_conv": header.nash_conv,
        "policy": policy.to_json(tree),
    })
}

/// Reads and validates a policy file for `tree`'s game.
pub fn read_policy_file(tree: &PublicTree, path: &Path) -> Result<TabularPolicy, PolicyFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| PolicyFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    TabularPolicy::from_json(tree, &text).map_err(|source| PolicyFileError::Policy {
        path: path.to_path_buf(),
        source,
    })
}
