//! Daihinmin (大貧民) as the UEC computer Daihinmin competition (UECda)
//! plays it: five players, 52 cards and a joker dealt one at a time, the
//! exchange between the richest and poorest of the previous game, tricks
//! of singles, groups and sequences with revolutions, 8-cuts, suit locks
//! and the joker, and points by the order players go out.
//!
//! A [`Daihinmin`] game is a match of `games` deals (one by default). Its
//! `ranks` parameter gives each seat's rank from the game before (1 the
//! daifugo … n the daihinmin); without it the first deal is a first game:
//! no exchange, dealt from a seat chance picks. Each later deal carries the
//! ranks from the one before (afresh every 100 games, as the official
//! server does), and the seating is drawn anew every 3 games (the first
//! game's is the seats' own order). With `series` = S a game is one
//! episode of S played back to back the same way
//! ([`State::next_episode`]): what self-play trains on, the states a
//! UECda match reaches, each game's points its own returns.
//!
//! Returns are the points (n for first place … 1 for last) less their
//! mean, so that the game is zero-sum; matches report points.

pub(crate) mod cards;
pub(crate) mod plays;
pub(crate) mod state;
mod tensor;

use std::sync::Arc;

pub use cards::{card_text, cards_text, draw, parse_cards, Cards, JOKER};
pub use plays::{catalogue, Catalogue, Kind, Play, PASS};
pub use state::{DaihinminState, PASS_LIMIT, RANK_RESET, SEAT_CHANGE};

use crate::bots::RuleBot;
use crate::capabilities::{Capabilities, Units};
use crate::spec::{int_default, GameInfo, ParamDomain, ParamInfo, ParamValue, Unplayable};
use crate::{Action, Game, GameSpec, Hands, SpecError, State};

/// Daihinmin's declaration in the registry.
pub(crate) static INFO: GameInfo = GameInfo {
    name: "daihinmin",
    description: "Daihinmin (UECda rules): 53 cards, singles, groups and sequences, revolution, 8-cut, lock; points by place",
    params: &[
        ParamInfo {
            name: "players",
            help: "number of players (UECda plays 5)",
            domain: ParamDomain::Int { min: 3, max: 5 },
            default: int_default::<5>,
            default_text: "5",
            in_openspiel: false,
        },
        ParamInfo {
            name: "ranks",
            help: "each seat's rank from the previous game, 1 (daifugo) to players (daihinmin), space-separated: the exchange comes first; none for a first game",
            domain: ParamDomain::Ints { min: 1, max: 5 },
            default: |_| ParamValue::Ints(Vec::new()),
            default_text: "none (a first game)",
            in_openspiel: false,
        },
        ParamInfo {
            name: "games",
            help: "games in one match, each after the first dealt and exchanged by the ranks of the one before (afresh every 100), seats drawn anew every 3 games; returns are the points of all of them",
            domain: ParamDomain::Int { min: 1, max: 1000 },
            default: int_default::<1>,
            default_text: "1",
            in_openspiel: false,
        },
        ParamInfo {
            name: "series",
            help: "games self-play plays back to back as a UECda match, each its own episode: the next dealt and exchanged by the ranks of the one before (afresh every 100), seats drawn anew every 3 games; 1: every episode a first game",
            domain: ParamDomain::Int { min: 1, max: 1000 },
            default: int_default::<1>,
            default_text: "1",
            in_openspiel: false,
        },
    ],
    check,
    build: |spec| Arc::new(Daihinmin::new(spec.clone())),
    capabilities: |spec| Capabilities {
        // Places score players..1 points: their mean is (players + 1) / 2.
        units: Units::Points {
            games: spec.int("games") as usize,
            mean_points: (spec.int("players") + 1) as f64 / 2.0,
        },
        rules: Some(RuleBot::UecdaDefault),
        monte_carlo: true,
        uecda: true,
        ..Capabilities::NONE
    },
    match_params: &["ranks", "games", "series"],
};

fn check(spec: &GameSpec) -> Result<(), Unplayable> {
    let players = spec.int("players") as usize;
    if spec.int("series") > 1 && spec.int("games") > 1 {
        return Err(Unplayable(
            "series and games both above 1: a series plays each game as its own episode, games sums a match into one; give one of them".into(),
        ));
    }
    let ranks = spec.ints("ranks");
    if ranks.is_empty() {
        return Ok(());
    }
    let mut sorted: Vec<i64> = ranks.clone();
    sorted.sort_unstable();
    if sorted != (1..=players as i64).collect::<Vec<_>>() {
        return Err(Unplayable(format!(
            "ranks {ranks:?}: give each of the {players} seats a different rank from 1 to {players}"
        )));
    }
    Ok(())
}

/// What every state of one game shares.
#[derive(Clone, Debug)]
pub struct Rules {
    /// Seats.
    pub players: usize,
    /// Each seat's rank from the previous game (1 = daifugo), if any.
    pub ranks: Option<Vec<usize>>,
    /// Games in the match.
    pub games: usize,
    /// Games in the series self-play plays one after another, each its
    /// own episode.
    pub series: usize,
}

impl Rules {
    /// The first exchange action: giving card `c` is this plus `c`.
    pub fn give_base(&self) -> Action {
        catalogue().actions()
    }
}

/// One game of Daihinmin.
#[derive(Clone, Debug)]
pub struct Daihinmin {
    spec: GameSpec,
    rules: Arc<Rules>,
}

impl Daihinmin {
    /// The spec of one five-player game: a first game where `ranks` is
    /// none, else a game whose seats hold `ranks` (1 = daifugo .. 5 =
    /// daihinmin, seat by seat) from the game before, so that the
    /// exchange comes first.
    pub fn spec_with_ranks(ranks: Option<[i32; 5]>) -> Result<GameSpec, SpecError> {
        match ranks {
            None => INFO.name.parse(),
            Some(ranks) => {
                let list: Vec<String> = ranks.iter().map(i32::to_string).collect();
                format!("{}(ranks={})", INFO.name, list.join(" ")).parse()
            }
        }
    }

    /// Where `spec` is Daihinmin, the spec of a match of `games` games at
    /// its number of players (from a first game; what a panel plays to
    /// judge a player in the setting a series trains in).
    pub fn match_spec(spec: &GameSpec, games: usize) -> Option<Result<GameSpec, SpecError>> {
        (spec.name() == INFO.name).then(|| {
            format!(
                "{}(players={},games={games})",
                INFO.name,
                spec.int("players")
            )
            .parse()
        })
    }

    /// The game `spec` describes (a checked `daihinmin` spec).
    pub fn new(spec: GameSpec) -> Daihinmin {
        let ranks = spec.ints("ranks");
        let rules = Rules {
            players: spec.int("players") as usize,
            ranks: (!ranks.is_empty()).then(|| ranks.iter().map(|&r| r as usize).collect()),
            games: spec.int("games") as usize,
            series: spec.int("series") as usize,
        };
        Daihinmin {
            spec,
            rules: Arc::new(rules),
        }
    }

    /// Its rules.
    pub fn rules(&self) -> Arc<Rules> {
        self.rules.clone()
    }

    /// A fresh deal's state, concretely typed.
    pub fn initial_state(&self) -> DaihinminState {
        DaihinminState::new(self.rules.clone())
    }
}

impl Game for Daihinmin {
    fn spec(&self) -> &GameSpec {
        &self.spec
    }
    fn num_players(&self) -> usize {
        self.rules.players
    }
    fn num_distinct_actions(&self) -> usize {
        // Every play, then a gift of each card in the exchange.
        catalogue().actions() + cards::JOKER_INDEX + 1
    }
    fn information_state_tensor_size(&self) -> usize {
        tensor::size(self.rules.players)
    }
    fn max_game_length(&self) -> usize {
        // A game: every play takes a card, between two plays fewer than
        // PASS_LIMIT passes, three gifts.
        ((cards::JOKER_INDEX + 1) * PASS_LIMIT + 3) * self.rules.games
    }
    fn utility_range(&self) -> (f64, f64) {
        let half = (self.rules.players - 1) as f64 / 2.0 * self.rules.games as f64;
        (-half, half)
    }
    fn is_zero_sum(&self) -> bool {
        true
    }
    fn hands(&self) -> Option<Hands> {
        None
    }
    fn deal(&self, hands: &[usize]) -> Vec<Action> {
        // Never asked: without enumerable hands there is no public tree.
        hands.to_vec()
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(self.initial_state())
    }
}
