//! The UECda standard player (the competition's "default" client), as its
//! rules read:
//!
//! * leading: its longest sequence, else its largest group, else its
//!   lowest single, the lowest of each first;
//! * following: the lowest play of the table's kind that beats it, a
//!   single only from a card in no group or sequence of its hand; else
//!   pass;
//! * in the exchange: its lowest cards, never the joker;
//! * under a revolution "lowest" means weakest: the highest ranks.
//!
//! It keeps the joker out of groups and sequences, and plays it alone
//! only when it holds nothing else to lead with.

use crate::daihinmin::cards::{card, exchange_strength, indices, Cards, JOKER, RANKS, SUITS};
use crate::daihinmin::plays::{catalogue, Kind, Play, PASS};
use crate::daihinmin::state::DaihinminState;
use crate::headtohead::sampled::Player;
use crate::{Action, State};

/// The standard player.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultPlayer;

impl Player for DefaultPlayer {
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
        let state = state
            .as_any()
            .downcast_ref::<DaihinminState>()
            .expect("the default player plays Daihinmin");
        let chosen = choose(state, legal);
        legal.iter().map(|&a| f64::from(a == chosen)).collect()
    }
}

/// The cards of `hand` that belong to a group (two or more of a rank) or
/// a sequence (three or more consecutive ranks of a suit), the joker
/// apart.
fn bound(hand: Cards) -> Cards {
    let mut out = 0;
    for rank in 0..RANKS {
        let of_rank = hand & (0b1111 << (rank * SUITS));
        if of_rank.count_ones() >= 2 {
            out |= of_rank;
        }
    }
    for suit in 0..SUITS {
        let mut run: Vec<usize> = Vec::new();
        for rank in 0..=RANKS {
            if rank < RANKS && hand & card(rank, suit) != 0 {
                run.push(rank);
                continue;
            }
            if run.len() >= 3 {
                out |= run.iter().map(|&r| card(r, suit)).sum::<Cards>();
            }
            run.clear();
        }
    }
    out
}

/// The `count` weakest cards of `hand` (by rank, then ♣ < ♦ < ♥ < ♠), the
/// joker only when nothing else is left: what the standard player gives in
/// the exchange.
pub fn weakest_cards(hand: Cards, count: usize) -> Cards {
    let mut order: Vec<usize> = indices(hand).collect();
    order.sort_by_key(|&i| exchange_strength(i));
    order.iter().take(count).fold(0, |all, &i| all | 1 << i)
}

/// The standard player's move among `legal` at `state`.
pub fn choose(state: &DaihinminState, legal: &[Action]) -> Action {
    let seat = state.to_move();
    let hand = state.hands()[seat];
    if state.in_exchange() {
        // Its weakest card, never the joker (the strongest of all).
        let weakest = weakest_cards(hand, 1).trailing_zeros() as usize;
        return state.rules().give_base() + weakest;
    }
    let revolution = state.revolution();
    // Lower is weaker, to be played first.
    let weakness = |p: &Play| {
        if revolution {
            -i32::from(p.high)
        } else {
            i32::from(p.low)
        }
    };
    let plays: Vec<(Action, &Play)> = legal
        .iter()
        .filter_map(|&a| catalogue().play(a).map(|p| (a, p)))
        .filter(|(_, p)| p.cards & JOKER == 0)
        .collect();
    let lowest = |kind: Kind, longest: bool| {
        plays
            .iter()
            .filter(|(_, p)| p.kind == kind)
            .min_by_key(|(_, p)| {
                let size = if longest { -i32::from(p.size) } else { 0 };
                (size, weakness(p))
            })
            .map(|&(a, _)| a)
    };
    match state.table() {
        None => lowest(Kind::Sequence, true)
            .or_else(|| lowest(Kind::Group, true))
            .or_else(|| lowest(Kind::Single, false))
            .or_else(|| legal.iter().copied().find(|&a| a != PASS))
            .unwrap_or(PASS),
        Some((table, _)) if table.kind == Kind::Single => {
            let loose = hand & !bound(hand);
            plays
                .iter()
                .filter(|(_, p)| p.cards & loose != 0)
                .min_by_key(|(_, p)| weakness(p))
                .map_or(PASS, |&(a, _)| a)
        }
        Some((table, _)) => lowest(table.kind, false).unwrap_or(PASS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daihinmin::{parse_cards, Daihinmin};
    use crate::GameSpec;

    fn dealt(hands: [&str; 5], to_move: usize) -> DaihinminState {
        let game = Daihinmin::new("daihinmin".parse::<GameSpec>().unwrap());
        let hands = hands.iter().map(|h| parse_cards(h).unwrap()).collect();
        DaihinminState::from_hands(game.rules(), hands, to_move)
    }

    fn chosen(state: &DaihinminState) -> String {
        let action = choose(state, &state.legal_actions());
        catalogue()
            .play(action)
            .map_or("pass".into(), |p| crate::daihinmin::cards_text(p.cards))
    }

    #[test]
    fn it_leads_its_longest_sequence_else_largest_group_else_lowest_single() {
        let filler = ["9S", "9H", "9D", "9C"];
        let hand = |h| [h, filler[0], filler[1], filler[2], filler[3]];
        assert_eq!(
            chosen(&dealt(hand("3S 4S 5S 6S 7D 7H 7C KH"), 0)),
            "3S 4S 5S 6S"
        );
        assert_eq!(chosen(&dealt(hand("4S 4H 7D 7H 7C KH"), 0)), "7H 7D 7C");
        assert_eq!(chosen(&dealt(hand("4S 5H 2C JK"), 0)), "4S");
        assert_eq!(chosen(&dealt(hand("JK"), 0)), "JK");
    }

    #[test]
    fn it_follows_with_the_lowest_loose_card_that_beats_the_table() {
        let mut state = dealt(["6S 3C", "5H 5D 7C 9H", "TS", "JS", "QS"], 0);
        state.apply_action(catalogue_single("6S"));
        // Seat 1 keeps its pair of fives (not above 6 anyway) and plays 7C
        // rather than 9H.
        assert_eq!(chosen(&state), "7C");
        // A card of a group is kept: only 5s above… none: pass.
        let mut state = dealt(["4S 3C", "5H 5D 2S 2H", "TS", "JS", "QS"], 0);
        state.apply_action(catalogue_single("4S"));
        assert_eq!(chosen(&state), "pass");
    }

    fn catalogue_single(text: &str) -> Action {
        let cards = parse_cards(text).unwrap();
        catalogue()
            .plays()
            .find(|(_, p)| p.kind == Kind::Single && p.cards == cards)
            .unwrap()
            .0
    }

    #[test]
    fn under_a_revolution_lowest_means_highest() {
        let mut state = dealt(["4S 4H 4D 4C 3C", "5H KD", "TS", "JS", "QS"], 0);
        state.apply_action(
            catalogue()
                .plays()
                .find(|(_, p)| p.cards == parse_cards("4S 4H 4D 4C").unwrap())
                .unwrap()
                .0,
        );
        assert!(state.revolution());
        for _ in 1..5 {
            state.apply_action(PASS);
        }
        state.apply_action(PASS);
        // Seat 0 leads its last card; seat 1 answers 3C with… nothing
        // beats a 3 under a revolution.
        state.apply_action(catalogue_single("3C"));
        assert_eq!(chosen(&state), "pass");
        // Leading under a revolution, it plays its weakest: the king.
        let mut lead = dealt(["4S 4H 4D 4C", "5H KD", "TS", "JS", "QS"], 0);
        lead.apply_action(
            catalogue()
                .plays()
                .find(|(_, p)| p.cards == parse_cards("4S 4H 4D 4C").unwrap())
                .unwrap()
                .0,
        );
        for _ in 1..5 {
            lead.apply_action(PASS);
        }
        assert!(lead.revolution() && lead.to_move() == 1);
        assert_eq!(chosen(&lead), "KD");
    }

    #[test]
    fn it_gives_its_lowest_cards_in_the_exchange() {
        // Dealt in order from the daifugo (seat 2), which holds 3♠ (card 0)
        // and 3♣ goes elsewhere: it gives 3♠, then 4♥ (card 5).
        let game = Daihinmin::new("daihinmin(ranks=2 5 1 4 3)".parse::<GameSpec>().unwrap());
        let mut state = game.initial_state();
        for card in 0..53 {
            state.apply_action(card);
        }
        let give_base = game.rules().give_base();
        assert_eq!(state.to_move(), 2);
        let first = choose(&state, &state.legal_actions());
        assert_eq!(first, give_base);
        state.apply_action(first);
        assert_eq!(choose(&state, &state.legal_actions()), give_base + 5);
    }
}
