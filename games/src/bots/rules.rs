//! A simple rule-based player for each game: a baseline that plays
//! sensibly without any learning, reading only what its information state
//! tells it (the information-state tensor and the legal actions).
//!
//! * **Kuhn poker**: with the highest card, bet and call; with a card in the
//!   upper half, check and call; otherwise check and fold.
//! * **Leduc poker**: before the board, raise with a card in the top third
//!   of the ranks, call with the middle third, check or fold with the rest;
//!   after it, raise with a pair, call with a card at least as high as the
//!   board, check or fold otherwise. Where a raise is not allowed it calls.
//! * **Liar's Dice**: counts the dice that would match the current bid
//!   (its own matching dice and wilds, plus the expected share of the
//!   others'); if the bid is more than expected it calls "Liar", otherwise
//!   it makes the smallest higher bid on its most common face (or the
//!   lowest higher bid, if none on that face is believable).

use super::RuleBot;
use crate::policy::TabularPolicy;
use crate::public_tree::PublicTree;
use crate::{Action, GameSpec, State};

const FOLD: Action = 0;
const CALL: Action = 1;
const RAISE: Action = 2;

/// The rule player as a tabular policy over `tree`'s game.
pub fn policy(tree: &PublicTree) -> TabularPolicy {
    TabularPolicy::pure(tree, |decision, state| {
        action(tree.spec(), state, decision.player)
    })
}

/// The rule player's action at `state`, for `player` to act.
pub fn action(spec: &GameSpec, state: &dyn State, player: usize) -> Action {
    let game = spec.load();
    let mut tensor = vec![0.0f32; game.information_state_tensor_size()];
    state.information_state_tensor(player, &mut tensor);
    let legal = state.legal_actions();
    match spec.capabilities().rules {
        Some(RuleBot::Kuhn) => kuhn(spec, &tensor, &legal),
        Some(RuleBot::Leduc) => leduc(spec, &tensor, &legal),
        Some(RuleBot::LiarsDice) => liars_dice(spec, &tensor, &legal),
        other => unreachable!("{spec} has no tabular rules ({other:?})"),
    }
}

/// The set bits of `bits` (a one-hot or many-hot slice).
fn set(bits: &[f32]) -> impl Iterator<Item = usize> + '_ {
    bits.iter()
        .enumerate()
        .filter(|(_, &b)| b == 1.0)
        .map(|(i, _)| i)
}

fn kuhn(spec: &GameSpec, tensor: &[f32], legal: &[Action]) -> Action {
    const PASS: Action = 0;
    const BET: Action = 1;
    let n = spec.int("players") as usize;
    let card = set(&tensor[n..2 * n + 1]).next().expect("a dealt card");
    let facing_bet = set(&tensor[2 * n + 1..]).any(|i| i % 2 == 1);
    debug_assert_eq!(legal, [PASS, BET]);
    if card == n {
        BET
    } else if 2 * card >= n {
        if facing_bet {
            BET
        } else {
            PASS
        }
    } else {
        PASS
    }
}

fn leduc(spec: &GameSpec, tensor: &[f32], legal: &[Action]) -> Action {
    let n = spec.int("players") as usize;
    let ranks = spec.int("ranks") as usize;
    let cards = 2 * ranks;
    let private = set(&tensor[n..n + cards]).next().expect("a dealt card");
    let board = set(&tensor[n + cards..n + 2 * cards]).next();
    let rank = private / 2;
    let raise_or_call = if legal.contains(&RAISE) { RAISE } else { CALL };
    let check_or_fold = if legal.contains(&FOLD) { FOLD } else { CALL };
    match board {
        None => {
            if 3 * rank >= 2 * ranks {
                raise_or_call
            } else if 3 * rank >= ranks {
                CALL
            } else {
                check_or_fold
            }
        }
        Some(board) if board / 2 == rank => raise_or_call,
        Some(board) if rank >= board / 2 => CALL,
        Some(_) => check_or_fold,
    }
}

fn liars_dice(spec: &GameSpec, tensor: &[f32], legal: &[Action]) -> Action {
    let players = spec.int("players") as usize;
    let dice = spec.int("numdice") as usize;
    let sides = spec.int("dice_sides") as usize;
    let total = players * dice;
    let liar = total * sides;
    let reset_face = spec.word("bidding_rule") == "reset-face";
    let unrank = |bid: usize| -> (usize, usize) {
        if reset_face {
            (bid / sides + 1, bid % sides + 1)
        } else {
            (bid % total + 1, bid / total + 1)
        }
    };
    let faces: Vec<usize> = (0..dice)
        .filter_map(|d| set(&tensor[players + d * sides..players + (d + 1) * sides]).next())
        .map(|f| f + 1)
        .collect();
    let bids_at = players + dice * sides;
    let current = set(&tensor[bids_at..bids_at + liar]).last();
    // Expected matches of `face`: own dice showing it or the wild face,
    // plus the others' dice times the chance of either.
    let others = (total - faces.len()) as f64;
    let expected = |face: usize| -> f64 {
        let own = faces.iter().filter(|&&f| f == face || f == sides).count() as f64;
        let chance = if face == sides { 1.0 } else { 2.0 } / sides as f64;
        own + others * chance
    };
    if let Some(bid) = current {
        let (quantity, face) = unrank(bid);
        if quantity as f64 > expected(face) + 0.5 && legal.contains(&liar) {
            return liar;
        }
    }
    let best_face = (1..=sides)
        .max_by(|&a, &b| expected(a).total_cmp(&expected(b)).then(b.cmp(&a)))
        .expect("a die has faces");
    let believable = legal.iter().copied().filter(|&a| a != liar).find(|&a| {
        let (quantity, face) = unrank(a);
        face == best_face && quantity as f64 <= expected(face) + 0.5
    });
    believable.unwrap_or_else(|| {
        if current.is_some() && legal.contains(&liar) {
            liar
        } else {
            legal[0]
        }
    })
}
