//! `rnad-evaluator playthrough`: random games of any registered game as
//! JSON lines, one per state, in OpenSpiel's terms (action ids, chance
//! outcome ids, player ids -1 for chance and -4 at the end), so that anyone
//! can replay a line's history in pyspiel and compare the state it reaches.

use std::io::Write;

use clap::Args;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::sampling::inverse_cdf;
use rnad_games::{GameSpec, State, Turn};
use serde_json::json;

use super::{emit, game_help};
use crate::error::EvaluatorError;

/// OpenSpiel's player ids for chance and terminal states.
const CHANCE_ID: i64 = -1;
const TERMINAL_ID: i64 = -4;

/// Arguments of `playthrough`.
#[derive(Debug, Args)]
pub struct PlaythroughArgs {
    /// Game to play.
    #[arg(long, long_help = game_help())]
    pub game: GameSpec,
    /// Games to play.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Seed of the random moves (chance by its probabilities, players
    /// uniformly among their legal actions).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// One JSON line describing `state`, reached by `history` in game `number`.
fn state_line(number: u64, state: &dyn State, history: &[usize], players: usize) -> String {
    let (player, legal) = match state.turn() {
        Turn::Player(p) => (p as i64, state.legal_actions()),
        Turn::Chance => (CHANCE_ID, Vec::new()),
        Turn::Terminal => (TERMINAL_ID, Vec::new()),
    };
    let strings: Vec<String> = (0..players)
        .map(|p| state.information_state_string(p))
        .collect();
    let mut line = json!({
        "game": number,
        "history": history,
        "player": player,
        "legal_actions": legal,
        "information_states": strings,
    });
    if state.turn() == Turn::Terminal {
        line["returns"] = json!(state.returns());
    }
    line.to_string()
}

/// Plays the games and writes every state.
pub fn run(args: &PlaythroughArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let game = args.game.load();
    let players = game.num_players();
    let mut random = ChaCha8Rng::seed_from_u64(args.seed);
    for number in 0..args.games {
        let mut state = game.new_initial_state();
        let mut history = Vec::new();
        loop {
            emit(out, &state_line(number, state.as_ref(), &history, players))?;
            let action = match state.turn() {
                Turn::Terminal => break,
                Turn::Chance => inverse_cdf(random.random::<f64>(), state.chance_outcomes()),
                Turn::Player(_) => {
                    let legal = state.legal_actions();
                    legal[random.random_range(0..legal.len())]
                }
            };
            state.apply_action(action);
            history.push(action);
        }
    }
    Ok(())
}
