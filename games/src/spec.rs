//! Game specs as OpenSpiel writes them: `leduc_poker`,
//! `leduc_poker(players=3)`, `liars_dice(dice_sides=4,numdice=2)`.
//!
//! A spec names a registered game and sets some of its parameters. Parsing
//! checks everything against the game's declaration ([`GameInfo`]), found
//! through the [registry](crate::registry): the game
//! exists, every parameter is one of its own, every value has the right type
//! and range, and the combination is playable (a Leduc deck large enough for
//! its players). A parsed spec is canonical: parameters sorted by name and
//! those equal to their defaults dropped, so `leduc_poker(players=2)` and
//! `leduc_poker` are the same spec, print the same and hash the same. That
//! text is what configs, checkpoints, policy files and the config hash carry.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::capabilities::Capabilities;
use crate::Game;

/// A parameter's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A word (`reset-face`).
    Str(String),
    /// A list of integers, written space-separated as OpenSpiel writes
    /// them (`blind=100 50`).
    Ints(Vec<i64>),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Bool(v) => write!(f, "{v}"),
            ParamValue::Str(v) => f.write_str(v),
            ParamValue::Ints(values) => {
                let words: Vec<String> = values.iter().map(i64::to_string).collect();
                f.write_str(&words.join(" "))
            }
        }
    }
}

/// Why a spec cannot be used; every message names what is wrong and what
/// is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Not of the form `name` or `name(key=value,...)`.
    #[error("malformed game spec {spec:?}: expected NAME or NAME(key=value,...), e.g. leduc_poker(players=3)")]
    Malformed {
        /// The text.
        spec: String,
    },
    /// No such game.
    #[error("unknown game `{name}`: the games are {known}")]
    UnknownGame {
        /// The name given.
        name: String,
        /// The games there are.
        known: String,
    },
    /// No such parameter.
    #[error("{game} has no parameter `{param}`: its parameters are {allowed}")]
    UnknownParam {
        /// The game.
        game: &'static str,
        /// The parameter given.
        param: String,
        /// The game's parameters.
        allowed: String,
    },
    /// A parameter given twice.
    #[error("{game}: parameter `{param}` is given twice")]
    Duplicate {
        /// The game.
        game: &'static str,
        /// The parameter.
        param: String,
    },
    /// A value of the wrong type or out of range.
    #[error("{game}: {param} = {value} is not allowed: {expected}")]
    BadValue {
        /// The game.
        game: &'static str,
        /// The parameter.
        param: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        expected: String,
    },
    /// Values that are each fine but do not make a game together.
    #[error("{game}: {message}")]
    Inconsistent {
        /// The game.
        game: &'static str,
        /// What does not fit.
        message: String,
    },
}

/// The parameters given in a spec, by name.
pub type Given = BTreeMap<&'static str, ParamValue>;

/// What values a parameter takes.
#[derive(Clone, Debug)]
pub enum ParamDomain {
    /// An integer in `min..=max`.
    Int {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// Two or more space-separated integers, each in `min..=max`. One
    /// number alone is refused as OpenSpiel refuses it (it reads `1` as an
    /// integer, not a list).
    Ints {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// A parameter OpenSpiel has whose other values this project does not
    /// implement: only OpenSpiel's default is accepted.
    DefaultOnly(ParamValue),
}

/// One parameter of a game, as the game declares it.
pub struct ParamInfo {
    /// Its name in a spec.
    pub name: &'static str,
    /// What it means.
    pub help: &'static str,
    /// Its values.
    pub domain: ParamDomain,
    /// Its default, given the parameters set explicitly.
    pub default: fn(&Given) -> ParamValue,
    /// The default, in words (for help texts).
    pub default_text: &'static str,
    /// Whether OpenSpiel has this parameter.
    pub in_openspiel: bool,
}

/// A game's declaration: what the registry lists and a spec points to.
pub struct GameInfo {
    /// OpenSpiel's short name.
    pub name: &'static str,
    /// What the game is.
    pub description: &'static str,
    /// Its parameters, in the order help texts list them.
    pub params: &'static [ParamInfo],
    /// Checks that the parameters make a playable game together.
    pub check: fn(&GameSpec) -> Result<(), Unplayable>,
    /// Builds the game.
    pub build: fn(&GameSpec) -> Arc<dyn Game>,
    /// What the game of a spec is beyond its rules.
    pub capabilities: fn(&GameSpec) -> Capabilities,
    /// Parameters that only say how deals follow one another (Daihinmin's
    /// matches and series): a policy trained under any values of them
    /// plays under any others.
    pub match_params: &'static [&'static str],
}

/// Why parameters that are each fine do not make a game together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unplayable(pub String);

/// A default that is the integer `V` whatever else is given.
pub fn int_default<const V: i64>(_: &Given) -> ParamValue {
    ParamValue::Int(V)
}

/// A default that is the boolean `V` whatever else is given.
pub fn bool_default<const V: bool>(_: &Given) -> ParamValue {
    ParamValue::Bool(V)
}

/// A game whose parameters are each playable in any combination.
pub fn always_playable(_: &GameSpec) -> Result<(), Unplayable> {
    Ok(())
}

/// A registered game with validated parameters, in canonical form.
#[derive(Clone)]
pub struct GameSpec {
    info: &'static GameInfo,
    /// Parameters that differ from their defaults.
    given: Given,
}

impl GameSpec {
    /// The game's short name (`leduc_poker`).
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// The value of parameter `name`: the one given or its default.
    ///
    /// # Panics
    /// If the game has no such parameter (a programming error: games read
    /// only their own parameters).
    pub fn value(&self, name: &str) -> ParamValue {
        let param = self
            .info
            .params
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{} has no parameter {name}", self.info.name));
        match self.given.get(param.name) {
            Some(value) => value.clone(),
            None => (param.default)(&self.given),
        }
    }

    /// An integer parameter's value.
    pub fn int(&self, name: &str) -> i64 {
        match self.value(name) {
            ParamValue::Int(v) => v,
            other => panic!(
                "{} parameter {name} is {other}, not an integer",
                self.info.name
            ),
        }
    }

    /// A list parameter's values.
    pub fn ints(&self, name: &str) -> Vec<i64> {
        match self.value(name) {
            ParamValue::Ints(v) => v,
            other => panic!("{} parameter {name} is {other}, not a list", self.info.name),
        }
    }

    /// A word parameter's value.
    pub fn word(&self, name: &str) -> String {
        match self.value(name) {
            ParamValue::Str(v) => v,
            other => panic!("{} parameter {name} is {other}, not a word", self.info.name),
        }
    }

    /// Whether a policy trained on this game plays `other`: the same game
    /// with the same parameters, but for those that only say how deals
    /// follow one another ([`GameInfo::match_params`]).
    pub fn plays_as(&self, other: &GameSpec) -> bool {
        let deal_params = |spec: &GameSpec| {
            let mut given = spec.given.clone();
            given.retain(|name, _| !spec.info.match_params.contains(name));
            given
        };
        self.info.name == other.info.name && deal_params(self) == deal_params(other)
    }

    /// Whether OpenSpiel can load this spec (it sets no parameter of this
    /// project's own, such as Leduc's `ranks`).
    pub fn is_openspiel(&self) -> bool {
        self.given.keys().all(|name| {
            self.info
                .params
                .iter()
                .any(|p| p.name == *name && p.in_openspiel)
        })
    }

    /// The game itself.
    pub fn load(&self) -> Arc<dyn Game> {
        (self.info.build)(self)
    }

    /// What this spec's game declares of itself.
    pub fn capabilities(&self) -> Capabilities {
        (self.info.capabilities)(self)
    }

    /// Parses `text` and checks it against the declaration of its game,
    /// which `find` looks up by name (`known` lists the names for errors).
    pub(crate) fn parse_with(
        text: &str,
        find: impl Fn(&str) -> Option<&'static GameInfo>,
        known: &str,
    ) -> Result<GameSpec, SpecError> {
        let malformed = || SpecError::Malformed {
            spec: text.to_string(),
        };
        let text = text.trim();
        let (name, args) = match text.split_once('(') {
            None => (text, None),
            Some((name, rest)) => (name, Some(rest.strip_suffix(')').ok_or_else(malformed)?)),
        };
        let valid_word = |w: &str| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if !valid_word(name) {
            return Err(malformed());
        }
        let info = find(name).ok_or_else(|| SpecError::UnknownGame {
            name: name.to_string(),
            known: known.to_string(),
        })?;
        let mut given = BTreeMap::new();
        for pair in args.into_iter().flat_map(|a| a.split(',')).map(str::trim) {
            if pair.is_empty() && args.is_some_and(|a| a.trim().is_empty()) {
                continue;
            }
            let (key, value) = pair.split_once('=').ok_or_else(malformed)?;
            let (key, value) = (key.trim(), value.trim());
            if !valid_word(key) {
                return Err(malformed());
            }
            let param = info.params.iter().find(|p| p.name == key).ok_or_else(|| {
                SpecError::UnknownParam {
                    game: info.name,
                    param: key.to_string(),
                    allowed: info
                        .params
                        .iter()
                        .map(|p| p.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            })?;
            let is_list = matches!(param.domain, ParamDomain::Ints { .. });
            let is_list_text = value
                .split_whitespace()
                .all(|w| w.chars().all(|c| c.is_ascii_digit() || c == '-'));
            if !(valid_word(value) || is_list && is_list_text) {
                return Err(malformed());
            }
            let value = param.domain.parse(info.name, param.name, value)?;
            if given.insert(param.name, value).is_some() {
                return Err(SpecError::Duplicate {
                    game: info.name,
                    param: key.to_string(),
                });
            }
        }
        // Canonical form: a parameter equal to its default is not given.
        // Defaults may depend on other parameters (Leduc's ranks on its
        // players), so compare against defaults computed from the others.
        let explicit = given.clone();
        given.retain(|name, value| {
            let param = info.params.iter().find(|p| p.name == *name).expect("known");
            (param.default)(&explicit) != *value
        });
        let spec = GameSpec { info, given };
        (info.check)(&spec).map_err(|why| SpecError::Inconsistent {
            game: info.name,
            message: why.0,
        })?;
        Ok(spec)
    }
}

impl ParamDomain {
    fn parse(
        &self,
        game: &'static str,
        param: &'static str,
        text: &str,
    ) -> Result<ParamValue, SpecError> {
        let bad = |expected: String| SpecError::BadValue {
            game,
            param,
            value: text.to_string(),
            expected,
        };
        match self {
            ParamDomain::Int { min, max } => match text.parse::<i64>() {
                Ok(v) if (*min..=*max).contains(&v) => Ok(ParamValue::Int(v)),
                _ => Err(bad(format!("an integer from {min} to {max}"))),
            },
            ParamDomain::Choice(words) => match words.iter().find(|w| **w == text) {
                Some(w) => Ok(ParamValue::Str(w.to_string())),
                None => Err(bad(format!("one of {}", words.join(", ")))),
            },
            ParamDomain::Ints { min, max } => {
                let expected = || {
                    format!(
                        "two or more space-separated integers from {min} to {max} \
                         (OpenSpiel reads one number alone as an integer and refuses it: \
                         repeat it, e.g. `{param}=1 1`; only the values the game needs are used)"
                    )
                };
                let values: Option<Vec<i64>> = text
                    .split_whitespace()
                    .map(|w| w.parse::<i64>().ok().filter(|v| (*min..=*max).contains(v)))
                    .collect();
                match values {
                    Some(values) if values.len() >= 2 => Ok(ParamValue::Ints(values)),
                    _ => Err(bad(expected())),
                }
            }
            ParamDomain::DefaultOnly(default) => {
                let parsed = match default {
                    ParamValue::Bool(_) => text.parse::<bool>().ok().map(ParamValue::Bool),
                    ParamValue::Int(_) => text.parse::<i64>().ok().map(ParamValue::Int),
                    ParamValue::Str(_) => Some(ParamValue::Str(text.to_string())),
                    ParamValue::Ints(_) => None,
                };
                match parsed {
                    Some(v) if v == *default => Ok(v),
                    _ => Err(bad(format!(
                        "only OpenSpiel's default {default} is supported here"
                    ))),
                }
            }
        }
    }
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info.name)?;
        if !self.given.is_empty() {
            let args: Vec<String> = self.given.iter().map(|(k, v)| format!("{k}={v}")).collect();
            write!(f, "({})", args.join(","))?;
        }
        Ok(())
    }
}

impl fmt::Debug for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GameSpec({self})")
    }
}

impl PartialEq for GameSpec {
    fn eq(&self, other: &Self) -> bool {
        self.info.name == other.info.name && self.given == other.given
    }
}

impl Eq for GameSpec {}

impl std::hash::Hash for GameSpec {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.info.name.hash(state);
        self.given.hash(state);
    }
}

impl Serialize for GameSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> GameSpec {
        GameSpec::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn error(text: &str) -> String {
        GameSpec::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn specs_are_canonical_sorted_and_without_defaults() {
        assert_eq!(spec("leduc_poker").to_string(), "leduc_poker");
        assert_eq!(spec("leduc_poker()").to_string(), "leduc_poker");
        assert_eq!(spec("leduc_poker(players=2)").to_string(), "leduc_poker");
        assert_eq!(spec("leduc_poker(players=2)"), spec("leduc_poker"));
        assert_eq!(
            spec("liars_dice(numdice=2,dice_sides=4)").to_string(),
            "liars_dice(dice_sides=4,numdice=2)"
        );
        assert_eq!(
            spec(" kuhn_poker( players = 3 ) ").to_string(),
            "kuhn_poker(players=3)"
        );
        // Leduc's ranks default to players + 1.
        assert_eq!(
            spec("leduc_poker(players=3,ranks=4)").to_string(),
            "leduc_poker(players=3)"
        );
        assert_eq!(
            spec("leduc_poker(ranks=7,players=3)").to_string(),
            "leduc_poker(players=3,ranks=7)"
        );
        let seven = spec("leduc_poker(players=4,ranks=7)");
        assert_eq!((seven.int("players"), seven.int("ranks")), (4, 7));
        assert_eq!(spec("leduc_poker(players=5)").int("ranks"), 6);
        assert_eq!(spec("liars_dice").word("bidding_rule"), "reset-face");
    }

    #[test]
    fn bad_specs_are_refused_naming_what_is_wrong_and_what_is_allowed() {
        for (text, expected) in [
            ("go", "unknown game `go`: the games are kuhn_poker, leduc_poker, liars_dice"),
            ("leduc_poker(foo=1)", "leduc_poker has no parameter `foo`: its parameters are players, ranks, starting_player, action_mapping, suit_isomorphism"),
            ("leduc_poker(players=11)", "leduc_poker: players = 11 is not allowed: an integer from 2 to 10"),
            ("kuhn_poker(players=1)", "kuhn_poker: players = 1 is not allowed: an integer from 2 to 10"),
            ("kuhn_poker(players=three)", "an integer from 2 to 10"),
            ("liars_dice(players=3)", "liars_dice: players = 3 is not allowed: an integer from 2 to 2"),
            ("liars_dice(bidding_rule=reset-dice)", "one of reset-face, reset-quantity"),
            ("leduc_poker(suit_isomorphism=true)", "only OpenSpiel's default false is supported here"),
            ("leduc_poker(players=5,ranks=2)", "leduc_poker: 2 ranks of 2 suits are 4 cards, too few for 5 players and a public card"),
            ("leduc_poker(players=3,players=4)", "parameter `players` is given twice"),
            ("leduc_poker(players=3", "malformed game spec"),
            ("leduc_poker(players)", "malformed game spec"),
            ("", "malformed game spec"),
        ] {
            let message = error(text);
            assert!(message.contains(expected), "{text}: {message}");
        }
    }

    #[test]
    fn specs_round_trip_through_serde_as_text() {
        let original = spec("leduc_poker(players=3,ranks=7)");
        let json = serde_json::to_string(&original).unwrap();
        assert_eq!(json, "\"leduc_poker(players=3,ranks=7)\"");
        let back: GameSpec = serde_json::from_str(&json).unwrap();
        assert_eq!(back, original);
        let bad = serde_json::from_str::<GameSpec>("\"chess\"").unwrap_err();
        assert!(bad.to_string().contains("unknown game `chess`"), "{bad}");
    }
}
