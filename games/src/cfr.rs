//! Tabular CFR and CFR+ for any number of players, iterate for iterate what
//! OpenSpiel's `CFRSolver` and `CFRPlusSolver` compute, over the public tree.
//!
//! Both update the players in turn (alternating updates): in iteration `t`,
//! for each player `i`, one walk computes `i`'s counterfactual value of each
//! action at each of its information states under the current policy
//! (every player's reach carried down as vectors over hands, as in
//! [`crate::exploitability`]), adds `value(action) − value(state)` to the
//! regret and `w_t · reach_i · σ(action)` to the average-policy numerator,
//! and then sets `i`'s current policy by regret matching: proportional to
//! the positive regrets, uniform where none is positive.
//!
//! * **CFR** (`CFRSolver`): `w_t = 1`; regrets accumulate as they are.
//! * **CFR+** (`CFRPlusSolver`): regret matching+ (negative regrets are
//!   reset to zero after each update) and linear averaging, `w_t = t`.
//!
//! OpenSpiel adds the average-policy term once per history of an
//! information state, a constant factor per state that the normalisation
//! removes; the average policies agree.

use crate::policy::TabularPolicy;
use crate::public_tree::{NodeKind, PublicTree};

use crate::exploitability::add;
use crate::terminal::{counterfactual_values, DealWeights, TerminalScratch};

/// Which solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CfrVariant {
    /// Vanilla CFR (OpenSpiel's `CFRSolver`).
    Cfr,
    /// CFR+ (OpenSpiel's `CFRPlusSolver`).
    CfrPlus,
}

impl CfrVariant {
    /// The name on the command line (`cfr`, `cfr+`).
    pub fn name(self) -> &'static str {
        match self {
            CfrVariant::Cfr => "cfr",
            CfrVariant::CfrPlus => "cfr+",
        }
    }

    /// OpenSpiel's class name.
    pub fn openspiel_name(self) -> &'static str {
        match self {
            CfrVariant::Cfr => "CFRSolver",
            CfrVariant::CfrPlus => "CFRPlusSolver",
        }
    }
}

/// CFR or CFR+ state over one public tree.
#[derive(Debug)]
pub struct CfrSolver<'t> {
    tree: &'t PublicTree,
    variant: CfrVariant,
    weights: DealWeights,
    iteration: u64,
    regrets: Vec<f64>,
    current: Vec<f64>,
    cumulative: Vec<f64>,
}

impl<'t> CfrSolver<'t> {
    /// A solver at iteration 0 with the uniform policy.
    pub fn new(tree: &'t PublicTree, variant: CfrVariant) -> Self {
        CfrSolver {
            tree,
            variant,
            weights: DealWeights::new(tree.hands(), tree.num_players()),
            iteration: 0,
            regrets: vec![0.0; tree.num_slots()],
            current: TabularPolicy::uniform(tree).probs().to_vec(),
            cumulative: vec![0.0; tree.num_slots()],
        }
    }

    /// Iterations run so far.
    pub fn iterations(&self) -> u64 {
        self.iteration
    }

    /// Runs one iteration: an update for each player in turn.
    pub fn iterate(&mut self) {
        self.iteration += 1;
        let mut frames = CfrFrame::stack(self.tree);
        let mut scratch = TerminalScratch::default();
        for player in 0..self.tree.num_players() {
            self.walk(0, player, 1.0, &mut frames, &mut scratch);
            self.regret_matching(player);
        }
    }

    /// The average policy (uniform where never reached).
    pub fn average_policy(&self) -> TabularPolicy {
        let mut probs = self.cumulative.clone();
        for decision in self.tree.decisions() {
            for hand in 0..self.tree.num_hands() {
                normalise_or_uniform(&mut probs[decision.slots(hand)]);
            }
        }
        TabularPolicy::from_slots(self.tree, probs).expect("one probability per slot")
    }

    /// Writes `player`'s counterfactual values of its hands at `node`
    /// under the current policy into `frames[0].values`, updating regrets
    /// and the average policy at its decisions; `frames[0].reach` holds
    /// every player's reach there.
    fn walk(
        &mut self,
        node: usize,
        player: usize,
        chance: f64,
        frames: &mut [CfrFrame],
        scratch: &mut TerminalScratch,
    ) {
        let tree = self.tree;
        let hands = tree.num_hands();
        let (here, deeper) = frames
            .split_first_mut()
            .expect("a frame per depth of the tree");
        match tree.kind(node) {
            NodeKind::Terminal(t) => counterfactual_values(
                &tree.payoffs()[t as usize],
                player,
                &here.reach,
                &self.weights,
                tree.public_cards(node),
                chance,
                scratch,
                &mut here.values,
            ),
            NodeKind::Chance => {
                here.values.fill(0.0);
                for child in tree.children(node) {
                    deeper[0].reach.copy_from_slice(&here.reach);
                    let p = tree.chance_probability(child);
                    self.walk(child, player, chance * p, deeper, scratch);
                    add(&mut here.values, &deeper[0].values);
                }
            }
            NodeKind::Decision(d) => {
                let decision = &tree.decisions()[d as usize];
                let actions = decision.legal_actions.len();
                let first_slot = decision.first_slot;
                let actor = decision.player;
                let row = actor * hands..(actor + 1) * hands;
                for (k, child) in tree.children(node).enumerate() {
                    let next = &mut deeper[0];
                    next.reach.copy_from_slice(&here.reach);
                    for (h, r) in next.reach[row.clone()].iter_mut().enumerate() {
                        *r *= self.current[first_slot + h * actions + k];
                    }
                    self.walk(child, player, chance, deeper, scratch);
                    here.by_action[k * hands..(k + 1) * hands].copy_from_slice(&deeper[0].values);
                }
                let by_action = &here.by_action[..actions * hands];
                if actor == player {
                    let weight = match self.variant {
                        CfrVariant::Cfr => 1.0,
                        CfrVariant::CfrPlus => self.iteration as f64,
                    };
                    let own_reach = &here.reach[row];
                    for h in 0..hands {
                        let slots = first_slot + h * actions..first_slot + (h + 1) * actions;
                        let value: f64 = (0..actions)
                            .map(|k| self.current[slots.start + k] * by_action[k * hands + h])
                            .sum();
                        for (k, slot) in slots.enumerate() {
                            self.regrets[slot] += regret(by_action[k * hands + h], value);
                            self.cumulative[slot] += weight * own_reach[h] * self.current[slot];
                        }
                        here.values[h] = value;
                    }
                } else {
                    here.values.fill(0.0);
                    for values in by_action.chunks_exact(hands) {
                        add(&mut here.values, values);
                    }
                }
            }
        }
    }

    /// Sets `player`'s current policy from its regrets (after clipping them
    /// at zero, for CFR+).
    fn regret_matching(&mut self, player: usize) {
        let tree = self.tree;
        for decision in tree.decisions().iter().filter(|d| d.player == player) {
            for hand in 0..tree.num_hands() {
                let slots = decision.slots(hand);
                let regrets = &mut self.regrets[slots.clone()];
                if self.variant == CfrVariant::CfrPlus {
                    regrets.iter_mut().for_each(|r| *r = r.max(0.0));
                }
                let positive: f64 = regrets.iter().filter(|r| **r > 0.0).sum();
                let current = &mut self.current[slots];
                if positive > 0.0 {
                    for (p, r) in current.iter_mut().zip(regrets.iter()) {
                        *p = if *r > 0.0 { r / positive } else { 0.0 };
                    }
                } else {
                    current.fill(1.0 / current.len() as f64);
                }
            }
        }
    }
}

/// What a CFR walk keeps at one depth: every player's reach of each hand
/// (`players × hands`), the walking player's values, and its values after
/// each action (`actions × hands`).
#[derive(Debug)]
struct CfrFrame {
    reach: Vec<f64>,
    values: Vec<f64>,
    by_action: Vec<f64>,
}

impl CfrFrame {
    fn stack(tree: &PublicTree) -> Vec<CfrFrame> {
        let hands = tree.num_hands();
        let actions = tree.game().num_distinct_actions();
        (0..=tree.depth())
            .map(|_| CfrFrame {
                reach: vec![1.0; tree.num_players() * hands],
                values: vec![0.0; hands],
                by_action: vec![0.0; actions * hands],
            })
            .collect()
    }
}

/// The regret of an action worth `action` at a state worth `value`: their
/// difference, or exactly zero when the difference is within the rounding
/// noise of the two numbers (the same quantity summed in another order).
///
/// Regret matching treats zero and a positive regret very differently, so
/// a difference that is zero in exact arithmetic must come out as zero
/// however the sums were ordered; OpenSpiel's per-history sums cancel
/// exactly where the exact values are equal, and so must ours.
fn regret(action: f64, value: f64) -> f64 {
    let difference = action - value;
    let noise = 64.0 * f64::EPSILON * (action.abs() + value.abs());
    if difference.abs() <= noise {
        0.0
    } else {
        difference
    }
}

/// Divides by the sum, or makes uniform when the sum is zero.
pub fn normalise_or_uniform(probs: &mut [f64]) {
    let total: f64 = probs.iter().sum();
    if total > 0.0 {
        probs.iter_mut().for_each(|p| *p /= total);
    } else {
        probs.fill(1.0 / probs.len() as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::regret;

    #[test]
    fn regrets_within_rounding_noise_are_exactly_zero() {
        // The same number summed in two orders.
        let (a, b) = (0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1);
        assert_ne!(a - b, 0.0);
        assert_eq!(regret(a, b), 0.0);
        assert_eq!(regret(1.0, 0.5), 0.5);
        assert_eq!(regret(-0.25, 0.25), -0.5);
        // Genuinely small regrets between small values survive.
        assert_eq!(regret(3e-12, 1e-12), 3e-12 - 1e-12);
    }
}
