//! Kuhn poker, as OpenSpiel's `kuhn_poker(players=N)` plays it.
//!
//! N + 1 cards (0 is the lowest), one each to N players after an ante of 1.
//! Players act in turn once: action 0 is pass (check or fold), action 1 is
//! bet (bet or call). Nobody betting ends the hand after N passes, with the
//! highest card taking the pot; after a first bet, every other player gets
//! one chance to call, and the highest card among those who bet or called
//! wins. The information-state string is the private card followed by the
//! betting in `p`/`b` letters, e.g. `"1pb"`.

use std::sync::Arc;

use crate::bots::RuleBot;
use crate::capabilities::{Capabilities, Units};
use crate::spec::{always_playable, int_default, GameInfo, ParamDomain, ParamInfo};
use crate::{Action, Game, GameSpec, Hands, Payoff, State, Turn};

const PASS: Action = 0;
const BET: Action = 1;

/// Kuhn poker's declaration in the registry.
pub(crate) static INFO: GameInfo = GameInfo {
    name: "kuhn_poker",
    description: "Kuhn poker: players + 1 cards, one each, one betting round",
    params: &[ParamInfo {
        name: "players",
        help: "number of players",
        domain: ParamDomain::Int { min: 2, max: 10 },
        default: int_default::<2>,
        default_text: "2",
        in_openspiel: true,
    }],
    check: always_playable,
    build: |spec| Arc::new(KuhnPoker::new(spec.clone())),
    capabilities: |_| Capabilities {
        // The ante is the unit.
        units: Units::Chips { big_blind: 1.0 },
        rules: Some(RuleBot::Kuhn),
        poker_baselines: true,
        ..Capabilities::NONE
    },
    match_params: &[],
};

/// OpenSpiel's `kuhn_poker` with N players.
#[derive(Clone, Debug)]
pub struct KuhnPoker {
    spec: GameSpec,
    players: usize,
}

impl KuhnPoker {
    /// The game of `spec` (a `kuhn_poker` spec).
    pub fn new(spec: GameSpec) -> KuhnPoker {
        let players = spec.int("players") as usize;
        KuhnPoker { spec, players }
    }

    fn cards(&self) -> usize {
        self.players + 1
    }
}

impl Game for KuhnPoker {
    fn spec(&self) -> &GameSpec {
        &self.spec
    }
    fn num_players(&self) -> usize {
        self.players
    }
    fn num_distinct_actions(&self) -> usize {
        2
    }
    fn information_state_tensor_size(&self) -> usize {
        // Player one-hot, card one-hot, two bits per betting action.
        6 * self.players - 1
    }
    fn max_game_length(&self) -> usize {
        2 * self.players - 1
    }
    fn utility_range(&self) -> (f64, f64) {
        (-2.0, 2.0 * (self.players as f64 - 1.0))
    }
    fn is_zero_sum(&self) -> bool {
        true
    }
    fn hands(&self) -> Option<Hands> {
        Some(Hands::Cards {
            cards: self.cards(),
        })
    }
    fn deal(&self, hands: &[usize]) -> Vec<Action> {
        hands.to_vec()
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(KuhnState {
            players: self.players,
            cards: Vec::with_capacity(self.players),
            history: Vec::new(),
        })
    }
}

/// A Kuhn poker position: the dealt cards and the betting so far.
#[derive(Clone, Debug)]
struct KuhnState {
    players: usize,
    cards: Vec<usize>,
    history: Vec<Action>,
}

impl KuhnState {
    /// The first player to bet, if anyone has.
    fn first_bettor(&self) -> Option<usize> {
        self.history.iter().position(|&a| a == BET)
    }

    fn is_terminal(&self) -> bool {
        match self.first_bettor() {
            None => self.history.len() == self.players,
            Some(first) => self.history.len() == self.players + first,
        }
    }

    /// Whether `player` bet or called (OpenSpiel's `DidBet`).
    fn did_bet(&self, player: usize) -> bool {
        match self.first_bettor() {
            None => false,
            Some(first) if player == first => true,
            Some(first) if player > first => self.history[player] == BET,
            Some(_) => self.history.get(self.players + player) == Some(&BET),
        }
    }
}

impl State for KuhnState {
    fn turn(&self) -> Turn {
        if self.cards.len() < self.players {
            Turn::Chance
        } else if self.is_terminal() {
            Turn::Terminal
        } else {
            Turn::Player(self.history.len() % self.players)
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
        let remaining: Vec<usize> = (0..=self.players)
            .filter(|c| !self.cards.contains(c))
            .collect();
        let p = 1.0 / remaining.len() as f64;
        remaining.into_iter().map(|c| (c, p)).collect()
    }

    fn apply_action(&mut self, action: Action) {
        match self.turn() {
            Turn::Chance => {
                assert!(
                    action <= self.players && !self.cards.contains(&action),
                    "kuhn_poker: card {action} cannot be dealt"
                );
                self.cards.push(action);
            }
            Turn::Player(_) => {
                assert!(action <= BET, "kuhn_poker: illegal action {action}");
                self.history.push(action);
            }
            Turn::Terminal => panic!("kuhn_poker: action {action} applied to a finished game"),
        }
    }

    fn returns(&self) -> Vec<f64> {
        if !self.is_terminal() {
            return vec![0.0; self.players];
        }
        self.payoff().returns(&self.cards)
    }

    fn payoff(&self) -> Payoff {
        assert!(
            self.is_terminal(),
            "kuhn_poker: payoff of an unfinished game"
        );
        let bettors: Vec<usize> = (0..self.players).filter(|&p| self.did_bet(p)).collect();
        let contenders = if bettors.is_empty() {
            (0..self.players).collect()
        } else {
            bettors
        };
        let contributions: Vec<f64> = (0..self.players)
            .map(|p| if self.did_bet(p) { 2.0 } else { 1.0 })
            .collect();
        Payoff::Showdown {
            pot: contributions.iter().sum(),
            contributions,
            contenders,
            strength: (0..=self.players as u32).collect(),
        }
    }

    fn information_state_string(&self, player: usize) -> String {
        let mut s = match self.cards.get(player) {
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
        let n = self.players;
        assert_eq!(out.len(), 6 * n - 1, "kuhn_poker tensor size");
        out.fill(0.0);
        out[player] = 1.0;
        if let Some(&card) = self.cards.get(player) {
            out[n + card] = 1.0;
        }
        let betting = 2 * n + 1;
        for (i, &a) in self.history.iter().enumerate() {
            out[betting + 2 * i + a] = 1.0;
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

    fn play(spec: &str, cards: &[usize], actions: &[Action]) -> Box<dyn State> {
        let game = spec.parse::<GameSpec>().unwrap().load();
        let mut state = game.new_initial_state();
        for &c in cards.iter().chain(actions) {
            state.apply_action(c);
        }
        state
    }

    #[test]
    fn two_player_returns_follow_the_rules_by_hand() {
        let kuhn = |cards: [usize; 2], actions: &[Action]| play("kuhn_poker", &cards, actions);
        // K vs J, check-check: showdown for the antes.
        assert_eq!(kuhn([2, 0], &[PASS, PASS]).returns(), vec![1.0, -1.0]);
        // J vs Q, bet-call: Q wins 2.
        assert_eq!(kuhn([0, 1], &[BET, BET]).returns(), vec![-2.0, 2.0]);
        // Bet-fold: the bettor takes the antes whatever the cards.
        assert_eq!(kuhn([0, 2], &[BET, PASS]).returns(), vec![1.0, -1.0]);
        // Check-bet-fold: player 1 takes the antes.
        assert_eq!(kuhn([2, 0], &[PASS, BET, PASS]).returns(), vec![-1.0, 1.0]);
        // Check-bet-call: showdown for 2.
        assert_eq!(kuhn([2, 1], &[PASS, BET, BET]).returns(), vec![2.0, -2.0]);
        assert_eq!(kuhn([2, 1], &[PASS, BET, BET]).turn(), Turn::Terminal);
    }

    #[test]
    fn three_players_bet_once_around_after_the_first_bet() {
        // Cards 3, 1, 2: player 1 bets, player 2 calls, player 0 folds.
        let state = play("kuhn_poker(players=3)", &[3, 1, 2], &[PASS, BET, BET, PASS]);
        assert_eq!(state.turn(), Turn::Terminal);
        // Player 2's card 2 beats player 1's 1; pot 5.
        assert_eq!(state.returns(), vec![-1.0, -2.0, 3.0]);
        // All pass: the highest card (3, player 0) takes 3.
        let state = play("kuhn_poker(players=3)", &[3, 1, 2], &[PASS, PASS, PASS]);
        assert_eq!(state.returns(), vec![2.0, -1.0, -1.0]);
        // Player 2 bets last; players 0 and 1 still act once more.
        let state = play("kuhn_poker(players=3)", &[0, 1, 2], &[PASS, PASS, BET]);
        assert_eq!(state.turn(), Turn::Player(0));
        let state = play(
            "kuhn_poker(players=3)",
            &[0, 1, 2],
            &[PASS, PASS, BET, BET, PASS],
        );
        assert_eq!(state.returns(), vec![-2.0, -1.0, 3.0]);
        assert_eq!(state.information_state_string(1), "1ppbbp");
    }

    #[test]
    fn chance_deals_remaining_cards_uniformly() {
        let mut state = play("kuhn_poker", &[], &[]);
        assert_eq!(state.chance_outcomes().len(), 3);
        state.apply_action(1);
        assert_eq!(state.chance_outcomes(), vec![(0, 0.5), (2, 0.5)]);
        state.apply_action(2);
        assert_eq!(state.turn(), Turn::Player(0));
        assert_eq!(state.information_state_string(1), "2");
    }
}
