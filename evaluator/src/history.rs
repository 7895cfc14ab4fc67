//! Exact NashConv of the learner's policy kinds, and a run's history file
//! (`history.jsonl`, one line per evaluation), shared by the local run and
//! `rnad-evaluator watch`.

use std::io::Write;
use std::path::Path;

use rnad_common::net::{NetShape, ParamSet};
use rnad_common::tree::GameTree;
use serde::{Deserialize, Serialize};

use crate::exploitability::{BestResponse, NashConvReport};
use crate::neural::{network_policy, post_process, POLICY_DISCRETIZATION, POLICY_THRESHOLD};

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

/// The parameter sets evaluated during training.
#[derive(Clone, Copy, Debug)]
pub struct PolicyKinds<'a> {
    /// θ.
    pub online: &'a ParamSet,
    /// θ_target.
    pub target: &'a ParamSet,
    /// θ_reg.
    pub reg: &'a ParamSet,
}

/// Full reports per policy kind.
#[derive(Clone, Debug)]
pub struct KindReports {
    /// θ.
    pub online: NashConvReport,
    /// θ_target.
    pub target: NashConvReport,
    /// θ_target after the reference post-processing.
    pub target_postprocessed: NashConvReport,
    /// θ_reg.
    pub reg: NashConvReport,
}

impl KindReports {
    /// Each kind with its name as history files and metric labels write it.
    pub fn named(&self) -> [(&'static str, &NashConvReport); 4] {
        [
            ("online", &self.online),
            ("target", &self.target),
            ("target_postprocessed", &self.target_postprocessed),
            ("reg", &self.reg),
        ]
    }

    /// Just the NashConv values.
    pub fn nash_convs(&self) -> NashConvs {
        NashConvs {
            online: self.online.nash_conv,
            target: self.target.nash_conv,
            target_postprocessed: self.target_postprocessed.nash_conv,
            reg: self.reg.nash_conv,
        }
    }
}

/// Evaluates every policy kind exactly: one batched forward pass per
/// parameter set, then the best responses.
pub fn evaluate(
    tree: &GameTree,
    shape: &NetShape,
    kinds: PolicyKinds,
) -> candle_core::Result<KindReports> {
    let mut best_response = BestResponse::new(tree);
    let target_policy = network_policy(tree, shape, kinds.target)?;
    let processed = post_process(
        tree,
        &target_policy,
        POLICY_THRESHOLD,
        POLICY_DISCRETIZATION,
    );
    Ok(KindReports {
        online: best_response.nash_conv(&network_policy(tree, shape, kinds.online)?),
        target: best_response.nash_conv(&target_policy),
        target_postprocessed: best_response.nash_conv(&processed),
        reg: best_response.nash_conv(&network_policy(tree, shape, kinds.reg)?),
    })
}

/// Appends one entry to the history file.
pub fn append_history(path: &Path, entry: &HistoryEntry) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let line = serde_json::to_string(entry).expect("history entry serialises");
    writeln!(file, "{line}")
}
