//! Liar's Dice, as OpenSpiel's `liars_dice` plays it (two players).
//!
//! Each player rolls `numdice` dice of `dice_sides` faces, seen only by
//! itself (sorted). Players then bid in turn, each bid strictly higher than
//! the last: bid `b < total·sides` claims "at least q dice show face f",
//! with (q, f) = (b / sides + 1, b % sides + 1) under the `reset-face` rule
//! and (b % total + 1, b / total + 1) under `reset-quantity`; the last
//! action id, `total·sides`, calls the previous bid a lie. The highest face
//! is wild. If the dice show at least q matches the bidder wins (+1, −1),
//! otherwise the caller does. The information-state string is the player's
//! dice followed by the bids, e.g. `"25 1-3 2-6 Liar"`.

use std::sync::Arc;

use crate::bots::RuleBot;
use crate::capabilities::Capabilities;
use crate::spec::{
    always_playable, int_default, GameInfo, Given, ParamDomain, ParamInfo, ParamValue,
};
use crate::{Action, Game, GameSpec, Hands, Payoff, State, Turn};

/// Liar's Dice's declaration in the registry.
pub(crate) static INFO: GameInfo = GameInfo {
    name: "liars_dice",
    description: "Liar's Dice: bid on the dice of all players; the highest face is wild",
    params: &[
        ParamInfo {
            name: "players",
            help: "number of players (OpenSpiel allows only 2)",
            domain: ParamDomain::Int { min: 2, max: 2 },
            default: int_default::<2>,
            default_text: "2",
            in_openspiel: true,
        },
        ParamInfo {
            name: "numdice",
            help: "dice per player",
            domain: ParamDomain::Int { min: 1, max: 4 },
            default: int_default::<1>,
            default_text: "1",
            in_openspiel: true,
        },
        ParamInfo {
            name: "dice_sides",
            help: "sides of each die (the highest face is wild)",
            domain: ParamDomain::Int { min: 2, max: 8 },
            default: int_default::<6>,
            default_text: "6",
            in_openspiel: true,
        },
        ParamInfo {
            name: "bidding_rule",
            help: "bid order: reset-face (quantity, then face) or reset-quantity (face, then quantity)",
            domain: ParamDomain::Choice(&["reset-face", "reset-quantity"]),
            default: reset_face,
            default_text: "reset-face",
            in_openspiel: true,
        },
    ],
    check: always_playable,
    build: |spec| Arc::new(LiarsDice::new(spec.clone())),
    capabilities: |_| Capabilities {
        rules: Some(RuleBot::LiarsDice),
        ..Capabilities::NONE
    },
    match_params: &[],
};

fn reset_face(_: &Given) -> ParamValue {
    ParamValue::Str("reset-face".into())
}

/// OpenSpiel's `liars_dice`.
#[derive(Clone, Debug)]
pub struct LiarsDice {
    spec: GameSpec,
    rules: Rules,
    /// Every hand a player can roll: its dice, sorted.
    hands: Arc<Vec<Vec<u8>>>,
}

/// What every state of one game shares.
#[derive(Clone, Copy, Debug)]
struct Rules {
    players: usize,
    dice: usize,
    sides: usize,
    reset_face: bool,
}

impl Rules {
    fn total_dice(self) -> usize {
        self.players * self.dice
    }

    /// The "Liar" action id.
    fn liar(self) -> Action {
        self.total_dice() * self.sides
    }

    /// (quantity, face) of bid `bid`.
    fn unrank(self, bid: Action) -> (usize, usize) {
        if self.reset_face {
            (bid / self.sides + 1, bid % self.sides + 1)
        } else {
            (bid % self.total_dice() + 1, bid / self.total_dice() + 1)
        }
    }
}

impl LiarsDice {
    /// The game of `spec` (a `liars_dice` spec).
    pub fn new(spec: GameSpec) -> LiarsDice {
        let rules = Rules {
            players: spec.int("players") as usize,
            dice: spec.int("numdice") as usize,
            sides: spec.int("dice_sides") as usize,
            reset_face: spec.word("bidding_rule") == "reset-face",
        };
        LiarsDice {
            hands: Arc::new(sorted_rolls(rules.dice, rules.sides)),
            spec,
            rules,
        }
    }
}

/// Every multiset of `dice` faces from `1..=sides`, each sorted, in
/// lexicographic order.
fn sorted_rolls(dice: usize, sides: usize) -> Vec<Vec<u8>> {
    let mut rolls = vec![Vec::new()];
    for _ in 0..dice {
        rolls = rolls
            .into_iter()
            .flat_map(|roll: Vec<u8>| {
                let from = roll.last().copied().unwrap_or(1);
                (from..=sides as u8).map(move |face| {
                    let mut longer = roll.clone();
                    longer.push(face);
                    longer
                })
            })
            .collect();
    }
    rolls
}

/// The probability of rolling `hand` (sorted) with independent dice: the
/// number of orders it can come in over `sides^dice`.
fn roll_probability(hand: &[u8], sides: usize) -> f64 {
    let mut orders = (1..=hand.len()).product::<usize>() as f64;
    let mut i = 0;
    while i < hand.len() {
        let run = hand[i..].iter().take_while(|&&f| f == hand[i]).count();
        orders /= (1..=run).product::<usize>() as f64;
        i += run;
    }
    orders / (sides as f64).powi(hand.len() as i32)
}

impl Game for LiarsDice {
    fn spec(&self) -> &GameSpec {
        &self.spec
    }
    fn num_players(&self) -> usize {
        self.rules.players
    }
    fn num_distinct_actions(&self) -> usize {
        self.rules.liar() + 1
    }
    fn information_state_tensor_size(&self) -> usize {
        // Player one-hot, one-hot per die, one bit per bid and for "Liar".
        self.rules.players + self.rules.dice * self.rules.sides + self.rules.liar() + 1
    }
    fn max_game_length(&self) -> usize {
        self.rules.liar() + 1
    }
    fn utility_range(&self) -> (f64, f64) {
        (-1.0, 1.0)
    }
    fn is_zero_sum(&self) -> bool {
        true
    }
    fn hands(&self) -> Option<Hands> {
        Some(Hands::Independent {
            probabilities: self
                .hands
                .iter()
                .map(|h| roll_probability(h, self.rules.sides))
                .collect(),
        })
    }
    fn deal(&self, hands: &[usize]) -> Vec<Action> {
        hands
            .iter()
            .flat_map(|&h| self.hands[h].iter().map(|&face| usize::from(face) - 1))
            .collect()
    }
    fn new_initial_state(&self) -> Box<dyn State> {
        Box::new(LiarsDiceState {
            rules: self.rules,
            hands: self.hands.clone(),
            dice: vec![Vec::new(); self.rules.players],
            bids: Vec::new(),
        })
    }
}

#[derive(Clone, Debug)]
struct LiarsDiceState {
    rules: Rules,
    /// The game's hands (shared, not copied per state).
    hands: Arc<Vec<Vec<u8>>>,
    /// Each player's dice, sorted once all are rolled.
    dice: Vec<Vec<u8>>,
    bids: Vec<Action>,
}

impl LiarsDiceState {
    fn rules(&self) -> Rules {
        self.rules
    }

    /// Which hand these sorted dice are.
    fn hand_index(&self, dice: &[u8]) -> usize {
        self.hands
            .iter()
            .position(|h| h.as_slice() == dice)
            .expect("a sorted roll is a hand")
    }

    /// The player rolling next, while dice remain to be rolled.
    fn roller(&self) -> Option<usize> {
        self.dice.iter().position(|d| d.len() < self.rules().dice)
    }

    fn is_terminal(&self) -> bool {
        self.bids.last() == Some(&self.rules().liar())
    }

    /// Whether the dice show at least `quantity` of `face` (wilds count).
    fn bid_holds(rules: Rules, hands: [&[u8]; 2], quantity: usize, face: usize) -> bool {
        let matches = hands
            .iter()
            .flat_map(|h| h.iter())
            .filter(|&&d| usize::from(d) == face || usize::from(d) == rules.sides)
            .count();
        matches >= quantity
    }
}

impl State for LiarsDiceState {
    fn turn(&self) -> Turn {
        if self.roller().is_some() {
            Turn::Chance
        } else if self.is_terminal() {
            Turn::Terminal
        } else {
            Turn::Player(self.bids.len() % self.rules().players)
        }
    }

    fn legal_actions(&self) -> Vec<Action> {
        if !matches!(self.turn(), Turn::Player(_)) {
            return Vec::new();
        }
        let liar = self.rules().liar();
        let first = self.bids.last().map_or(0, |b| b + 1);
        let mut actions: Vec<Action> = (first..liar).collect();
        if !self.bids.is_empty() {
            actions.push(liar);
        }
        actions
    }

    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        if self.turn() != Turn::Chance {
            return Vec::new();
        }
        let sides = self.rules().sides;
        (0..sides).map(|face| (face, 1.0 / sides as f64)).collect()
    }

    fn apply_action(&mut self, action: Action) {
        match self.turn() {
            Turn::Chance => {
                let sides = self.rules().sides;
                assert!(action < sides, "liars_dice: no face {}", action + 1);
                let roller = self.roller().expect("a chance move rolls a die");
                self.dice[roller].push(action as u8 + 1);
                if self.roller().is_none() {
                    for dice in &mut self.dice {
                        dice.sort_unstable();
                    }
                }
            }
            Turn::Player(_) => {
                assert!(
                    self.legal_actions().contains(&action),
                    "liars_dice: illegal action {action}"
                );
                self.bids.push(action);
            }
            Turn::Terminal => panic!("liars_dice: action {action} applied to a finished game"),
        }
    }

    fn returns(&self) -> Vec<f64> {
        if !self.is_terminal() {
            return vec![0.0; self.rules().players];
        }
        let hands: Vec<usize> = self.dice.iter().map(|d| self.hand_index(d)).collect();
        self.payoff().returns(&hands)
    }

    fn payoff(&self) -> Payoff {
        assert!(
            self.is_terminal(),
            "liars_dice: payoff of an unfinished game"
        );
        let rules = self.rules();
        let players = rules.players;
        let caller = (self.bids.len() - 1) % players;
        let bidder = (self.bids.len() - 2) % players;
        let (quantity, face) = rules.unrank(self.bids[self.bids.len() - 2]);
        let hands: &[Vec<u8>] = &self.hands;
        let mut player0 = Vec::with_capacity(hands.len() * hands.len());
        for h0 in hands {
            for h1 in hands {
                let winner = if Self::bid_holds(rules, [h0, h1], quantity, face) {
                    bidder
                } else {
                    caller
                };
                player0.push(if winner == 0 { 1.0 } else { -1.0 });
            }
        }
        Payoff::Table {
            hands: hands.len(),
            player0,
        }
    }

    fn information_state_string(&self, player: usize) -> String {
        let rules = self.rules();
        // A die not rolled yet prints as OpenSpiel's -1.
        let mut s: String = (0..rules.dice)
            .map(|i| match self.dice[player].get(i) {
                Some(d) => char::from(b'0' + d).to_string(),
                None => "-1".to_string(),
            })
            .collect();
        for &bid in &self.bids {
            if bid == rules.liar() {
                s.push_str(" Liar");
            } else {
                let (quantity, face) = rules.unrank(bid);
                s.push_str(&format!(" {quantity}-{face}"));
            }
        }
        s
    }

    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        let rules = self.rules();
        assert_eq!(
            out.len(),
            rules.players + rules.dice * rules.sides + rules.liar() + 1,
            "liars_dice tensor size"
        );
        out.fill(0.0);
        out[player] = 1.0;
        for (d, &face) in self.dice[player].iter().enumerate() {
            out[rules.players + d * rules.sides + usize::from(face) - 1] = 1.0;
        }
        let bids = rules.players + rules.dice * rules.sides;
        for &bid in &self.bids {
            out[bids + bid] = 1.0;
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

    fn game(spec: &str) -> LiarsDice {
        LiarsDice::new(spec.parse().unwrap())
    }

    fn play(spec: &str, actions: &[Action]) -> Box<dyn State> {
        let mut state = game(spec).new_initial_state();
        for &a in actions {
            state.apply_action(a);
        }
        state
    }

    #[test]
    fn hands_are_sorted_rolls_with_their_probabilities() {
        let two = game("liars_dice(numdice=2,dice_sides=3)");
        assert_eq!(
            *two.hands,
            [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]].map(|h| h.to_vec())
        );
        let Some(Hands::Independent { probabilities }) = two.hands() else {
            panic!("dice are independent");
        };
        assert_eq!(
            probabilities,
            [
                1.0 / 9.0,
                2.0 / 9.0,
                2.0 / 9.0,
                1.0 / 9.0,
                2.0 / 9.0,
                1.0 / 9.0
            ]
        );
        assert_eq!(two.deal(&[1, 5]), vec![0, 1, 2, 2]);
    }

    #[test]
    fn the_bidder_wins_when_the_dice_hold_the_bid_counting_wilds() {
        // Dice 2 (player 0) and 6 (player 1, wild). Bids: 1-2 (id 1),
        // 2-2 (id 7), then Liar (12): two dice count as 2s, player 1 bid.
        let state = play("liars_dice", &[1, 5, 1, 7, 12]);
        assert_eq!(state.turn(), Turn::Terminal);
        assert_eq!(state.returns(), vec![-1.0, 1.0]);
        assert_eq!(state.information_state_string(0), "2 1-2 2-2 Liar");
        // 2-3 (id 8) is a lie: only the wild matches.
        let state = play("liars_dice", &[1, 5, 1, 8, 12]);
        assert_eq!(state.returns(), vec![1.0, -1.0]);
    }

    #[test]
    fn reset_quantity_orders_bids_by_face_first() {
        let rules = game("liars_dice(bidding_rule=reset-quantity)").rules;
        assert_eq!(rules.unrank(0), (1, 1));
        assert_eq!(rules.unrank(1), (2, 1));
        assert_eq!(rules.unrank(2), (1, 2));
        assert_eq!(rules.unrank(11), (2, 6));
    }
}
