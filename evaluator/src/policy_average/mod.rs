//! The `target_average` policy kind: an exponential moving average of the
//! target policy over a run's evaluations, after dropping the actions
//! NeuRD holds at its threshold (`held.rs`), each information state
//! weighted by its player's own reach (`reach.rs`) as fictitious play and
//! CFR average, so that in a two-player zero-sum game the average is never
//! more exploitable than the mean of what it averages. The weight of an
//! evaluation `Δ` steps after the previous one, at step `t`, is
//! `1 − e^(−Δ/min(H, (t − t₀)/2))`: the horizon means the same whatever the
//! evaluation interval, and a young average reaches back about half of
//! what it has seen rather than keeping its first policy for a whole
//! horizon. `docs/rnad-update.md` says why the played policy is averaged.
//!
//! A local run keeps the sums in its checkpoints; `watch` keeps them in a
//! file beside its history (`saved.rs`) together with the sums as they stood
//! at the learner's last two checkpoint steps, so that a learner that
//! crashes back to its checkpoint finds the average as it stood then.

mod held;
mod reach;
mod saved;

use std::collections::VecDeque;

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;

use self::held::drop_held_actions;
use self::reach::own_reach;
pub use self::saved::{SavedSums, UnusableSums};

/// How many of the learner's last checkpoint steps the kept sums cover:
/// its newest checkpoint, and the one before in case that one is
/// unreadable and the learner goes back further.
const CHECKPOINTS_COVERED: usize = 2;

/// How far back an average reaches: `min(cap, s / young_divisor)` learner
/// steps once it has seen `s`. Written `H` (cap H, divisor 2: a run's
/// rule with `evaluation.average_horizon_steps = H`), `H/Q` (divisor Q)
/// or `half` (no cap, divisor 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HorizonRule {
    /// The longest horizon, in learner steps.
    pub cap: u64,
    /// What the steps seen so far are divided by.
    pub young_divisor: f64,
}

/// A horizon rule that is not `H`, `H/Q` or `half`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("horizon rule {0:?}: write H (steps), H/Q (steps / divisor) or half")]
pub struct BadHorizonRule(pub String);

impl std::str::FromStr for HorizonRule {
    type Err = BadHorizonRule;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadHorizonRule(text.to_string());
        if text == "half" {
            return Ok(HorizonRule {
                cap: u64::MAX,
                young_divisor: 2.0,
            });
        }
        let (cap, divisor) = text.split_once('/').unwrap_or((text, "2"));
        let cap: u64 = cap.parse().map_err(|_| bad())?;
        let young_divisor: f64 = divisor.parse().map_err(|_| bad())?;
        if cap == 0 || !(young_divisor.is_finite() && young_divisor > 0.0) {
            return Err(bad());
        }
        Ok(HorizonRule { cap, young_divisor })
    }
}

/// The running average of one run's target policy.
#[derive(Clone, Debug)]
pub struct PolicyAverage {
    game: GameSpec,
    horizon_steps: u64,
    /// A young average reaches back over the steps it has seen divided by
    /// this (2 for a run's average; other values only in replays).
    young_divisor: f64,
    beta: f64,
    state: Option<Sums>,
    /// The learner's steps between checkpoints, whose sums are kept for a
    /// learner that goes back to one (0: none kept).
    checkpoint_interval: u64,
    /// The sums as they stood at the last checkpoint steps, oldest first:
    /// for each, those of the newest policy at or before it.
    earlier: VecDeque<Sums>,
}

/// The average's sums: per slot, the weighted own reach times the
/// probability; per information state, the weighted own reach.
#[derive(Clone, Debug)]
struct Sums {
    /// The learner step of the first policy averaged.
    first_step: u64,
    /// The learner step of the newest.
    step: u64,
    weighted_probs: Vec<f64>,
    weighted_reach: Vec<f64>,
}

impl PolicyAverage {
    /// An empty average of `game`'s policies over `horizon_steps` learner
    /// steps, dropping actions held at NeuRD threshold `beta`.
    pub fn new(game: GameSpec, horizon_steps: u64, beta: f64) -> PolicyAverage {
        PolicyAverage::with_rule(
            game,
            HorizonRule {
                cap: horizon_steps,
                young_divisor: 2.0,
            },
            beta,
        )
    }

    /// An empty average whose horizon follows `rule` (a replay comparing
    /// rules; a run's average is [`PolicyAverage::new`]'s).
    pub fn with_rule(game: GameSpec, rule: HorizonRule, beta: f64) -> PolicyAverage {
        PolicyAverage {
            game,
            horizon_steps: rule.cap,
            young_divisor: rule.young_divisor,
            beta,
            state: None,
            checkpoint_interval: 0,
            earlier: VecDeque::new(),
        }
    }

    /// Keeps the sums as they stood at the last two multiples of
    /// `interval` learner steps (the sums of the newest policy at or before
    /// each), so a learner that crashes and goes back to its checkpoint
    /// there finds the average as it stood. `watch` asks for this with the
    /// run's `checkpoint.interval_steps`; a local run never goes back
    /// within one process and keeps none.
    pub fn keep_sums_at_checkpoints(&mut self, interval: u64) {
        self.checkpoint_interval = interval;
    }

    /// Whether `other` averages the same game with the same horizon and
    /// threshold, so one may go on from the other.
    pub fn same_settings(&self, other: &PolicyAverage) -> bool {
        (self.game == other.game)
            && self.horizon_steps == other.horizon_steps
            && self.young_divisor == other.young_divisor
            && self.beta == other.beta
    }

    /// The horizon, in learner steps.
    pub fn horizon_steps(&self) -> u64 {
        self.horizon_steps
    }

    /// The average so far (none before the first evaluation) and the
    /// learner step of its newest policy.
    pub fn current(&self, tree: &PublicTree) -> Option<(TabularPolicy, u64)> {
        self.state
            .as_ref()
            .map(|sums| (sums.policy(tree), sums.step))
    }

    /// Adds the target policy of learner step `step` and returns the
    /// average. A step before the newest policy's means the learner went
    /// back: the average goes on from the newest earlier sums at or before
    /// `step`, or, where none are kept, starts afresh.
    pub fn add(&mut self, tree: &PublicTree, step: u64, target: &TabularPolicy) -> TabularPolicy {
        let policy = drop_held_actions(tree, target, self.beta);
        let reach = own_reach(tree, &policy);
        self.learner_went_back_to(step);
        // Here the newest policy averaged is at or before `step`; where a
        // checkpoint step lies between the two, its sums are those the
        // learner finds there if it goes back.
        if let Some(sums) = &self.state {
            if self.checkpoint_interval > 0
                && sums.step.next_multiple_of(self.checkpoint_interval) < step
            {
                self.earlier.push_back(sums.clone());
                if self.earlier.len() > CHECKPOINTS_COVERED {
                    self.earlier.pop_front();
                }
            }
        }
        let weight = match &self.state {
            Some(sums) => {
                let seen = (step - sums.first_step) as f64;
                let young = (seen / self.young_divisor).max(1.0);
                let horizon = (self.horizon_steps as f64).min(young);
                1.0 - (-((step - sums.step) as f64) / horizon).exp()
            }
            None => 1.0,
        };
        let sums = self.state.get_or_insert_with(|| Sums {
            first_step: step,
            step,
            weighted_probs: vec![0.0; tree.num_slots()],
            weighted_reach: vec![0.0; tree.num_info_slots()],
        });
        sums.step = step;
        for decision in tree.decisions() {
            for hand in 0..tree.num_hands() {
                let info = decision.info(hand);
                let r = reach[info];
                sums.weighted_reach[info] += weight * (r - sums.weighted_reach[info]);
                for slot in decision.slots(hand) {
                    let p = r * policy.probs()[slot];
                    sums.weighted_probs[slot] += weight * (p - sums.weighted_probs[slot]);
                }
            }
        }
        sums.policy(tree)
    }

    /// The learner went back to its checkpoint at `step` (a new learner
    /// process said so): where the average holds policies after it, it
    /// goes back as [`Self::add`] does when it sees a step before its
    /// newest, also where the learner has trained past that newest since.
    pub fn learner_went_back_to(&mut self, step: u64) {
        if self.state.as_ref().is_some_and(|sums| step < sums.step) {
            self.go_back(step);
        }
    }

    /// The learner went back to `step`: the newest earlier sums at or
    /// before it become the average, or it starts afresh.
    fn go_back(&mut self, step: u64) {
        let newest = self.state.as_ref().map_or(0, |sums| sums.step);
        while let Some(sums) = self.earlier.pop_back() {
            if sums.step <= step {
                tracing::info!(
                    "the learner went back from step {newest} to {step}: target_average goes on from its sums at step {}",
                    sums.step
                );
                self.state = Some(sums);
                return;
            }
        }
        tracing::info!(
            "the learner went back from step {newest} to {step}, before every kept target_average: it starts afresh"
        );
        self.state = None;
    }
}

impl Sums {
    /// The average policy: uniform where the average never reaches.
    fn policy(&self, tree: &PublicTree) -> TabularPolicy {
        let mut probs = vec![0.0; tree.num_slots()];
        for decision in tree.decisions() {
            let actions = decision.legal_actions.len() as f64;
            for hand in 0..tree.num_hands() {
                let reach = self.weighted_reach[decision.info(hand)];
                for slot in decision.slots(hand) {
                    probs[slot] = if reach > 0.0 {
                        self.weighted_probs[slot] / reach
                    } else {
                        1.0 / actions
                    };
                }
            }
        }
        TabularPolicy::from_slots(tree, probs).expect("one probability per slot")
    }
}

#[cfg(test)]
mod tests;
