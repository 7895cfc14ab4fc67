//! Leduc poker, as OpenSpiel's `leduc_poker` plays it with default parameters.
//!
//! Six cards: ids 0..6, rank `id / 2` (J, Q, K), two suits. Both players ante
//! 1 and get one private card; a betting round (raises of 2) follows, then a
//! public card and a second betting round (raises of 4); at most two raises
//! per round. Action ids: 0 fold, 1 call/check, 2 raise/bet. A pair with the
//! public card beats any unpaired hand; otherwise the higher card wins and
//! equal ranks split the pot.
//!
//! The state keeps OpenSpiel's bookkeeping (stakes, calls and raises in the
//! round, the acting player as OpenSpiel stores it) so that the
//! information-state string comes out byte-identical.

use super::{Action, Game, GameName, State, Turn};

const NUM_PLAYERS: usize = 2;
const NUM_CARDS: usize = 6;
const FOLD: Action = 0;
const CALL: Action = 1;
const RAISE: Action = 2;
const ANTE: i32 = 1;
const STARTING_MONEY: i32 = 100;
const MAX_RAISES: u8 = 2;
/// OpenSpiel's `MaxBetsPerRound`: `3 * num_players - 2`.
const MAX_BETS_PER_ROUND: usize = 3 * NUM_PLAYERS - 2;
const MAX_GAME_LENGTH: usize = 2 * MAX_BETS_PER_ROUND;
/// Player one-hot, private card, public card, two rounds of two-bit actions.
const TENSOR_SIZE: usize = NUM_PLAYERS + 2 * NUM_CARDS + 2 * MAX_GAME_LENGTH;
/// OpenSpiel's `kInvalidCard`, printed for a card not dealt yet.
const INVALID_CARD: i32 = -10000;
/// OpenSpiel's id for the chance player, as printed in `[Player: …]`.
const CHANCE_PLAYER: i32 = -1;

/// OpenSpiel's `leduc_poker` with two players.
#[derive(Clone, Copy, Debug, Default)]
pub struct LeducPoker;

impl Game for LeducPoker {
    fn name(&self) -> GameName {
        GameName::LeducPoker
    }
    fn num_players(&self) -> usize {
        NUM_PLAYERS
    }
    fn num_distinct_actions(&self) -> usize {
        3
    }
    fn information_state_tensor_size(&self) -> usize {
        TENSOR_SIZE
    }
    fn max_game_length(&self) -> usize {
        MAX_GAME_LENGTH
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(LeducState::new())
    }
}

/// The betting actions of one round, in order.
#[derive(Clone, Copy, Debug, Default)]
struct BetSequence {
    actions: [u8; MAX_BETS_PER_ROUND],
    len: usize,
}

impl BetSequence {
    fn push(&mut self, action: Action) {
        self.actions[self.len] = action as u8;
        self.len += 1;
    }

    fn as_slice(&self) -> &[u8] {
        &self.actions[..self.len]
    }

    /// Space-separated action ids, as OpenSpiel's `StrJoin` writes them.
    fn joined(&self) -> String {
        let ids: Vec<String> = self.as_slice().iter().map(u8::to_string).collect();
        ids.join(" ")
    }
}

#[derive(Clone, Debug)]
struct LeducState {
    /// OpenSpiel's `cur_player_`: -1 for chance, else the player to act.
    cur_player: i32,
    num_calls: u8,
    num_raises: u8,
    round: u8,
    stakes: i32,
    pot: i32,
    public_card: i32,
    in_deck: [bool; NUM_CARDS],
    private_cards: [i32; NUM_PLAYERS],
    private_cards_dealt: usize,
    money: [i32; NUM_PLAYERS],
    ante: [i32; NUM_PLAYERS],
    folded: [bool; NUM_PLAYERS],
    rounds: [BetSequence; 2],
}

impl LeducState {
    fn new() -> Self {
        LeducState {
            cur_player: CHANCE_PLAYER,
            num_calls: 0,
            num_raises: 0,
            round: 1,
            stakes: ANTE,
            pot: ANTE * NUM_PLAYERS as i32,
            public_card: INVALID_CARD,
            in_deck: [true; NUM_CARDS],
            private_cards: [INVALID_CARD; NUM_PLAYERS],
            private_cards_dealt: 0,
            money: [STARTING_MONEY - ANTE; NUM_PLAYERS],
            ante: [ANTE; NUM_PLAYERS],
            folded: [false; NUM_PLAYERS],
            rounds: [BetSequence::default(); 2],
        }
    }

    fn remaining_players(&self) -> u8 {
        self.folded.iter().filter(|f| !**f).count() as u8
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

    /// The next player still in the hand after the one acting (or the
    /// starting player, 0, after a chance move).
    fn next_player(&self) -> i32 {
        let from = if self.cur_player == CHANCE_PLAYER {
            NUM_PLAYERS - 1
        } else {
            self.actor()
        };
        (1..=NUM_PLAYERS)
            .map(|i| (from + i) % NUM_PLAYERS)
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
            card < NUM_CARDS && self.in_deck[card],
            "leduc_poker: card {card} is not in the deck"
        );
        self.in_deck[card] = false;
        if self.private_cards_dealt < NUM_PLAYERS {
            self.private_cards[self.private_cards_dealt] = card as i32;
            self.private_cards_dealt += 1;
            if self.private_cards_dealt == NUM_PLAYERS {
                self.cur_player = 0;
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
                let raise = if self.round == 1 { 2 } else { 4 };
                self.stakes += raise;
                self.put_in(player, raise);
                self.num_raises += 1;
                self.num_calls = 0;
            }
            _ => panic!("leduc_poker: illegal action {action}"),
        }
        self.rounds[usize::from(self.round) - 1].push(action);
        self.after_bet();
    }

    /// OpenSpiel's `RankHand`: pairs above every unpaired hand, otherwise by
    /// high card then low card (suits never break ties).
    fn hand_rank(&self, player: usize) -> i32 {
        let (a, b) = (self.public_card, self.private_cards[player]);
        let (low, high) = (a.min(b), a.max(b));
        let n = NUM_CARDS as i32;
        if low % 2 == 0 && high == low + 1 {
            n * n + low
        } else {
            (high / 2) * n + low / 2
        }
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
        (0..NUM_CARDS)
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
            return vec![0.0; NUM_PLAYERS];
        }
        let winners: Vec<usize> = if self.remaining_players() == 1 {
            (0..NUM_PLAYERS).filter(|&p| !self.folded[p]).collect()
        } else {
            let best = (0..NUM_PLAYERS).map(|p| self.hand_rank(p)).max();
            (0..NUM_PLAYERS)
                .filter(|&p| Some(self.hand_rank(p)) == best)
                .collect()
        };
        let share = f64::from(self.pot) / winners.len() as f64;
        (0..NUM_PLAYERS)
            .map(|p| {
                let won = if winners.contains(&p) { share } else { 0.0 };
                won - f64::from(self.ante[p])
            })
            .collect()
    }

    fn information_state_string(&self, player: usize) -> String {
        let public = if self.public_card == INVALID_CARD {
            String::new()
        } else {
            format!("[Public: {}]", self.public_card)
        };
        format!(
            "[Observer: {player}][Private: {}][Round {}][Player: {}][Pot: {}][Money: {} {}]{public}[Round1: {}][Round2: {}]",
            self.private_cards[player],
            self.round,
            self.cur_player,
            self.pot,
            self.money[0],
            self.money[1],
            self.rounds[0].joined(),
            self.rounds[1].joined(),
        )
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        assert_eq!(out.len(), TENSOR_SIZE, "leduc_poker tensor size");
        out.fill(0.0);
        out[player] = 1.0;
        let cards = NUM_PLAYERS;
        if let Ok(card) = usize::try_from(self.private_cards[player]) {
            out[cards + card] = 1.0;
        }
        if let Ok(card) = usize::try_from(self.public_card) {
            out[cards + NUM_CARDS + card] = 1.0;
        }
        let betting = cards + 2 * NUM_CARDS;
        for (round, sequence) in self.rounds.iter().enumerate() {
            for (i, &action) in sequence.as_slice().iter().enumerate() {
                let offset = betting + round * 2 * MAX_BETS_PER_ROUND + 2 * i;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(actions: &[Action]) -> Box<dyn State> {
        let mut state = LeducPoker.new_initial_state();
        for &a in actions {
            state.apply_action(a);
        }
        state
    }

    #[test]
    fn fold_in_round_one_loses_the_ante_and_the_call() {
        // Cards J(0) and K(4); P0 checks, P1 bets 2, P0 folds.
        let state = play(&[0, 4, CALL, RAISE, FOLD]);
        assert_eq!(state.turn(), Turn::Terminal);
        assert_eq!(state.returns(), vec![-1.0, 1.0]);
    }

    #[test]
    fn pair_beats_a_higher_card_at_showdown() {
        // P0 J(0), P1 K(4); both check, public J(1) pairs P0; P0 bets 4, P1 calls.
        let state = play(&[0, 4, CALL, CALL, 1, RAISE, CALL]);
        assert_eq!(state.turn(), Turn::Terminal);
        assert_eq!(state.returns(), vec![5.0, -5.0]);
    }

    #[test]
    fn equal_ranks_split_the_pot() {
        // P0 Q(2), P1 Q(3), public K(4): no pair, equal ranks.
        let state = play(&[2, 3, RAISE, CALL, 4, CALL, CALL]);
        assert_eq!(state.returns(), vec![0.0, 0.0]);
    }

    #[test]
    fn two_raises_per_round_at_most_and_fold_only_when_facing_a_bet() {
        let state = play(&[0, 2]);
        assert_eq!(state.legal_actions(), vec![CALL, RAISE]);
        let state = play(&[0, 2, RAISE, RAISE]);
        assert_eq!(state.legal_actions(), vec![FOLD, CALL]);
        assert_eq!(
            state.information_state_string(0),
            "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 8][Money: 97 95][Round1: 2 2][Round2: ]"
        );
    }
}
