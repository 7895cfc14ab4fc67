//! Head-to-head evaluation during training (`evaluation.mode =
//! "head_to_head"`): each evaluated policy plays a fixed panel of
//! opponents on a fixed set of deals, in every seat.
//!
//! The panel is the uniform player, the game's rule-based player, the
//! version evaluated before (so a run shows whether each version beats the
//! last), and optionally a policy file the watcher was given (a solver's
//! strategy, a published bot). With n players the evaluated policy sits in
//! each seat in turn and the opponent fills the n − 1 others. The deals
//! come from the run's seed and are the same at every evaluation, so two
//! versions' results are paired and their difference is not luck.

use std::path::{Path, PathBuf};

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_run::history::HeadToHead;

use crate::error::EvaluatorError;
use crate::players::{PlayerSpec, Tabulator};
use rnad_games::headtohead::{play_against, Mode};

/// The opponents and the deals every evaluated version meets.
pub struct Panel {
    /// Opponents that never change, with their history names.
    fixed: Vec<(&'static str, TabularPolicy)>,
    /// The version evaluated last, and its learner step.
    previous: Option<(u64, TabularPolicy)>,
    deals: usize,
    seed: u64,
}

impl Panel {
    /// The panel for `tree`: uniform, rules and, if given, the tabular
    /// policy in `policy_file`; `deals` deals drawn from `seed`.
    pub fn new(
        tree: &PublicTree,
        policy_file: Option<&Path>,
        deals: usize,
        seed: u64,
    ) -> Result<Panel, EvaluatorError> {
        let mut tabulator = Tabulator::new(tree);
        let mut fixed = vec![
            ("uniform", tabulator.policy(&PlayerSpec::Uniform)?),
            ("rules", tabulator.policy(&PlayerSpec::Rules)?),
        ];
        if let Some(path) = policy_file {
            let spec = PlayerSpec::Policy(PathBuf::from(path));
            fixed.push(("policy", tabulator.policy(&spec)?));
        }
        Ok(Panel {
            fixed,
            previous: None,
            deals,
            seed,
        })
    }

    /// Plays `policy` (the version at learner step `step`) against every
    /// opponent, then keeps it as the next version's `previous`.
    pub fn play(&mut self, tree: &PublicTree, policy: TabularPolicy, step: u64) -> Vec<HeadToHead> {
        let against = |name: &str, step: Option<u64>, opponent: &TabularPolicy| {
            let mode = Mode::Sampled {
                deals: self.deals,
                seed: self.seed,
            };
            let result = play_against(tree, &policy, opponent, mode);
            HeadToHead {
                opponent: name.to_string(),
                opponent_step: step,
                mean: result.mean,
                ci95: result.ci95,
                deals: self.deals,
            }
        };
        let mut results: Vec<HeadToHead> = self
            .fixed
            .iter()
            .map(|(name, opponent)| against(name, None, opponent))
            .collect();
        if let Some((previous_step, previous)) = &self.previous {
            results.push(against("previous", Some(*previous_step), previous));
        }
        self.previous = Some((step, policy));
        results
    }
}
