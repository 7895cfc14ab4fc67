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
