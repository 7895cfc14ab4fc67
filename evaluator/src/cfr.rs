//! Tabular CFR+ as OpenSpiel's `CFRPlusSolver` runs it: regret matching+,
//! alternating updates (player 0, then player 1 against player 0's new
//! policy), and the average policy weighted linearly by iteration number.
//!
//! One player's update is two sweeps over the flat tree: forward for the
//! player's own reach and the counterfactual (chance and opponent) reach,
//! backward for values under the current policy, adding
//! `reach_other · (v(h·a) − v(h))` to the regret and
//! `t · reach_self · σ(a)` to the average-policy numerator at each of the
//! player's histories.

use rnad_common::policy::TabularPolicy;
use rnad_common::tree::{Edge, GameTree, Node};

/// CFR+ state over one game tree.
#[derive(Debug)]
pub struct CfrPlusSolver<'t> {
    tree: &'t GameTree,
    iteration: u64,
    regrets: Vec<f64>,
    current: Vec<f64>,
    cumulative: Vec<f64>,
    reach_self: Vec<f64>,
    reach_other: Vec<f64>,
    values: Vec<f64>,
}

impl<'t> CfrPlusSolver<'t> {
    /// A solver at iteration 0 with the uniform policy.
    pub fn new(tree: &'t GameTree) -> Self {
        CfrPlusSolver {
            tree,
            iteration: 0,
            regrets: vec![0.0; tree.num_slots()],
            current: TabularPolicy::uniform(tree).probs().to_vec(),
            cumulative: vec![0.0; tree.num_slots()],
            reach_self: vec![0.0; tree.num_nodes()],
            reach_other: vec![0.0; tree.num_nodes()],
            values: vec![0.0; tree.num_nodes()],
        }
    }

    /// Iterations run so far.
    pub fn iterations(&self) -> u64 {
        self.iteration
    }

    /// Runs one iteration: an update for each player in turn.
    pub fn iterate(&mut self) {
        self.iteration += 1;
        for player in 0..self.tree.num_players() {
            self.compute_reach(player);
            self.update_regrets(player);
            self.regret_matching_plus();
        }
    }

    /// The linearly weighted average policy (uniform where never reached).
    pub fn average_policy(&self) -> TabularPolicy {
        let mut probs = self.cumulative.clone();
        for state in self.tree.info_states() {
            let slots = &mut probs[state.slots()];
            let total: f64 = slots.iter().sum();
            if total > 0.0 {
                slots.iter_mut().for_each(|p| *p /= total);
            } else {
                slots.fill(1.0 / slots.len() as f64);
            }
        }
        TabularPolicy::from_slots(self.tree, probs).expect("one probability per slot")
    }

    fn compute_reach(&mut self, player: usize) {
        self.reach_self[0] = 1.0;
        self.reach_other[0] = 1.0;
        let tree = self.tree;
        for (node, (&edge, &parent)) in tree.edges().iter().zip(tree.parents()).enumerate().skip(1)
        {
            let parent = parent as usize;
            let (mut own, mut other) = (self.reach_self[parent], self.reach_other[parent]);
            match edge {
                Edge::Chance(p) => other *= p,
                Edge::Action { player: p, slot } if usize::from(p) == player => {
                    own *= self.current[slot as usize]
                }
                Edge::Action { slot, .. } => other *= self.current[slot as usize],
                Edge::Root => unreachable!("only node 0 is the root"),
            }
            self.reach_self[node] = own;
            self.reach_other[node] = other;
        }
    }

    fn update_regrets(&mut self, player: usize) {
        let tree = self.tree;
        let weight = self.iteration as f64;
        for level in tree.levels().iter().rev() {
            for node in level.clone() {
                let value = match tree.nodes()[node] {
                    Node::Terminal => tree.returns(node)[player],
                    _ => tree
                        .children(node)
                        .map(|child| {
                            tree.edges()[child].probability(&self.current) * self.values[child]
                        })
                        .sum(),
                };
                self.values[node] = value;
                if let Node::Decision { player: p, .. } = tree.nodes()[node] {
                    if usize::from(p) == player {
                        let (own, other) = (self.reach_self[node], self.reach_other[node]);
                        for child in tree.children(node) {
                            let Edge::Action { slot, .. } = tree.edges()[child] else {
                                unreachable!("a decision node's children are actions")
                            };
                            let slot = slot as usize;
                            self.regrets[slot] += other * (self.values[child] - value);
                            self.cumulative[slot] += weight * own * self.current[slot];
                        }
                    }
                }
            }
        }
    }

    /// Clips regrets at zero and sets the current policy proportional to
    /// them (uniform where none is positive).
    fn regret_matching_plus(&mut self) {
        for state in self.tree.info_states() {
            let slots = state.slots();
            let regrets = &mut self.regrets[slots.clone()];
            regrets.iter_mut().for_each(|r| *r = r.max(0.0));
            let total: f64 = regrets.iter().sum();
            let current = &mut self.current[slots];
            if total > 0.0 {
                for (p, r) in current.iter_mut().zip(regrets.iter()) {
                    *p = r / total;
                }
            } else {
                current.fill(1.0 / current.len() as f64);
            }
        }
    }
}
