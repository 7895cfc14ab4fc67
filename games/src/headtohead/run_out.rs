//! All-in run-outs: where no decision is left before the game's end, the
//! expectation of the returns over the chance moves left (every run-out
//! when they are few, a seeded sample otherwise), which duplicate matches
//! report as all-in equity and the control variate uses as the value of
//! such a state.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::sampling::inverse_cdf;
use crate::{State, Turn};

/// Run-outs averaged exactly up to this many, sampled beyond.
const EXACT_RUN_OUTS: usize = 2_000;
/// Run-outs sampled when there are more than [`EXACT_RUN_OUTS`].
const SAMPLED_RUN_OUTS: usize = 500;

/// How many run-outs the chance moves left from `state` have, if the game
/// goes to its end through chance alone (the players are all in, or
/// everyone but one is); `None` while a decision is still to come.
fn run_outs_left(state: &dyn State) -> Option<usize> {
    let mut count = 1usize;
    let mut probe = state.clone_box();
    loop {
        match probe.turn() {
            Turn::Terminal => return Some(count),
            Turn::Player(_) => return None,
            Turn::Chance => {
                let outcomes = probe.chance_outcomes();
                count = count.saturating_mul(outcomes.len());
                probe.apply_action(outcomes[0].0);
            }
        }
    }
}

/// The expected returns over the `count` run-outs of the chance moves left
/// from `state` (where no decision is left): all of them when they are
/// few, a seeded sample of them otherwise.
fn expected_run_out(state: &dyn State, count: usize, seed: u64, deal: usize) -> Vec<f64> {
    if count <= EXACT_RUN_OUTS {
        return exact_run_out(state);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0E0E_0E0E_0E0E_0E0E);
    rng.set_stream(deal as u64);
    let mut total: Vec<f64> = Vec::new();
    for _ in 0..SAMPLED_RUN_OUTS {
        let mut run = state.clone_box();
        while run.turn() == Turn::Chance {
            let outcome = inverse_cdf(rng.random::<f64>(), run.chance_outcomes());
            run.apply_action(outcome);
        }
        let returns = run.returns();
        total.resize(returns.len(), 0.0);
        for (t, r) in total.iter_mut().zip(returns) {
            *t += r;
        }
    }
    total.iter().map(|t| t / SAMPLED_RUN_OUTS as f64).collect()
}

/// The expectation of the returns over every chance move left.
fn exact_run_out(state: &dyn State) -> Vec<f64> {
    if state.turn() != Turn::Chance {
        return state.returns();
    }
    let outcomes = state.chance_outcomes();
    let mut total = Vec::new();
    for (outcome, p) in outcomes {
        let mut child = state.clone_box();
        child.apply_action(outcome);
        let values = exact_run_out(child.as_ref());
        total.resize(values.len(), 0.0);
        for (t, v) in total.iter_mut().zip(values) {
            *t += p * v;
        }
    }
    total
}

/// The expected returns over the run-outs left from `state` where no
/// decision is left (sampled ones drawn from `seed` and `deal`'s own
/// stream); none while a decision is still to come.
pub fn run_out_value(state: &dyn State, seed: u64, deal: usize) -> Option<Vec<f64>> {
    run_outs_left(state).map(|count| expected_run_out(state, count, seed, deal))
}
