//! AIVAT's control variate (Burch et al. 2018) for duplicate matches
//! played state by state: at every decision and every chance event, how
//! far the move taken moved each seat's value above the value's
//! expectation over the moves is subtracted from the seat's payoff. Each
//! correction has mean zero whatever the values, so the estimate keeps the
//! expectation; how much luck it removes depends on how good the values
//! are (with exact values, nothing but the expectation is left).
//!
//! The values come from a value function (a network's value head) asked
//! only where it can know them:
//! - at states where a player acts, for the acting seat (a network's value
//!   head learns its seat's value where that seat decides); in a
//!   two-player zero-sum game the other seat's value is its negation, and
//!   elsewhere each seat is asked;
//! - never at a terminal state (its returns are known) nor where no
//!   decision is left (the expected returns over the run-outs are known:
//!   all-in equity);
//! - never between the cards of one chance event (a flop's three cards
//!   are one event): an event's luck is corrected once, from the state
//!   before it to the first state after it, its expectation taken over
//!   every way it can fall where they are few ([`EXACT_EVENTS`]) and over
//!   [`SAMPLED_EVENTS`] of them, drawn from a stream of its own, otherwise.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::run_out::run_out_value;
use crate::sampling::inverse_cdf;
use crate::{Action, Game, State, Turn};

/// A seat's expected payoff at a state where a player acts, in chips: the
/// control variate's value function (a network's value head).
pub trait ValueFunction {
    /// `seat`'s expected payoff at each of `states` (as far as it can
    /// tell), with `seating[s]` the player in seat `s`. `seat` is the
    /// player to act at every one of them, except in games other than
    /// two-player zero-sum ones, which ask every seat.
    fn values(&mut self, states: &[&dyn State], seat: usize, seating: &[usize]) -> Vec<f64>;
}

/// A chance event's expectation is taken over all the ways it can fall up
/// to this many.
pub const EXACT_EVENTS: usize = 64;
/// The ways sampled where an event has more than [`EXACT_EVENTS`].
pub const SAMPLED_EVENTS: usize = 32;

/// The corrections of one game.
pub struct ControlVariate<'v> {
    value: &'v mut dyn ValueFunction,
    /// Two players, zero-sum: the other seat's value is the negation.
    negate_other: bool,
    seats: usize,
    /// The sampled events' stream.
    rng: ChaCha8Rng,
    /// Run-outs are drawn from `seed` and `deal`'s stream.
    seed: u64,
    deal: usize,
    /// The expected values over the chance event under way, from where
    /// it began.
    event: Option<Vec<f64>>,
    corrections: Vec<f64>,
}

impl<'v> ControlVariate<'v> {
    /// The control variate of deal `deal` of a match seeded `seed`, in
    /// seating `seating` (its index `seating_index`), with `value`'s values.
    pub fn new(
        game: &dyn Game,
        value: &'v mut dyn ValueFunction,
        (seed, deal): (u64, usize),
        seating_index: usize,
    ) -> ControlVariate<'v> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xC0C0_A1A1_7E7E_0B0B);
        rng.set_stream(((deal as u64) << 8) | seating_index as u64);
        let seats = game.num_players();
        ControlVariate {
            value,
            negate_other: seats == 2 && game.is_zero_sum(),
            seats,
            rng,
            seed,
            deal,
            event: None,
            corrections: vec![0.0; seats],
        }
    }

    /// A player at `state` took `taken` of `moves` (with their
    /// probabilities under its policy).
    pub fn decided(
        &mut self,
        state: &dyn State,
        moves: &[(Action, f64)],
        taken: Action,
        seating: &[usize],
    ) {
        let children: Vec<Box<dyn State>> = moves
            .iter()
            .map(|&(m, _)| {
                let mut child = state.clone_box();
                child.apply_action(m);
                child
            })
            .collect();
        let refs: Vec<&dyn State> = children.iter().map(|c| c.as_ref()).collect();
        let values = self.values(&refs, seating);
        let taken = moves
            .iter()
            .position(|&(m, _)| m == taken)
            .expect("the move taken is one of the moves");
        for (seat, correction) in self.corrections.iter_mut().enumerate() {
            let expected: f64 = moves
                .iter()
                .zip(&values)
                .map(|((_, p), v)| p * v[seat])
                .sum();
            *correction += values[taken][seat] - expected;
        }
    }

    /// Chance is about to move at `state`: where this begins an event,
    /// its expectation is taken here. `all_in` is the expected returns
    /// over the run-outs left from `state` where the caller has them
    /// already (the match's all-in equity: the same values, from the same
    /// stream), so that they are not computed again.
    pub fn chance_at(&mut self, state: &dyn State, all_in: Option<&[f64]>, seating: &[usize]) {
        if self.event.is_none() {
            self.event = Some(match all_in {
                Some(expected) => expected.to_vec(),
                None => self.values(&[state], seating).remove(0),
            });
        }
    }

    /// Chance has moved to `state`: where the event is over (a player
    /// acts, or the game has ended), its luck is corrected.
    pub fn chance_moved(&mut self, state: &dyn State, seating: &[usize]) {
        if state.turn() == Turn::Chance {
            return;
        }
        let expected = self.event.take().expect("an event began");
        let now = self.values(&[state], seating).remove(0);
        for ((correction, v), e) in self.corrections.iter_mut().zip(now).zip(expected) {
            *correction += v - e;
        }
    }

    /// Each seat's correction, to subtract from its payoff.
    pub fn corrections(&self) -> &[f64] {
        &self.corrections
    }

    /// Every seat's value at each of `states`: the returns where known,
    /// else the weighted values of the states where a player next acts.
    fn values(&mut self, states: &[&dyn State], seating: &[usize]) -> Vec<Vec<f64>> {
        let mut known = vec![vec![0.0; self.seats]; states.len()];
        // The states where a player acts, each with its weight and the
        // state it stands for.
        let mut deciding: Vec<(Box<dyn State>, f64, usize)> = Vec::new();
        for (i, state) in states.iter().enumerate() {
            for (leaf, weight) in self.leaves(*state) {
                match leaf {
                    Leaf::Known(returns) => {
                        for (k, r) in known[i].iter_mut().zip(returns) {
                            *k += weight * r;
                        }
                    }
                    Leaf::Deciding(at) => deciding.push((at, weight, i)),
                }
            }
        }
        for seat in 0..self.seats {
            // In two-player zero-sum games only where this seat acts;
            // elsewhere every state.
            let asked: Vec<&(Box<dyn State>, f64, usize)> = deciding
                .iter()
                .filter(|(at, _, _)| !self.negate_other || at.turn() == Turn::Player(seat))
                .collect();
            if asked.is_empty() {
                continue;
            }
            let refs: Vec<&dyn State> = asked.iter().map(|(at, _, _)| at.as_ref()).collect();
            let values = self.value.values(&refs, seat, seating);
            for ((_, weight, i), v) in asked.iter().zip(values) {
                known[*i][seat] += weight * v;
                if self.negate_other {
                    known[*i][1 - seat] -= weight * v;
                }
            }
        }
        known
    }

    /// What `state`'s value is made of: its returns (terminal), its
    /// run-outs' expectation (no decision left), itself (a player acts),
    /// or the states where a player next acts after a chance event, each
    /// with its probability (every way the event can fall, or a sample).
    fn leaves(&mut self, state: &dyn State) -> Vec<(Leaf, f64)> {
        match state.turn() {
            Turn::Terminal => return vec![(Leaf::Known(state.returns()), 1.0)],
            Turn::Player(_) => return vec![(Leaf::Deciding(state.clone_box()), 1.0)],
            Turn::Chance => {}
        }
        if let Some(returns) = run_out_value(state, self.seed, self.deal) {
            return vec![(Leaf::Known(returns), 1.0)];
        }
        let mut ways = Vec::new();
        if all_ways(state, 1.0, &mut ways) {
            return ways
                .into_iter()
                .map(|(at, p)| (Leaf::after_event(at), p))
                .collect();
        }
        let weight = 1.0 / SAMPLED_EVENTS as f64;
        (0..SAMPLED_EVENTS)
            .map(|_| {
                let mut at = state.clone_box();
                while at.turn() == Turn::Chance {
                    let outcome = inverse_cdf(self.rng.random::<f64>(), at.chance_outcomes());
                    at.apply_action(outcome);
                }
                (Leaf::after_event(at), weight)
            })
            .collect()
    }
}

/// A part of a state's value.
enum Leaf {
    /// Returns known without the value function.
    Known(Vec<f64>),
    /// A state where a player acts.
    Deciding(Box<dyn State>),
}

impl Leaf {
    /// The state a chance event ended at: a player acts, or the game is
    /// over.
    fn after_event(state: Box<dyn State>) -> Leaf {
        match state.turn() {
            Turn::Player(_) => Leaf::Deciding(state),
            _ => Leaf::Known(state.returns()),
        }
    }
}

/// Every way the chance event at `state` (reached with probability `p`)
/// can fall, pushed to `ways` with its probability; false, leaving `ways`
/// partial, where there are more than [`EXACT_EVENTS`].
fn all_ways(state: &dyn State, p: f64, ways: &mut Vec<(Box<dyn State>, f64)>) -> bool {
    if state.turn() != Turn::Chance {
        ways.push((state.clone_box(), p));
        return ways.len() <= EXACT_EVENTS;
    }
    let outcomes = state.chance_outcomes();
    if outcomes.len() > EXACT_EVENTS {
        return false;
    }
    outcomes.into_iter().all(|(outcome, q)| {
        let mut next = state.clone_box();
        next.apply_action(outcome);
        all_ways(next.as_ref(), p * q, ways)
    })
}
