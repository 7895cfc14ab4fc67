//! Dropping the actions NeuRD holds at its threshold from a whole
//! tabular policy, by [`rnad_net::held_actions`]'s rule.

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_net::held_actions::drop_held_row;

/// `policy` without the actions held at NeuRD threshold `beta` at any of
/// its information states ([`drop_held_row`] at each).
pub fn drop_held_actions(tree: &PublicTree, policy: &TabularPolicy, beta: f64) -> TabularPolicy {
    let mut probs = policy.probs().to_vec();
    for decision in tree.decisions() {
        for hand in 0..tree.num_hands() {
            drop_held_row(&mut probs[decision.slots(hand)], beta);
        }
    }
    TabularPolicy::from_slots(tree, probs).expect("same length")
}
