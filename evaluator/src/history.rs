//! Exact NashConv of the learner's policy kinds, and the run's history file.

use std::io::Write;
use std::path::Path;

use rnad_common::net::{NetShape, ParamSet};
use rnad_common::tree::GameTree;
use rnad_evaluator::exploitability::BestResponse;
use rnad_evaluator::neural::{
    network_policy, post_process, POLICY_DISCRETIZATION, POLICY_THRESHOLD,
};
use serde::{Deserialize, Serialize};

use crate::error::LearnerError;
use crate::rnad::LearnerState;

/// NashConv of each policy kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NashConvs {
    /// θ.
    pub online: f64,
    /// θ_target.
    pub target: f64,
    /// θ_target after the reference post-processing.
    pub target_postprocessed: f64,
    /// θ_reg.
    pub reg: f64,
}

/// One line of `history.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Learner step evaluated.
    pub learner_step: u64,
    /// Training wall time so far (across restarts), seconds.
    pub wall_seconds: f64,
    /// Decisions consumed so far.
    pub samples: u64,
    /// NashConv per policy kind.
    pub nash_conv: NashConvs,
}

/// Evaluates every policy kind of `state` exactly.
pub fn evaluate(
    tree: &GameTree,
    shape: &NetShape,
    state: &LearnerState,
) -> Result<NashConvs, LearnerError> {
    let mut best_response = BestResponse::new(tree);
    let mut nash_conv = |params: &ParamSet| -> Result<(f64, _), LearnerError> {
        let policy = network_policy(tree, shape, params)?;
        Ok((best_response.nash_conv(&policy).nash_conv, policy))
    };
    let (online, _) = nash_conv(&state.online)?;
    let (target, target_policy) = nash_conv(&state.target)?;
    let (reg, _) = nash_conv(&state.reg)?;
    let processed = post_process(
        tree,
        &target_policy,
        POLICY_THRESHOLD,
        POLICY_DISCRETIZATION,
    );
    let target_postprocessed = BestResponse::new(tree).nash_conv(&processed).nash_conv;
    Ok(NashConvs {
        online,
        target,
        target_postprocessed,
        reg,
    })
}

/// Appends one entry to the history file.
pub fn append_history(path: &Path, entry: &HistoryEntry) -> Result<(), LearnerError> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| LearnerError::io(path, e))?;
    let line = serde_json::to_string(entry).expect("history entry serialises");
    writeln!(file, "{line}").map_err(|e| LearnerError::io(path, e))
}
