//! A `universal_poker` state: the cards dealt, the betting, and OpenSpiel's
//! record of both (its action sequence with `d` for every deal), from which
//! the information-state strings and tensors are written as OpenSpiel
//! writes them.

use std::fmt::Write;
use std::sync::Arc;

use super::betting::{Bet, Betting};
use super::groups::full_game_groups;
use super::params::{Abstraction, Rules, MAX_BOARD_CARDS, MAX_PLAYERS};
use crate::{Action, ActionGroup, Payoff, State, Turn};

const FOLD: Action = 0;
const CALL: Action = 1;
const POT: Action = 2;
const ALL_IN: Action = 3;
const HALF_POT: Action = 4;
/// OpenSpiel's player ids for chance and terminal states, as printed.
const CHANCE_ID: i32 = -1;
const TERMINAL_ID: i32 = -4;
const RANK_CHARS: &[u8] = b"23456789TJQKA";
const SUIT_CHARS: &[u8] = b"cdhs";

/// OpenSpiel's record of a move: its letter (`d` deal, `f`, `c`, `p` bet,
/// `a` all-in) and the raise-to size it records (0 but for bets).
#[derive(Clone, Copy, Debug)]
struct Move {
    letter: u8,
    size: i64,
}

/// A position in a `universal_poker` game.
#[derive(Clone, Debug)]
pub struct UniversalPokerState {
    pub(crate) rules: Arc<Rules>,
    pub(crate) betting: Betting,
    /// Hole cards (deck indices) in dealing order, player by player.
    hole: [[u8; 3]; MAX_PLAYERS],
    holes_dealt: usize,
    board: [u8; MAX_BOARD_CARDS],
    boards_dealt: usize,
    /// Cards still in the deck, by deck index.
    deck: u64,
    moves: Vec<Move>,
}

impl UniversalPokerState {
    pub(crate) fn new(rules: Arc<Rules>) -> UniversalPokerState {
        let deck = if rules.deck_size() == 64 {
            u64::MAX
        } else {
            (1u64 << rules.deck_size()) - 1
        };
        UniversalPokerState {
            betting: Betting::new(&rules),
            hole: [[0; 3]; MAX_PLAYERS],
            holes_dealt: 0,
            board: [0; MAX_BOARD_CARDS],
            boards_dealt: 0,
            deck,
            moves: Vec::with_capacity(rules.max_game_length),
            rules,
        }
    }

    /// Player `p`'s hole cards dealt so far (deck indices).
    pub fn hole_cards(&self, p: usize) -> &[u8] {
        let dealt = self
            .holes_dealt
            .saturating_sub(p * self.rules.hole_cards)
            .min(self.rules.hole_cards);
        &self.hole[p][..dealt]
    }

    /// Cards not dealt yet, as a bit set of deck indices.
    pub fn undealt(&self) -> u64 {
        self.deck
    }

    /// Board cards still to come if the hand goes to a showdown.
    pub fn board_cards_to_come(&self) -> usize {
        self.rules.total_board_cards() - self.boards_dealt
    }

    /// Hole cards each player holds.
    pub fn hole_cards_per_player(&self) -> usize {
        self.rules.hole_cards
    }

    /// The board dealt so far (deck indices, in dealing order).
    pub fn board_cards(&self) -> &[u8] {
        &self.board[..self.boards_dealt]
    }

    /// Chips each player has put in.
    pub fn spent(&self) -> &[i64] {
        &self.betting.spent[..self.rules.players]
    }

    /// The betting round (ACPC's: it moves on as soon as a round's betting
    /// closes, and to the last round when the board is run out).
    pub fn round(&self) -> usize {
        self.betting.round
    }

    /// The card a deck index stands for, as OpenSpiel writes it (`Ts`).
    pub fn card_text(&self, card: u8) -> String {
        let (rank, suit) = self.rank_suit(card);
        format!("{}{}", RANK_CHARS[rank] as char, SUIT_CHARS[suit] as char)
    }

    /// This state with player `p`'s hole cards replaced by `cards` (deck
    /// indices, as many as it holds): what `p` would see holding them. The
    /// cards must not be on the board or in another player's hand.
    pub fn with_hole_cards(&self, p: usize, cards: &[u8]) -> UniversalPokerState {
        let mut other = self.clone();
        let held = self.hole_cards(p);
        assert_eq!(cards.len(), held.len(), "as many hole cards as dealt");
        for (slot, &card) in other.hole[p].iter_mut().zip(cards) {
            other.deck |= 1 << *slot;
            *slot = card;
        }
        for &card in cards {
            assert!(other.deck & (1 << card) != 0, "card {card} is not free");
            other.deck &= !(1 << card);
        }
        other
    }

    /// The deck index of the card written `rank` `suit` (`T`, `s`).
    pub fn card_id(&self, rank: char, suit: char) -> Option<Action> {
        let rank = RANK_CHARS.iter().position(|&r| r as char == rank)?;
        let suit = SUIT_CHARS.iter().position(|&s| s as char == suit)?;
        (rank < self.rules.ranks && suit < self.rules.suits)
            .then_some(rank * self.rules.suits + suit)
    }

    /// The legal action that makes ACPC's move `letter` (`f`, `c`, `r`)
    /// with raise-to `size` (empty for limit raises), if there is one.
    pub fn action_for(&self, letter: char, size: &str) -> Option<Action> {
        let legal = self.legal_actions();
        let wanted = match letter {
            'f' => Bet::Fold,
            'c' => Bet::Call,
            'r' if self.rules.limit && size.is_empty() => Bet::Raise(0),
            'r' if !self.rules.limit => Bet::Raise(size.parse().ok()?),
            _ => return None,
        };
        legal.into_iter().find(|&a| self.bet_of(a).0 == wanted)
    }

    pub(crate) fn rules(&self) -> &Rules {
        &self.rules
    }

    fn rank_suit(&self, card: u8) -> (usize, usize) {
        let card = card as usize;
        (card / self.rules.suits, card % self.rules.suits)
    }

    /// Cards as OpenSpiel's card sets print: highest first, no separator.
    fn cards_text(&self, cards: &[u8]) -> String {
        let mut sorted = cards.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        sorted.iter().map(|&c| self.card_text(c)).collect()
    }

    /// The strength of `p`'s hand with the board dealt so far.
    fn strength(&self, p: usize) -> u32 {
        self.strength_with(self.hole_cards(p))
    }

    fn strength_with(&self, hole: &[u8]) -> u32 {
        self.strength_with_board(hole, &[])
    }

    /// The strength of a hand of `hole` cards with the board dealt so far
    /// and `more_board` cards.
    pub fn strength_with_board(&self, hole: &[u8], more_board: &[u8]) -> u32 {
        let cards = hole.iter().chain(self.board_cards()).chain(more_board);
        self.rules.evaluator.strength(cards.copied())
    }

    fn needs_card(&self) -> bool {
        let rules = &self.rules;
        self.holes_dealt < rules.hole_cards * rules.players
            || self.boards_dealt < rules.board_cards_by(self.betting.round)
    }

    /// OpenSpiel's player id: the player, -1 at chance, -4 at the end.
    fn player_id(&self) -> i32 {
        match self.turn() {
            Turn::Player(p) => p as i32,
            Turn::Chance => CHANCE_ID,
            Turn::Terminal => TERMINAL_ID,
        }
    }

    /// The betting of `round` as ACPC writes it: `f`, `c`, `r<raise-to>`
    /// (`r` alone in limit games).
    pub(crate) fn betting_text(&self, round: usize, out: &mut String) {
        for (_, bet, _) in self.betting.actions_in(round) {
            match bet {
                Bet::Fold => out.push('f'),
                Bet::Call => out.push('c'),
                Bet::Raise(_) if self.rules.limit => out.push('r'),
                Bet::Raise(size) => {
                    let _ = write!(out, "r{size}");
                }
            }
        }
    }

    /// The bet a player action makes, with the letter and size OpenSpiel
    /// records for it.
    fn bet_of(&self, action: Action) -> (Bet, Move) {
        let rules = &self.rules;
        let record = |letter: u8, size: i64| Move { letter, size };
        let raise = |size: i64| {
            let bet = if rules.limit {
                Bet::Raise(0)
            } else {
                Bet::Raise(size)
            };
            (bet, record(b'p', size))
        };
        match (action, rules.abstraction) {
            (FOLD, _) => (Bet::Fold, record(b'f', 0)),
            (CALL, _) => (Bet::Call, record(b'c', 0)),
            (_, Abstraction::FullGame) => raise(action as i64),
            (HALF_POT, _) => raise(self.betting.pot_raise_to(rules, 0.5)),
            (POT, _) if rules.limit => raise(0),
            (POT, _) => raise(self.betting.pot_raise_to(rules, 1.0)),
            (ALL_IN, _) => {
                let (_, most) = self.betting.raise_range(rules).expect("all-in is legal");
                (Bet::Raise(most), record(b'a', most))
            }
            _ => panic!("action {action} is not a bet of {:?}", rules.abstraction),
        }
    }

    /// Whether a player to act may take `action`, without listing the
    /// full game's thousands of raise amounts.
    fn is_legal(&self, action: Action) -> bool {
        let rules = &self.rules;
        if !rules.every_amount_an_action() {
            return self.legal_actions().contains(&action);
        }
        match action {
            FOLD => self.betting.can_fold(rules),
            CALL => true,
            _ => self
                .betting
                .raise_range(rules)
                .is_some_and(|(least, most)| (least..=most).contains(&(action as i64))),
        }
    }
}

impl State for UniversalPokerState {
    fn turn(&self) -> Turn {
        let rules = &self.rules;
        if self.betting.finished {
            if self.betting.num_folded(rules) + 1 >= rules.players || !self.needs_card() {
                Turn::Terminal
            } else {
                Turn::Chance
            }
        } else if self.needs_card() {
            Turn::Chance
        } else {
            Turn::Player(self.betting.current_player(rules))
        }
    }

    fn legal_actions(&self) -> Vec<Action> {
        if !matches!(self.turn(), Turn::Player(_)) {
            return Vec::new();
        }
        let rules = &self.rules;
        let mut legal = Vec::with_capacity(5);
        if self.betting.can_fold(rules) {
            legal.push(FOLD);
        }
        legal.push(CALL);
        let Some((least, most)) = self.betting.raise_range(rules) else {
            return legal;
        };
        match rules.abstraction {
            Abstraction::Fc => {}
            Abstraction::FullGame => legal.extend(least as usize..=most as usize),
            _ if rules.limit => legal.push(POT),
            _ => {
                let pot = self.betting.pot_raise_to(rules, 1.0);
                if (least..=most).contains(&pot) {
                    legal.push(POT);
                }
                if pot != most {
                    legal.push(ALL_IN);
                }
            }
        }
        if rules.abstraction == Abstraction::Fchpa && legal.contains(&POT) {
            legal.push(HALF_POT);
        }
        legal
    }

    fn legal_groups(&self) -> Vec<ActionGroup> {
        let rules = &self.rules;
        if !rules.every_amount_an_action() {
            return self
                .legal_actions()
                .into_iter()
                .map(ActionGroup::alone)
                .collect();
        }
        if !matches!(self.turn(), Turn::Player(_)) {
            return Vec::new();
        }
        full_game_groups(&self.betting, rules)
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.turn() != Turn::Chance {
            return Vec::new();
        }
        let p = 1.0 / self.deck.count_ones() as f64;
        (0..self.rules.deck_size())
            .filter(|&c| self.deck & (1 << c) != 0)
            .map(|c| (c, p))
            .collect()
    }

    fn apply_action(&mut self, action: Action) {
        match self.turn() {
            Turn::Chance => {
                assert!(
                    action < self.rules.deck_size() && self.deck & (1 << action) != 0,
                    "card {action} is not in the deck"
                );
                self.deck &= !(1 << action);
                let hole_total = self.rules.hole_cards * self.rules.players;
                if self.holes_dealt < hole_total {
                    let (p, i) = (
                        self.holes_dealt / self.rules.hole_cards,
                        self.holes_dealt % self.rules.hole_cards,
                    );
                    self.hole[p][i] = action as u8;
                    self.holes_dealt += 1;
                } else {
                    self.board[self.boards_dealt] = action as u8;
                    self.boards_dealt += 1;
                }
                self.moves.push(Move {
                    letter: b'd',
                    size: 0,
                });
            }
            Turn::Player(_) => {
                assert!(self.is_legal(action), "action {action} is not legal here");
                let (bet, mut record) = self.bet_of(action);
                // OpenSpiel turns a raise of every player's most possible
                // commitment into a call.
                let everything = self.rules.max_commitment() * self.rules.players as f64;
                let bet = if record.size as f64 == everything {
                    record = Move {
                        letter: b'c',
                        size: 0,
                    };
                    Bet::Call
                } else {
                    bet
                };
                self.moves.push(record);
                self.betting.apply(&self.rules, bet);
            }
            Turn::Terminal => panic!("no action at a terminal state"),
        }
    }

    fn returns(&self) -> Vec<f64> {
        let players = self.rules.players;
        if self.turn() != Turn::Terminal {
            return vec![0.0; players];
        }
        (0..players)
            .map(|p| {
                self.betting
                    .value(&self.rules, p, |q| i64::from(self.strength(q)))
            })
            .collect()
    }

    fn payoff(&self) -> Payoff {
        let rules = &self.rules;
        if self.betting.num_folded(rules) + 1 >= rules.players {
            return Payoff::Fixed(self.returns());
        }
        let spent = self.spent();
        Payoff::Showdown {
            pot: spent.iter().sum::<i64>() as f64,
            contributions: spent.iter().map(|&s| s as f64).collect(),
            contenders: (0..rules.players)
                .filter(|&p| !self.betting.folded[p])
                .collect(),
            strength: (0..rules.deck_size())
                .map(|card| self.strength_with(&[card as u8]))
                .collect(),
        }
    }

    fn information_state_string(&self, player: usize) -> String {
        let rules = &self.rules;
        let n = rules.players;
        let pot = self.betting.max_spent * (n - self.betting.num_folded(rules)) as i64;
        let money: Vec<String> = (0..n)
            .map(|p| (rules.stacks[p] - self.betting.spent[p]).to_string())
            .collect();
        let mut sequences = String::new();
        for round in 0..=self.betting.round {
            if round > 0 {
                sequences.push('|');
            }
            self.betting_text(round, &mut sequences);
        }
        format!(
            "[Round {}][Player: {}][Pot: {pot}][Money: {}][Private: {}][Public: {}][Sequences: {sequences}]",
            self.betting.round,
            self.player_id(),
            money.join(" "),
            self.cards_text(self.hole_cards(player)),
            self.cards_text(self.board_cards()),
        )
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let rules = &self.rules;
        let (n, d, l) = (rules.players, rules.deck_size(), rules.max_game_length);
        out.fill(0.0);
        out[player] = 1.0;
        for &card in self.hole_cards(player) {
            out[n + card as usize] = 1.0;
        }
        for &card in self.board_cards() {
            out[n + d + card as usize] = 1.0;
        }
        let (letters, sizes) = out[n + 2 * d..].split_at_mut(2 * l);
        for (i, m) in self.moves.iter().enumerate() {
            let bits = match m.letter {
                b'c' => [1.0, 0.0],
                b'p' => [0.0, 1.0],
                b'a' => [1.0, 1.0],
                _ => [0.0, 0.0],
            };
            letters[2 * i..2 * i + 2].copy_from_slice(&bits);
            sizes[i] = m.size as f32;
        }
    }

    fn network_input(&self, player: usize, out: &mut [f32]) {
        self.information_state_tensor(player, out);
        let rules = &self.rules;
        let sizes = rules.players + 2 * rules.deck_size() + 2 * rules.max_game_length;
        let most = rules.max_commitment() as f32;
        out[sizes..].iter_mut().for_each(|size| *size /= most);
    }

    fn clone_box(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
