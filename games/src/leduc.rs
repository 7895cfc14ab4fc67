//! Leduc hold'em, as OpenSpiel's `leduc_poker(players=N)` plays it, with a
//! `ranks` parameter beyond OpenSpiel's (default N + 1, its deck).
//!
//! `2·ranks` cards: ids `0..2·ranks`, rank `id / 2`, two suits. Every player
//! antes 1 and gets one private card; a betting round (raises of 2)
//! follows, then a public card and a second betting round (raises of 4); at
//! most two raises per round; `starting_player` acts first in each round
//! (or the next player still in). Action ids: 0 fold, 1 call/check, 2
//! raise/bet; fold only when facing a bet. A pair with the public card beats
//! any unpaired hand; otherwise the higher card wins and equal ranks split
//! the pot.
//!
//! The state keeps OpenSpiel's bookkeeping (stakes, calls and raises in the
//! round, the acting player as OpenSpiel stores it) so that the
//! information-state string comes out byte-identical.

use std::sync::Arc;

use crate::bots::RuleBot;
use crate::capabilities::{Capabilities, Units};
use crate::spec::{
    bool_default, int_default, GameInfo, Given, ParamDomain, ParamInfo, ParamValue, Unplayable,
};
use crate::{Action, Game, GameSpec, Hands, Payoff, State, Turn};

const FOLD: Action = 0;
const CALL: Action = 1;
const RAISE: Action = 2;
const ANTE: i32 = 1;
const STARTING_MONEY: i32 = 100;
const MAX_RAISES: u8 = 2;
const FIRST_RAISE: i32 = 2;
const SECOND_RAISE: i32 = 4;
/// OpenSpiel's `kInvalidCard`, printed for a card not dealt yet.
const INVALID_CARD: i32 = -10000;
/// OpenSpiel's id for the chance player, as printed in `[Player: …]`.
const CHANCE_PLAYER: i32 = -1;

/// Leduc hold'em's declaration in the registry.
pub(crate) static INFO: GameInfo = GameInfo {
    name: "leduc_poker",
    description:
        "Leduc hold'em: ranks x 2 suits, one private and one public card, two betting rounds",
    params: &[
        ParamInfo {
            name: "players",
            help: "number of players",
            domain: ParamDomain::Int { min: 2, max: 10 },
            default: int_default::<2>,
            default_text: "2",
            in_openspiel: true,
        },
        ParamInfo {
            name: "ranks",
            help: "card ranks, each in two suits (not an OpenSpiel parameter; seed 002 plays 7)",
            domain: ParamDomain::Int { min: 2, max: 13 },
            default: ranks_default,
            default_text: "players + 1, OpenSpiel's deck",
            in_openspiel: false,
        },
        ParamInfo {
            name: "starting_player",
            help: "the player who bets first in each round",
            domain: ParamDomain::Int { min: 0, max: 9 },
            default: int_default::<0>,
            default_text: "0",
            in_openspiel: true,
        },
        ParamInfo {
            name: "action_mapping",
            help: "OpenSpiel's mapping of illegal actions to calls",
            domain: ParamDomain::DefaultOnly(ParamValue::Bool(false)),
            default: bool_default::<false>,
            default_text: "false",
            in_openspiel: true,
        },
        ParamInfo {
            name: "suit_isomorphism",
            help: "OpenSpiel's merging of suits",
            domain: ParamDomain::DefaultOnly(ParamValue::Bool(false)),
            default: bool_default::<false>,
            default_text: "false",
            in_openspiel: true,
        },
    ],
    check: playable,
    build: |spec| Arc::new(LeducPoker::new(spec.clone())),
    capabilities: |_| Capabilities {
        // The ante is the unit.
        units: Units::Chips { big_blind: 1.0 },
        rules: Some(RuleBot::Leduc),
        poker_baselines: true,
        reduced_from: Some(reduced_from),
        ..Capabilities::NONE
    },
    match_params: &[],
};

/// Seed 002's reduced players: a Leduc policy for fewer players, with the
/// same ranks, plays a Leduc game that starts at player 0 (the removal of
/// players rewrites histories from the first seat on).
fn reduced_from(big: &GameSpec, small: &GameSpec) -> Result<(), String> {
    let fits = small.name() == INFO.name
        && small.int("ranks") == big.int("ranks")
        && small.int("players") < big.int("players")
        && big.int("starting_player") == 0;
    if fits {
        Ok(())
    } else {
        Err(format!(
            "a reduced player plays a Leduc policy for fewer players with the same ranks in a Leduc game starting at player 0; the policy is for {small}, the game is {big}"
        ))
    }
}

/// Leduc's default deck: one rank more than there are players (OpenSpiel's
/// 2·(players + 1) cards).
fn ranks_default(given: &Given) -> ParamValue {
    match given.get("players") {
        Some(ParamValue::Int(players)) => ParamValue::Int(players + 1),
        _ => ParamValue::Int(3),
    }
}

/// A deck large enough for the players and a public card, and a starting
/// player who is one of them.
fn playable(spec: &GameSpec) -> Result<(), Unplayable> {
    let (players, ranks) = (spec.int("players"), spec.int("ranks"));
    if 2 * ranks < players + 1 {
        return Err(Unplayable(format!(
            "{ranks} ranks of 2 suits are {} cards, too few for {players} players and a public card",
            2 * ranks
        )));
    }
    let starting = spec.int("starting_player");
    if starting >= players {
        return Err(Unplayable(format!(
            "starting_player = {starting} is not a player (0 to {})",
            players - 1
        )));
    }
    Ok(())
}

/// OpenSpiel's `leduc_poker` with N players and a deck of `ranks` x 2.
#[derive(Clone, Debug)]
pub struct LeducPoker {
    spec: GameSpec,
    rules: Rules,
}

/// What every state of one game shares.
#[derive(Clone, Copy, Debug)]
struct Rules {
    players: usize,
    cards: usize,
    starting_player: usize,
}

impl Rules {
    /// OpenSpiel's `MaxBetsPerRound`: `3 · players − 2`.
    fn max_bets_per_round(self) -> usize {
        3 * self.players - 2
    }
}

impl LeducPoker {
    /// The game of `spec` (a `leduc_poker` spec).
    pub fn new(spec: GameSpec) -> LeducPoker {
        let rules = Rules {
            players: spec.int("players") as usize,
            cards: 2 * spec.int("ranks") as usize,
            starting_player: spec.int("starting_player") as usize,
        };
        LeducPoker { spec, rules }
    }
}

impl Game for LeducPoker {
    fn spec(&self) -> &GameSpec {
        &self.spec
    }
    fn num_players(&self) -> usize {
        self.rules.players
    }
    fn num_distinct_actions(&self) -> usize {
        3
    }
    fn information_state_tensor_size(&self) -> usize {
        // Player one-hot, private card, public card, two bits per bet.
        self.rules.players + 2 * self.rules.cards + 2 * self.max_game_length()
    }
    fn max_game_length(&self) -> usize {
        2 * self.rules.max_bets_per_round()
    }
    fn utility_range(&self) -> (f64, f64) {
        let most = f64::from(2 * FIRST_RAISE + 2 * SECOND_RAISE + ANTE);
        (-most, (self.rules.players as f64 - 1.0) * most)
    }
    fn is_zero_sum(&self) -> bool {
        true
    }
    fn hands(&self) -> Option<Hands> {
        Some(Hands::Cards {
            cards: self.rules.cards,
        })
    }
    fn deal(&self, hands: &[usize]) -> Vec<Action> {
        hands.to_vec()
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(LeducState::new(self.rules))
    }
}

#[derive(Clone, Debug)]
struct LeducState {
    rules: Rules,
    /// OpenSpiel's `cur_player_`: -1 for chance, else the player to act.
    cur_player: i32,
    num_calls: usize,
    num_raises: u8,
    round: u8,
    stakes: i32,
    pot: i32,
    public_card: i32,
    in_deck: Vec<bool>,
    private_cards: Vec<i32>,
    private_cards_dealt: usize,
    money: Vec<i32>,
    ante: Vec<i32>,
    folded: Vec<bool>,
    rounds: [Vec<u8>; 2],
}

impl LeducState {
    fn new(rules: Rules) -> Self {
        let n = rules.players;
        LeducState {
            rules,
            cur_player: CHANCE_PLAYER,
            num_calls: 0,
            num_raises: 0,
            round: 1,
            stakes: ANTE,
            pot: ANTE * n as i32,
            public_card: INVALID_CARD,
            in_deck: vec![true; rules.cards],
            private_cards: vec![INVALID_CARD; n],
            private_cards_dealt: 0,
            money: vec![STARTING_MONEY - ANTE; n],
            ante: vec![ANTE; n],
            folded: vec![false; n],
            rounds: [Vec::new(), Vec::new()],
        }
    }

    fn remaining_players(&self) -> usize {
        self.folded.iter().filter(|f| !**f).count()
    }

    fn ready_for_next_round(&self) -> bool {
        let remaining = self.remaining_players();
        (self.num_raises == 0 && self.num_calls == remaining)
            || (self.num_raises > 0 && self.num_calls == remaining - 1)
    }

    fn is_terminal(&self) -> bool {
        self.remaining_players() == 1 || (self.round == 2 && self.ready_for_next_round())
    }

    /// The acting player (never chance or terminal).
    fn actor(&self) -> usize {
        usize::try_from(self.cur_player).expect("leduc_poker: no player to act")
    }

    /// OpenSpiel's `NextPlayer`: the next player still in after the one
    /// acting, or from `starting_player` at the start of a round.
    fn next_player(&self) -> i32 {
        let n = self.rules.players;
        let from = if self.cur_player == CHANCE_PLAYER {
            (self.rules.starting_player + n - 1) % n
        } else {
            self.actor()
        };
        (1..=n)
            .map(|i| (from + i) % n)
            .find(|&p| !self.folded[p])
            .expect("leduc_poker: every player folded") as i32
    }

    fn put_in(&mut self, player: usize, amount: i32) {
        self.pot += amount;
        self.ante[player] += amount;
        self.money[player] -= amount;
    }

    fn after_bet(&mut self) {
        if self.is_terminal() {
            return;
        }
        if self.ready_for_next_round() {
            self.round += 1;
            self.num_raises = 0;
            self.num_calls = 0;
            self.cur_player = CHANCE_PLAYER;
        } else {
            self.cur_player = self.next_player();
        }
    }

    fn deal(&mut self, card: Action) {
        assert!(
            card < self.rules.cards && self.in_deck[card],
            "leduc_poker: card {card} is not in the deck"
        );
        self.in_deck[card] = false;
        if self.private_cards_dealt < self.rules.players {
            self.private_cards[self.private_cards_dealt] = card as i32;
            self.private_cards_dealt += 1;
            if self.private_cards_dealt == self.rules.players {
                self.cur_player = self.rules.starting_player as i32;
            }
        } else {
            self.public_card = card as i32;
            self.cur_player = self.next_player();
        }
    }

    fn bet(&mut self, action: Action) {
        let player = self.actor();
        match action {
            FOLD => {
                assert!(
                    self.stakes > self.ante[player],
                    "leduc_poker: fold without a bet"
                );
                self.folded[player] = true;
            }
            CALL => {
                self.put_in(player, self.stakes - self.ante[player]);
                self.num_calls += 1;
            }
            RAISE => {
                assert!(self.num_raises < MAX_RAISES, "leduc_poker: too many raises");
                self.put_in(player, self.stakes - self.ante[player]);
                let raise = if self.round == 1 {
                    FIRST_RAISE
                } else {
                    SECOND_RAISE
                };
                self.stakes += raise;
                self.put_in(player, raise);
                self.num_raises += 1;
                self.num_calls = 0;
            }
            _ => panic!("leduc_poker: illegal action {action}"),
        }
        self.rounds[usize::from(self.round) - 1].push(action as u8);
        self.after_bet();
    }

    /// OpenSpiel's `RankHand` for a private card against the public card:
    /// pairs above every unpaired hand, otherwise by high card then low
    /// card (suits never break ties).
    fn strength(&self, card: usize) -> u32 {
        let (a, b) = (self.public_card as usize, card);
        let (low, high) = (a.min(b), a.max(b));
        let n = self.rules.cards;
        let rank = if low % 2 == 0 && high == low + 1 {
            n * n + low
        } else {
            (high / 2) * n + low / 2
        };
        rank as u32
    }
}

impl State for LeducState {
    fn turn(&self) -> Turn {
        if self.is_terminal() {
            Turn::Terminal
        } else if self.cur_player == CHANCE_PLAYER {
            Turn::Chance
        } else {
            Turn::Player(self.actor())
        }
    }

    fn legal_actions(&self) -> Vec<Action> {
        let Turn::Player(player) = self.turn() else {
            return Vec::new();
        };
        let mut actions = Vec::with_capacity(3);
        if self.stakes > self.ante[player] {
            actions.push(FOLD);
        }
        actions.push(CALL);
        if self.num_raises < MAX_RAISES {
            actions.push(RAISE);
        }
        actions
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.turn() != Turn::Chance {
            return Vec::new();
        }
        let remaining = self.in_deck.iter().filter(|c| **c).count();
        let p = 1.0 / remaining as f64;
        (0..self.rules.cards)
            .filter(|&c| self.in_deck[c])
            .map(|c| (c, p))
            .collect()
    }

    fn apply_action(&mut self, action: Action) {
        match self.turn() {
            Turn::Chance => self.deal(action),
            Turn::Player(_) => self.bet(action),
            Turn::Terminal => panic!("leduc_poker: action {action} applied to a finished game"),
        }
    }

    fn returns(&self) -> Vec<f64> {
        if !self.is_terminal() {
            return vec![0.0; self.rules.players];
        }
        let hands: Vec<usize> = self
            .private_cards
            .iter()
            .map(|&c| usize::try_from(c).expect("every player holds a card"))
            .collect();
        self.payoff().returns(&hands)
    }

    fn payoff(&self) -> Payoff {
        assert!(
            self.is_terminal(),
            "leduc_poker: payoff of an unfinished game"
        );
        let contributions: Vec<f64> = self.ante.iter().map(|&a| f64::from(a)).collect();
        let contenders: Vec<usize> = (0..self.rules.players)
            .filter(|&p| !self.folded[p])
            .collect();
        if contenders.len() == 1 {
            let winner = contenders[0];
            return Payoff::Fixed(
                contributions
                    .iter()
                    .enumerate()
                    .map(|(p, c)| {
                        if p == winner {
                            f64::from(self.pot) - c
                        } else {
                            -c
                        }
                    })
                    .collect(),
            );
        }
        Payoff::Showdown {
            pot: f64::from(self.pot),
            contributions,
            contenders,
            strength: (0..self.rules.cards).map(|c| self.strength(c)).collect(),
        }
    }

    fn information_state_string(&self, player: usize) -> String {
        let public = if self.public_card == INVALID_CARD {
            String::new()
        } else {
            format!("[Public: {}]", self.public_card)
        };
        let joined = |values: &[i32]| -> String {
            values
                .iter()
                .map(i32::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let sequence = |round: &[u8]| -> String {
            round
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        // OpenSpiel pays the pot out when the game ends: the strings of a
        // finished game show an empty pot and the money after the payout
        // (fractional after a split).
        let (pot, money) = if self.is_terminal() {
            let money: Vec<String> = self
                .returns()
                .iter()
                .map(|r| (f64::from(STARTING_MONEY) + r).to_string())
                .collect();
            (0, money.join(" "))
        } else {
            (self.pot, joined(&self.money))
        };
        format!(
            "[Observer: {player}][Private: {}][Round {}][Player: {}][Pot: {pot}][Money: {money}]{public}[Round1: {}][Round2: {}]",
            self.private_cards[player],
            self.round,
            self.cur_player,
            sequence(&self.rounds[0]),
            sequence(&self.rounds[1]),
        )
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let (n, cards) = (self.rules.players, self.rules.cards);
        let bets = self.rules.max_bets_per_round();
        assert_eq!(
            out.len(),
            n + 2 * cards + 4 * bets,
            "leduc_poker tensor size"
        );
        out.fill(0.0);
        out[player] = 1.0;
        if let Ok(card) = usize::try_from(self.private_cards[player]) {
            out[n + card] = 1.0;
        }
        if let Ok(card) = usize::try_from(self.public_card) {
            out[n + cards + card] = 1.0;
        }
        let betting = n + 2 * cards;
        for (round, sequence) in self.rounds.iter().enumerate() {
            for (i, &action) in sequence.iter().enumerate() {
                let offset = betting + round * 2 * bets + 2 * i;
                match usize::from(action) {
                    CALL => out[offset] = 1.0,
                    RAISE => out[offset + 1] = 1.0,
                    _ => {}
                }
            }
        }
    }

    fn clone_box(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(spec: &str, actions: &[Action]) -> Box<dyn State> {
        let mut state = spec.parse::<GameSpec>().unwrap().load().new_initial_state();
        for &a in actions {
            state.apply_action(a);
        }
        state
    }

    #[test]
    fn fold_in_round_one_loses_the_ante_and_the_call() {
        // Cards J(0) and K(4); P0 checks, P1 bets 2, P0 folds.
        let state = play("leduc_poker", &[0, 4, CALL, RAISE, FOLD]);
        assert_eq!(state.turn(), Turn::Terminal);
        assert_eq!(state.returns(), vec![-1.0, 1.0]);
    }

    #[test]
    fn pair_beats_a_higher_card_at_showdown() {
        // P0 J(0), P1 K(4); both check, public J(1) pairs P0; P0 bets 4, P1 calls.
        let state = play("leduc_poker", &[0, 4, CALL, CALL, 1, RAISE, CALL]);
        assert_eq!(state.turn(), Turn::Terminal);
        assert_eq!(state.returns(), vec![5.0, -5.0]);
    }

    #[test]
    fn equal_ranks_split_the_pot() {
        // P0 Q(2), P1 Q(3), public K(4): no pair, equal ranks.
        let state = play("leduc_poker", &[2, 3, RAISE, CALL, 4, CALL, CALL]);
        assert_eq!(state.returns(), vec![0.0, 0.0]);
    }

    #[test]
    fn two_raises_per_round_at_most_and_fold_only_when_facing_a_bet() {
        let state = play("leduc_poker", &[0, 2]);
        assert_eq!(state.legal_actions(), vec![CALL, RAISE]);
        let state = play("leduc_poker", &[0, 2, RAISE, RAISE]);
        assert_eq!(state.legal_actions(), vec![FOLD, CALL]);
        assert_eq!(
            state.information_state_string(0),
            "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 8][Money: 97 95][Round1: 2 2][Round2: ]"
        );
    }

    #[test]
    fn three_players_with_seven_ranks_fold_and_split_by_hand() {
        // 14 cards. P0 card 13 (rank 6), P1 card 12 (rank 6), P2 card 0.
        // P0 raises, P1 calls, P2 folds; public card 5 (rank 2).
        let spec = "leduc_poker(players=3,ranks=7)";
        let state = play(spec, &[13, 12, 0, RAISE, CALL, FOLD, 5]);
        assert_eq!(state.turn(), Turn::Player(0));
        assert_eq!(
            state.information_state_string(1),
            "[Observer: 1][Private: 12][Round 2][Player: 0][Pot: 7][Money: 97 97 99][Public: 5][Round1: 2 1 0][Round2: ]"
        );
        let state = play(spec, &[13, 12, 0, RAISE, CALL, FOLD, 5, CALL, CALL]);
        assert_eq!(state.turn(), Turn::Terminal);
        // Equal ranks: players 0 and 1 split the pot of 7.
        assert_eq!(state.returns(), vec![0.5, 0.5, -1.0]);
    }

    #[test]
    fn the_starting_player_bets_first_in_each_round() {
        let spec = "leduc_poker(players=3,starting_player=2)";
        let state = play(spec, &[0, 1, 2]);
        assert_eq!(state.turn(), Turn::Player(2));
        let state = play(spec, &[0, 1, 2, CALL, CALL, RAISE, FOLD, CALL, 3]);
        // Player 2 folded: round 2 starts with the next one in, player 0.
        assert_eq!(state.turn(), Turn::Player(0));
    }
}
