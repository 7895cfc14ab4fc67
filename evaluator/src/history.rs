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

/// Drops the entries of a history file made after `step` (a run resumed
/// from its checkpoint at `step` makes them again). Lines that are not
/// history entries are kept as they are. Returns how many entries were
/// dropped; a missing file has none.
pub fn truncate_history(path: &Path, step: u64) -> std::io::Result<usize> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let after = |line: &str| {
        serde_json::from_str::<HistoryEntry>(line).is_ok_and(|e| e.learner_step > step)
    };
    let kept: Vec<&str> = text.lines().filter(|line| !after(line)).collect();
    let dropped = text.lines().count() - kept.len();
    if dropped > 0 {
        let rewritten: String = kept.iter().map(|line| format!("{line}\n")).collect();
        rnad_common::files::write_atomically(path, rewritten.as_bytes())?;
    }
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: u64) -> HistoryEntry {
        HistoryEntry {
            learner_step: step,
            wall_seconds: step as f64,
            samples: 10 * step,
            nash_conv: NashConvs {
                online: 1.0,
                target: 0.5,
                target_postprocessed: 0.25,
                reg: 2.0,
            },
        }
    }

    #[test]
    fn truncation_drops_only_entries_past_the_step() {
        let dir = std::env::temp_dir().join(format!("rnad-history-{}", std::process::id()));
        let path = dir.join("history.jsonl");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            truncate_history(&path, 5).unwrap(),
            0,
            "no file, nothing dropped"
        );
        for step in [0, 100, 200, 300] {
            append_history(&path, &entry(step)).unwrap();
        }
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("not an entry\n");
        std::fs::write(&path, &text).unwrap();

        assert_eq!(truncate_history(&path, 100).unwrap(), 2);
        let lines: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(
            serde_json::from_str::<HistoryEntry>(&lines[0]).unwrap(),
            entry(0)
        );
        assert_eq!(
            serde_json::from_str::<HistoryEntry>(&lines[1]).unwrap(),
            entry(100)
        );
        assert_eq!(lines[2], "not an entry", "unparsed lines are kept");
        assert_eq!(truncate_history(&path, 100).unwrap(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
