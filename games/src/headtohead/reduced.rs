//! Seed 002's opponent-action abstraction: a player in an n-player Leduc
//! game that holds a strategy computed for k < n players.
//!
//! At each of its decisions the player rewrites the public action sequence
//! of the n-player game into a legal sequence of a k-player game, removing
//! players one at a time ([`remove_player`], seed 002's Algorithm 1), and
//! plays the k-player strategy at the resulting k-player information state
//! (its own private card and the public board kept).
//!
//! Removing player `x` from a sequence, read from the start:
//!
//! * `x`'s actions are skipped, except that a raise by `x` turns the next
//!   kept call of the same round into a raise;
//! * every other action is kept, made a call where it would be illegal in
//!   the smaller game (a fold with no bet to face, a raise past the cap);
//! * while the smaller game has already finished the betting round the real
//!   game is still in, the real actions are skipped until the real round
//!   ends; when the real game deals the board while the smaller game's round
//!   is still open, the smaller game's players check or call until it
//!   closes (the seed leaves this case open; this is the closest legal
//!   sequence);
//! * at the end, actions are taken back while the smaller game has closed
//!   a round the real game has not, and raises are added while the current
//!   round has fewer raises than the real one's.
//!
//! Players are removed one at a time, folded players first; when no other
//! player has folded, the seed picks at random among the others, so the
//! reduced player's probabilities are the average over every such choice.
//! The k-player strategy's probabilities are then read at the state where
//! the player to act holds this player's card; an action it gives that is
//! not legal in the real game counts as a call.

use std::collections::HashMap;

use crate::policy::TabularPolicy;
use crate::public_tree::{Decision, PublicTree};
use crate::{Action, GameSpec, State, Turn};

const FOLD: Action = 0;
const CALL: Action = 1;
const RAISE: Action = 2;

/// One public event of a Leduc game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A player's action.
    Bet {
        /// The acting seat.
        seat: usize,
        /// Fold, call or raise.
        action: Action,
    },
    /// The public card.
    Board(usize),
}

/// `spec` with `players` players (same ranks, starting player 0).
pub fn with_players(spec: &GameSpec, players: usize) -> GameSpec {
    format!("leduc_poker(players={players},ranks={})", spec.int("ranks"))
        .parse()
        .expect("a smaller Leduc game is a valid spec")
}

/// The state of `spec` after dealing `cards` (by seat) and applying
/// `events`, stopping early if an event cannot be applied.
fn replay(spec: &GameSpec, cards: &[usize], events: &[Event]) -> Box<dyn State> {
    let game = spec.load();
    let mut state = game.new_initial_state();
    for card in game.deal(cards) {
        state.apply_action(card);
    }
    for event in events {
        let (Event::Bet { action: a, .. } | Event::Board(a)) = *event;
        let fits = match (state.turn(), event) {
            (Turn::Player(_), Event::Bet { .. }) => state.legal_actions().contains(&a),
            (Turn::Chance, Event::Board(_)) => true,
            _ => false,
        };
        if !fits {
            break;
        }
        state.apply_action(a);
    }
    state
}

/// Distinct cards for `players` seats avoiding `board` (and `own`, given to
/// seat `seat` when given).
fn deal(players: usize, board: Option<usize>, own: Option<(usize, usize)>) -> Vec<usize> {
    let taken = |c: usize| Some(c) == board || own.is_some_and(|(_, card)| card == c);
    let mut free = (0..).filter(move |&c| !taken(c));
    (0..players)
        .map(|seat| match own {
            Some((s, card)) if s == seat => card,
            _ => free.next().expect("cards enough"),
        })
        .collect()
}

fn board_of(events: &[Event]) -> Option<usize> {
    events.iter().find_map(|e| match e {
        Event::Board(card) => Some(*card),
        Event::Bet { .. } => None,
    })
}

/// Raises in the round the sequence ends in.
fn raises_in_last_round(events: &[Event]) -> usize {
    let start = events
        .iter()
        .position(|e| matches!(e, Event::Board(_)))
        .map_or(0, |i| i + 1);
    events[start..]
        .iter()
        .filter(|e| matches!(e, Event::Bet { action: RAISE, .. }))
        .count()
}

/// Seed 002's Algorithm 1: the sequence of a Leduc game of `spec` (m
/// players) with seat `removed` taken out, as a legal sequence of the
/// (m − 1)-player game, its seats those of the smaller game.
pub fn remove_player(spec: &GameSpec, events: &[Event], removed: usize) -> Vec<Event> {
    let smaller = with_players(spec, spec.int("players") as usize - 1);
    let players = smaller.int("players") as usize;
    let board = board_of(events);
    let cards = deal(players, board, None);
    let mut state = replay(&smaller, &cards, &[]);
    let mut out: Vec<Event> = Vec::new();
    let mut next_raise = false;
    let mut real_round = 1;
    for event in events {
        match *event {
            Event::Board(card) => {
                real_round = 2;
                // A removed player's raise does not carry into the next round.
                next_raise = false;
                // The smaller game's round is still open: check or call it
                // closed.
                while let Turn::Player(seat) = state.turn() {
                    state.apply_action(CALL);
                    out.push(Event::Bet { seat, action: CALL });
                }
                if state.turn() == Turn::Chance {
                    state.apply_action(card);
                    out.push(Event::Board(card));
                }
            }
            Event::Bet { seat, action } => {
                // The smaller game has closed this round (or the game):
                // skip until the real game catches up.
                let smaller_round = 1 + out.iter().filter(|e| matches!(e, Event::Board(_))).count();
                let Turn::Player(acting) = state.turn() else {
                    continue;
                };
                if smaller_round > real_round {
                    continue;
                }
                if seat == removed {
                    if action == RAISE {
                        next_raise = true;
                    }
                    continue;
                }
                let mut act = action;
                if act == CALL && next_raise {
                    act = RAISE;
                    next_raise = false;
                }
                if !state.legal_actions().contains(&act) {
                    act = CALL;
                }
                state.apply_action(act);
                out.push(Event::Bet {
                    seat: acting,
                    action: act,
                });
            }
        }
    }
    // The smaller game closed a round the real one has not: take actions
    // back.
    let real_rounds = 1 + events
        .iter()
        .filter(|e| matches!(e, Event::Board(_)))
        .count();
    while !out.is_empty() {
        let state = replay(&smaller, &cards, &out);
        let open_round = matches!(state.turn(), Turn::Player(_));
        let rounds = 1 + out.iter().filter(|e| matches!(e, Event::Board(_))).count();
        if open_round && rounds == real_rounds {
            break;
        }
        out.pop();
    }
    // Fewer raises in the current round than the real game's: add them.
    let wanted = raises_in_last_round(events);
    while raises_in_last_round(&out) < wanted {
        let state = replay(&smaller, &cards, &out);
        match state.turn() {
            Turn::Player(seat) if state.legal_actions().contains(&RAISE) => out.push(Event::Bet {
                seat,
                action: RAISE,
            }),
            _ => break,
        }
    }
    out
}

/// Seats other than `own` that folded in `events`.
fn folded(events: &[Event], own: usize) -> Vec<usize> {
    let mut seats: Vec<usize> = events
        .iter()
        .filter_map(|e| match *e {
            Event::Bet { seat, action: FOLD } if seat != own => Some(seat),
            _ => None,
        })
        .collect();
    seats.sort_unstable();
    seats.dedup();
    seats
}

/// Every way of reducing `events` of `spec` to `players` players by
/// removing one player at a time (folded ones first, else any other than
/// `own`, each choice equally likely): (probability, sequence, own seat).
pub fn reductions(
    spec: &GameSpec,
    events: &[Event],
    own: usize,
    players: usize,
) -> Vec<(f64, Vec<Event>, usize)> {
    let m = spec.int("players") as usize;
    if m <= players {
        return vec![(1.0, events.to_vec(), own)];
    }
    let folded = folded(events, own);
    let candidates: Vec<usize> = if folded.is_empty() {
        (0..m).filter(|&s| s != own).collect()
    } else {
        folded
    };
    let smaller = with_players(spec, m - 1);
    let share = 1.0 / candidates.len() as f64;
    candidates
        .into_iter()
        .flat_map(|x| {
            let rewritten = remove_player(spec, events, x);
            let own = own - usize::from(own > x);
            reductions(&smaller, &rewritten, own, players)
                .into_iter()
                .map(move |(p, e, o)| (p * share, e, o))
        })
        .collect()
}

/// A k-player strategy read from an OpenSpiel policy file: probabilities by
/// information-state string, over that state's legal actions.
pub type Strategy = HashMap<String, Vec<(Action, f64)>>;

/// The reduced player over the n-player `tree` of a k-player policy
/// `small_policy` over `small_tree`: at every information state, the
/// probabilities [`probabilities`] gives.
pub fn reduced_policy(
    tree: &PublicTree,
    small_tree: &PublicTree,
    small_policy: &TabularPolicy,
) -> TabularPolicy {
    let strategy: Strategy = small_tree
        .info_states()
        .map(|(d, hand)| {
            let pairs = d
                .legal_actions
                .iter()
                .copied()
                .zip(small_policy.probs()[d.slots(hand)].iter().copied())
                .collect();
            (small_tree.info_state_string(d, hand), pairs)
        })
        .collect();
    let (spec, small) = (tree.spec(), small_tree.spec());
    let mut probs = TabularPolicy::uniform(tree).probs().to_vec();
    for decision in tree.decisions() {
        let events = events(tree, decision);
        for hand in (0..tree.num_hands()).filter(|&h| tree.is_possible(decision, h)) {
            let p = probabilities(
                spec,
                small,
                &strategy,
                &events,
                decision.player,
                hand,
                &decision.legal_actions,
            );
            probs[decision.slots(hand)].copy_from_slice(&p);
        }
    }
    TabularPolicy::from_slots(tree, probs).expect("one probability per slot")
}

/// The public events on the way to `decision`, with the seat of every
/// action.
fn events(tree: &PublicTree, decision: &Decision) -> Vec<Event> {
    let game = tree.game();
    let public = tree.public_cards(decision.node as usize);
    let deal: Vec<usize> = (0..)
        .filter(|&c: &usize| public & (1 << c) == 0)
        .take(tree.num_players())
        .collect();
    let mut state = game.new_initial_state();
    for action in game.deal(&deal) {
        state.apply_action(action);
    }
    tree.path(decision.node as usize)
        .into_iter()
        .map(|action| {
            let event = match state.turn() {
                Turn::Player(seat) => Event::Bet { seat, action },
                _ => Event::Board(action),
            };
            state.apply_action(action);
            event
        })
        .collect()
}

/// The reduced player's probabilities over `legal` (the real game's legal
/// actions) at the real state described by `events`, `own` seat and card,
/// with `strategy` for the game `small` (k players).
pub fn probabilities(
    spec: &GameSpec,
    small: &GameSpec,
    strategy: &Strategy,
    events: &[Event],
    own: usize,
    card: usize,
    legal: &[Action],
) -> Vec<f64> {
    let k = small.int("players") as usize;
    let mut probs = vec![0.0; legal.len()];
    let mut add = |action: Action, p: f64| {
        let target = if legal.contains(&action) {
            action
        } else {
            CALL
        };
        let i = legal
            .iter()
            .position(|&a| a == target)
            .expect("call is always legal");
        probs[i] += p;
    };
    for (weight, reduced, _) in reductions(spec, events, own, k) {
        // Who acts in the smaller game holds this player's card.
        let probe = replay(small, &deal(k, board_of(&reduced), None), &reduced);
        let Turn::Player(acting) = probe.turn() else {
            add(CALL, weight);
            continue;
        };
        let state = replay(
            small,
            &deal(k, board_of(&reduced), Some((acting, card))),
            &reduced,
        );
        match strategy.get(&state.information_state_string(acting)) {
            Some(actions) => {
                for &(a, p) in actions {
                    add(a, weight * p);
                }
            }
            None => add(CALL, weight),
        }
    }
    probs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bet(seat: usize, action: Action) -> Event {
        Event::Bet { seat, action }
    }

    fn spec(text: &str) -> GameSpec {
        text.parse().unwrap()
    }

    #[test]
    fn a_removed_players_raise_turns_the_next_call_into_a_raise() {
        // 3 players: seat 0 checks, seat 1 raises, seat 2 calls; seat 0 (us)
        // to act. Removing seat 1: seat 2's call becomes the raise, and in
        // the 2-player game seat 0 faces it.
        let game = spec("leduc_poker(players=3,ranks=7)");
        let events = [bet(0, CALL), bet(1, RAISE), bet(2, CALL)];
        let reduced = remove_player(&game, &events, 1);
        assert_eq!(reduced, vec![bet(0, CALL), bet(1, RAISE)]);
        let state = replay(&with_players(&game, 2), &deal(2, None, None), &reduced);
        assert_eq!(state.turn(), Turn::Player(0));
        assert_eq!(state.legal_actions(), vec![FOLD, CALL, RAISE]);
    }

    #[test]
    fn folds_with_nothing_to_face_become_calls_and_raises_are_made_up() {
        // 3 players: seat 0 raises, seat 1 folds; seat 2 (us) to act.
        // Removing seat 0: nobody has bet in the smaller game, so seat 1's
        // fold is a check; the real round has one raise and the smaller
        // none, so one is added by the player to act.
        let game = spec("leduc_poker(players=3,ranks=7)");
        let events = [bet(0, RAISE), bet(1, FOLD)];
        let reduced = remove_player(&game, &events, 0);
        assert_eq!(reduced, vec![bet(0, CALL), bet(1, RAISE)]);
    }

    #[test]
    fn rounds_are_reconciled_and_the_board_kept() {
        // 4 players, round 1: seats 0, 1, 2 check, seat 3 raises, seats 0,
        // 1, 2 call; board 5; round 2: seat 0 raises. Removing seat 3 (the
        // only raiser): the 3-player round closes after three checks, the
        // raise makes seat 0's call a raise in the smaller game... which
        // has already closed its round: the real calls are skipped until
        // the board. Round 2 keeps seat 0's raise.
        let game = spec("leduc_poker(players=4,ranks=7)");
        let events = [
            bet(0, CALL),
            bet(1, CALL),
            bet(2, CALL),
            bet(3, RAISE),
            bet(0, CALL),
            bet(1, CALL),
            bet(2, CALL),
            Event::Board(5),
            bet(0, RAISE),
        ];
        let reduced = remove_player(&game, &events, 3);
        assert_eq!(
            reduced,
            vec![
                bet(0, CALL),
                bet(1, CALL),
                bet(2, CALL),
                Event::Board(5),
                bet(0, RAISE)
            ]
        );
        // The smaller game ends where the real one is: round 2, one raise,
        // a player to act.
        let smaller = with_players(&game, 3);
        let state = replay(&smaller, &deal(3, Some(5), None), &reduced);
        assert!(matches!(state.turn(), Turn::Player(1)));
    }

    #[test]
    fn raises_are_added_until_the_round_has_as_many_as_the_real_one() {
        // 3 players: seat 0 raises, seat 1 raises, seat 2 to act. Removing
        // seat 0: seat 1's raise is seat 0's in the smaller game; the real
        // round has two raises, so one more is added (by the smaller game's
        // seat 1, the real seat 2's counterpart who is to act next).
        let game = spec("leduc_poker(players=3,ranks=7)");
        let events = [bet(0, RAISE), bet(1, RAISE)];
        let reduced = remove_player(&game, &events, 0);
        assert_eq!(reduced, vec![bet(0, RAISE), bet(1, RAISE)]);
        let smaller = with_players(&game, 2);
        let state = replay(&smaller, &deal(2, None, None), &reduced);
        assert_eq!(
            state.legal_actions(),
            vec![FOLD, CALL],
            "two raises: the cap"
        );
    }

    #[test]
    fn six_players_reduce_to_two_removing_folded_players_first() {
        // 6 players: seat 0 raises, seats 1 to 4 fold, seat 5 (us) to act.
        let game = spec("leduc_poker(players=6,ranks=7)");
        let events = [
            bet(0, RAISE),
            bet(1, FOLD),
            bet(2, FOLD),
            bet(3, FOLD),
            bet(4, FOLD),
        ];
        let all = reductions(&game, &events, 5, 2);
        let total: f64 = all.iter().map(|(p, _, _)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        // Every path removes the four folders: the raiser and us remain,
        // the raise stands, and we face it.
        for (_, reduced, own) in &all {
            assert_eq!(reduced, &vec![bet(0, RAISE)], "{all:?}");
            assert_eq!(*own, 1);
            let state = replay(&with_players(&game, 2), &deal(2, None, None), reduced);
            assert_eq!(state.turn(), Turn::Player(1));
            assert_eq!(state.legal_actions(), vec![FOLD, CALL, RAISE]);
        }
    }
}
