//! One game of Daihinmin as a [`State`]: the deal (one card per chance
//! move), the exchange where the seats hold ranks from a previous game,
//! then the tricks, to the places and their points.

use std::fmt::Write;
use std::sync::Arc;

use super::cards::{cards_text, exchange_strength, indices, Cards, DIAMOND_THREE, JOKER_INDEX};
use super::plays::{catalogue, Play, PASS};
use super::tensor::Seen;
use super::Rules;
use crate::{Action, Payoff, State, Turn};

/// Consecutive passes after which the places still open are drawn at
/// random (the official server's guard against a game that never ends).
pub const PASS_LIMIT: usize = 20;

/// Where a game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Chance draws the seating, before games 4, 7, 10 … of a match.
    DrawSeats,
    /// Chance picks the seat dealt to first (first games only).
    FirstSeat,
    /// Chance deals the next card.
    Deal,
    /// The richest players give cards back, one a move.
    Exchange,
    /// Tricks.
    Play,
    /// Chance orders the players left after too many passes.
    DrawPlaces,
    /// Over.
    Over,
}

/// A Daihinmin game in progress.
#[derive(Clone, Debug)]
pub struct DaihinminState {
    rules: Arc<Rules>,
    phase: Phase,
    hands: Vec<Cards>,
    /// The seats in playing order around the table (the deal and the
    /// turns go this way), and each seat's index in it.
    order: Vec<usize>,
    order_index: Vec<usize>,
    /// The seat the next card goes to.
    deal_to: usize,
    /// Cards still to deal.
    undealt: Cards,
    /// Cards each seat has played (public).
    played: Vec<Cards>,
    /// Exchange gifts still owed, in order: (giver, receiver).
    owed: Vec<(usize, usize)>,
    /// Cards each seat received and gave in the exchange.
    received: Vec<Cards>,
    given: Vec<Cards>,
    /// The play on the table, and who made it.
    table: Option<(Play, usize)>,
    locked: bool,
    revolution: bool,
    /// Seats out of the trick (passed), as bits.
    passed: u32,
    /// Whose turn.
    to_move: usize,
    /// Seats in the order they went out.
    places: Vec<usize>,
    passes_in_a_row: usize,
    /// Every move of play so far (seat, action), for the information-state
    /// strings.
    moves: Vec<(u8, u16)>,
    /// This game's ranks from the game before, by seat (1 = daifugo).
    ranks: Option<Vec<usize>>,
    /// Games of the match (or series) played before this one (in a
    /// finished state, this one included).
    match_game: usize,
    /// Games finished in this episode, and each seat's points in them.
    games_done: usize,
    points: Vec<f64>,
    /// Games after which the state is terminal (the match's, or fewer for
    /// a playout that ends with the game it is in).
    games_total: usize,
}

/// Games after which ranks start afresh (a first game, no exchange), as
/// the official server does.
pub const RANK_RESET: usize = 100;

/// Games after which the seating is drawn again, as the official server
/// does by default.
pub const SEAT_CHANGE: usize = 3;

impl DaihinminState {
    pub(crate) fn new(rules: Arc<Rules>) -> DaihinminState {
        let players = rules.players;
        let mut state = DaihinminState {
            phase: Phase::FirstSeat,
            hands: vec![0; players],
            order: (0..players).collect(),
            order_index: (0..players).collect(),
            deal_to: 0,
            undealt: super::cards::DECK,
            played: vec![0; players],
            owed: Vec::new(),
            received: vec![0; players],
            given: vec![0; players],
            table: None,
            locked: false,
            revolution: false,
            passed: 0,
            to_move: 0,
            places: Vec::new(),
            passes_in_a_row: 0,
            moves: Vec::new(),
            ranks: rules.ranks.clone(),
            match_game: 0,
            games_done: 0,
            points: vec![0.0; players],
            games_total: rules.games,
            rules,
        };
        state.start_deal();
        state
    }

    /// A fresh game: the seating drawn anew where one is due (every
    /// [`SEAT_CHANGE`] games of a match, the first game's seating being
    /// the seats' own order), then the deal.
    fn start_deal(&mut self) {
        if self.match_game > 0 && self.match_game.is_multiple_of(SEAT_CHANGE) {
            self.phase = Phase::DrawSeats;
        } else {
            self.begin_deal();
        }
    }

    /// A fresh deal under `self.ranks`: dealt from the daifugo after a
    /// ranked game, from a seat chance picks otherwise.
    fn begin_deal(&mut self) {
        let n = self.rules.players;
        self.hands = vec![0; n];
        self.undealt = super::cards::DECK;
        self.played = vec![0; n];
        self.owed.clear();
        self.received = vec![0; n];
        self.given = vec![0; n];
        self.table = None;
        self.locked = false;
        self.revolution = false;
        self.passed = 0;
        self.places.clear();
        self.passes_in_a_row = 0;
        self.moves.clear();
        match self
            .ranks
            .as_ref()
            .and_then(|r| r.iter().position(|&rank| rank == 1))
        {
            Some(daifugo) => {
                self.deal_to = daifugo;
                self.phase = Phase::Deal;
            }
            None => self.phase = Phase::FirstSeat,
        }
    }

    /// The places are settled: the points are counted, and the next game
    /// of the match starts with ranks from these places, or the match is
    /// over.
    fn end_game(&mut self) {
        let n = self.rules.players;
        for (place, &seat) in self.places.iter().enumerate() {
            self.points[seat] += (n - place) as f64;
        }
        self.games_done += 1;
        self.match_game += 1;
        if self.games_done >= self.games_total {
            self.phase = Phase::Over;
            return;
        }
        self.carry_ranks();
        self.start_deal();
    }

    /// The ranks the next game of the match is played under: this game's
    /// places, or none where the match starts them afresh.
    fn carry_ranks(&mut self) {
        let mut ranks = vec![0; self.rules.players];
        for (place, &seat) in self.places.iter().enumerate() {
            ranks[seat] = place + 1;
        }
        self.ranks = (!self.match_game.is_multiple_of(RANK_RESET)).then_some(ranks);
    }

    /// Where this finished game is one of a series (`series` > 1) with
    /// games still to come, the next one as its own episode: ranks
    /// carried from these places, the seating kept or drawn anew, points
    /// from zero.
    pub fn next_in_series(&self) -> Option<DaihinminState> {
        if self.phase != Phase::Over || self.match_game >= self.rules.series {
            return None;
        }
        let mut next = self.clone();
        next.points = vec![0.0; self.rules.players];
        next.games_done = 0;
        next.games_total = 1;
        next.carry_ranks();
        next.start_deal();
        Some(next)
    }

    /// A state in the middle of play, for tests and the Monte-Carlo
    /// players: `hands` dealt, `to_move` to act on an empty table.
    pub fn from_hands(rules: Arc<Rules>, hands: Vec<Cards>, to_move: usize) -> DaihinminState {
        let mut state = DaihinminState::new(rules);
        state.undealt = 0;
        state.hands = hands;
        state.phase = Phase::Play;
        state.to_move = to_move;
        state
    }

    /// A state in the exchange, for a client that joins a game there:
    /// `hands` after the poorest players' gifts, `giver` to give `count`
    /// cards back to `receiver`, a card a move.
    pub fn at_exchange(
        rules: Arc<Rules>,
        hands: Vec<Cards>,
        giver: usize,
        receiver: usize,
        count: usize,
    ) -> DaihinminState {
        let mut state = DaihinminState::from_hands(rules, hands, giver);
        state.phase = Phase::Exchange;
        state.owed = vec![(giver, receiver); count];
        state
    }

    /// Records that `from` gave `cards` to `to` in the exchange (the
    /// cards already where they went): what a client that joins a game
    /// after its exchange knows of it.
    pub fn with_gift(mut self, from: usize, to: usize, cards: Cards) -> DaihinminState {
        self.given[from] |= cards;
        self.received[to] |= cards;
        self
    }

    /// Puts the play `action` on the table for `seat` whether or not
    /// these rules allow it there: for a client whose server's rules
    /// differ, which adopts what the server accepted. `seat` must hold
    /// the cards.
    pub fn force_play(&mut self, seat: usize, action: Action) {
        let play = *catalogue().play(action).expect("a play, not a pass");
        assert!(
            play.cards & !self.hands[seat] == 0 && self.phase == Phase::Play,
            "seat {seat} plays cards it holds, in play"
        );
        self.to_move = seat;
        self.moves.push((seat as u8, action as u16));
        self.apply_play(play);
    }

    /// Adopts a server's word on whose turn it is and what the table
    /// holds (the play and who made it, none for an empty table; lock;
    /// revolution), where these rules say otherwise.
    pub fn adopt_turn(
        &mut self,
        seat: usize,
        table: Option<(Play, usize)>,
        locked: bool,
        revolution: bool,
    ) {
        if table.is_none() {
            self.passed = 0;
        }
        self.table = table;
        self.passed &= !(1 << seat);
        self.locked = locked && self.table.is_some();
        self.revolution = revolution;
        self.to_move = seat;
    }

    /// Each seat's hand.
    pub fn hands(&self) -> &[Cards] {
        &self.hands
    }

    /// The play on the table and who made it.
    pub fn table(&self) -> Option<(Play, usize)> {
        self.table
    }

    /// Whether the order is reversed.
    pub fn revolution(&self) -> bool {
        self.revolution
    }

    /// Whether the table's suits are locked.
    pub fn locked(&self) -> bool {
        self.locked
    }

    /// Seats in the order they went out.
    pub fn places(&self) -> &[usize] {
        &self.places
    }

    /// Seats that passed since the table last cleared, as bits.
    pub fn passed(&self) -> u32 {
        self.passed
    }

    fn in_game(&self, seat: usize) -> bool {
        self.hands[seat] != 0
    }

    /// The seat `k` places after `seat` in playing order.
    fn after(&self, seat: usize, k: usize) -> usize {
        let n = self.rules.players;
        self.order[(self.order_index[seat] + k) % n]
    }

    /// The next seat after `from` (cyclically, `from` itself last) still
    /// holding cards and not out of the trick.
    fn next_to_act(&self, from: usize) -> Option<usize> {
        (1..=self.rules.players)
            .map(|k| self.after(from, k))
            .find(|&s| self.in_game(s) && self.passed & (1 << s) == 0)
    }

    /// The next seat after `from` (cyclically, `from` itself first)
    /// holding cards.
    fn next_with_cards(&self, from: usize) -> Option<usize> {
        (0..self.rules.players)
            .map(|k| self.after(from, k))
            .find(|&s| self.in_game(s))
    }

    /// Whether the player to move holds `play` and it may go on the table.
    fn can_play(&self, play: &Play) -> bool {
        play.cards & !self.hands[self.to_move] == 0
            && self
                .table
                .as_ref()
                .is_none_or(|(table, _)| play.beats(table, self.revolution, self.locked))
    }

    fn legal_plays(&self) -> Vec<Action> {
        let mut legal = vec![PASS];
        let catalogue = catalogue();
        match &self.table {
            // Only plays of the table's kind and size can answer it.
            Some((table, _)) => legal.extend(
                catalogue
                    .shaped(table.kind, table.size)
                    .filter(|(_, play)| self.can_play(play))
                    .map(|(id, _)| id),
            ),
            // A lead: only plays whose lowest card the hand holds.
            None => {
                legal.extend(
                    catalogue
                        .keyed_by(self.hands[self.to_move])
                        .filter(|(_, play)| self.can_play(play))
                        .map(|(id, _)| id),
                );
                legal.sort_unstable();
            }
        }
        legal
    }

    fn start_play(&mut self) {
        self.phase = Phase::Play;
        self.to_move = (0..self.rules.players)
            .find(|&s| self.hands[s] & DIAMOND_THREE != 0)
            .expect("someone holds ♦3");
    }

    /// After the deal: the automatic gifts, then the gifts the daifugo
    /// and fugo choose (as moves), or straight to play.
    fn after_deal(&mut self) {
        let Some(ranks) = self.ranks.clone() else {
            self.start_play();
            return;
        };
        let seat_of = |rank: usize| {
            ranks
                .iter()
                .position(|&r| r == rank)
                .expect("a rank per seat")
        };
        let n = self.rules.players;
        let mut pairs = vec![(seat_of(1), seat_of(n), 2)];
        if n >= 4 {
            pairs.push((seat_of(2), seat_of(n - 1), 1));
        }
        for &(rich, poor, count) in &pairs {
            for _ in 0..count {
                let strongest = indices(self.hands[poor])
                    .max_by_key(|&i| exchange_strength(i))
                    .expect("a dealt hand");
                self.give(poor, rich, strongest);
            }
        }
        for &(rich, poor, count) in &pairs {
            self.owed.extend(std::iter::repeat_n((rich, poor), count));
        }
        self.phase = Phase::Exchange;
        self.to_move = self.owed[0].0;
    }

    fn give(&mut self, from: usize, to: usize, index: usize) {
        let bit = 1u64 << index;
        self.hands[from] &= !bit;
        self.hands[to] |= bit;
        self.given[from] |= bit;
        self.received[to] |= bit;
    }

    fn clear_table(&mut self, leader: usize) {
        self.table = None;
        self.locked = false;
        self.passed = 0;
        match self.next_with_cards(leader) {
            Some(seat) => self.to_move = seat,
            None => self.end_game(),
        }
    }

    fn apply_play(&mut self, play: Play) {
        let seat = self.to_move;
        self.hands[seat] &= !play.cards;
        self.played[seat] |= play.cards;
        self.passes_in_a_row = 0;
        if play.revolts() {
            self.revolution = !self.revolution;
        }
        let on_lone_joker = self.table.is_some_and(|(t, _)| t.is_lone_joker());
        if play.is_lone_joker() {
            self.locked = false;
        } else if let Some((table, _)) = &self.table {
            if play.suits != 0 && play.suits == table.suits {
                self.locked = true;
            }
        }
        if self.hands[seat] == 0 {
            self.places.push(seat);
        }
        if self.places.len() + 1 >= self.rules.players {
            self.finish_last();
            return;
        }
        if play.eight || (on_lone_joker && play.is_spade_three()) {
            self.clear_table(seat);
            return;
        }
        self.table = Some((play, seat));
        match self.next_to_act(seat) {
            Some(next) => self.to_move = next,
            None => self.clear_table(seat),
        }
    }

    fn apply_pass(&mut self) {
        let seat = self.to_move;
        self.passed |= 1 << seat;
        self.passes_in_a_row += 1;
        if self.passes_in_a_row >= PASS_LIMIT {
            self.phase = Phase::DrawPlaces;
            return;
        }
        match self.next_to_act(seat) {
            Some(next) => self.to_move = next,
            // Everyone holding cards passed: the last to play leads. On an
            // empty table the lead goes back to the seat that had it, as
            // the official server (tndhms) gives it: everyone passed once,
            // in turn from that seat, so it is the first with cards after
            // the last to pass.
            None => {
                let leader = match self.table {
                    Some((_, owner)) => Some(owner),
                    None => self.next_with_cards(self.after(seat, 1)),
                };
                match leader {
                    Some(leader) => self.clear_table(leader),
                    None => self.end_game(),
                }
            }
        }
    }

    fn finish_last(&mut self) {
        if let Some(last) = (0..self.rules.players).find(|s| !self.places.contains(s)) {
            self.places.push(last);
        }
        self.end_game();
    }

    /// The seats still without a place, in seat order.
    fn unplaced(&self) -> Vec<usize> {
        (0..self.rules.players)
            .filter(|s| !self.places.contains(s))
            .collect()
    }

    /// The `index`-th ordering (in lexicographic order) of `seats`.
    fn ordering(seats: &[usize], index: usize) -> Vec<usize> {
        let mut pool = seats.to_vec();
        let mut rest = index;
        let mut out = Vec::with_capacity(pool.len());
        while !pool.is_empty() {
            let block: usize = (1..pool.len()).product();
            out.push(pool.remove(rest / block));
            rest %= block;
        }
        out
    }

    fn describe_play(action: Action) -> String {
        match catalogue().play(action) {
            None => "pass".into(),
            Some(play) => cards_text(play.cards),
        }
    }
}

impl State for DaihinminState {
    fn turn(&self) -> Turn {
        match self.phase {
            Phase::DrawSeats | Phase::FirstSeat | Phase::Deal | Phase::DrawPlaces => Turn::Chance,
            Phase::Exchange | Phase::Play => Turn::Player(self.to_move),
            Phase::Over => Turn::Terminal,
        }
    }

    fn legal_actions(&self) -> Vec<Action> {
        match self.phase {
            Phase::Play => self.legal_plays(),
            Phase::Exchange => indices(self.hands[self.to_move])
                .map(|i| self.rules.give_base() + i)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        match self.phase {
            Phase::DrawSeats => {
                let count: usize = (1..=self.rules.players).product();
                (0..count).map(|i| (i, 1.0 / count as f64)).collect()
            }
            Phase::FirstSeat => {
                let n = self.rules.players;
                (0..n).map(|s| (s, 1.0 / n as f64)).collect()
            }
            Phase::Deal => {
                let left = self.undealt.count_ones() as f64;
                indices(self.undealt).map(|i| (i, 1.0 / left)).collect()
            }
            Phase::DrawPlaces => {
                let count: usize = (1..=self.unplaced().len()).product();
                (0..count).map(|i| (i, 1.0 / count as f64)).collect()
            }
            _ => Vec::new(),
        }
    }

    fn apply_action(&mut self, action: Action) {
        match self.phase {
            Phase::DrawSeats => {
                let seats: Vec<usize> = (0..self.rules.players).collect();
                self.order = DaihinminState::ordering(&seats, action);
                for (index, &seat) in self.order.iter().enumerate() {
                    self.order_index[seat] = index;
                }
                self.begin_deal();
            }
            Phase::FirstSeat => {
                assert!(action < self.rules.players, "seat {action}");
                self.deal_to = action;
                self.phase = Phase::Deal;
            }
            Phase::Deal => {
                let bit = 1u64 << action;
                assert!(
                    action <= JOKER_INDEX && self.undealt & bit != 0,
                    "card {action} is dealt"
                );
                self.undealt &= !bit;
                self.hands[self.deal_to] |= bit;
                self.deal_to = self.after(self.deal_to, 1);
                if self.undealt == 0 {
                    self.after_deal();
                }
            }
            Phase::Exchange => {
                let index = action
                    .checked_sub(self.rules.give_base())
                    .filter(|&i| self.hands[self.to_move] & (1 << i) != 0)
                    .unwrap_or_else(|| panic!("action {action} gives no card held"));
                let (rich, poor) = self.owed.remove(0);
                self.give(rich, poor, index);
                match self.owed.first() {
                    Some(&(next, _)) => self.to_move = next,
                    None => self.start_play(),
                }
            }
            Phase::Play => {
                self.moves.push((self.to_move as u8, action as u16));
                match catalogue().play(action) {
                    None if action == PASS => self.apply_pass(),
                    None => panic!("action {action} is no play"),
                    Some(play) => {
                        assert!(
                            self.can_play(play),
                            "{} is not legal here",
                            DaihinminState::describe_play(action)
                        );
                        self.apply_play(*play);
                    }
                }
            }
            Phase::DrawPlaces => {
                let order = DaihinminState::ordering(&self.unplaced(), action);
                self.places.extend(order);
                self.end_game();
            }
            Phase::Over => panic!("the game is over"),
        }
    }

    fn returns(&self) -> Vec<f64> {
        let n = self.rules.players;
        if self.phase != Phase::Over {
            return vec![0.0; n];
        }
        // Points n, n-1, … 1 a game by place, less their mean: zero-sum.
        let mean = (n + 1) as f64 / 2.0 * self.games_done as f64;
        self.points.iter().map(|p| p - mean).collect()
    }

    fn payoff(&self) -> Payoff {
        Payoff::Fixed(self.returns())
    }

    fn information_state_string(&self, player: usize) -> String {
        let mut out = format!("seat {player} hand {}", cards_text(self.hands[player]));
        if let Some(ranks) = &self.ranks {
            let (received, given) = self.seen_exchange(player);
            let _ = write!(
                out,
                " | ranks {ranks:?} gave {} got {}",
                cards_text(given),
                cards_text(received)
            );
        }
        if self.order.iter().enumerate().any(|(i, &seat)| i != seat) {
            let _ = write!(out, " | order {:?}", self.order);
        }
        let sizes: Vec<u32> = self.hands.iter().map(|h| h.count_ones()).collect();
        let _ = write!(out, " | cards {sizes:?} | places {:?}", self.places);
        let _ = write!(
            out,
            " | table {}{}{} | passed {:05b} | to move {} | moves {}",
            self.table.map_or("-".into(), |(p, s)| format!(
                "{} by {s}",
                cards_text(p.cards)
            )),
            if self.locked { " locked" } else { "" },
            if self.revolution { " revolution" } else { "" },
            self.passed,
            self.to_move,
            self.moves
                .iter()
                .map(|&(seat, action)| format!(
                    "{seat}:{}",
                    DaihinminState::describe_play(usize::from(action))
                ))
                .collect::<Vec<_>>()
                .join(",")
        );
        out
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let seen = Seen {
            hands: &self.hands,
            played: &self.played,
            table: self.table,
            locked: self.locked,
            revolution: self.revolution,
            passed: self.passed,
            places: &self.places,
            to_move: self.to_move,
            order_index: &self.order_index,
            exchanged: self.seen_exchange(player),
            ranks: self.ranks.as_deref(),
        };
        super::tensor::write(&seen, player, out);
    }

    fn clone_box(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn next_episode(&self) -> Option<Box<dyn State>> {
        self.next_in_series()
            .map(|next| Box::new(next) as Box<dyn State>)
    }
}

impl DaihinminState {
    /// The rules it is played under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Cards each seat has played.
    pub fn played(&self) -> &[Cards] {
        &self.played
    }

    /// Cards `seat` received and gave in the exchange.
    pub fn exchanged(&self, seat: usize) -> (Cards, Cards) {
        (self.received[seat], self.given[seat])
    }

    /// What `seat` knows of the exchange: the cards it gave, and those it
    /// received where it can tell them apart. The official server shows
    /// the daifugo and fugo only their hand after the poorest's gifts
    /// came in, so they know what they gave back but not what they got;
    /// the hinmin and daihinmin saw their hand before giving and after
    /// receiving, so they know both.
    pub fn seen_exchange(&self, seat: usize) -> (Cards, Cards) {
        let chose_gifts = self.ranks.as_ref().is_some_and(|ranks| {
            let choosers = if self.rules.players >= 4 { 2 } else { 1 };
            ranks[seat] <= choosers
        });
        let received = if chose_gifts { 0 } else { self.received[seat] };
        (received, self.given[seat])
    }

    /// This state with the cards `seat` cannot see dealt anew: every other
    /// seat keeps as many cards as it holds, and the cards `seat` gave in
    /// the exchange that their receiver has not played; the other unseen
    /// cards go out by `draw(cards, k)` (k of `cards`). What a player that
    /// samples worlds consistent with what it knows plays out.
    pub fn determinized(
        &self,
        seat: usize,
        mut draw: impl FnMut(Cards, usize) -> Cards,
    ) -> DaihinminState {
        let n = self.rules.players;
        let played = self.played.iter().fold(0, |all, &p| all | p);
        let known = self.hands[seat] | played;
        let kept: Vec<Cards> = (0..n)
            .map(|x| {
                if x == seat {
                    0
                } else {
                    self.given[seat] & self.received[x] & !known
                }
            })
            .collect();
        let mut unseen = super::cards::DECK & !known & !kept.iter().fold(0, |a, &k| a | k);
        let mut out = self.clone();
        for x in (0..n).filter(|&x| x != seat) {
            let count = (self.hands[x].count_ones() - kept[x].count_ones()) as usize;
            let drawn = draw(unseen, count);
            unseen &= !drawn;
            out.hands[x] = kept[x] | drawn;
        }
        out
    }

    /// Makes `seat` hold `cards`, as a world guessed for `observer` learns
    /// what `seat` played: each card it lacks is swapped with one of its
    /// other cards from the seat that holds it. Refused (and nothing moved)
    /// where a card is the observer's, already played, or more than `seat`
    /// holds.
    pub fn reveal(&mut self, seat: usize, cards: Cards, observer: usize) -> Result<(), String> {
        let played = self.played.iter().fold(0, |all, &p| all | p);
        if cards & (self.hands[observer] | played) != 0 && seat != observer {
            return Err(format!(
                "{} cannot be seat {seat}'s: seat {observer} holds or saw them played",
                cards_text(cards & (self.hands[observer] | played))
            ));
        }
        if cards.count_ones() > self.hands[seat].count_ones() {
            return Err(format!(
                "seat {seat} holds {} cards, not the {} of {}",
                self.hands[seat].count_ones(),
                cards.count_ones(),
                cards_text(cards)
            ));
        }
        let mut spare = indices(self.hands[seat] & !cards);
        for card in indices(cards & !self.hands[seat]) {
            let bit = 1u64 << card;
            let holder = (0..self.rules.players)
                .find(|&h| self.hands[h] & bit != 0)
                .ok_or_else(|| format!("{} is in no hand", cards_text(bit)))?;
            let back = 1u64 << spare.next().expect("as many spare cards as missing ones");
            self.hands[holder] = (self.hands[holder] & !bit) | back;
            self.hands[seat] = (self.hands[seat] & !back) | bit;
        }
        Ok(())
    }

    /// This game's ranks from the game before, by seat (1 = daifugo).
    pub fn ranks(&self) -> Option<&[usize]> {
        self.ranks.as_deref()
    }

    /// This state, ending with the game it is in rather than the match's
    /// last (what a playout of this game plays to).
    pub fn ending_after_this_game(mut self) -> DaihinminState {
        self.games_total = self.games_done + 1;
        self
    }

    /// Each seat's points in the games finished so far.
    pub fn points(&self) -> &[f64] {
        &self.points
    }

    /// Games of this episode (a match, or one game of a series) finished
    /// so far.
    pub fn games_done(&self) -> usize {
        self.games_done
    }

    /// Passes (and on a server, refused plays) since the last play.
    pub fn passes_in_a_row(&self) -> usize {
        self.passes_in_a_row
    }

    /// The seats in playing order around the table.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// Whether the richest players are giving cards back.
    pub fn in_exchange(&self) -> bool {
        self.phase == Phase::Exchange
    }

    /// Whose turn it is (in play or the exchange).
    pub fn to_move(&self) -> usize {
        self.to_move
    }
}
