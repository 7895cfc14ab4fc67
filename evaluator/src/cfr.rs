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

use rnad_common::policy::TabularPolicy;
use rnad_common::public_tree::{NodeKind, PublicTree};

use crate::exploitability::add;
use crate::terminal::{counterfactual_values, DealWeights};

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
        let hands = self.tree.num_hands();
        for player in 0..self.tree.num_players() {
            let mut reach = vec![vec![1.0; hands]; self.tree.num_players()];
            let mut values = vec![0.0; hands];
            self.walk(0, player, &mut reach, 1.0, &mut values);
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

    /// Counterfactual values of `player`'s hands at `node` under the current
    /// policy, updating regrets and the average policy at its decisions.
    fn walk(
        &mut self,
        node: usize,
        player: usize,
        reach: &mut [Vec<f64>],
        chance: f64,
        out: &mut [f64],
    ) {
        let tree = self.tree;
        let hands = out.len();
        match tree.kind(node) {
            NodeKind::Terminal(t) => {
                let views: Vec<&[f64]> = reach.iter().map(Vec::as_slice).collect();
                counterfactual_values(
                    &tree.payoffs()[t as usize],
                    player,
                    &views,
                    &self.weights,
                    tree.public_cards(node),
                    chance,
                    out,
                );
            }
            NodeKind::Chance => {
                out.fill(0.0);
                let mut child_values = vec![0.0; hands];
                for child in tree.children(node) {
                    let p = tree.chance_probability(child);
                    self.walk(child, player, reach, chance * p, &mut child_values);
                    add(out, &child_values);
                }
            }
            NodeKind::Decision(d) => {
                let decision = &tree.decisions()[d as usize];
                let actions = decision.legal_actions.len();
                let first_slot = decision.first_slot;
                let actor = decision.player;
                let saved = reach[actor].clone();
                let mut child_values = vec![vec![0.0; hands]; actions];
                for (k, child) in tree.children(node).enumerate() {
                    for h in 0..hands {
                        reach[actor][h] = saved[h] * self.current[first_slot + h * actions + k];
                    }
                    self.walk(child, player, reach, chance, &mut child_values[k]);
                }
                reach[actor].copy_from_slice(&saved);
                if actor == player {
                    let weight = match self.variant {
                        CfrVariant::Cfr => 1.0,
                        CfrVariant::CfrPlus => self.iteration as f64,
                    };
                    for h in 0..hands {
                        let slots = first_slot + h * actions..first_slot + (h + 1) * actions;
                        let value: f64 = (0..actions)
                            .map(|k| self.current[slots.start + k] * child_values[k][h])
                            .sum();
                        for (slot, values) in slots.zip(&child_values) {
                            self.regrets[slot] += values[h] - value;
                            self.cumulative[slot] += weight * saved[h] * self.current[slot];
                        }
                        out[h] = value;
                    }
                } else {
                    out.fill(0.0);
                    for values in &child_values {
                        add(out, values);
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

/// Divides by the sum, or makes uniform when the sum is zero.
pub fn normalise_or_uniform(probs: &mut [f64]) {
    let total: f64 = probs.iter().sum();
    if total > 0.0 {
        probs.iter_mut().for_each(|p| *p /= total);
    } else {
        probs.fill(1.0 / probs.len() as f64);
    }
}
