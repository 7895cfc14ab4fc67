//! Dropping the actions NeuRD holds at its threshold: an action the
//! learner would push lower still keeps a few percent of probability at the
//! threshold, which an equilibrium does not play.

use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;

/// An action whose centred log-probability is at or below `−β` plus this
/// counts as held at NeuRD's threshold: the learner's logits sit at the threshold
/// up to the small moves of the shared weights, and the target's are an
/// average of those.
pub(super) const HELD_MARGIN: f64 = 0.05;

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

pub(super) fn drop_held_row(row: &mut [f64], beta: f64) {
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
