//! Each information state's reach by its own player's actions: the weight
//! of a state in a sequence-form average.

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::{NodeKind, PublicTree};

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
