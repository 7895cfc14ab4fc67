//! The match engine against the per-history reference: exact match
//! payoffs are the on-policy values of every seating.

use std::path::PathBuf;

use rnad_games::bots::rules;
use rnad_games::headtohead::play::expected_returns;
use rnad_games::policy::TabularPolicy;
use rnad_games::policy_file::read_policy_file;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;

use crate::history_tree::HistoryTree;
use crate::reference::{history_policy, BestResponse};

/// A player of these tests.
enum Player {
    Uniform,
    Rules,
    /// A policy file of `fixtures/openspiel/`.
    File(&'static str),
}

impl Player {
    fn policy(&self, tree: &PublicTree) -> TabularPolicy {
        match self {
            Player::Uniform => TabularPolicy::uniform(tree),
            Player::Rules => rules::policy(tree),
            Player::File(name) => {
                let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../fixtures/openspiel")
                    .join(name);
                read_policy_file(tree, &path).unwrap()
            }
        }
    }
}

/// Exact match payoffs equal the on-policy values the per-history
/// reference computes for every seating of the same players.
#[test]
fn exact_payoffs_agree_with_the_per_history_reference() {
    for (spec, players) in [
        (
            "leduc_poker",
            vec![
                Player::File("leduc_poker_cfrplus100_policy.json"),
                Player::Rules,
            ],
        ),
        (
            "kuhn_poker(players=3)",
            vec![
                Player::File("kuhn_poker_3p_cfrplus100_policy.json"),
                Player::Rules,
                Player::Uniform,
            ],
        ),
        (
            "liars_dice(dice_sides=3)",
            vec![Player::Rules, Player::Uniform],
        ),
    ] {
        let tree = PublicTree::build(spec.parse::<GameSpec>().unwrap().load()).unwrap();
        let policies: Vec<TabularPolicy> = players.iter().map(|p| p.policy(&tree)).collect();
        let history = HistoryTree::build(tree.game().as_ref()).unwrap();
        let mut reference = BestResponse::new(&history);
        for seating in rnad_games::headtohead::seating::seatings(players.len()) {
            let ours = expected_returns(&tree, &policies, &seating);
            // The joint policy: each seat's slots from its player.
            let mut joint = vec![0.0; tree.num_slots()];
            for d in tree.decisions() {
                for hand in 0..tree.num_hands() {
                    let slots = d.slots(hand);
                    joint[slots.clone()]
                        .copy_from_slice(&policies[seating[d.player]].probs()[slots]);
                }
            }
            let joint = TabularPolicy::from_slots(&tree, joint).unwrap();
            let probs = history_policy(&history, &tree, &joint);
            for (seat, value) in ours.iter().enumerate() {
                let expected = reference.on_policy_value(&probs, seat);
                assert!(
                    (value - expected).abs() < 1e-12,
                    "{spec} {seating:?} seat {seat}: {value} vs {expected}"
                );
            }
        }
    }
}
