//! A run's learned best responses (`best_response.jsonl`): one line per
//! version of the learner's policy that a best response learned against
//! (`evaluation.br_interval_evaluations`). They live apart from
//! `history.jsonl` because a best response finishes minutes after the
//! version it judges was evaluated, when later evaluations have been
//! written: each line carries the step, time and decisions of the version
//! it judged, so that curves put it where it belongs.

use serde::{Deserialize, Serialize};

/// One line of `best_response.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestResponseLine {
    /// Learner step of the version the best response learned against.
    pub learner_step: u64,
    /// That version's training wall time, seconds.
    pub wall_seconds: f64,
    /// Decisions consumed by that version.
    pub decisions: u64,
    /// What the best response gained.
    pub best_response: BestResponseSummary,
}

/// What best responses learned in every seat gained from a policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestResponseSummary {
    /// The policy they played against (`target_postprocessed`).
    pub policy: String,
    /// The unit of every gain: `mbb/hand` (poker too large for a public
    /// tree), `payoff` (the game's own: chips, points; NashConv's unit
    /// where the game has a tree).
    pub unit: String,
    /// Optimiser steps each seat trained.
    pub budget_steps: u64,
    /// Seconds of training and judging, all seats.
    pub seconds: f64,
    /// The seats' gains summed: a lower bound on the policy's NashConv
    /// (up to the interval where sampled).
    pub gain: f64,
    /// Half-width of the 95% interval of `gain` (0 where exact).
    pub ci95: f64,
    /// The exact NashConv of the same policy, where the game has a public
    /// tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_gain: Option<f64>,
    /// Each seat's.
    pub seats: Vec<SeatGain>,
}

/// One seat's learned best response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatGain {
    /// The seat.
    pub seat: usize,
    /// Its value less the policy's own value in the seat.
    pub gain: f64,
    /// Half-width of the gain's 95% interval (0 where exact).
    pub ci95: f64,
    /// The exact best response's gain, where there is a tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_gain: Option<f64>,
}

impl BestResponseLine {
    /// The result in a line for people.
    pub fn describe(&self) -> String {
        let r = &self.best_response;
        let exact = r
            .exact_gain
            .map_or(String::new(), |e| format!(" (exact {e:.4})"));
        format!(
            "learned best response against step {}'s {}: gains {:+.4} ± {:.4} {}{exact}, {} steps a seat, {:.0} s",
            self.learner_step, r.policy, r.gain, r.ci95, r.unit, r.budget_steps, r.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line reads back as written, an exact one without intervals'
    /// absent fields, and a line that lacks a field is refused.
    #[test]
    fn lines_read_back_and_incomplete_ones_are_refused() {
        let line = BestResponseLine {
            learner_step: 1200,
            wall_seconds: 61.5,
            decisions: 98_304,
            best_response: BestResponseSummary {
                policy: "target_postprocessed".into(),
                unit: "mbb/hand".into(),
                budget_steps: 500,
                seconds: 93.25,
                gain: 412.5,
                ci95: 130.0,
                exact_gain: None,
                seats: vec![
                    SeatGain {
                        seat: 0,
                        gain: 300.0,
                        ci95: 90.0,
                        exact_gain: None,
                    },
                    SeatGain {
                        seat: 1,
                        gain: 112.5,
                        ci95: 93.8,
                        exact_gain: None,
                    },
                ],
            },
        };
        let text = serde_json::to_string(&line).unwrap();
        assert!(!text.contains("exact_gain"), "{text}");
        assert_eq!(
            serde_json::from_str::<BestResponseLine>(&text).unwrap(),
            line
        );
        let cut = text.replace("\"gain\":412.5,", "");
        assert!(serde_json::from_str::<BestResponseLine>(&cut).is_err());
        assert_eq!(
            line.describe(),
            "learned best response against step 1200's target_postprocessed: gains +412.5000 ± \
             130.0000 mbb/hand, 500 steps a seat, 93 s"
        );
    }
}
