//! The `target_average` policy kind: a moving average of the target policy
//! over a run's evaluations, after dropping the actions NeuRD holds at its
//! threshold.
//!
//! Two things keep the target policy of a β = 2 run about 0.15–0.3 from
//! equilibrium in Leduc. NeuRD stops pushing a logit down once it is β below
//! its state's mean, so an action an equilibrium never plays keeps a few
//! percent of probability; and the target wanders from evaluation to
//! evaluation around the equilibrium. Dropping the held actions removes the
//! first (an action held at the threshold is one the learner would push
//! lower still). Averaging removes most of the second, and it is averaged
//! the way fictitious play and CFR average policies: each information
//! state's action probabilities weighted by the player's own probability of
//! reaching it, so the average plays like picking one of the averaged
//! policies at random for the whole game. In a two-player zero-sum game
//! exploitability is convex in that representation, so the average is never
//! worse than the mean of what it averages, and wandering that goes in
//! different directions cancels.
//!
//! The average is exponential in learner steps: an evaluation `Δ` steps
//! after the previous one, at learner step `t`, gets weight
//! `1 − e^(−Δ/min(H, (t − t₀)/2))`, where `t₀` is the step of the first
//! policy averaged. So the horizon means the same whatever the evaluation
//! interval, and while `(t − t₀)/2 < H` the average reaches back about
//! half of what it has seen rather than keeping its first policy for a
//! whole horizon: early in a run that first policy is far from
//! equilibrium, and an average started afresh late in a run (a watcher
//! joining a running learner) would otherwise be that one policy for most
//! of a horizon.
//! It lives in the evaluator. The local run stores its sums in every
//! checkpoint, so a resumed run goes on from its checkpoint's average (a
//! restart does not cost the played policy its history); `watch` keeps it
//! across reconnects, saves its sums beside the history for its own
//! restarts, and keeps the sums as they stood at the learner's last two
//! checkpoint steps, in memory and in that file, so a learner that crashes
//! and goes back to its last checkpoint finds the average as it stood then
//! ([`PolicyAverage::keep_sums_at_checkpoints`]), also when the watcher
//! restarted with it (a host reboot). Where no kept sums reach back far
//! enough, it starts afresh.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use rnad_common::checkpoint::{AverageCounters, SavedAverage};
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::{NodeKind, PublicTree};
use rnad_games::GameSpec;

/// An action whose centred log-probability is at or below `−β` plus this
/// counts as held at NeuRD's threshold: the learner's logits sit at the threshold
/// up to the small moves of the shared weights, and the target's are an
/// average of those.
pub const HELD_MARGIN: f64 = 0.05;

/// How many of the learner's last checkpoint steps the kept sums cover:
/// its newest checkpoint, and the one before in case that one is
/// unreadable and the learner goes back further.
const CHECKPOINTS_COVERED: usize = 2;

/// The running average of one run's target policy.
#[derive(Clone, Debug)]
pub struct PolicyAverage {
    game: GameSpec,
    horizon_steps: u64,
    beta: f64,
    state: Option<Sums>,
    /// The learner's steps between checkpoints, whose sums are kept for a
    /// learner that goes back to one (0: none kept).
    checkpoint_interval: u64,
    /// The sums as they stood at the last checkpoint steps, oldest first:
    /// for each, those of the newest policy at or before it.
    earlier: VecDeque<Sums>,
}

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
        PolicyAverage {
            game,
            horizon_steps,
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
            && self.beta == other.beta
    }

    /// The horizon, in learner steps.
    pub fn horizon_steps(&self) -> u64 {
        self.horizon_steps
    }

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
    pub fn restore(&mut self, tree: &PublicTree, saved: SavedAverage) -> Result<(), String> {
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
    ) -> Result<(), String> {
        let Some(newest_step) = self.state.as_ref().map(|newest| newest.step) else {
            return Err("there is no newest average to go with them".into());
        };
        let earlier = earlier
            .into_iter()
            .enumerate()
            .map(|(i, kept)| {
                self.sums_from(tree, kept)
                    .map_err(|why| format!("its earlier sums #{}: {why}", i + 1))
            })
            .collect::<Result<VecDeque<_>, _>>()?;
        let steps: Vec<u64> = earlier
            .iter()
            .map(|s| s.step)
            .chain([newest_step])
            .collect();
        if steps.windows(2).any(|pair| pair[0] >= pair[1]) {
            return Err(format!(
                "the steps of its earlier sums and its newest, {steps:?}, do not rise"
            ));
        }
        self.earlier = earlier;
        Ok(())
    }

    /// `saved` as this average's sums, where they fit it and `tree`.
    fn sums_from(&self, tree: &PublicTree, saved: SavedAverage) -> Result<Sums, String> {
        let c = &saved.counters;
        if c.horizon_steps != self.horizon_steps || c.beta != self.beta {
            return Err(format!(
                "it was kept with horizon {} and β {}, this run's config says {} and {}",
                c.horizon_steps, c.beta, self.horizon_steps, self.beta
            ));
        }
        if c.first_step > c.step {
            return Err(format!(
                "its first policy (step {}) is newer than its newest (step {})",
                c.first_step, c.step
            ));
        }
        if let Some(bad) = saved
            .weighted_probs
            .iter()
            .chain(&saved.weighted_reach)
            .find(|v| !v.is_finite() || **v < 0.0)
        {
            return Err(format!("it holds a sum of {bad}"));
        }
        if saved.weighted_probs.len() != tree.num_slots()
            || saved.weighted_reach.len() != tree.num_info_slots()
        {
            return Err(format!(
                "it has {} slots and {} information states, {} has {} and {}",
                saved.weighted_probs.len(),
                saved.weighted_reach.len(),
                self.game,
                tree.num_slots(),
                tree.num_info_slots()
            ));
        }
        Ok(Sums {
            first_step: c.first_step,
            step: c.step,
            weighted_probs: saved.weighted_probs,
            weighted_reach: saved.weighted_reach,
        })
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
                let horizon = (self.horizon_steps as f64).min((seen / 2.0).max(1.0));
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

/// `policy` without the actions held at NeuRD threshold `beta`: at every
/// information state, an action whose centred log-probability (its
/// log-probability minus the mean over the legal actions, which is its
/// centred logit) is at or below `−beta + HELD_MARGIN` gets probability
/// zero, and the rest are renormalised.
pub fn drop_held_actions(tree: &PublicTree, policy: &TabularPolicy, beta: f64) -> TabularPolicy {
    let mut probs = policy.probs().to_vec();
    for decision in tree.decisions() {
        for hand in 0..tree.num_hands() {
            drop_held_row(&mut probs[decision.slots(hand)], beta);
        }
    }
    TabularPolicy::from_slots(tree, probs).expect("same length")
}

fn drop_held_row(row: &mut [f64], beta: f64) {
    let logs: Vec<f64> = row.iter().map(|p| p.max(f64::MIN_POSITIVE).ln()).collect();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    let held = |log: f64| log - mean <= -beta + HELD_MARGIN;
    let kept: f64 = row
        .iter()
        .zip(&logs)
        .filter(|(_, &log)| !held(log))
        .map(|(p, _)| p)
        .sum();
    if kept <= 0.0 {
        // Only a threshold below HELD_MARGIN can mark every action held.
        return;
    }
    for (p, &log) in row.iter_mut().zip(&logs) {
        *p = if held(log) { 0.0 } else { *p / kept };
    }
}

/// Each information state's probability of being reached by its own
/// player's actions under `policy` (indexed like [`PublicTree`]'s
/// information states): the weight of a state in a sequence-form average.
pub fn own_reach(tree: &PublicTree, policy: &TabularPolicy) -> Vec<f64> {
    let hands = tree.num_hands();
    let mut reach_of_info = vec![0.0; tree.num_info_slots()];
    let mut stack = vec![(0usize, vec![1.0; tree.num_players() * hands])];
    while let Some((node, reach)) = stack.pop() {
        match tree.kind(node) {
            NodeKind::Terminal(_) => {}
            NodeKind::Chance => {
                stack.extend(tree.children(node).map(|child| (child, reach.clone())));
            }
            NodeKind::Decision(d) => {
                let decision = &tree.decisions()[d as usize];
                let own = decision.player * hands..(decision.player + 1) * hands;
                for (hand, r) in reach[own.clone()].iter().enumerate() {
                    reach_of_info[decision.info(hand)] = *r;
                }
                for (k, child) in tree.children(node).enumerate() {
                    let mut next = reach.clone();
                    for (hand, r) in next[own.clone()].iter_mut().enumerate() {
                        *r *= policy.probs()[decision.slots(hand).start + k];
                    }
                    stack.push((child, next));
                }
            }
        }
    }
    reach_of_info
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_games::exploitability::nash_conv;

    fn kuhn_spec() -> GameSpec {
        "kuhn_poker".parse().unwrap()
    }

    fn kuhn() -> PublicTree {
        PublicTree::build(kuhn_spec().load()).unwrap()
    }

    /// The policy that bets (action 1) with probability `bet` at every
    /// information state.
    fn betting(tree: &PublicTree, bet: impl Fn(&str) -> f64) -> TabularPolicy {
        let mut probs = vec![0.0; tree.num_slots()];
        for (decision, hand) in tree.info_states() {
            let b = bet(&tree.info_state_string(decision, hand));
            let slots = decision.slots(hand);
            probs[slots.start] = 1.0 - b;
            probs[slots.start + 1] = b;
        }
        TabularPolicy::from_slots(tree, probs).unwrap()
    }

    /// A state's probability of betting.
    fn bet_at(tree: &PublicTree, policy: &TabularPolicy, info_state: &str) -> f64 {
        let (d, hand) = tree.info_state_index()[info_state];
        policy.probs()[tree.decisions()[d].slots(hand).start + 1]
    }

    fn reach_at(tree: &PublicTree, reach: &[f64], info_state: &str) -> f64 {
        let (d, hand) = tree.info_state_index()[info_state];
        reach[tree.decisions()[d].info(hand)]
    }

    #[test]
    fn actions_at_the_threshold_are_dropped_and_the_rest_renormalised() {
        // Two actions with centred logits −2 and +2: the first is held at
        // β = 2 and goes; at β = 2.5 it is 0.5 above the threshold and stays.
        let held = 1.0 / (1.0 + 4f64.exp());
        let mut row = [held, 1.0 - held];
        drop_held_row(&mut row, 2.0);
        assert_eq!(row, [0.0, 1.0]);
        let mut row = [held, 1.0 - held];
        drop_held_row(&mut row, 2.5);
        assert_eq!(row, [held, 1.0 - held]);
        // Three actions, logits −2, 0.5, 1.5 (mean 0): only the first goes,
        // the others keep their ratio e^0.5 : e^1.5.
        let z = (-2f64).exp() + 0.5f64.exp() + 1.5f64.exp();
        let mut row = [(-2f64).exp() / z, 0.5f64.exp() / z, 1.5f64.exp() / z];
        drop_held_row(&mut row, 2.0);
        let kept = 0.5f64.exp() + 1.5f64.exp();
        assert_eq!(row[0], 0.0);
        assert!((row[1] - 0.5f64.exp() / kept).abs() < 1e-12, "{row:?}");
        assert!((row[2] - 1.5f64.exp() / kept).abs() < 1e-12, "{row:?}");
        // Uniform rows have nothing held at a threshold above the margin;
        // below it every action counts as held, and the row is left as it
        // is rather than emptied.
        let mut row = [0.5, 0.5];
        drop_held_row(&mut row, 2.0);
        assert_eq!(row, [0.5, 0.5]);
        drop_held_row(&mut row, 0.01);
        assert_eq!(row, [0.5, 0.5]);
    }

    #[test]
    fn own_reach_multiplies_only_the_players_own_actions() {
        let tree = kuhn();
        // Player 0 bets first with 0.3 holding a jack (0) and 0.6 holding a
        // queen (1); player 1 bets after a pass with 0.8 whatever it holds.
        let policy = betting(&tree, |s| match s {
            "0" => 0.3,
            "1" => 0.6,
            "0p" | "1p" | "2p" => 0.8,
            _ => 0.5,
        });
        let reach = own_reach(&tree, &policy);
        for (state, expected) in [
            ("0", 1.0),
            ("1", 1.0),
            // Player 0 reaches "pass, bet" by passing; player 1's bet
            // is the opponent's and does not count.
            ("0pb", 0.7),
            ("1pb", 0.4),
            ("2pb", 0.5),
            // Player 1's first states are reached by no action of its own.
            ("0b", 1.0),
            ("2p", 1.0),
        ] {
            assert!(
                (reach_at(&tree, &reach, state) - expected).abs() < 1e-12,
                "{state}: {}",
                reach_at(&tree, &reach, state)
            );
        }
    }

    #[test]
    fn own_reach_passes_through_the_opponents_moves_and_the_board_card() {
        // Leduc: player 0 with a jack raises first with 0.3 (calls 0.7) and
        // calls a re-raise with 0.6; everything else is uniform.
        let spec: GameSpec = "leduc_poker".parse().unwrap();
        let tree = PublicTree::build(spec.load()).unwrap();
        let first = "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]";
        let reraised = "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 8][Money: 97 95][Round1: 2 2][Round2: ]";
        let called_raise = "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 4][Money: 99 97][Round1: 1 2][Round2: ]";
        let mut probs = TabularPolicy::uniform(&tree).probs().to_vec();
        let index = tree.info_state_index();
        let set = |probs: &mut Vec<f64>, state: &str, row: &[f64]| {
            let (d, hand) = index[state];
            probs[tree.decisions()[d].slots(hand)].copy_from_slice(row);
        };
        set(&mut probs, first, &[0.7, 0.3]);
        set(&mut probs, reraised, &[0.4, 0.6]);
        let policy = TabularPolicy::from_slots(&tree, probs).unwrap();
        let reach = own_reach(&tree, &policy);
        // The second round, after the board card (a queen, 1) is dealt:
        // raise, re-raise, call is 0.3 · 0.6; call, raise, raise (1/3 of
        // three actions), call is 0.7 · 1/3. Player 1's moves and the card
        // count for nothing.
        let round2 = |round1: &str, pot: u32, money: u32| {
            format!(
                "[Observer: 0][Private: 0][Round 2][Player: 0][Pot: {pot}][Money: {money} {money}][Public: 1][Round1: {round1}][Round2: ]"
            )
        };
        for (state, expected) in [
            (first.to_string(), 1.0),
            (reraised.to_string(), 0.3),
            (called_raise.to_string(), 0.7),
            (round2("2 2 1", 10, 95), 0.3 * 0.6),
            (round2("1 2 2 1", 10, 95), 0.7 / 3.0),
        ] {
            let found = reach_at(&tree, &reach, &state);
            assert!((found - expected).abs() < 1e-12, "{state}: {found}");
        }
    }

    #[test]
    fn the_average_weights_each_policy_by_its_own_reach_and_by_steps() {
        let tree = kuhn();
        // β large enough that nothing is dropped from these mixed policies.
        let horizon = 1000;
        let mut average = PolicyAverage::new(kuhn_spec(), horizon, 10.0);
        let first = betting(&tree, |s| if s == "0" { 0.2 } else { 0.5 });
        let second = betting(&tree, |s| if s == "0" { 0.6 } else { 0.9 });
        // A single policy is its own average, also when added again.
        let start = 10 * horizon;
        average.add(&tree, start, &first);
        let alone = average.add(&tree, start + 4 * horizon, &first);
        for (a, b) in alone.probs().iter().zip(first.probs()) {
            assert!((a - b).abs() < 1e-12);
        }
        // Once it has seen two horizons, a policy 0.7 horizons after the
        // previous one weighs 1 − e^(−0.7) ≈ 1/2.
        let step = start + 4 * horizon + 700;
        let weight = 1.0 - (-0.7f64).exp();
        let mixed = average.add(&tree, step, &second);
        // At the root both reach it with 1: the plain weighted mean.
        let root = (1.0 - weight) * 0.2 + weight * 0.6;
        assert!((bet_at(&tree, &mixed, "0") - root).abs() < 1e-12);
        // After "pass, bet", holding a jack: the first policy passed with
        // 0.8 and the second with 0.4, so the first counts twice as much.
        let (r1, r2) = ((1.0 - weight) * 0.8, weight * 0.4);
        let expected = (r1 * 0.5 + r2 * 0.9) / (r1 + r2);
        assert!((bet_at(&tree, &mixed, "0pb") - expected).abs() < 1e-12);
        // A learner that goes back to an earlier step starts the average
        // afresh where, as here, no earlier sums are kept.
        let restarted = average.add(&tree, start / 2, &first);
        assert!((bet_at(&tree, &restarted, "0pb") - 0.5).abs() < 1e-12);
        assert!((bet_at(&tree, &restarted, "0") - 0.2).abs() < 1e-12);
    }

    /// A Kuhn policy that bets more the larger `i`.
    fn numbered(tree: &PublicTree, i: u64) -> TabularPolicy {
        betting(tree, |s| 0.05 * i as f64 + if s == "0" { 0.1 } else { 0.2 })
    }

    /// The average of the policies numbered `0..=last` at steps `100 · i`,
    /// keeping the sums at checkpoints every `checkpoint_interval` steps
    /// (0: none).
    fn evaluated_to(tree: &PublicTree, last: u64, checkpoint_interval: u64) -> PolicyAverage {
        let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
        average.keep_sums_at_checkpoints(checkpoint_interval);
        for i in 0..=last {
            average.add(tree, 100 * i, &numbered(tree, i));
        }
        average
    }

    /// That average with `next` at `step` added: what a straight run
    /// gives.
    fn straight(tree: &PublicTree, last: u64, step: u64, next: &TabularPolicy) -> TabularPolicy {
        evaluated_to(tree, last, 0).add(tree, step, next)
    }

    #[test]
    fn a_learner_that_goes_back_finds_the_average_as_it_stood() {
        let tree = kuhn();
        // Evaluations every 100 steps to 700, checkpoints every 250: the
        // sums kept are those of the newest policy at or before the last
        // two checkpoints, 500 (step 500's) and 250 (step 200's).
        let mut average = evaluated_to(&tree, 7, 250);
        let kept: Vec<u64> = average.earlier.iter().map(|s| s.step).collect();
        assert_eq!(kept, [200, 500], "the last two checkpoints and no more");
        // The learner went back to its checkpoint at 500 and trained to
        // 550: the average goes on from its sums at 500, exactly as one
        // that never saw steps 600 and 700.
        let next = numbered(&tree, 9);
        let went_back = average.add(&tree, 550, &next);
        assert_eq!(went_back.probs(), straight(&tree, 5, 550, &next).probs());
        // It crashes again before its next checkpoint: back at 500 once
        // more, the sums of 500 are still there.
        let again = numbered(&tree, 10);
        assert_eq!(
            average.add(&tree, 520, &again).probs(),
            straight(&tree, 5, 520, &again).probs()
        );
        // Its checkpoint at 500 unreadable, it goes back to 250.
        assert_eq!(
            average.add(&tree, 260, &again).probs(),
            straight(&tree, 2, 260, &again).probs()
        );
        // Further back than anything kept: afresh, the policy alone.
        let afresh = average.add(&tree, 150, &next);
        assert_eq!(afresh.probs(), next.probs());
        assert_eq!(average.saved().unwrap().counters.first_step, 150);
        // However long it runs, it keeps a bounded number of sums.
        for i in 2..200 {
            average.add(&tree, 100 * i + 50, &numbered(&tree, i % 7));
        }
        assert_eq!(average.earlier.len(), CHECKPOINTS_COVERED);
        // With none kept (a local run), going back starts afresh.
        let mut local = evaluated_to(&tree, 7, 0);
        assert!(local.earlier.is_empty());
        assert_eq!(local.add(&tree, 450, &next).probs(), next.probs());
    }

    #[test]
    fn saved_with_its_earlier_sums_an_average_goes_back_as_the_one_it_was_saved_from() {
        // A watcher restarted together with a crashed learner (a host
        // reboot) has only what it saved.
        let tree = kuhn();
        let average = evaluated_to(&tree, 7, 250);
        let saved = average.saved_with_earlier().unwrap();
        let steps: Vec<u64> = saved.earlier.iter().map(|s| s.counters.step).collect();
        assert_eq!((steps, saved.newest.counters.step), (vec![200, 500], 700));
        let json = serde_json::to_string(&saved).unwrap();
        let read: SavedSums = serde_json::from_str(&json).unwrap();
        assert_eq!(read, saved, "the file reads back bit for bit");
        let mut restarted = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
        restarted.keep_sums_at_checkpoints(250);
        restarted.restore(&tree, read.newest).unwrap();
        restarted.restore_earlier(&tree, read.earlier).unwrap();
        let mut told = restarted.clone();
        let next = numbered(&tree, 9);
        assert_eq!(
            restarted.add(&tree, 510, &next).probs(),
            straight(&tree, 5, 510, &next).probs()
        );
        // A new learner process that resumed at 500 and trained past 700
        // before the watcher looked: told so, the average goes back all
        // the same; told of a step at or past its newest, it stays.
        told.learner_went_back_to(700);
        assert_eq!(told.saved(), Some(saved.newest.clone()));
        told.learner_went_back_to(500);
        assert_eq!(
            told.add(&tree, 900, &next).probs(),
            straight(&tree, 5, 900, &next).probs()
        );
        // Sums kept out of order, or one that does not fit, are refused
        // together; the newest average stands.
        let mut fresh = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
        let why = fresh
            .restore_earlier(&tree, saved.earlier.clone())
            .unwrap_err();
        assert!(why.contains("no newest average"), "{why}");
        fresh.restore(&tree, saved.newest.clone()).unwrap();
        let mut disordered = saved.earlier.clone();
        disordered.reverse();
        let why = fresh.restore_earlier(&tree, disordered).unwrap_err();
        assert!(why.contains("[500, 200, 700]"), "{why}");
        let mut damaged = saved.earlier.clone();
        damaged[1].weighted_probs[0] = -1.0;
        let why = fresh.restore_earlier(&tree, damaged).unwrap_err();
        assert!(
            why.contains("earlier sums #2") && why.contains("-1"),
            "{why}"
        );
        assert!(fresh.earlier.is_empty());
        assert_eq!(fresh.saved(), Some(saved.newest));
    }

    #[test]
    fn saved_sums_go_on_only_with_the_same_settings_and_game() {
        let tree = kuhn();
        let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
        average.add(&tree, 100, &betting(&tree, |_| 0.3));
        average.add(&tree, 300, &betting(&tree, |_| 0.7));
        let saved = average.saved().expect("two policies averaged");
        assert_eq!((saved.counters.first_step, saved.counters.step), (100, 300));
        // Restored, it goes on exactly as the average it was saved from.
        let mut resumed = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
        resumed.restore(&tree, saved.clone()).unwrap();
        let next = betting(&tree, |s| if s == "0" { 0.1 } else { 0.5 });
        assert_eq!(
            average.add(&tree, 500, &next).probs(),
            resumed.add(&tree, 500, &next).probs()
        );
        // Another horizon means another average: refused, nothing kept.
        let mut other = PolicyAverage::new(kuhn_spec(), 2000, 10.0);
        let why = other.restore(&tree, saved.clone()).unwrap_err();
        assert!(why.contains("horizon 1000"), "{why}");
        assert!(other.current(&tree).is_none());
        // Damaged sums are refused.
        let mut damaged = saved.clone();
        damaged.weighted_reach[3] = f64::NAN;
        let why = resumed.restore(&tree, damaged).unwrap_err();
        assert!(why.contains("NaN"), "{why}");
        let mut damaged = saved.clone();
        damaged.counters.first_step = 400;
        let why = resumed.restore(&tree, damaged).unwrap_err();
        assert!(why.contains("step 400"), "{why}");
        // Sums of another game do not fit its tree.
        let leduc: GameSpec = "leduc_poker".parse().unwrap();
        let leduc_tree = PublicTree::build(leduc.load()).unwrap();
        let mut other = PolicyAverage::new(leduc, 1000, 10.0);
        let why = other.restore(&leduc_tree, saved).unwrap_err();
        assert!(why.contains("24 slots"), "{why}");
        assert!(other.current(&leduc_tree).is_none());
    }

    #[test]
    fn a_young_average_reaches_back_half_of_what_it_has_seen() {
        let tree = kuhn();
        let first = betting(&tree, |_| 0.2);
        let second = betting(&tree, |_| 0.6);
        let weight = 1.0 - (-2f64).exp();
        let root = (1.0 - weight) * 0.2 + weight * 0.6;
        // At the start of a run, and in an evaluator that joins late
        // (a watcher started on a running learner): 100 steps after its first policy the horizon is
        // 50 steps, not 1000, so the policy of step t₀ + 100 weighs
        // 1 − e^(−100/50) and the first one does not linger.
        for first_step in [0, 500_000] {
            let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
            average.add(&tree, first_step, &first);
            let mixed = average.add(&tree, first_step + 100, &second);
            assert!(
                (bet_at(&tree, &mixed, "0") - root).abs() < 1e-12,
                "first policy at step {first_step}"
            );
        }
    }

    #[test]
    fn an_average_is_no_more_exploitable_than_the_mean_of_what_it_averages() {
        // Two-player zero-sum: exploitability is convex in the own-reach
        // weighted (sequence-form) representation, so an average of two
        // policies is at most the same average of their NashConvs.
        let tree = kuhn();
        let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
        let bluffs = betting(&tree, |s| if s.starts_with('0') { 0.9 } else { 0.4 });
        let folds = betting(&tree, |s| if s.starts_with('0') { 0.1 } else { 0.6 });
        average.add(&tree, 10_000, &bluffs);
        // 700 steps after the first policy the horizon is 350 steps.
        let step = 10_700;
        let weight = 1.0 - (-2f64).exp();
        let mixed = average.add(&tree, step, &folds);
        let (a, b, m) = (
            nash_conv(&tree, &bluffs).nash_conv,
            nash_conv(&tree, &folds).nash_conv,
            nash_conv(&tree, &mixed).nash_conv,
        );
        let bound = (1.0 - weight) * a + weight * b;
        assert!(m <= bound + 1e-12, "{m} vs {a} and {b}, bound {bound}");
    }
}
