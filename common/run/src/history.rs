//! A run's evaluation history (`history.jsonl`): one line per evaluation
//! of the learner's policies, exact (NashConv of every policy kind) or head
//! to head (payoffs against a panel of opponents). The local run and
//! `rnad-evaluator watch` write it, `plot` and `sweep` read it; the format
//! lives here, beside everyone who touches it. Lines are appended with
//! [`crate::jsonl`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use rnad_net::PublishedSet;

/// Which of the learner's policies: what evaluations report, plots draw
/// and players play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// θ.
    Online,
    /// θ_target.
    Target,
    /// θ_target after the reference post-processing (what OpenSpiel's
    /// R-NaD solver plays, and so what seed 000 measured).
    TargetPostprocessed,
    /// θ_reg.
    Reg,
    /// A moving average of the target policy over the run's evaluations,
    /// with the actions NeuRD holds at its threshold dropped
    /// (`evaluation.average_horizon_steps`): the evaluator's, not a
    /// parameter set's; a local run's checkpoints hold its running sums.
    TargetAverage,
    /// The averaged network: a second network the learner trains on
    /// θ_target's policies at the states actors visit
    /// (`[average_network]`); a parameter set of checkpoints, not
    /// published to actors.
    AverageNetwork,
}

impl PolicyKind {
    /// Every kind, in history order.
    pub const ALL: [PolicyKind; 6] = [
        PolicyKind::Online,
        PolicyKind::Target,
        PolicyKind::TargetPostprocessed,
        PolicyKind::Reg,
        PolicyKind::TargetAverage,
        PolicyKind::AverageNetwork,
    ];

    /// The kinds a checkpoint's parameter sets give.
    pub const OF_PARAMETERS: [PolicyKind; 4] = [
        PolicyKind::Online,
        PolicyKind::Target,
        PolicyKind::TargetPostprocessed,
        PolicyKind::Reg,
    ];

    /// The name history files, metrics and command lines use.
    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Online => "online",
            PolicyKind::Target => "target",
            PolicyKind::TargetPostprocessed => "target_postprocessed",
            PolicyKind::Reg => "reg",
            PolicyKind::TargetAverage => "target_average",
            PolicyKind::AverageNetwork => "average_network",
        }
    }

    /// The published parameter set whose network gives this kind's policy
    /// (none for `target_average`, which the evaluator keeps, and for
    /// `average_network`, which only checkpoints hold).
    pub fn published_set(self) -> Option<PublishedSet> {
        match self {
            PolicyKind::Online => Some(PublishedSet::Online),
            PolicyKind::Target | PolicyKind::TargetPostprocessed => Some(PublishedSet::Target),
            PolicyKind::Reg => Some(PublishedSet::Reg),
            PolicyKind::TargetAverage | PolicyKind::AverageNetwork => None,
        }
    }

    /// This kind's value in an evaluation (none for the averages where the
    /// run kept none).
    pub fn of(self, n: &NashConvs) -> Option<f64> {
        match self {
            PolicyKind::Online => Some(n.online),
            PolicyKind::Target => Some(n.target),
            PolicyKind::TargetPostprocessed => Some(n.target_postprocessed),
            PolicyKind::Reg => Some(n.reg),
            PolicyKind::TargetAverage => n.target_average,
            PolicyKind::AverageNetwork => n.average_network,
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A policy kind's name that is none of [`PolicyKind::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown policy kind {0:?}: use online, target, target_postprocessed, reg, target_average or average_network"
)]
pub struct UnknownPolicyKind(pub String);

impl FromStr for PolicyKind {
    type Err = UnknownPolicyKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PolicyKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownPolicyKind(s.to_string()))
    }
}

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
    /// The moving average of the target policy (absent where the run keeps
    /// none, and in histories older than the kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average: Option<f64>,
    /// The averaged network (absent where the run trains none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_network: Option<f64>,
}

/// One line of `history.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Learner step evaluated.
    pub learner_step: u64,
    /// Training wall time so far (across restarts), seconds.
    pub wall_seconds: f64,
    /// Decisions consumed so far.
    /// (Files written before the name was settled call it `samples`.)
    #[serde(alias = "samples")]
    pub decisions: u64,
    /// NashConv per policy kind (exact evaluation; absent in head-to-head
    /// mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nash_conv: Option<NashConvs>,
    /// Results against the panel (head-to-head mode; absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub head_to_head: Vec<HeadToHead>,
    /// The local best response to the evaluated policy (head-to-head mode
    /// on heads-up hold'em, every `evaluation.lbr_interval_evaluations`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lbr: Option<LocalBestResponse>,
}

/// What a local best response won from the evaluated policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalBestResponse {
    /// The bets LBR considered (`fcpa`: fold, call, pot, all-in).
    pub bets: String,
    /// Hands played, LBR alternating seats.
    pub hands: usize,
    /// LBR's winnings, milli-big-blinds per hand: a lower bound on the
    /// policy's exploitability.
    pub mbb_per_hand: f64,
    /// Half-width of its 95% interval.
    pub ci95_mbb: f64,
}

impl HistoryEntry {
    /// The results in a line for people: every kind's NashConv, or the
    /// mean ± interval against each opponent.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = &self.nash_conv {
            let mut line = format!(
                "NashConv online {:.4} target {:.4} target_pp {:.4} reg {:.4}",
                n.online, n.target, n.target_postprocessed, n.reg
            );
            if let Some(average) = n.target_average {
                line += &format!(" target_avg {average:.4}");
            }
            if let Some(average) = n.average_network {
                line += &format!(" average_net {average:.4}");
            }
            parts.push(line);
        }
        for h in &self.head_to_head {
            parts.push(format!("vs {} {:+.4} ± {:.4}", h.opponent, h.mean, h.ci95));
        }
        if let Some(lbr) = &self.lbr {
            parts.push(format!(
                "LBR ({}) {:+.0} ± {:.0} mbb/hand",
                lbr.bets, lbr.mbb_per_hand, lbr.ci95_mbb
            ));
        }
        parts.join(" | ")
    }
}

/// The evaluated policy's result against one opponent of the panel, over
/// the same deals in every seat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    /// `uniform`, `rules`, `previous` (the version evaluated before this
    /// one) or `policy` (the watcher's policy file).
    pub opponent: String,
    /// The learner step of the `previous` opponent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_step: Option<u64>,
    /// Mean payoff per game, chips.
    pub mean: f64,
    /// Half-width of its 95% confidence interval over deals.
    pub ci95: f64,
    /// Deals played (each in every seat).
    pub deals: usize,
}
