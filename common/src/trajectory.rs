//! What actors send the learner: one finished game as the acting player's
//! view of each decision.

use serde::{Deserialize, Serialize};

/// One decision of a self-play game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The acting player's information-state tensor.
    pub obs: Vec<f32>,
    /// 1 for legal actions, 0 for illegal ones (one entry per distinct action).
    pub legal: Vec<f32>,
    /// The acting player.
    pub player: u8,
    /// The action taken.
    pub action: u8,
    /// The behaviour policy μ the action was sampled from (every action).
    pub behaviour: Vec<f32>,
    /// Every player's reward received after this decision.
    pub rewards: Vec<f32>,
}

/// A whole game, decisions in order, played with one parameter version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Version of the parameters that chose the actions.
    pub param_version: u64,
    /// The decisions (chance moves are not recorded).
    pub steps: Vec<Step>,
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
    /// Checks shapes and values: a non-empty game no longer than
    /// `max_len`; finite observations; 0/1 legal masks with a legal action;
    /// players in range; the action legal; the behaviour policy finite,
    /// non-negative, summing to 1 and positive on the action taken; finite
    /// rewards. The error says which step and what.
    pub fn validate(&self, dims: &Dims) -> Result<(), String> {
        if self.steps.is_empty() || self.steps.len() > dims.max_len {
            return Err(format!(
                "{} steps, expected 1 to {}",
                self.steps.len(),
                dims.max_len
            ));
        }
        for (t, step) in self.steps.iter().enumerate() {
            step.validate(dims).map_err(|e| format!("step {t}: {e}"))?;
        }
        Ok(())
    }
}

impl Step {
    fn validate(&self, dims: &Dims) -> Result<(), String> {
        let lengths = [
            ("obs", self.obs.len(), dims.obs),
            ("legal", self.legal.len(), dims.actions),
            ("behaviour", self.behaviour.len(), dims.actions),
            ("rewards", self.rewards.len(), dims.players),
        ];
        for (name, found, expected) in lengths {
            if found != expected {
                return Err(format!("{name} has {found} entries, expected {expected}"));
            }
        }
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

    fn good() -> Trajectory {
        Trajectory {
            param_version: 3,
            steps: vec![Step {
                obs: vec![1.0, 0.0],
                legal: vec![0.0, 1.0, 1.0],
                player: 1,
                action: 2,
                behaviour: vec![0.0, 0.4, 0.6],
                rewards: vec![1.0, -1.0],
            }],
        }
    }

    #[test]
    fn a_well_formed_trajectory_passes() {
        assert_eq!(good().validate(&DIMS), Ok(()));
    }

    #[test]
    fn every_kind_of_bad_step_is_named() {
        type Break = fn(&mut Step);
        let cases: [(Break, &str); 9] = [
            (|s| s.obs.push(0.0), "obs has 3 entries"),
            (|s| s.obs[0] = f32::NAN, "observation is not finite"),
            (|s| s.legal[0] = 0.5, "not 0/1"),
            (|s| s.player = 2, "player 2 out of range"),
            (|s| s.action = 0, "action 0 is not legal"),
            (|s| s.action = 7, "action 7 is not legal"),
            (
                |s| s.behaviour = vec![0.0, -0.5, 1.5],
                "not finite and non-negative",
            ),
            (|s| s.behaviour = vec![0.0, 0.4, 0.4], "does not sum to 1"),
            (|s| s.rewards[1] = f32::INFINITY, "rewards are not finite"),
        ];
        for (break_it, expected) in cases {
            let mut t = good();
            break_it(&mut t.steps[0]);
            let err = t.validate(&DIMS).unwrap_err();
            assert!(
                err.starts_with("step 0: ") && err.contains(expected),
                "{err}"
            );
        }
        let mut long = good();
        long.steps = vec![long.steps[0].clone(); 5];
        assert!(long.validate(&DIMS).unwrap_err().contains("5 steps"));
        assert!(Trajectory {
            param_version: 0,
            steps: vec![]
        }
        .validate(&DIMS)
        .is_err());
    }
}
