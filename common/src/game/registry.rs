//! Every game the project plays, named once: its OpenSpiel short name, what
//! it is, its parameters with their types, ranges and defaults, and how to
//! build it. Spec parsing, error messages, `--help` texts and the README's
//! list of games all come from here.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::spec::{GameSpec, ParamValue};
use super::{Game, KuhnPoker, LeducPoker, LiarsDice};

/// What values a parameter takes.
#[derive(Clone, Debug)]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Int {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A parameter OpenSpiel has whose other values this project does not
    /// implement: only OpenSpiel's default is accepted.
    DefaultOnly(ParamValue),
}

/// One parameter of a game.
pub struct ParamInfo {
    /// Its name in a spec.
    pub name: &'static str,
    /// What it means.
    pub help: &'static str,
    /// Its values.
    pub kind: ParamKind,
    /// Its default, given the parameters set explicitly.
    pub default: fn(&BTreeMap<&'static str, ParamValue>) -> ParamValue,
    /// The default, in words (for help texts).
    pub default_text: &'static str,
    /// Whether OpenSpiel has this parameter.
    pub in_openspiel: bool,
}

/// One registered game.
pub struct GameInfo {
    /// OpenSpiel's short name.
    pub name: &'static str,
    /// What the game is.
    pub description: &'static str,
    /// Its parameters, in the order help texts list them.
    pub params: &'static [ParamInfo],
    /// Checks that the parameters make a playable game together.
    pub check: fn(&GameSpec) -> Result<(), String>,
    /// Builds the game.
    pub build: fn(&GameSpec) -> Arc<dyn Game>,
}

fn players_default(_: &BTreeMap<&'static str, ParamValue>) -> ParamValue {
    ParamValue::Int(2)
}

fn zero(_: &BTreeMap<&'static str, ParamValue>) -> ParamValue {
    ParamValue::Int(0)
}

fn one(_: &BTreeMap<&'static str, ParamValue>) -> ParamValue {
    ParamValue::Int(1)
}

fn six(_: &BTreeMap<&'static str, ParamValue>) -> ParamValue {
    ParamValue::Int(6)
}

fn no(_: &BTreeMap<&'static str, ParamValue>) -> ParamValue {
    ParamValue::Bool(false)
}

fn reset_face(_: &BTreeMap<&'static str, ParamValue>) -> ParamValue {
    ParamValue::Str("reset-face".into())
}

/// Leduc's default deck: one rank more than there are players (OpenSpiel's
/// 2·(players + 1) cards).
fn ranks_default(given: &BTreeMap<&'static str, ParamValue>) -> ParamValue {
    match given.get("players") {
        Some(ParamValue::Int(players)) => ParamValue::Int(players + 1),
        _ => ParamValue::Int(3),
    }
}

const PLAYERS: ParamInfo = ParamInfo {
    name: "players",
    help: "number of players",
    kind: ParamKind::Int { min: 2, max: 10 },
    default: players_default,
    default_text: "2",
    in_openspiel: true,
};

static KUHN_PARAMS: [ParamInfo; 1] = [PLAYERS];

static LEDUC_PARAMS: [ParamInfo; 5] = [
    PLAYERS,
    ParamInfo {
        name: "ranks",
        help: "card ranks, each in two suits (not an OpenSpiel parameter; seed 002 plays 7)",
        kind: ParamKind::Int { min: 2, max: 13 },
        default: ranks_default,
        default_text: "players + 1, OpenSpiel's deck",
        in_openspiel: false,
    },
    ParamInfo {
        name: "starting_player",
        help: "the player who bets first in each round",
        kind: ParamKind::Int { min: 0, max: 9 },
        default: zero,
        default_text: "0",
        in_openspiel: true,
    },
    ParamInfo {
        name: "action_mapping",
        help: "OpenSpiel's mapping of illegal actions to calls",
        kind: ParamKind::DefaultOnly(ParamValue::Bool(false)),
        default: no,
        default_text: "false",
        in_openspiel: true,
    },
    ParamInfo {
        name: "suit_isomorphism",
        help: "OpenSpiel's merging of suits",
        kind: ParamKind::DefaultOnly(ParamValue::Bool(false)),
        default: no,
        default_text: "false",
        in_openspiel: true,
    },
];

static LIARS_DICE_PARAMS: [ParamInfo; 4] = [
    ParamInfo {
        name: "players",
        help: "number of players (OpenSpiel allows only 2)",
        kind: ParamKind::Int { min: 2, max: 2 },
        default: players_default,
        default_text: "2",
        in_openspiel: true,
    },
    ParamInfo {
        name: "numdice",
        help: "dice per player",
        kind: ParamKind::Int { min: 1, max: 4 },
        default: one,
        default_text: "1",
        in_openspiel: true,
    },
    ParamInfo {
        name: "dice_sides",
        help: "sides of each die (the highest face is wild)",
        kind: ParamKind::Int { min: 2, max: 8 },
        default: six,
        default_text: "6",
        in_openspiel: true,
    },
    ParamInfo {
        name: "bidding_rule",
        help: "bid order: reset-face (quantity, then face) or reset-quantity (face, then quantity)",
        kind: ParamKind::Choice(&["reset-face", "reset-quantity"]),
        default: reset_face,
        default_text: "reset-face",
        in_openspiel: true,
    },
];

fn always_playable(_: &GameSpec) -> Result<(), String> {
    Ok(())
}

fn leduc_playable(spec: &GameSpec) -> Result<(), String> {
    let (players, ranks) = (spec.int("players"), spec.int("ranks"));
    if 2 * ranks < players + 1 {
        return Err(format!(
            "{ranks} ranks of 2 suits are {} cards, too few for {players} players and a public card",
            2 * ranks
        ));
    }
    let starting = spec.int("starting_player");
    if starting >= players {
        return Err(format!(
            "starting_player = {starting} is not a player (0 to {})",
            players - 1
        ));
    }
    Ok(())
}

fn build_kuhn(spec: &GameSpec) -> Arc<dyn Game> {
    Arc::new(KuhnPoker::new(spec.clone()))
}

fn build_leduc(spec: &GameSpec) -> Arc<dyn Game> {
    Arc::new(LeducPoker::new(spec.clone()))
}

fn build_liars_dice(spec: &GameSpec) -> Arc<dyn Game> {
    Arc::new(LiarsDice::new(spec.clone()))
}

/// Every game, in the order help texts list them.
pub static GAMES: [GameInfo; 3] = [
    GameInfo {
        name: "kuhn_poker",
        description: "Kuhn poker: players + 1 cards, one each, one betting round",
        params: &KUHN_PARAMS,
        check: always_playable,
        build: build_kuhn,
    },
    GameInfo {
        name: "leduc_poker",
        description:
            "Leduc hold'em: ranks x 2 suits, one private and one public card, two betting rounds",
        params: &LEDUC_PARAMS,
        check: leduc_playable,
        build: build_leduc,
    },
    GameInfo {
        name: "liars_dice",
        description: "Liar's Dice: bid on the dice of all players; the highest face is wild",
        params: &LIARS_DICE_PARAMS,
        check: always_playable,
        build: build_liars_dice,
    },
];

/// The game called `name`.
pub fn find(name: &str) -> Option<&'static GameInfo> {
    GAMES.iter().find(|g| g.name == name)
}

/// Every game's name.
pub fn names() -> Vec<&'static str> {
    GAMES.iter().map(|g| g.name).collect()
}

/// Every game and its parameters, for help texts and the README.
pub fn help() -> String {
    let mut text = String::new();
    for game in &GAMES {
        text.push_str(&format!("{}: {}\n", game.name, game.description));
        for p in game.params {
            let values = match &p.kind {
                ParamKind::Int { min, max } => format!("{min}..={max}"),
                ParamKind::Choice(words) => words.join("|"),
                ParamKind::DefaultOnly(v) => format!("only {v} here"),
            };
            text.push_str(&format!(
                "  {}: {} ({values}; default {})\n",
                p.name, p.help, p.default_text
            ));
        }
    }
    text
}
