//! Every game the project plays, listed once. Each game declares itself
//! (its OpenSpiel short name, what it is, its parameters with their types,
//! ranges and defaults, and how to build it) beside its rules, as
//! OpenSpiel's `REGISTER_SPIEL_GAME` does; this list only names the
//! declarations. Spec parsing, error messages, `--help` texts and the
//! documentation's list of games all come from here.

use std::fmt::Write;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};

use crate::spec::{GameInfo, GameSpec, ParamDomain, SpecError};

/// Every game, in the order help texts list them.
pub static GAMES: [&GameInfo; 5] = [
    &crate::kuhn::INFO,
    &crate::leduc::INFO,
    &crate::liars_dice::INFO,
    &crate::universal_poker::INFO,
    &crate::daihinmin::INFO,
];

/// Short names for specs, each standing for its full text.
pub static ALIASES: [(&str, &str); 1] = [("holdem", crate::universal_poker::HEADS_UP_NO_LIMIT)];

/// The game called `name`.
pub fn find(name: &str) -> Option<&'static GameInfo> {
    GAMES.iter().copied().find(|g| g.name == name)
}

/// Every game's name.
pub fn names() -> Vec<&'static str> {
    GAMES.iter().map(|g| g.name).collect()
}

/// Every game and its parameters, for help texts and the documentation.
pub fn help() -> String {
    let mut text = String::new();
    for game in GAMES {
        let _ = writeln!(text, "{}: {}", game.name, game.description);
        for p in game.params {
            let values = match &p.domain {
                ParamDomain::Int { min, max } => format!("{min}..={max}"),
                ParamDomain::Choice(words) => words.join("|"),
                ParamDomain::Ints { min, max } => format!("space-separated, each {min}..={max}"),
                ParamDomain::DefaultOnly(v) => format!("only {v} here"),
            };
            let _ = writeln!(
                text,
                "  {}: {} ({values}; default {})",
                p.name, p.help, p.default_text
            );
        }
    }
    text
}

impl GameSpec {
    /// Parses `text` and checks it against its game's declaration (also the
    /// `FromStr` and `Deserialize` implementations).
    pub fn parse(text: &str) -> Result<GameSpec, SpecError> {
        let text = ALIASES
            .iter()
            .find(|(alias, _)| *alias == text.trim())
            .map_or(text, |(_, full)| full);
        GameSpec::parse_with(text, find, &names().join(", "))
    }
}

impl FromStr for GameSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameSpec::parse(s)
    }
}

impl<'de> Deserialize<'de> for GameSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        GameSpec::parse(&text).map_err(serde::de::Error::custom)
    }
}
