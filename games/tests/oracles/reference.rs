//! The reference best response: the same NashConv computed over every
//! history of the game ([`HistoryTree`]) with per-history arrays, the
//! simplest correct algorithm. It is slow and memory-hungry on large games;
//! tests and the benchmark hold the public-tree evaluator
//! ([`rnad_games::exploitability`]) against it.
//!
//! For player `i`, one forward sweep gives every history's reach probability
//! under chance and the other players' policies; one backward sweep, level by
//! level from the leaves, gives the best-response value: at each of `i`'s
//! information states it sums the reach-weighted child values of all its
//! histories per action, picks the best action, and passes that child's value
//! up. NashConv is `Σ_i (best-response value_i − on-policy value_i)`; in a
//! two-player zero-sum game that is the sum of both best-response values and
//! what seed 000 calls exploitability. OpenSpiel's `exploitability` is
//! NashConv divided by the number of players.

use crate::history_tree::{Edge, HistoryTree, Node};
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;

use rnad_games::exploitability::NashConvReport;

/// A public-tree policy as one probability per slot of the history tree,
/// matched by information-state string.
pub fn history_policy(
    history: &HistoryTree,
    tree: &PublicTree,
    policy: &TabularPolicy,
) -> Vec<f64> {
    let index = tree.info_state_index();
    let mut probs = vec![0.0; history.num_slots()];
    for state in history.info_states() {
        let &(d, hand) = index
            .get(&state.string)
            .unwrap_or_else(|| panic!("{:?} is in the public tree", state.string));
        let slots = tree.decisions()[d].slots(hand);
        probs[state.slots()].copy_from_slice(&policy.probs()[slots]);
    }
    probs
}

/// Computes exact best responses on one tree, reusing its buffers.
#[derive(Debug)]
pub struct BestResponse<'t> {
    tree: &'t HistoryTree,
    reach: Vec<f64>,
    values: Vec<f64>,
    slot_values: Vec<f64>,
}

impl<'t> BestResponse<'t> {
    /// Buffers sized for `tree`.
    pub fn new(tree: &'t HistoryTree) -> Self {
        BestResponse {
            tree,
            reach: vec![0.0; tree.num_nodes()],
            values: vec![0.0; tree.num_nodes()],
            slot_values: vec![0.0; tree.num_slots()],
        }
    }

    /// NashConv of `policy`, with every player's best-response and on-policy
    /// values.
    pub fn nash_conv(&mut self, policy: &[f64]) -> NashConvReport {
        let players = 0..self.tree.num_players();
        let best_response_values: Vec<f64> = players
            .clone()
            .map(|p| self.best_response_value(policy, p))
            .collect();
        let on_policy_values: Vec<f64> = players.map(|p| self.on_policy_value(policy, p)).collect();
        let nash_conv = best_response_values
            .iter()
            .zip(&on_policy_values)
            .map(|(br, on)| br - on)
            .sum();
        NashConvReport {
            nash_conv,
            best_response_values,
            on_policy_values,
        }
    }

    /// The value to `player` of a best response to the others' part of
    /// `policy`.
    pub fn best_response_value(&mut self, policy: &[f64], player: usize) -> f64 {
        self.opponent_reach(policy, player);
        self.slot_values.fill(0.0);
        let tree = self.tree;
        for level in tree.levels().iter().rev() {
            for node in level.clone() {
                match tree.nodes()[node] {
                    Node::Decision { player: p, .. } if usize::from(p) == player => {
                        self.accumulate_action_values(node)
                    }
                    _ => self.values[node] = self.expected_value(policy, player, node),
                }
            }
            for node in level.clone() {
                if let Node::Decision {
                    player: p,
                    info_state,
                } = tree.nodes()[node]
                {
                    if usize::from(p) == player {
                        let best = self.best_action(info_state as usize);
                        self.values[node] = self.values[tree.children(node).start + best];
                    }
                }
            }
        }
        self.values[0]
    }

    /// `player`'s expected return when every player follows `policy`.
    pub fn on_policy_value(&mut self, policy: &[f64], player: usize) -> f64 {
        for level in self.tree.levels().iter().rev() {
            for node in level.clone() {
                self.values[node] = self.expected_value(policy, player, node);
            }
        }
        self.values[0]
    }

    /// Reach probability of every node under chance and every player but
    /// `player`.
    fn opponent_reach(&mut self, policy: &[f64], player: usize) {
        self.reach[0] = 1.0;
        for (node, (&edge, &parent)) in self
            .tree
            .edges()
            .iter()
            .zip(self.tree.parents())
            .enumerate()
            .skip(1)
        {
            let weight = match edge {
                Edge::Action { player: p, .. } if usize::from(p) == player => 1.0,
                _ => edge.probability(policy),
            };
            self.reach[node] = self.reach[parent as usize] * weight;
        }
    }

    /// The value of `node` for `player` as the average of its children under
    /// chance or `policy` (terminal: the return).
    fn expected_value(&self, policy: &[f64], player: usize, node: usize) -> f64 {
        let tree = self.tree;
        if tree.nodes()[node] == Node::Terminal {
            return tree.returns(node)[player];
        }
        tree.children(node)
            .map(|child| tree.edges()[child].probability(policy) * self.values[child])
            .sum()
    }

    /// Adds this history's reach-weighted child values to its information
    /// state's per-action totals.
    fn accumulate_action_values(&mut self, node: usize) {
        let reach = self.reach[node];
        for child in self.tree.children(node) {
            if let Edge::Action { slot, .. } = self.tree.edges()[child] {
                self.slot_values[slot as usize] += reach * self.values[child];
            }
        }
    }

    /// Index (among the legal actions) of the best action at `info_state`.
    fn best_action(&self, info_state: usize) -> usize {
        let slots = self.tree.info_states()[info_state].slots();
        let values = &self.slot_values[slots];
        let mut best = 0;
        for (k, &v) in values.iter().enumerate() {
            if v > values[best] {
                best = k;
            }
        }
        best
    }
}
