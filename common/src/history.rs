//! A run's evaluation history (`history.jsonl`): one line per exact
//! evaluation of the learner's policy kinds. The local run and
//! `rnad-evaluator watch` write it, `plot` and `sweep` read it; the format
//! lives here, beside everyone who touches it. Lines are appended with
//! [`crate::jsonl`].

use serde::{Deserialize, Serialize};

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
