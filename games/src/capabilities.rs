//! What a game is beyond its rules, declared by the game as data (as
//! OpenSpiel's `GameType` declares dynamics, information and utility): the
//! unit its results are reported in, the players it offers besides uniform
//! and networks, and which tools apply to it (local best response, ACPC
//! hand histories, the UECda protocol, seed 002's reduced players).
//! Everything above the games layer asks these instead of a game's name,
//! so a new game touches its own folder and the registry's list only.
//!
//! Whether a game's public tree can be built is the loaded game's
//! [`Game::hands`](crate::Game::hands): it depends on the whole deal.

use crate::bots::RuleBot;
use crate::spec::GameSpec;

/// A game's capabilities, for one spec (some follow its parameters: the big
/// blind, the number of players).
#[derive(Clone, Copy, Debug)]
pub struct Capabilities {
    /// The unit its returns are reported in.
    pub units: Units,
    /// Its rule-based player (`rules` in a player list), if it has one.
    pub rules: Option<RuleBot>,
    /// Seed 004's poker baselines (`uniform` aside: `call`, `raise`,
    /// `heuristic`) read its actions as fold, check/call and raise.
    pub poker_baselines: bool,
    /// Seed 003's Monte-Carlo players (`random-sampling:N`, `epsilon:N`,
    /// ...) play it.
    pub monte_carlo: bool,
    /// Local best response applies: heads-up `universal_poker`.
    pub local_best_response: bool,
    /// Its hands are written and read as ACPC hand histories.
    pub acpc_logs: bool,
    /// It is the game the UECda protocol plays.
    pub uecda: bool,
    /// Whether a policy file for `small` (another spec) plays here as
    /// seed 002's reduced player; `Err` says why not.
    pub reduced_from: Option<ReducedFrom>,
}

/// Whether a policy for the spec `small` plays the spec `big` as seed
/// 002's reduced player; `Err` says why not.
pub type ReducedFrom = fn(big: &GameSpec, small: &GameSpec) -> Result<(), String>;

/// The unit a game's results are reported in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Units {
    /// Chips, reported in big blinds of `big_blind` chips (poker; the ante
    /// where there are no blinds).
    Chips {
        /// Chips per big blind.
        big_blind: f64,
    },
    /// Points: a deal is a match of `games` games whose returns are the
    /// points less their mean `mean_points`, so a game's points are the
    /// returns over `games` plus the mean.
    Points {
        /// Games in one deal's match.
        games: usize,
        /// A player's mean points per game.
        mean_points: f64,
    },
    /// The game's own returns.
    Returns,
}

impl Units {
    /// Chips per big blind, in poker.
    pub fn big_blind(self) -> Option<f64> {
        match self {
            Units::Chips { big_blind } => Some(big_blind),
            _ => None,
        }
    }
}

impl Capabilities {
    /// A game with its own returns as unit, no players of its own and no
    /// tools: what each game's declaration starts from.
    pub const NONE: Capabilities = Capabilities {
        units: Units::Returns,
        rules: None,
        poker_baselines: false,
        monte_carlo: false,
        local_best_response: false,
        acpc_logs: false,
        uecda: false,
        reduced_from: None,
    };

    /// Whether the game is poker (its results in big blinds).
    pub fn is_poker(&self) -> bool {
        self.units.big_blind().is_some()
    }
}
