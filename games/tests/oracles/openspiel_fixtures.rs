//! Every information state of every fixture game against OpenSpiel's own
//! (`fixtures/openspiel/*_info_states.json`, produced by OpenSpiel 2.0.2):
//! identical strings, acting players, legal actions and tensors, and no
//! information state OpenSpiel lacks; the public tree and the history tree
//! (which assumes nothing about which moves are public) agree on them.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::history_tree::HistoryTree;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use serde::Deserialize;

#[derive(Deserialize)]
struct Fixture {
    game: String,
    num_info_states: usize,
    info_states: Vec<FixtureInfoState>,
}

#[derive(Deserialize)]
struct FixtureInfoState {
    info_state: String,
    player: usize,
    legal_actions: Vec<usize>,
    tensor: Vec<f32>,
}

fn fixture(file: &str) -> Fixture {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/openspiel")
        .join(format!("{file}_info_states.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture parses")
}

/// Checks the public tree of the fixture's game against it, returning the
/// tree.
fn check_against_openspiel(file: &str, expected_count: usize) -> PublicTree {
    let fixture = fixture(file);
    let spec: GameSpec = fixture.game.parse().unwrap();
    assert_eq!(fixture.num_info_states, expected_count);
    assert_eq!(fixture.info_states.len(), expected_count);

    let game = spec.load();
    let tree = PublicTree::build(game.clone()).expect("tree builds");
    assert_eq!(tree.num_info_states(), expected_count, "{spec}");
    let index = tree.info_state_index();
    assert_eq!(index.len(), expected_count, "{spec}: strings are distinct");
    let mut tensor = vec![0.0f32; game.information_state_tensor_size()];
    assert_eq!(tensor.len(), fixture.info_states[0].tensor.len());
    for expected in &fixture.info_states {
        let &(d, hand) = index.get(&expected.info_state).unwrap_or_else(|| {
            panic!("{spec}: OpenSpiel's {:?} not produced", expected.info_state)
        });
        let decision = &tree.decisions()[d];
        assert_eq!(
            decision.player, expected.player,
            "player of {:?}",
            expected.info_state
        );
        assert_eq!(
            decision.legal_actions, expected.legal_actions,
            "legal actions of {:?}",
            expected.info_state
        );
        tree.info_state_tensor(decision, hand, &mut tensor);
        assert_eq!(
            tensor, expected.tensor,
            "tensor of {:?}",
            expected.info_state
        );
    }
    let ours: HashSet<&String> = index.keys().collect();
    let theirs: HashSet<&String> = fixture.info_states.iter().map(|s| &s.info_state).collect();
    assert_eq!(ours, theirs);
    tree
}

/// The history tree finds exactly the public tree's information states.
fn check_history_tree_agrees(tree: &PublicTree) {
    let history = HistoryTree::build(tree.game().as_ref()).expect("history tree builds");
    let from_histories: HashSet<&str> = history
        .info_states()
        .iter()
        .map(|s| s.string.as_str())
        .collect();
    let index = tree.info_state_index();
    let from_public: HashSet<&str> = index.keys().map(String::as_str).collect();
    assert_eq!(from_histories, from_public, "{}", tree.spec());
}

#[test]
fn kuhn_matches_openspiel_information_states() {
    let tree = check_against_openspiel("kuhn_poker", 12);
    check_history_tree_agrees(&tree);
}

#[test]
fn leduc_matches_openspiel_information_states() {
    let tree = check_against_openspiel("leduc_poker", 936);
    check_history_tree_agrees(&tree);
}

#[test]
fn three_player_kuhn_matches_openspiel_information_states() {
    let tree = check_against_openspiel("kuhn_poker_3p", 48);
    check_history_tree_agrees(&tree);
}

#[test]
fn three_player_leduc_matches_openspiel_information_states() {
    check_against_openspiel("leduc_poker_3p", 25_800);
}

#[test]
fn liars_dice_matches_openspiel_information_states() {
    let tree = check_against_openspiel("liars_dice", 24_576);
    check_history_tree_agrees(&tree);
}

/// Non-default parameters behave as in OpenSpiel (fixtures written by
/// `scripts/openspiel-fixtures.py`).
#[test]
fn parameterised_games_match_openspiel_information_states() {
    for (file, count) in [
        ("kuhn_poker_4p", 160),
        ("leduc_poker_start1", 936),
        ("liars_dice_2dice_2sides", 768),
        ("liars_dice_4sides_reset_quantity", 1024),
    ] {
        let tree = check_against_openspiel(file, count);
        check_history_tree_agrees(&tree);
    }
}
