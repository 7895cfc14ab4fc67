//! The parameter sets the learner publishes to actors and evaluators, by
//! name.

use serde::{Deserialize, Serialize};

use crate::ParamSet;

/// One of the parameter sets the learner publishes (θ_reg', the
/// regularisation before the last roll, never leaves it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PublishedSet {
    /// θ, what actors play.
    Online,
    /// θ_target.
    Target,
    /// θ_reg.
    Reg,
}

impl PublishedSet {
    /// Every published set.
    pub const ALL: [PublishedSet; 3] = [
        PublishedSet::Online,
        PublishedSet::Target,
        PublishedSet::Reg,
    ];

    /// The name checkpoints give its tensors (`online.layers.0.weight`).
    pub fn name(self) -> &'static str {
        match self {
            PublishedSet::Online => "online",
            PublishedSet::Target => "target",
            PublishedSet::Reg => "reg",
        }
    }
}

/// The published sets of one parameter version, borrowed: what the
/// evaluator judges.
#[derive(Clone, Copy, Debug)]
pub struct PublishedSets<'a> {
    /// θ.
    pub online: &'a ParamSet,
    /// θ_target.
    pub target: &'a ParamSet,
    /// θ_reg.
    pub reg: &'a ParamSet,
}

impl<'a> PublishedSets<'a> {
    /// The set named `name`.
    pub fn get(&self, name: PublishedSet) -> &'a ParamSet {
        match name {
            PublishedSet::Online => self.online,
            PublishedSet::Target => self.target,
            PublishedSet::Reg => self.reg,
        }
    }
}
