//! What actors send the learner: one finished game as the acting player's
//! view of each decision.

use serde::{Deserialize, Serialize};

use crate::packed;

/// One decision of a self-play game, borrowed from the actor that records
/// it or from the [`Trajectory`] that holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision<'a> {
    /// The acting player's information-state tensor.
    pub obs: &'a [f32],
    /// 1 for legal actions, 0 for illegal ones (one entry per distinct action).
    pub legal: &'a [f32],
    /// The acting player.
    pub player: u8,
    /// The action taken.
    pub action: u16,
    /// The behaviour policy μ the action was sampled from (every action).
    pub behaviour: &'a [f32],
    /// Every player's reward received after this decision.
    pub rewards: &'a [f32],
}

/// A whole game played with one parameter version: its decisions in
/// order, stored column by column (row `t` of each column is decision
/// `t`). Columns rather than a vector per decision because this is what
/// travels from actor to learner: each column is one allocation and one
/// byte string on the wire ([`packed`]), and the learner's batch copies
/// whole columns.
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
    /// Information-state tensors, `decisions × obs`.
    #[serde(with = "packed::f32s")]
    pub obs: Vec<f32>,
    /// Legal-action masks, `decisions × actions`.
    #[serde(with = "packed::f32s")]
    pub legal: Vec<f32>,
    /// Behaviour policies, `decisions × actions`.
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
    pub fn push(&mut self, decision: Decision<'_>) {
        self.player.push(decision.player);
        self.action.push(decision.action);
        self.obs.extend_from_slice(decision.obs);
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

    /// The decisions in order. Row sizes come from the column lengths, so
    /// on a trajectory from a peer call [`Trajectory::validate`] first.
    pub fn decisions(&self) -> impl Iterator<Item = Decision<'_>> {
        let n = self.len();
        rows(&self.obs, n)
            .zip(rows(&self.legal, n))
            .zip(rows(&self.behaviour, n))
            .zip(rows(&self.rewards, n))
            .zip(self.player.iter().zip(&self.action))
            .map(
                |((((obs, legal), behaviour), rewards), (&player, &action))| Decision {
                    obs,
                    legal,
                    player,
                    action,
                    behaviour,
                    rewards,
                },
            )
    }

    /// The rewards after the last decision (where a game's returns go),
    /// empty when there is none.
    pub fn last_rewards_mut(&mut self) -> &mut [f32] {
        let per_decision = self.rewards.len() / self.len().max(1);
        let start = self.rewards.len() - per_decision;
        &mut self.rewards[start..]
    }

    /// Checks shapes and values: a non-empty game no longer than
    /// `max_len` whose columns all hold that many rows; finite
    /// observations; 0/1 legal masks with a legal action; players in
    /// range; the action legal; the behaviour policy finite, non-negative,
    /// summing to 1 and positive on the action taken; finite rewards. The
    /// error says which step and what.
    pub fn validate(&self, dims: &Dims) -> Result<(), InvalidTrajectory> {
        let n = self.len();
        if n == 0 || n > dims.max_len {
            return Err(InvalidTrajectory(format!(
                "{n} steps, expected 1 to {}",
                dims.max_len
            )));
        }
        let lengths = [
            ("action", self.action.len(), n),
            ("obs", self.obs.len(), n * dims.obs),
            ("legal", self.legal.len(), n * dims.actions),
            ("behaviour", self.behaviour.len(), n * dims.actions),
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
        if !self.legal.iter().all(|&m| m == 0.0 || m == 1.0) {
            return Err(format!("legal mask {:?} is not 0/1", self.legal));
        }
        if usize::from(self.player) >= dims.players {
            return Err(format!("player {} out of range", self.player));
        }
        let action = usize::from(self.action);
        if action >= dims.actions || self.legal[action] != 1.0 {
            return Err(format!(
                "action {action} is not legal under mask {:?}",
                self.legal
            ));
        }
        if !self.behaviour.iter().all(|p| p.is_finite() && *p >= 0.0) {
            return Err(format!(
                "behaviour policy {:?} is not finite and non-negative",
                self.behaviour
            ));
        }
        let sum: f32 = self.behaviour.iter().sum();
        if (sum - 1.0).abs() > BEHAVIOUR_SUM_TOLERANCE || self.behaviour[action] <= 0.0 {
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

    /// Two decisions; the second is the one the checks below break.
    fn good() -> Trajectory {
        let mut t = Trajectory::new(3);
        t.push(Decision {
            obs: &[0.0, 1.0],
            legal: &[1.0, 1.0, 0.0],
            player: 0,
            action: 0,
            behaviour: &[0.5, 0.5, 0.0],
            rewards: &[0.0, 0.0],
        });
        t.push(Decision {
            obs: &[1.0, 0.0],
            legal: &[0.0, 1.0, 1.0],
            player: 1,
            action: 2,
            behaviour: &[0.0, 0.4, 0.6],
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
                legal: &[0.0, 1.0, 1.0],
                player: 1,
                action: 2,
                behaviour: &[0.0, 0.4, 0.6],
                rewards: &[1.0, -1.0],
            }
        );
        assert_eq!(decisions[0].rewards, &[0.0, 0.0]);
        assert_eq!(decisions[0].behaviour, &[0.5, 0.5, 0.0]);
        assert!(Trajectory::new(0).last_rewards_mut().is_empty());
    }

    #[test]
    fn a_well_formed_trajectory_passes() {
        assert_eq!(good().validate(&DIMS), Ok(()));
    }

    #[test]
    fn every_kind_of_bad_step_is_named() {
        type Break = fn(&mut Trajectory);
        let cases: [(Break, &str); 9] = [
            (|t| t.obs[2] = f32::NAN, "step 1: observation is not finite"),
            (|t| t.legal[3] = 0.5, "step 1: legal mask"),
            (|t| t.player[1] = 2, "step 1: player 2 out of range"),
            (|t| t.action[1] = 0, "step 1: action 0 is not legal"),
            (|t| t.action[1] = 7, "step 1: action 7 is not legal"),
            (
                |t| t.behaviour[3..].copy_from_slice(&[0.0, -0.5, 1.5]),
                "step 1: behaviour policy [0.0, -0.5, 1.5] is not finite and non-negative",
            ),
            (
                |t| t.behaviour[3..].copy_from_slice(&[0.0, 0.4, 0.4]),
                "step 1: behaviour policy [0.0, 0.4, 0.4] does not sum to 1",
            ),
            (
                |t| t.behaviour[3..].copy_from_slice(&[0.0, 1.0, 0.0]),
                "step 1: behaviour policy [0.0, 1.0, 0.0] does not sum to 1 or gives the action taken no probability",
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
    }

    #[test]
    fn columns_of_the_wrong_length_are_named() {
        type Break = fn(&mut Trajectory);
        let cases: [(Break, &str); 5] = [
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
            (|t| t.legal.truncate(3), "legal has 3 entries, expected 6"),
            (
                |t| t.behaviour.clear(),
                "behaviour has 0 entries, expected 6",
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
