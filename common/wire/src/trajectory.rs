//! What actors send the learner: one finished game as the acting player's
//! view of each decision.
//!
//! A decision costs what is legal, not what the game could ever allow: its
//! legal actions as ids and the behaviour policy over just those, so a
//! Daihinmin decision with a handful of legal plays carries a handful of
//! numbers where a dense row would carry 2,660 twice.

use serde::{Deserialize, Serialize};

use crate::packed;

/// One decision of a self-play game, borrowed from the actor that records
/// it or from the [`Trajectory`] that holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision<'a> {
    /// The acting player's information-state tensor.
    pub obs: &'a [f32],
    /// The legal actions' ids, strictly increasing.
    pub legal: &'a [u16],
    /// The acting player.
    pub player: u8,
    /// The action taken.
    pub action: u16,
    /// The behaviour policy μ the action was sampled from, over `legal`
    /// (entry `k` is the probability of `legal[k]`).
    pub behaviour: &'a [f32],
    /// Every player's reward received after this decision.
    pub rewards: &'a [f32],
}

impl Decision<'_> {
    /// Where the action taken stands among the legal ones, if it does.
    pub fn taken(&self) -> Option<usize> {
        self.legal.binary_search(&self.action).ok()
    }

    /// μ of the action taken (0 where it is not among the legal ones).
    pub fn behaviour_of_action(&self) -> f32 {
        self.taken().map_or(0.0, |k| self.behaviour[k])
    }
}

/// A whole game played with one parameter version: its decisions in
/// order, stored column by column (row `t` of each fixed-width column is
/// decision `t`; the legal actions and their behaviour probabilities are
/// one run per decision, `legal_counts[t]` long). Columns rather than a
/// vector per decision because this is what travels from actor to
/// learner: each column is one allocation and one byte string on the wire
/// ([`packed`]), and the learner's batch copies whole columns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Version of the parameters that chose the actions.
    pub param_version: u64,
    /// The acting player per decision (chance moves are not recorded).
    #[serde(with = "packed::bytes")]
    pub player: Vec<u8>,
    /// The action taken per decision (Daihinmin has thousands).
    #[serde(with = "packed::u16s")]
    pub action: Vec<u16>,
    /// Information-state tensors, `decisions × obs` (a byte a value on the
    /// wire where they are all small whole numbers, as card bits are).
    #[serde(with = "packed::compact_f32s")]
    pub obs: Vec<f32>,
    /// How many actions are legal at each decision.
    #[serde(with = "packed::u16s")]
    pub legal_counts: Vec<u16>,
    /// The legal actions' ids, decision after decision.
    #[serde(with = "packed::u16s")]
    pub legal: Vec<u16>,
    /// The behaviour policies over the legal actions, aligned with `legal`.
    #[serde(with = "packed::f32s")]
    pub behaviour: Vec<f32>,
    /// Every player's reward after each decision, `decisions × players`.
    #[serde(with = "packed::f32s")]
    pub rewards: Vec<f32>,
}

/// The sizes a trajectory of a run must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Information-state tensor length.
    pub obs: usize,
    /// Distinct actions.
    pub actions: usize,
    /// Players.
    pub players: usize,
    /// Most decisions in one trajectory (the game's maximum length).
    pub max_len: usize,
}

/// How far a behaviour policy's sum may stray from 1 (it is computed in f32).
const BEHAVIOUR_SUM_TOLERANCE: f32 = 1e-3;

impl Trajectory {
    /// An empty game played with `param_version`.
    pub fn new(param_version: u64) -> Trajectory {
        Trajectory {
            param_version,
            ..Trajectory::default()
        }
    }

    /// Appends a decision.
    ///
    /// # Panics
    ///
    /// If its legal actions and behaviour policy differ in length, or
    /// more than 65,535 actions are legal.
    pub fn push(&mut self, decision: Decision<'_>) {
        assert_eq!(
            decision.legal.len(),
            decision.behaviour.len(),
            "one behaviour probability per legal action"
        );
        self.player.push(decision.player);
        self.action.push(decision.action);
        self.obs.extend_from_slice(decision.obs);
        self.legal_counts
            .push(u16::try_from(decision.legal.len()).expect("under 65,536 legal actions"));
        self.legal.extend_from_slice(decision.legal);
        self.behaviour.extend_from_slice(decision.behaviour);
        self.rewards.extend_from_slice(decision.rewards);
    }

    /// Number of decisions.
    pub fn len(&self) -> usize {
        self.player.len()
    }

    /// Whether the game has no decision yet.
    pub fn is_empty(&self) -> bool {
        self.player.is_empty()
    }

    /// The decisions in order. Row sizes come from the column lengths and
    /// the legal counts, so on a trajectory from a peer call
    /// [`Trajectory::validate`] first.
    pub fn decisions(&self) -> impl Iterator<Item = Decision<'_>> {
        let n = self.len();
        let mut start = 0;
        let runs = self.legal_counts.iter().map(move |&count| {
            let run = start..start + usize::from(count);
            start = run.end;
            run
        });
        rows(&self.obs, n)
            .zip(runs)
            .zip(rows(&self.rewards, n))
            .zip(self.player.iter().zip(&self.action))
            .map(|(((obs, run), rewards), (&player, &action))| Decision {
                obs,
                legal: &self.legal[run.clone()],
                player,
                action,
                behaviour: &self.behaviour[run],
                rewards,
            })
    }

    /// The rewards after the last decision (where a game's returns go),
    /// empty when there is none.
    pub fn last_rewards_mut(&mut self) -> &mut [f32] {
        let per_decision = self.rewards.len() / self.len().max(1);
        let start = self.rewards.len() - per_decision;
        &mut self.rewards[start..]
    }

    /// Checks shapes and values: a non-empty game no longer than
    /// `max_len` whose columns all hold that many rows, and whose legal
    /// runs add up to the legal and behaviour columns; finite
    /// observations; at least one legal action per decision, ids strictly
    /// increasing (so none twice) and in range; players in range; the
    /// action legal; the behaviour policy finite, non-negative, summing to
    /// 1 and positive on the action taken; finite rewards. The error says
    /// which step and what.
    pub fn validate(&self, dims: &Dims) -> Result<(), InvalidTrajectory> {
        let n = self.len();
        if n == 0 || n > dims.max_len {
            return Err(InvalidTrajectory(format!(
                "{n} steps, expected 1 to {}",
                dims.max_len
            )));
        }
        let legal_total: usize = self.legal_counts.iter().map(|&c| usize::from(c)).sum();
        let lengths = [
            ("action", self.action.len(), n),
            ("obs", self.obs.len(), n * dims.obs),
            ("legal_counts", self.legal_counts.len(), n),
            ("legal", self.legal.len(), legal_total),
            ("behaviour", self.behaviour.len(), legal_total),
            ("rewards", self.rewards.len(), n * dims.players),
        ];
        for (name, found, expected) in lengths {
            if found != expected {
                return Err(InvalidTrajectory(format!(
                    "{name} has {found} entries, expected {expected} for {n} steps"
                )));
            }
        }
        for (t, decision) in self.decisions().enumerate() {
            decision
                .validate(dims)
                .map_err(|e| InvalidTrajectory(format!("step {t}: {e}")))?;
        }
        Ok(())
    }
}

/// Why a trajectory cannot be learned from: which step and what (a bad
/// batch from the network is refused with it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidTrajectory(pub String);

/// A column of `n` equal rows, row by row (`n` rows even of width 0).
fn rows(column: &[f32], n: usize) -> impl Iterator<Item = &[f32]> {
    let width = column.len().checked_div(n).unwrap_or(0);
    (0..n).map(move |t| &column[t * width..(t + 1) * width])
}

impl Decision<'_> {
    /// The value checks of [`Trajectory::validate`] for one decision whose
    /// row lengths are already right.
    fn validate(&self, dims: &Dims) -> Result<(), String> {
        if !self.obs.iter().all(|v| v.is_finite()) {
            return Err("observation is not finite".into());
        }
        if self.legal.is_empty() {
            return Err("no legal action".into());
        }
        if !self.legal.windows(2).all(|pair| pair[0] < pair[1]) {
            return Err(format!(
                "legal actions {:?} are not strictly increasing (one given twice?)",
                self.legal
            ));
        }
        if let Some(&last) = self.legal.last() {
            if usize::from(last) >= dims.actions {
                return Err(format!(
                    "legal action {last} out of range (the game has {} actions)",
                    dims.actions
                ));
            }
        }
        if usize::from(self.player) >= dims.players {
            return Err(format!("player {} out of range", self.player));
        }
        if self.taken().is_none() {
            return Err(format!(
                "action {} is not among the legal actions {:?}",
                self.action, self.legal
            ));
        }
        if !self.behaviour.iter().all(|p| p.is_finite() && *p >= 0.0) {
            return Err(format!(
                "behaviour policy {:?} is not finite and non-negative",
                self.behaviour
            ));
        }
        let sum: f32 = self.behaviour.iter().sum();
        if (sum - 1.0).abs() > BEHAVIOUR_SUM_TOLERANCE || self.behaviour_of_action() <= 0.0 {
            return Err(format!(
                "behaviour policy {:?} does not sum to 1 or gives the action taken no probability",
                self.behaviour
            ));
        }
        if !self.rewards.iter().all(|r| r.is_finite()) {
            return Err("rewards are not finite".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIMS: Dims = Dims {
        obs: 2,
        actions: 3,
        players: 2,
        max_len: 4,
    };

    /// Two decisions; the second (legal 1 and 2, column entries 2 and 3)
    /// is the one the checks below break.
    fn good() -> Trajectory {
        let mut t = Trajectory::new(3);
        t.push(Decision {
            obs: &[0.0, 1.0],
            legal: &[0, 1],
            player: 0,
            action: 0,
            behaviour: &[0.5, 0.5],
            rewards: &[0.0, 0.0],
        });
        t.push(Decision {
            obs: &[1.0, 0.0],
            legal: &[1, 2],
            player: 1,
            action: 2,
            behaviour: &[0.4, 0.6],
            rewards: &[0.0, 0.0],
        });
        t
    }

    #[test]
    fn decisions_come_back_in_order_and_the_returns_go_to_the_last() {
        let mut t = good();
        t.last_rewards_mut().copy_from_slice(&[1.0, -1.0]);
        let decisions: Vec<_> = t.decisions().collect();
        assert_eq!(decisions.len(), 2);
        assert_eq!(
            decisions[1],
            Decision {
                obs: &[1.0, 0.0],
                legal: &[1, 2],
                player: 1,
                action: 2,
                behaviour: &[0.4, 0.6],
                rewards: &[1.0, -1.0],
            }
        );
        assert_eq!(decisions[0].rewards, &[0.0, 0.0]);
        assert_eq!(decisions[0].behaviour, &[0.5, 0.5]);
        assert_eq!(decisions[1].behaviour_of_action(), 0.6);
        assert_eq!(t.legal_counts, [2, 2]);
        assert!(Trajectory::new(0).last_rewards_mut().is_empty());
    }

    #[test]
    fn a_well_formed_trajectory_passes() {
        assert_eq!(good().validate(&DIMS), Ok(()));
    }

    #[test]
    fn every_kind_of_bad_step_is_named() {
        type Break = fn(&mut Trajectory);
        let cases: [(Break, &str); 11] = [
            (|t| t.obs[2] = f32::NAN, "step 1: observation is not finite"),
            (
                |t| t.legal[2..].copy_from_slice(&[2, 2]),
                "step 1: legal actions [2, 2] are not strictly increasing (one given twice?)",
            ),
            (
                |t| t.legal[2..].copy_from_slice(&[2, 1]),
                "step 1: legal actions [2, 1] are not strictly increasing",
            ),
            (
                |t| t.legal[3] = 3,
                "step 1: legal action 3 out of range (the game has 3 actions)",
            ),
            (|t| t.player[1] = 2, "step 1: player 2 out of range"),
            (
                |t| t.action[1] = 0,
                "step 1: action 0 is not among the legal actions [1, 2]",
            ),
            (
                |t| t.action[1] = 7,
                "step 1: action 7 is not among the legal actions",
            ),
            (
                |t| t.behaviour[2..].copy_from_slice(&[-0.5, 1.5]),
                "step 1: behaviour policy [-0.5, 1.5] is not finite and non-negative",
            ),
            (
                |t| t.behaviour[2..].copy_from_slice(&[0.4, 0.4]),
                "step 1: behaviour policy [0.4, 0.4] does not sum to 1",
            ),
            (
                |t| t.behaviour[2..].copy_from_slice(&[1.0, 0.0]),
                "step 1: behaviour policy [1.0, 0.0] does not sum to 1 or gives the action taken no probability",
            ),
            (
                |t| t.rewards[3] = f32::INFINITY,
                "step 1: rewards are not finite",
            ),
        ];
        for (break_it, expected) in cases {
            let mut t = good();
            break_it(&mut t);
            let err = t.validate(&DIMS).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{err}");
        }
        // A decision with no legal action: its count 0, the columns
        // shortened to match.
        let mut t = good();
        t.legal_counts[1] = 0;
        t.legal.truncate(2);
        t.behaviour.truncate(2);
        let err = t.validate(&DIMS).unwrap_err().to_string();
        assert!(err.starts_with("step 1: no legal action"), "{err}");
    }

    #[test]
    fn columns_of_the_wrong_length_are_named() {
        type Break = fn(&mut Trajectory);
        let cases: [(Break, &str); 7] = [
            (
                |t| t.obs.push(0.0),
                "obs has 5 entries, expected 4 for 2 steps",
            ),
            (
                |t| {
                    t.action.pop();
                },
                "action has 1 entries, expected 2",
            ),
            (|t| t.legal.truncate(3), "legal has 3 entries, expected 4"),
            (|t| t.legal_counts[0] = 3, "legal has 4 entries, expected 5"),
            (
                |t| {
                    t.legal_counts.pop();
                },
                "legal_counts has 1 entries, expected 2",
            ),
            (
                |t| t.behaviour.clear(),
                "behaviour has 0 entries, expected 4",
            ),
            (|t| t.rewards.push(0.0), "rewards has 5 entries, expected 4"),
        ];
        for (break_it, expected) in cases {
            let mut t = good();
            break_it(&mut t);
            let err = t.validate(&DIMS).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{err}");
        }
        let mut long = Trajectory::new(0);
        let first = good();
        for _ in 0..5 {
            long.push(first.decisions().next().unwrap());
        }
        assert!(long
            .validate(&DIMS)
            .unwrap_err()
            .to_string()
            .contains("5 steps"));
        assert!(Trajectory::new(0)
            .validate(&DIMS)
            .unwrap_err()
            .to_string()
            .contains("0 steps"));
    }
}
