//! Random games played by OpenSpiel 2.0.2 (`fixtures/openspiel/playthroughs/`,
//! written by `scripts/universal-poker-playthroughs.py`) replayed through
//! this project's engine: every state on the way must give the same acting
//! player, legal actions, information-state strings and tensor (compared
//! through the digest each line carries, in the clear for the first games)
//! and every game the same returns.

use std::path::PathBuf;

use rnad_games::{GameSpec, State, Turn};
use serde_json::Value;

/// FNV-1a's starting digest (64 bits), as the fixture scripts use it.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// `digest` extended by the bytes of `text` (FNV-1a, 64 bits).
pub fn fnv1a(text: &str, mut digest: u64) -> u64 {
    for byte in text.bytes() {
        digest ^= u64::from(byte);
        digest = digest.wrapping_mul(FNV_PRIME);
    }
    digest
}

/// The state as the fixture script writes it.
fn state_line(state: &dyn State, players: usize, tensor: &mut [f32]) -> String {
    let (player, legal) = match state.turn() {
        Turn::Player(p) => (p as i64, state.legal_actions()),
        Turn::Chance => (-1, Vec::new()),
        Turn::Terminal => (-4, Vec::new()),
    };
    let legal: Vec<String> = legal.iter().map(usize::to_string).collect();
    let strings: Vec<String> = (0..players)
        .map(|p| state.information_state_string(p))
        .collect();
    state.information_state_tensor(0, tensor);
    let tensor: Vec<String> = tensor.iter().map(|v| (*v as i64).to_string()).collect();
    format!(
        "{player}|{}|{}|{}\n",
        legal.join(","),
        strings.join("|"),
        tensor.join(",")
    )
}

fn replay(file: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/openspiel/playthroughs")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("header")).unwrap();
    let spec: GameSpec = header["spec"].as_str().unwrap().parse().unwrap();
    let game = spec.load();
    let players = game.num_players();
    let mut tensor = vec![0.0f32; game.information_state_tensor_size()];
    let mut games = 0;
    for (number, line) in lines.enumerate() {
        let record: Value = serde_json::from_str(line).unwrap();
        let clear: Vec<&str> = record["states"]
            .as_array()
            .map(|s| s.iter().map(|l| l.as_str().unwrap()).collect())
            .unwrap_or_default();
        let mut state = game.new_initial_state();
        let mut digest = FNV_OFFSET;
        let history = record["history"].as_array().unwrap();
        for step in 0..=history.len() {
            let ours = state_line(state.as_ref(), players, &mut tensor);
            if let Some(theirs) = clear.get(step) {
                assert_eq!(
                    ours.trim_end(),
                    *theirs,
                    "{file} game {number} state {step}"
                );
            }
            digest = fnv1a(&ours, digest);
            if let Some(action) = history.get(step) {
                state.apply_action(action.as_u64().unwrap() as usize);
            }
        }
        assert_eq!(state.turn(), Turn::Terminal, "{file} game {number}");
        assert_eq!(
            format!("{digest:016x}"),
            record["digest"].as_str().unwrap(),
            "{file} game {number}: a state differs from OpenSpiel's (history {history:?})"
        );
        let returns: Vec<f64> = record["returns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_f64().unwrap())
            .collect();
        assert_eq!(state.returns(), returns, "{file} game {number}");
        games += 1;
    }
    assert_eq!(games, header["games"].as_u64().unwrap(), "{file}");
}

#[test]
fn openspiel_default_universal_poker_plays_as_in_openspiel() {
    replay("default.jsonl");
}

#[test]
fn a_limit_game_plays_as_in_openspiel() {
    replay("limit.jsonl");
}

#[test]
fn heads_up_no_limit_holdem_plays_as_in_openspiel_under_fcpa_and_fchpa() {
    replay("holdem-fcpa.jsonl");
    replay("holdem-fchpa.jsonl");
}

#[test]
fn the_full_game_plays_as_in_openspiel() {
    replay("fullgame.jsonl");
}

#[test]
fn three_players_with_side_pots_play_as_in_openspiel() {
    replay("three-players.jsonl");
}
