//! Seed 004's input for its convolutional network (after Poker-CNN): a
//! hold'em decision and a candidate action as 33 planes of 17×17.
//!
//! Each plane is a 4×13 grid, suits (♣ ♦ ♥ ♠ as the deck orders them) by
//! ranks (2 … A), set in the middle of the 17×17 plane (rows 6–9,
//! columns 2–14) so that 5×5 convolutions see every cell with its
//! neighbours; the rest is zero. In order:
//!
//! | planes | what |
//! |---|---|
//! | 0–1 | each hole card (lower deck index first) |
//! | 2–4 | the board dealt in each round after the first (flop, turn, river) |
//! | 5 | every card the player sees |
//! | 6 | the pot (every player's chips in) |
//! | 7–9 | rounds still to come: plane k is all ones while more than k remain |
//! | 10 | all ones when the player acted first in this round |
//! | 11–15, 16–20 | this round's last five actions, most recent first: kind, then chips |
//! | 21–25, 26–30 | the previous round's last five actions, the same way |
//! | 31, 32 | the candidate action: kind, then chips |
//!
//! A chip amount fills that many cells of small blinds (rounded up; all 52
//! from 52 small blinds on), column by column from the top left: one small
//! blind is the top-left cell, four fill the first column. An action's
//! chips are what it puts in (a call's call, a raise's increase); its kind
//! is a plane of ones for a bet or raise, of halves for a check or call,
//! and of zeros for a fold or an empty slot.

use crate::universal_poker::betting::Bet;
use crate::{Action, State};

use crate::universal_poker::UniversalPokerState;

/// Planes of the input.
pub const PLANES: usize = 33;
/// Side of each (square) plane.
pub const SIDE: usize = 17;
/// Floats of the input: [`PLANES`] × [`SIDE`] × [`SIDE`].
pub const SIZE: usize = PLANES * SIDE * SIDE;

const SUITS: usize = 4;
const RANKS: usize = 13;
const TOP: usize = (SIDE - SUITS) / 2;
const LEFT: usize = (SIDE - RANKS) / 2;
const HISTORY: usize = 5;

/// What an action did, as its kind plane shows it.
fn kind_value(bet: Bet) -> f32 {
    match bet {
        Bet::Fold => 0.0,
        Bet::Call => 0.5,
        Bet::Raise(_) => 1.0,
    }
}

impl UniversalPokerState {
    /// Whether [`UniversalPokerState::cnn_planes`] can describe this game:
    /// a 52-card deck, two hole cards, no board before the first betting
    /// and at most four rounds.
    pub fn has_cnn_planes(&self) -> bool {
        let rules = &self.rules;
        rules.suits == SUITS
            && rules.ranks == RANKS
            && rules.hole_cards == 2
            && rules.board_cards[0] == 0
            && rules.rounds <= 4
    }

    /// Seed 004's planes for `player`, about to play `action` (legal
    /// here), written into `out` ([`SIZE`] floats, plane by plane, row by
    /// row).
    ///
    /// # Panics
    ///
    /// When the game has no such planes ([`UniversalPokerState::has_cnn_planes`]),
    /// `out` is not [`SIZE`] long, or `action` is not legal.
    pub fn cnn_planes(&self, player: usize, action: Action, out: &mut [f32]) {
        assert!(
            self.has_cnn_planes(),
            "seed 004's planes need a 52-card deck and at most 4 rounds"
        );
        assert_eq!(out.len(), SIZE, "the planes take {SIZE} floats");
        out.fill(0.0);
        let rules = &self.rules;
        let small_blind = rules.blinds[..rules.players]
            .iter()
            .copied()
            .filter(|&b| b > 0)
            .min()
            .unwrap_or(1);
        let mut planes = Planes { out, small_blind };

        let mut hole = self.hole_cards(player).to_vec();
        hole.sort_unstable();
        for (i, &card) in hole.iter().enumerate() {
            planes.card(i, card);
        }
        let board = self.board_cards();
        for round in 1..rules.rounds {
            let dealt_in_round = rules.board_cards_by(round - 1)..rules.board_cards_by(round);
            for &card in board.get(dealt_in_round).unwrap_or_default() {
                planes.card(1 + round, card);
            }
        }
        for &card in hole.iter().chain(board) {
            planes.card(5, card);
        }
        planes.chips(6, self.spent().iter().sum());
        let round = self.betting.round;
        for k in 0..rules.rounds - 1 - round {
            planes.fill(7 + k, 1.0);
        }
        let first = self
            .betting
            .actions_in(round)
            .next()
            .map(|(actor, _, _)| actor);
        if first.unwrap_or(player) == player {
            planes.fill(10, 1.0);
        }
        planes.history(11, self.betting.actions_in(round));
        if round > 0 {
            planes.history(21, self.betting.actions_in(round - 1));
        }
        let mut after = self.clone();
        after.apply_action(action);
        let (_, bet, added) = after
            .betting
            .actions_in(round)
            .last()
            .expect("the action is on record");
        planes.fill(31, kind_value(bet));
        planes.chips(32, added);
    }
}

/// The planes being written.
struct Planes<'a> {
    out: &'a mut [f32],
    small_blind: i64,
}

impl Planes<'_> {
    fn cell(&mut self, plane: usize, suit: usize, rank: usize) -> &mut f32 {
        &mut self.out[(plane * SIDE + TOP + suit) * SIDE + LEFT + rank]
    }

    fn card(&mut self, plane: usize, card: u8) {
        let card = card as usize;
        *self.cell(plane, card % SUITS, card / SUITS) = 1.0;
    }

    fn fill(&mut self, plane: usize, value: f32) {
        for suit in 0..SUITS {
            for rank in 0..RANKS {
                *self.cell(plane, suit, rank) = value;
            }
        }
    }

    /// `chips` as filled cells of small blinds, column by column.
    fn chips(&mut self, plane: usize, chips: i64) {
        let cells = (chips.max(0) as usize).div_ceil(self.small_blind as usize);
        for i in 0..cells.min(SUITS * RANKS) {
            *self.cell(plane, i % SUITS, i / SUITS) = 1.0;
        }
    }

    /// The last five of `actions`, most recent first: kinds from `plane`,
    /// chips five planes on.
    fn history(&mut self, plane: usize, actions: impl Iterator<Item = (usize, Bet, i64)>) {
        let actions: Vec<_> = actions.collect();
        for (slot, &(_, bet, added)) in actions.iter().rev().take(HISTORY).enumerate() {
            self.fill(plane + slot, kind_value(bet));
            self.chips(plane + HISTORY + slot, added);
        }
    }
}
