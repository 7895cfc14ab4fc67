//! Head-to-head evaluation, for games past exact exploitability and for
//! comparing players directly: matches in duplicate format (every seating
//! plays every one of a fixed set of deals, so luck cancels), sampled or
//! exact, and leagues of every combination of players.

pub mod control_variate;
pub mod deals;
pub mod play;
pub mod reduced;
pub mod run_out;
pub mod sampled;
pub mod seating;
pub mod stats;
pub mod tabular_player;

use std::time::Instant;

use crate::policy::TabularPolicy;
use crate::public_tree::PublicTree;
use serde::Serialize;

use self::stats::{PlayerResult, Tally};

/// How a match is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `deals` deals drawn from `seed`, every seating on each.
    Sampled {
        /// Deals.
        deals: usize,
        /// Seed of the deals and the actions.
        seed: u64,
    },
    /// Each seating's expected returns, by walking the public tree.
    Exact,
}

/// A match's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// The game.
    pub game: String,
    /// Deals played (0 in exact mode).
    pub deals: usize,
    /// Seatings per deal.
    pub seatings: usize,
    /// Whether the payoffs are exact expectations.
    pub exact: bool,
    /// Games played (sampled mode).
    pub games: usize,
    /// Games per second (sampled mode).
    pub games_per_second: f64,
    /// Each player's result, in the order given.
    pub players: Vec<PlayerResult>,
}

fn big_blind(tree: &PublicTree) -> Option<f64> {
    tree.spec().capabilities().units.big_blind()
}

/// Plays `policies` (one per seat, named `names`) against each other.
pub fn play_match(
    tree: &PublicTree,
    names: &[String],
    policies: &[TabularPolicy],
    mode: Mode,
) -> MatchReport {
    let players = tree.num_players();
    assert_eq!(policies.len(), players, "one player per seat");
    let seatings = seating::seatings(players);
    let started = Instant::now();
    let (tally, deals, games) = match mode {
        Mode::Exact => (exact(tree, policies, &seatings), 0, 0),
        Mode::Sampled { deals, seed } => (
            sample(tree, policies, &seatings, deals, seed),
            deals,
            deals * seatings.len(),
        ),
    };
    let seconds = started.elapsed().as_secs_f64();
    MatchReport {
        game: tree.spec().to_string(),
        deals,
        seatings: seatings.len(),
        exact: mode == Mode::Exact,
        games,
        games_per_second: games as f64 / seconds.max(1e-9),
        players: tally.results(names, big_blind(tree)),
    }
}

/// `hero`'s result against a field of `opponent`: `hero` plays every seat
/// in turn with `opponent` in all the others, on each deal of a sampled
/// match (the same seed gives the same deals, so results for different
/// heroes are paired) or exactly.
pub fn play_against(
    tree: &PublicTree,
    hero: &TabularPolicy,
    opponent: &TabularPolicy,
    mode: Mode,
) -> PlayerResult {
    let seats = tree.num_players();
    let seatings: Vec<Vec<usize>> = (0..seats)
        .map(|hero_seat| (0..seats).map(|s| usize::from(s != hero_seat)).collect())
        .collect();
    let policies = [hero.clone(), opponent.clone()];
    let names = ["hero".to_string(), "opponent".to_string()];
    let tally = match mode {
        Mode::Sampled { deals, seed } => sample(tree, &policies, &seatings, deals, seed),
        Mode::Exact => exact(tree, &policies, &seatings),
    };
    tally.results(&names, big_blind(tree)).swap_remove(0)
}

/// Every seating's expected returns, as one deal.
fn exact(tree: &PublicTree, policies: &[TabularPolicy], seatings: &[Vec<usize>]) -> Tally {
    let mut tally = Tally::new(policies.len(), tree.num_players(), 1);
    for seating in seatings {
        let returns = play::expected_returns(tree, policies, seating);
        tally.record(0, seating, &returns);
    }
    tally
}

/// Every seating played on every one of `deals` deals drawn from `seed`;
/// `seating[seat]` indexes `policies`.
fn sample(
    tree: &PublicTree,
    policies: &[TabularPolicy],
    seatings: &[Vec<usize>],
    deals: usize,
    seed: u64,
) -> Tally {
    let seats = tree.num_players();
    let dealt = deals::draw(tree.hands(), seats, deals, seed);
    let mut tally = Tally::new(policies.len(), seats, deals);
    for (d, deal) in dealt.iter().enumerate() {
        for (s, seating) in seatings.iter().enumerate() {
            let mut rng = play::action_rng(seed, d, s);
            let returns = play::play(tree, policies, seating, deal, &mut rng);
            tally.record(d, seating, &returns);
        }
    }
    tally
}
