//! Every information state of Kuhn and Leduc poker against OpenSpiel's own
//! (`fixtures/openspiel/*_info_states.json`, produced by OpenSpiel 2.0.2):
//! identical strings, acting players, legal actions and tensors, and no
//! information state OpenSpiel lacks.

use std::collections::HashSet;
use std::path::PathBuf;

use rnad_common::game::GameName;
use rnad_common::tree::GameTree;
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

fn fixture(game: GameName) -> Fixture {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/openspiel")
        .join(format!("{game}_info_states.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("fixture parses")
}

fn check_against_openspiel(game: GameName, expected_count: usize) {
    let fixture = fixture(game);
    assert_eq!(fixture.game, game.as_str());
    assert_eq!(fixture.num_info_states, expected_count);
    assert_eq!(fixture.info_states.len(), expected_count);

    let tree = GameTree::build(game.load().as_ref()).expect("tree builds");
    assert_eq!(tree.info_states().len(), expected_count);
    assert_eq!(tree.tensor_size(), fixture.info_states[0].tensor.len());

    for expected in &fixture.info_states {
        let index = tree
            .info_state_index(&expected.info_state)
            .unwrap_or_else(|| {
                panic!("{game}: OpenSpiel's {:?} not produced", expected.info_state)
            });
        let ours = &tree.info_states()[index];
        assert_eq!(ours.string, expected.info_state);
        assert_eq!(
            ours.player, expected.player,
            "player of {:?}",
            expected.info_state
        );
        assert_eq!(
            ours.legal_actions, expected.legal_actions,
            "legal actions of {:?}",
            expected.info_state
        );
        assert_eq!(
            ours.tensor, expected.tensor,
            "tensor of {:?}",
            expected.info_state
        );
    }
    let openspiel: HashSet<&str> = fixture
        .info_states
        .iter()
        .map(|s| s.info_state.as_str())
        .collect();
    for ours in tree.info_states() {
        assert!(
            openspiel.contains(ours.string.as_str()),
            "{game}: {:?} is not OpenSpiel's",
            ours.string
        );
    }
}

#[test]
fn kuhn_matches_openspiel_information_states() {
    check_against_openspiel(GameName::KuhnPoker, 12);
}

#[test]
fn leduc_matches_openspiel_information_states() {
    check_against_openspiel(GameName::LeducPoker, 936);
}

#[test]
fn chance_probabilities_sum_to_one_and_games_are_zero_sum() {
    for game in GameName::ALL {
        let tree = GameTree::build(game.load().as_ref()).unwrap();
        let mut chance_sums = vec![0.0; tree.num_nodes()];
        for (node, edge) in tree.edges().iter().enumerate().skip(1) {
            if let rnad_common::tree::Edge::Chance(p) = edge {
                chance_sums[tree.parents()[node] as usize] += p;
            }
        }
        for (node, kind) in tree.nodes().iter().enumerate() {
            match kind {
                rnad_common::tree::Node::Chance => assert!((chance_sums[node] - 1.0).abs() < 1e-12),
                rnad_common::tree::Node::Terminal => {
                    assert_eq!(tree.returns(node).iter().sum::<f64>(), 0.0)
                }
                rnad_common::tree::Node::Decision { .. } => {}
            }
        }
    }
}
