//! Kuhn poker, as OpenSpiel's `kuhn_poker` plays it.
//!
//! Three cards (0 = J, 1 = Q, 2 = K), one each to two players after an ante
//! of 1. Action 0 is pass (check or fold), action 1 is bet (bet or call).
//! The information-state string is the private card followed by the betting
//! history in `p`/`b` letters, e.g. `"1pb"`.

use super::{Action, Game, GameName, State, Turn};

const NUM_CARDS: usize = 3;
const NUM_PLAYERS: usize = 2;
const MAX_GAME_LENGTH: usize = 3;
const PASS: Action = 0;
const BET: Action = 1;
/// Player one-hot, card one-hot, then two bits per betting action.
const TENSOR_SIZE: usize = NUM_PLAYERS + NUM_CARDS + 2 * MAX_GAME_LENGTH;

/// OpenSpiel's `kuhn_poker`.
#[derive(Clone, Copy, Debug, Default)]
pub struct KuhnPoker;

impl Game for KuhnPoker {
    fn name(&self) -> GameName {
        GameName::KuhnPoker
    }
    fn num_players(&self) -> usize {
        NUM_PLAYERS
    }
    fn num_distinct_actions(&self) -> usize {
        2
    }
    fn information_state_tensor_size(&self) -> usize {
        TENSOR_SIZE
    }
    fn max_game_length(&self) -> usize {
        MAX_GAME_LENGTH
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(KuhnState::default())
    }
}

/// A Kuhn poker position: the dealt cards and the betting so far.
#[derive(Clone, Debug, Default)]
struct KuhnState {
    cards: [Option<usize>; NUM_PLAYERS],
    history: Vec<Action>,
}

impl KuhnState {
    fn cards_dealt(&self) -> usize {
        self.cards.iter().flatten().count()
    }

    /// How the hand ended, or `None` while it goes on.
    fn outcome(&self) -> Option<Outcome> {
        match self.history.as_slice() {
            [PASS, PASS] => Some(Outcome::Showdown { stake: 1 }),
            [BET, BET] | [PASS, BET, BET] => Some(Outcome::Showdown { stake: 2 }),
            [BET, PASS] => Some(Outcome::Fold { winner: 0 }),
            [PASS, BET, PASS] => Some(Outcome::Fold { winner: 1 }),
            _ => None,
        }
    }
}

enum Outcome {
    Showdown { stake: i32 },
    Fold { winner: usize },
}

impl State for KuhnState {
    fn turn(&self) -> Turn {
        if self.cards_dealt() < NUM_PLAYERS {
            Turn::Chance
        } else if self.outcome().is_some() {
            Turn::Terminal
        } else {
            Turn::Player(self.history.len() % NUM_PLAYERS)
        }
    }

    fn legal_actions(&self) -> Vec<Action> {
        match self.turn() {
            Turn::Player(_) => vec![PASS, BET],
            _ => Vec::new(),
        }
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.turn() != Turn::Chance {
            return Vec::new();
        }
        let remaining: Vec<usize> = (0..NUM_CARDS)
            .filter(|c| !self.cards.contains(&Some(*c)))
            .collect();
        let p = 1.0 / remaining.len() as f64;
        remaining.into_iter().map(|c| (c, p)).collect()
    }

    fn apply_action(&mut self, action: Action) {
        match self.turn() {
            Turn::Chance => {
                assert!(
                    action < NUM_CARDS && !self.cards.contains(&Some(action)),
                    "kuhn_poker: card {action} cannot be dealt"
                );
                let seat = self.cards_dealt();
                self.cards[seat] = Some(action);
            }
            Turn::Player(_) => {
                assert!(action <= BET, "kuhn_poker: illegal action {action}");
                self.history.push(action);
            }
            Turn::Terminal => panic!("kuhn_poker: action {action} applied to a finished game"),
        }
    }

    fn returns(&self) -> Vec<f64> {
        match self.outcome() {
            None => vec![0.0; NUM_PLAYERS],
            Some(Outcome::Fold { winner }) => signed(winner, 1.0),
            Some(Outcome::Showdown { stake }) => {
                let winner = usize::from(self.cards[1] > self.cards[0]);
                signed(winner, f64::from(stake))
            }
        }
    }

    fn information_state_string(&self, player: usize) -> String {
        let mut s = match self.cards[player] {
            Some(card) => card.to_string(),
            None => String::new(),
        };
        s.extend(
            self.history
                .iter()
                .map(|&a| if a == PASS { 'p' } else { 'b' }),
        );
        s
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        assert_eq!(out.len(), TENSOR_SIZE, "kuhn_poker tensor size");
        out.fill(0.0);
        out[player] = 1.0;
        if let Some(card) = self.cards[player] {
            out[NUM_PLAYERS + card] = 1.0;
        }
        for (i, &a) in self.history.iter().enumerate() {
            out[NUM_PLAYERS + NUM_CARDS + 2 * i + a] = 1.0;
        }
    }

    fn clone_box(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }
}

/// Returns where `winner` gains `amount` and the other player loses it.
fn signed(winner: usize, amount: f64) -> Vec<f64> {
    (0..NUM_PLAYERS)
        .map(|p| if p == winner { amount } else { -amount })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(cards: [usize; 2], actions: &[Action]) -> Box<dyn State> {
        let mut state = KuhnPoker.new_initial_state();
        for &c in cards.iter().chain(actions) {
            state.apply_action(c);
        }
        state
    }

    #[test]
    fn returns_follow_the_rules_by_hand() {
        // K vs J, check-check: showdown for the antes.
        assert_eq!(play([2, 0], &[PASS, PASS]).returns(), vec![1.0, -1.0]);
        // J vs Q, bet-call: Q wins 2.
        assert_eq!(play([0, 1], &[BET, BET]).returns(), vec![-2.0, 2.0]);
        // Bet-fold: the bettor takes the antes whatever the cards.
        assert_eq!(play([0, 2], &[BET, PASS]).returns(), vec![1.0, -1.0]);
        // Check-bet-fold: player 1 takes the antes.
        assert_eq!(play([2, 0], &[PASS, BET, PASS]).returns(), vec![-1.0, 1.0]);
        // Check-bet-call: showdown for 2.
        assert_eq!(play([2, 1], &[PASS, BET, BET]).returns(), vec![2.0, -2.0]);
        assert_eq!(play([2, 1], &[PASS, BET, BET]).turn(), Turn::Terminal);
    }

    #[test]
    fn chance_deals_remaining_cards_uniformly() {
        let mut state = KuhnPoker.new_initial_state();
        assert_eq!(state.chance_outcomes().len(), 3);
        state.apply_action(1);
        assert_eq!(state.chance_outcomes(), vec![(0, 0.5), (2, 0.5)]);
        state.apply_action(2);
        assert_eq!(state.turn(), Turn::Player(0));
        assert_eq!(state.information_state_string(1), "2");
    }
}
