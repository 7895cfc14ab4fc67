//! Exact NashConv of the universal_poker games small enough to enumerate
//! against OpenSpiel 2.0.2's own (`fixtures/openspiel/universal_poker_nash_conv.json`,
//! written by `scripts/universal-poker-nash-conv.py`): the uniform policy
//! and a policy both sides build from a hash of the information-state
//! string, so that no policy file is needed.

use std::path::PathBuf;
use std::sync::Arc;

use crate::playthroughs::{fnv1a, FNV_OFFSET};
use rnad_games::exploitability::nash_conv;
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::{GameSpec, Turn};
use serde::Deserialize;

#[derive(Deserialize)]
struct Row {
    spec: String,
    info_states: usize,
    uniform_nash_conv: f64,
    hashed_nash_conv: f64,
}

/// The fixture script's hashed policy.
fn hashed_policy(tree: &PublicTree) -> TabularPolicy {
    let mut probs = TabularPolicy::uniform(tree).probs().to_vec();
    for (decision, hand) in tree.info_states() {
        let state = tree.representative_state(decision, hand);
        let Turn::Player(player) = state.turn() else {
            panic!("a decision's state is a player's");
        };
        let key = state.information_state_string(player);
        let weights: Vec<f64> = decision
            .legal_actions
            .iter()
            .map(|a| 1.0 + (fnv1a(&format!("{key} {a}"), FNV_OFFSET) % 1000) as f64 / 1000.0)
            .collect();
        let total: f64 = weights.iter().sum();
        for (slot, w) in decision.slots(hand).zip(weights) {
            probs[slot] = w / total;
        }
    }
    TabularPolicy::from_slots(tree, probs).expect("one probability per slot")
}

#[test]
fn small_universal_poker_games_have_openspiels_nash_conv_to_1e_9() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/openspiel/universal_poker_nash_conv.json");
    let rows: Vec<Row> =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("parses");
    assert_eq!(rows.len(), 2);
    for row in rows {
        let spec: GameSpec = row.spec.parse().unwrap();
        let tree = PublicTree::build(Arc::clone(&spec.load())).unwrap();
        assert_eq!(tree.info_states().count(), row.info_states, "{spec}");
        let uniform = nash_conv(&tree, &TabularPolicy::uniform(&tree)).nash_conv;
        let hashed = nash_conv(&tree, &hashed_policy(&tree)).nash_conv;
        let close = |ours: f64, theirs: f64| (ours - theirs).abs() <= 1e-9 * theirs.abs().max(1.0);
        assert!(
            close(uniform, row.uniform_nash_conv),
            "{spec}: uniform {uniform} vs {}",
            row.uniform_nash_conv
        );
        assert!(
            close(hashed, row.hashed_nash_conv),
            "{spec}: hashed {hashed} vs {}",
            row.hashed_nash_conv
        );
    }
}
