//! `universal_poker`'s parameters as OpenSpiel 2.0.2 declares them, the
//! checks its ACPC game-definition parser makes (in its order, with its
//! reasons), and the rules a checked spec describes.

use crate::capabilities::{Capabilities, Units};
use crate::spec::{int_default, GameInfo, ParamDomain, ParamInfo, ParamValue, Unplayable};
use crate::GameSpec;

use super::ranking::HandEvaluator;
use super::UniversalPoker;

/// Seed 004's heads-up no-limit hold'em: 50 big blinds a player (blinds
/// 100/50, stacks 5000), four rounds, the small blind (seat 2) first before
/// the flop and seat 1 first after it, fold/call/half-pot/pot/all-in.
pub const HEADS_UP_NO_LIMIT: &str = "universal_poker(betting=nolimit,numPlayers=2,numRounds=4,\
blind=100 50,firstPlayer=2 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,numBoardCards=0 3 1 1,\
stack=5000 5000,bettingAbstraction=fchpa)";

/// Most players, rounds and board cards ACPC's engine holds.
pub(crate) const MAX_PLAYERS: usize = 10;
pub(crate) const MAX_ROUNDS: usize = 4;
pub(crate) const MAX_BOARD_CARDS: usize = 7;
/// ACPC's stack when a game sets none (every limit game): `INT32_MAX`.
const UNLIMITED_STACK: i64 = i32::MAX as i64;
/// ACPC's cap on raises in a round when `maxRaises` is not set.
const UNLIMITED_RAISES: i64 = 255;
const CHIPS: i64 = i32::MAX as i64;

/// How the players' bets are offered to them as actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abstraction {
    /// Fold and check/call only.
    Fc,
    /// Fold, check/call, a pot-sized bet and all-in.
    Fcpa,
    /// `Fcpa` and a half-pot bet.
    Fchpa,
    /// Every raise size: action `n` raises to `n` chips in all.
    FullGame,
}

/// `universal_poker`'s declaration in the registry.
pub(crate) static INFO: GameInfo = GameInfo {
    name: "universal_poker",
    description: "poker from an ACPC game definition (hold'em, limit or no-limit, 2-10 players), \
                  as OpenSpiel plays it; `holdem` is seed 004's heads-up no-limit game",
    params: &[
        ParamInfo {
            name: "betting",
            help: "limit (fixed raises) or nolimit (raises up to the stack)",
            domain: ParamDomain::Choice(&["nolimit", "limit"]),
            default: |_| ParamValue::Str("nolimit".into()),
            default_text: "nolimit",
            in_openspiel: true,
        },
        ParamInfo {
            name: "numPlayers",
            help: "number of players",
            domain: ParamDomain::Int { min: 2, max: 10 },
            default: int_default::<2>,
            default_text: "2",
            in_openspiel: true,
        },
        ParamInfo {
            name: "numRounds",
            help: "betting rounds",
            domain: ParamDomain::Int { min: 1, max: 4 },
            default: int_default::<2>,
            default_text: "2",
            in_openspiel: true,
        },
        ParamInfo {
            name: "blind",
            help: "each seat's forced bet, seat 1 first",
            domain: ParamDomain::Ints { min: 0, max: CHIPS },
            default: |_| ParamValue::Ints(vec![100, 100]),
            default_text: "100 100",
            in_openspiel: true,
        },
        ParamInfo {
            name: "raiseSize",
            help: "each round's fixed raise (limit betting)",
            domain: ParamDomain::Ints { min: 0, max: CHIPS },
            default: |_| ParamValue::Ints(vec![100, 100]),
            default_text: "100 100",
            in_openspiel: true,
        },
        ParamInfo {
            name: "firstPlayer",
            help: "each round's first seat to act, counted from 1",
            domain: ParamDomain::Ints { min: 1, max: 10 },
            default: |_| ParamValue::Ints(vec![1, 1]),
            default_text: "1 1",
            in_openspiel: true,
        },
        ParamInfo {
            name: "maxRaises",
            help: "each round's most raises",
            domain: ParamDomain::Ints {
                min: 0,
                max: UNLIMITED_RAISES,
            },
            default: |_| ParamValue::Ints(Vec::new()),
            default_text: "none (255 a round)",
            in_openspiel: true,
        },
        ParamInfo {
            name: "numSuits",
            help: "suits in the deck (c, d, h, s in that order)",
            domain: ParamDomain::Int { min: 1, max: 4 },
            default: int_default::<4>,
            default_text: "4",
            in_openspiel: true,
        },
        ParamInfo {
            name: "numRanks",
            help: "ranks in the deck, from the deuce up",
            domain: ParamDomain::Int { min: 1, max: 13 },
            default: int_default::<6>,
            default_text: "6",
            in_openspiel: true,
        },
        ParamInfo {
            name: "numHoleCards",
            help: "private cards a player",
            domain: ParamDomain::Int { min: 1, max: 3 },
            default: int_default::<1>,
            default_text: "1",
            in_openspiel: true,
        },
        ParamInfo {
            name: "numBoardCards",
            help: "public cards each round reveals",
            domain: ParamDomain::Ints { min: 0, max: 7 },
            default: |_| ParamValue::Ints(vec![0, 1]),
            default_text: "0 1",
            in_openspiel: true,
        },
        ParamInfo {
            name: "stack",
            help: "each seat's chips (no-limit betting; limit stacks are unbounded)",
            domain: ParamDomain::Ints { min: 1, max: CHIPS },
            default: |_| ParamValue::Ints(vec![1200, 1200]),
            default_text: "1200 1200",
            in_openspiel: true,
        },
        ParamInfo {
            name: "bettingAbstraction",
            help: "the actions offered: fc, fcpa (pot and all-in), fchpa (and half-pot), \
                   fullgame (every raise-to amount)",
            domain: ParamDomain::Choice(&["fcpa", "fc", "fchpa", "fullgame"]),
            default: |_| ParamValue::Str("fcpa".into()),
            default_text: "fcpa",
            in_openspiel: true,
        },
        ParamInfo {
            name: "calcOddsNumSims",
            help: "OpenSpiel's Monte-Carlo odds in its struct observation",
            domain: ParamDomain::DefaultOnly(ParamValue::Int(0)),
            default: int_default::<0>,
            default_text: "0",
            in_openspiel: true,
        },
        ParamInfo {
            name: "potSize",
            help: "OpenSpiel's subgame starting pot",
            domain: ParamDomain::DefaultOnly(ParamValue::Int(0)),
            default: int_default::<0>,
            default_text: "0",
            in_openspiel: true,
        },
    ],
    check: playable,
    build: |spec| std::sync::Arc::new(UniversalPoker::new(spec.clone())),
    capabilities: |spec| Capabilities {
        units: Units::Chips {
            big_blind: spec.ints("blind").into_iter().max().unwrap_or(1) as f64,
        },
        poker_baselines: true,
        local_best_response: spec.int("numPlayers") == 2,
        acpc_logs: true,
        ..Capabilities::NONE
    },
    match_params: &[],
};

/// ACPC's checks of a game definition, in its order, then what OpenSpiel
/// cannot play.
fn playable(spec: &GameSpec) -> Result<(), Unplayable> {
    let refuse = |why: String| Err(Unplayable(why));
    let players = spec.int("numPlayers") as usize;
    let rounds = spec.int("numRounds") as usize;
    let limit = spec.word("betting") == "limit";
    let stacks = spec.ints("stack");
    let blinds = spec.ints("blind");
    if limit && players > 4 {
        return refuse(format!(
            "limit betting with {players} players: ACPC sets no stacks for limit games and \
             holds unbounded stacks for 4 seats only (OpenSpiel crashes)"
        ));
    }
    if !limit && stacks.len() < players {
        return refuse(format!(
            "stack = {} gives {} stacks for {players} players",
            spec.value("stack"),
            stacks.len()
        ));
    }
    if blinds.len() < players {
        return refuse(format!(
            "blind = {} gives {} blinds for {players} players",
            spec.value("blind"),
            blinds.len()
        ));
    }
    if blinds.iter().take(players).all(|&b| b == 0) {
        return refuse("blind: must have a blind of at least one chip".into());
    }
    if !limit {
        for p in 0..players {
            if blinds[p] > stacks[p] {
                return refuse(format!(
                    "the blind of seat {} ({}) is greater than its stack ({})",
                    p + 1,
                    blinds[p],
                    stacks[p]
                ));
            }
        }
    }
    if limit && spec.ints("raiseSize").len() < rounds {
        return refuse(format!(
            "raiseSize = {} gives {} raise sizes for {rounds} rounds",
            spec.value("raiseSize"),
            spec.ints("raiseSize").len()
        ));
    }
    for (round, &first) in spec.ints("firstPlayer").iter().take(rounds).enumerate() {
        if first as usize > players {
            return refuse(format!(
                "firstPlayer: seat {first} starts round {} but there are {players} seats \
                 (counted from 1)",
                round + 1
            ));
        }
    }
    let board = spec.ints("numBoardCards");
    if board.len() < rounds {
        return refuse(format!(
            "numBoardCards = {} gives board cards for {} rounds, the game has {rounds}",
            spec.value("numBoardCards"),
            board.len()
        ));
    }
    let board_total: i64 = board.iter().take(rounds).sum();
    if board_total as usize > MAX_BOARD_CARDS {
        return refuse(format!(
            "numBoardCards: {board_total} board cards, at most {MAX_BOARD_CARDS}"
        ));
    }
    let deck = spec.int("numSuits") * spec.int("numRanks");
    let dealt = spec.int("numHoleCards") * players as i64 + board_total;
    if dealt > deck {
        return refuse(format!(
            "{dealt} hole and board cards do not fit a deck of {deck} (numSuits x numRanks)"
        ));
    }
    if limit && spec.word("bettingAbstraction") == "fullgame" {
        return refuse(
            "bettingAbstraction = fullgame with limit betting: OpenSpiel 2.0.2 lists no raise \
             there (it offers action 0 twice); use fcpa, whose action 2 is the limit raise"
                .into(),
        );
    }
    Ok(())
}

/// The rules a checked spec describes, in ACPC's terms (0-based seats).
#[derive(Clone, Debug)]
pub(crate) struct Rules {
    pub players: usize,
    pub rounds: usize,
    pub limit: bool,
    pub blinds: [i64; MAX_PLAYERS],
    pub stacks: [i64; MAX_PLAYERS],
    pub raise_sizes: [i64; MAX_ROUNDS],
    pub first_player: [usize; MAX_ROUNDS],
    pub max_raises: [usize; MAX_ROUNDS],
    pub suits: usize,
    pub ranks: usize,
    pub hole_cards: usize,
    pub board_cards: [usize; MAX_ROUNDS],
    pub abstraction: Abstraction,
    pub big_blind: i64,
    pub num_distinct_actions: usize,
    pub max_game_length: usize,
    /// What ranks the showdowns.
    pub evaluator: HandEvaluator,
}

/// `values` into an array, missing entries `missing`.
fn filled<const N: usize, T: Copy>(values: &[i64], missing: T, convert: fn(i64) -> T) -> [T; N] {
    let mut out = [missing; N];
    for (slot, &v) in out.iter_mut().zip(values) {
        *slot = convert(v);
    }
    out
}

impl Rules {
    pub fn from_spec(spec: &GameSpec) -> Rules {
        let players = spec.int("numPlayers") as usize;
        let limit = spec.word("betting") == "limit";
        let blinds = filled(&spec.ints("blind"), 0, |v| v);
        let stacks = if limit {
            [UNLIMITED_STACK; MAX_PLAYERS]
        } else {
            filled(&spec.ints("stack"), 0, |v| v)
        };
        let abstraction = match spec.word("bettingAbstraction").as_str() {
            "fc" => Abstraction::Fc,
            "fcpa" => Abstraction::Fcpa,
            "fchpa" => Abstraction::Fchpa,
            _ => Abstraction::FullGame,
        };
        let stack_param_max = spec.ints("stack").into_iter().max().unwrap_or(0);
        let rounds = spec.int("numRounds") as usize;
        let (suits, ranks) = (spec.int("numSuits") as usize, spec.int("numRanks") as usize);
        let hole_cards = spec.int("numHoleCards") as usize;
        let board_cards = filled(&spec.ints("numBoardCards"), 0, |v| v as usize);
        let showdown_cards = hole_cards + board_cards[..rounds].iter().sum::<usize>();
        let evaluator = HandEvaluator::for_hands(ranks, suits, showdown_cards);
        let mut rules = Rules {
            players,
            rounds,
            limit,
            blinds,
            stacks,
            raise_sizes: filled(&spec.ints("raiseSize"), 0, |v| v),
            first_player: filled(&spec.ints("firstPlayer"), 0, |v| v as usize - 1),
            max_raises: filled(&spec.ints("maxRaises"), UNLIMITED_RAISES as usize, |v| {
                v as usize
            }),
            suits,
            ranks,
            hole_cards,
            board_cards,
            abstraction,
            big_blind: blinds.iter().copied().max().unwrap_or(0),
            num_distinct_actions: match abstraction {
                // OpenSpiel's ids: the stack parameter's largest value
                // (read even where the betting is limit).
                Abstraction::FullGame => stack_param_max as usize + 1,
                Abstraction::Fchpa => 5,
                Abstraction::Fc | Abstraction::Fcpa if limit => 3,
                Abstraction::Fc | Abstraction::Fcpa => 4,
            },
            max_game_length: 0,
            evaluator,
        };
        rules.max_game_length = rules.compute_max_game_length();
        rules
    }

    /// Whether every raise-to amount is an action of its own (no-limit
    /// betting under `fullgame`): the betting whose actions come in
    /// groups (`groups.rs`).
    pub fn every_amount_an_action(&self) -> bool {
        self.abstraction == Abstraction::FullGame && !self.limit
    }

    /// Cards in the deck.
    pub fn deck_size(&self) -> usize {
        self.suits * self.ranks
    }

    /// Board cards dealt by the end of `round`'s dealing.
    pub fn board_cards_by(&self, round: usize) -> usize {
        self.board_cards[..=round].iter().sum()
    }

    /// Board cards in all.
    pub fn total_board_cards(&self) -> usize {
        self.board_cards_by(self.rounds - 1)
    }

    /// OpenSpiel's bound on the length of the action sequence (deals,
    /// actions and one spare), computed as it computes it: in floating
    /// point from the pot each abstraction's raises can reach.
    fn compute_max_game_length(&self) -> usize {
        let n = self.players as f64;
        let mut length = 1
            + self.total_board_cards()
            + self.hole_cards * self.players
            + self.players * self.rounds;
        let max_stack = self.stacks[..self.players]
            .iter()
            .copied()
            .max()
            .unwrap_or(0) as f64;
        let max_blind = self.big_blind as f64;
        let raises = match self.abstraction {
            Abstraction::Fc => 0,
            Abstraction::Fcpa | Abstraction::Fchpa => {
                let growth = if self.abstraction == Abstraction::Fcpa {
                    n
                } else {
                    n / 2.0
                };
                let mut pot = max_blind * n;
                let mut raises = 0;
                while pot / n < max_stack {
                    raises += 1;
                    pot += pot * growth;
                }
                raises
            }
            Abstraction::FullGame => ((max_stack + max_blind - 1.0) / max_blind) as usize,
        };
        length += raises * (self.players - 1);
        length
    }

    /// The most a player can put in: the deepest stack (no-limit), or the
    /// big blind and every allowed raise of every round (limit).
    pub fn max_commitment(&self) -> f64 {
        if self.limit {
            let raises: i64 = (0..self.rounds)
                .map(|r| self.max_raises[r] as i64 * self.raise_sizes[r])
                .sum();
            (self.big_blind + raises) as f64
        } else {
            self.stacks[..self.players]
                .iter()
                .copied()
                .max()
                .unwrap_or(0) as f64
        }
    }

    /// OpenSpiel's utility bounds.
    pub fn utility_range(&self) -> (f64, f64) {
        if self.limit {
            let most = self.max_commitment();
            return (-most, most * (self.players - 1) as f64);
        }
        let mut stacks: Vec<i64> = self.stacks[..self.players].to_vec();
        stacks.sort_unstable();
        let total: i64 = stacks.iter().sum();
        let deepest = stacks[stacks.len() - 1];
        let second = stacks[stacks.len() - 2];
        (-(second as f64), (total - deepest) as f64)
    }
}

#[cfg(test)]
mod tests {
    use crate::GameSpec;

    fn error(text: &str) -> String {
        GameSpec::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn specs_openspiel_would_refuse_or_crash_on_are_refused_with_the_reason() {
        for (text, expected) in [
            (
                "universal_poker(stack=50 1200)",
                "the blind of seat 1 (100) is greater than its stack (50)",
            ),
            (
                "universal_poker(numRounds=3)",
                "numBoardCards = 0 1 gives board cards for 2 rounds, the game has 3",
            ),
            (
                "universal_poker(bettingAbstraction=fcp)",
                "one of fcpa, fc, fchpa, fullgame",
            ),
            (
                "universal_poker(firstPlayer=1)",
                "repeat it, e.g. `firstPlayer=1 1`",
            ),
            (
                "universal_poker(numPlayers=3)",
                "stack = 1200 1200 gives 2 stacks for 3 players",
            ),
            (
                "universal_poker(numPlayers=5,betting=limit,blind=1 1 1 1 1)",
                "holds unbounded stacks for 4 seats only",
            ),
            (
                "universal_poker(betting=limit,bettingAbstraction=fullgame)",
                "OpenSpiel 2.0.2 lists no raise",
            ),
            (
                "universal_poker(firstPlayer=3 1)",
                "seat 3 starts round 1 but there are 2 seats",
            ),
            (
                "universal_poker(numRanks=2,numSuits=1)",
                "3 hole and board cards do not fit a deck of 2",
            ),
            ("universal_poker(blind=0 0)", "at least one chip"),
            (
                "universal_poker(numRounds=4,numBoardCards=2 3 2 1)",
                "8 board cards, at most 7",
            ),
            (
                "universal_poker(betting=limit,numRounds=3,numBoardCards=0 1 1)",
                "raiseSize = 100 100 gives 2 raise sizes for 3 rounds",
            ),
        ] {
            let message = error(text);
            assert!(message.contains(expected), "{text}: {message}");
        }
        let spec = GameSpec::parse("universal_poker(blind=100 100,stack=1200 1200)").unwrap();
        assert_eq!(spec.to_string(), "universal_poker");
    }
}
