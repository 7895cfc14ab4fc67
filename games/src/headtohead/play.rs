//! Playing matches: every seating on every deal, sampled game by game or
//! computed exactly by walking the public tree.
//!
//! Every player is a tabular policy over the game's public tree (the
//! evaluator's `players` turn each kind of player into one), so a game is played by following the public node
//! as moves are made and reading the acting seat's probabilities at
//! (node, its hand). Exact mode gives each seating its expected returns:
//! the on-policy values of the joint policy in which each seat plays its
//! player's policy.

use crate::policy::TabularPolicy;
use crate::public_tree::{NodeKind, PublicTree};
use crate::Turn;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::deals::Deal;
use crate::exploitability::player_values;
use crate::sampling::inverse_cdf;

/// Every seat's return in one game of `deal` with `seating[seat]`
/// playing seat `seat`, actions drawn from `rng`.
pub fn play(
    tree: &PublicTree,
    policies: &[TabularPolicy],
    seating: &[usize],
    deal: &Deal,
    rng: &mut ChaCha8Rng,
) -> Vec<f64> {
    let game = tree.game();
    let mut state = game.new_initial_state();
    for action in game.deal(&deal.hands) {
        state.apply_action(action);
    }
    let mut node = 0;
    let mut public = deal.public.iter();
    loop {
        match state.turn() {
            Turn::Terminal => return state.returns(),
            Turn::Chance => {
                let u = public.next().copied().unwrap_or_else(|| rng.random());
                let outcomes = state.chance_outcomes();
                let pick = inverse_cdf(u, outcomes.iter().enumerate().map(|(i, &(_, p))| (i, p)));
                let card = outcomes[pick].0;
                state.apply_action(card);
                node = tree
                    .children(node)
                    .find(|&child| tree.action_from_parent(child) == card)
                    .expect("every card not yet shown is a child of a chance node");
            }
            Turn::Player(seat) => {
                let NodeKind::Decision(d) = tree.kind(node) else {
                    unreachable!("the public tree follows the game");
                };
                let decision = &tree.decisions()[d as usize];
                let probs = &policies[seating[seat]].probs()[decision.slots(deal.hands[seat])];
                let k = inverse_cdf(rng.random(), probs.iter().copied().enumerate());
                state.apply_action(decision.legal_actions[k]);
                node = tree.children(node).start + k;
            }
        }
    }
}

/// A generator for the actions of one game, distinct for every (deal,
/// seating) and reproducible from the seed.
pub fn action_rng(seed: u64, deal: usize, seating: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5EA7_5EA7_5EA7_5EA7);
    rng.set_stream(((deal as u64) << 20) | seating as u64);
    rng
}

/// Every seat's expected return when `seating[seat]` plays seat `seat`.
pub fn expected_returns(
    tree: &PublicTree,
    policies: &[TabularPolicy],
    seating: &[usize],
) -> Vec<f64> {
    let mut joint = vec![0.0; tree.num_slots()];
    for decision in tree.decisions() {
        let policy = &policies[seating[decision.player]];
        for hand in 0..tree.num_hands() {
            let slots = decision.slots(hand);
            joint[slots.clone()].copy_from_slice(&policy.probs()[slots]);
        }
    }
    let joint = TabularPolicy::from_slots(tree, joint).expect("one probability per slot");
    (0..tree.num_players())
        .map(|seat| player_values(tree, &joint, seat).1)
        .collect()
}
