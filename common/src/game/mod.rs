//! Two-player zero-sum imperfect-information games with OpenSpiel's rules.
//!
//! The traits mirror OpenSpiel's `Game` and `State` closely enough that
//! policies keyed by information-state string can be exchanged with it: every
//! game here produces OpenSpiel's information-state strings and tensors byte
//! for byte (checked against the fixtures in `fixtures/openspiel/`).

mod kuhn;
mod leduc;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use kuhn::KuhnPoker;
pub use leduc::LeducPoker;

/// An action id, as OpenSpiel numbers them (`0..num_distinct_actions` for
/// players, card ids for chance).
pub type Action = usize;

/// Whose turn it is in a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Nature moves: sample from [`State::chance_outcomes`].
    Chance,
    /// The given player (0-based) acts.
    Player(usize),
    /// The game is over: read [`State::returns`].
    Terminal,
}

/// A game: its dimensions and its initial state.
pub trait Game: Send + Sync + fmt::Debug {
    /// Which game this is.
    fn name(&self) -> GameName;
    /// Number of players (2 for every game here).
    fn num_players(&self) -> usize;
    /// Number of distinct player actions; action ids are `0..this`.
    fn num_distinct_actions(&self) -> usize;
    /// Length of [`State::information_state_tensor`].
    fn information_state_tensor_size(&self) -> usize;
    /// Most player actions any game can take (chance moves not counted).
    fn max_game_length(&self) -> usize;
    /// The state before the first chance move.
    fn new_initial_state(&self) -> Box<dyn State>;
}

/// A position in a game. Cheap to clone; applying an action mutates it.
pub trait State: Send + fmt::Debug {
    /// Whose turn it is.
    fn turn(&self) -> Turn;
    /// Legal player actions in increasing order (empty at chance and terminal
    /// states).
    fn legal_actions(&self) -> Vec<Action>;
    /// Chance outcomes with their probabilities (empty unless [`Turn::Chance`]).
    fn chance_outcomes(&self) -> Vec<(Action, f64)>;
    /// Applies a legal player action or a possible chance outcome.
    ///
    /// # Panics
    /// On an illegal action: callers choose among `legal_actions` or
    /// `chance_outcomes`.
    fn apply_action(&mut self, action: Action);
    /// Each player's total reward; all zero before the end.
    fn returns(&self) -> Vec<f64>;
    /// OpenSpiel's information-state string for `player`.
    fn information_state_string(&self, player: usize) -> String;
    /// OpenSpiel's information-state tensor for `player`, written into `out`
    /// (length [`Game::information_state_tensor_size`]).
    fn information_state_tensor(&self, player: usize, out: &mut [f32]);
    /// A boxed copy of this state.
    fn clone_box(&self) -> Box<dyn State>;
}

impl Clone for Box<dyn State> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// The games the project supports, by their OpenSpiel short names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameName {
    /// OpenSpiel's `kuhn_poker` (3 cards, 12 information states).
    #[serde(rename = "kuhn_poker")]
    KuhnPoker,
    /// OpenSpiel's `leduc_poker` with default parameters (936 information states).
    #[serde(rename = "leduc_poker")]
    LeducPoker,
}

impl GameName {
    /// Every supported game.
    pub const ALL: [GameName; 2] = [GameName::KuhnPoker, GameName::LeducPoker];

    /// OpenSpiel's short name of the game.
    pub fn as_str(self) -> &'static str {
        match self {
            GameName::KuhnPoker => "kuhn_poker",
            GameName::LeducPoker => "leduc_poker",
        }
    }

    /// A shared instance of the game.
    pub fn load(self) -> Arc<dyn Game> {
        match self {
            GameName::KuhnPoker => Arc::new(KuhnPoker),
            GameName::LeducPoker => Arc::new(LeducPoker),
        }
    }
}

impl fmt::Display for GameName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a game name that is not supported.
#[derive(Debug, thiserror::Error)]
#[error("unknown game `{0}`: expected one of kuhn_poker, leduc_poker")]
pub struct UnknownGame(pub String);

impl FromStr for GameName {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameName::ALL
            .into_iter()
            .find(|g| g.as_str() == s)
            .ok_or_else(|| UnknownGame(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_names_round_trip_and_unknown_names_are_refused() {
        for game in GameName::ALL {
            assert_eq!(game.as_str().parse::<GameName>().unwrap(), game);
            assert_eq!(game.load().name(), game);
        }
        let err = "go".parse::<GameName>().unwrap_err();
        assert!(err.to_string().contains("unknown game `go`"));
    }
}
