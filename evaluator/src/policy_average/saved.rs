//! The average's sums as a checkpoint and `watch`'s sums file keep them,
//! and taking them up again: refused where they were kept with other
//! settings, for another game, or are not sums an average can hold.

use std::collections::VecDeque;

use rnad_games::public_tree::PublicTree;
use rnad_run::checkpoint::{AverageCounters, SavedAverage};
use serde::{Deserialize, Serialize};

use super::{PolicyAverage, Sums};

/// Why saved sums cannot be taken up: other settings, another game, or
/// not sums an average can hold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnusableSums(pub String);

/// `watch`'s sums file: the average's sums with the earlier ones it keeps
/// for a learner that goes back. Written as the newest sums' fields plus
/// `earlier`, so a file from before the earlier sums were saved reads as
/// one with none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedSums {
    /// The average as it stands.
    #[serde(flatten)]
    pub newest: SavedAverage,
    /// The sums kept at earlier checkpoint steps, oldest first.
    #[serde(default)]
    pub earlier: Vec<SavedAverage>,
}

impl PolicyAverage {
    /// Its sums, for a checkpoint (none before the first evaluation).
    pub fn saved(&self) -> Option<SavedAverage> {
        self.state.as_ref().map(|sums| self.save(sums))
    }

    /// Its sums with the earlier ones it keeps, for `watch`'s sums file.
    pub fn saved_with_earlier(&self) -> Option<SavedSums> {
        Some(SavedSums {
            newest: self.saved()?,
            earlier: self.earlier.iter().map(|sums| self.save(sums)).collect(),
        })
    }

    fn save(&self, sums: &Sums) -> SavedAverage {
        SavedAverage {
            counters: AverageCounters {
                horizon_steps: self.horizon_steps,
                beta: self.beta,
                first_step: sums.first_step,
                step: sums.step,
            },
            weighted_probs: sums.weighted_probs.clone(),
            weighted_reach: sums.weighted_reach.clone(),
        }
    }

    /// Goes on from `saved`, the sums a checkpoint (or `watch`'s sums file)
    /// of this run stored; the earlier sums kept for a learner that goes
    /// back are dropped (they belong to the average it replaces).
    /// Refused, leaving this average as it is, when they were kept with
    /// another horizon or threshold (the config changed on resumption: the
    /// average then means something else), are not sums an average can
    /// hold (negative, not finite, steps out of order) or do not fit
    /// `tree`.
    pub fn restore(&mut self, tree: &PublicTree, saved: SavedAverage) -> Result<(), UnusableSums> {
        self.state = Some(self.sums_from(tree, saved)?);
        self.earlier.clear();
        Ok(())
    }

    /// Takes up `earlier`, the sums kept at the learner's checkpoint steps
    /// that `watch`'s sums file holds beside the newest, once those are
    /// restored. Refused, keeping none, where any would be refused by
    /// [`Self::restore`] or they are not older than the newest, oldest
    /// first: the newest average stands either way.
    pub fn restore_earlier(
        &mut self,
        tree: &PublicTree,
        earlier: Vec<SavedAverage>,
    ) -> Result<(), UnusableSums> {
        let Some(newest_step) = self.state.as_ref().map(|newest| newest.step) else {
            return Err(UnusableSums(
                "there is no newest average to go with them".into(),
            ));
        };
        let earlier = earlier
            .into_iter()
            .enumerate()
            .map(|(i, kept)| {
                self.sums_from(tree, kept)
                    .map_err(|why| UnusableSums(format!("its earlier sums #{}: {why}", i + 1)))
            })
            .collect::<Result<VecDeque<_>, _>>()?;
        let steps: Vec<u64> = earlier
            .iter()
            .map(|s| s.step)
            .chain([newest_step])
            .collect();
        if steps.windows(2).any(|pair| pair[0] >= pair[1]) {
            return Err(UnusableSums(format!(
                "the steps of its earlier sums and its newest, {steps:?}, do not rise"
            )));
        }
        self.earlier = earlier;
        Ok(())
    }

    /// `saved` as this average's sums, where they fit it and `tree`.
    fn sums_from(&self, tree: &PublicTree, saved: SavedAverage) -> Result<Sums, UnusableSums> {
        let c = &saved.counters;
        if c.horizon_steps != self.horizon_steps || c.beta != self.beta {
            return Err(UnusableSums(format!(
                "it was kept with horizon {} and β {}, this run's config says {} and {}",
                c.horizon_steps, c.beta, self.horizon_steps, self.beta
            )));
        }
        if c.first_step > c.step {
            return Err(UnusableSums(format!(
                "its first policy (step {}) is newer than its newest (step {})",
                c.first_step, c.step
            )));
        }
        if let Some(bad) = saved
            .weighted_probs
            .iter()
            .chain(&saved.weighted_reach)
            .find(|v| !v.is_finite() || **v < 0.0)
        {
            return Err(UnusableSums(format!("it holds a sum of {bad}")));
        }
        if saved.weighted_probs.len() != tree.num_slots()
            || saved.weighted_reach.len() != tree.num_info_slots()
        {
            return Err(UnusableSums(format!(
                "it has {} slots and {} information states, {} has {} and {}",
                saved.weighted_probs.len(),
                saved.weighted_reach.len(),
                self.game,
                tree.num_slots(),
                tree.num_info_slots()
            )));
        }
        Ok(Sums {
            first_step: c.first_step,
            step: c.step,
            weighted_probs: saved.weighted_probs,
            weighted_reach: saved.weighted_reach,
        })
    }
}
