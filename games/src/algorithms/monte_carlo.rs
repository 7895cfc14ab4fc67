//! Seed 003's Monte-Carlo players: for each legal move, playouts to the
//! end of the game with the unseen cards dealt at random and every player
//! then moving uniformly at random, the playouts shared among the moves by
//! an allocation rule, and the move with the best mean points played.
//!
//! The unseen cards (not in the player's hand and never played) are dealt
//! to the other seats in the numbers they hold, except that a card the
//! player gave in the exchange and its receiver has not played stays with
//! the receiver. In the exchange itself the players give as the default
//! player does.
//!
//! Allocations, over K legal moves and N playouts a decision:
//!
//! * `random-sampling`: each playout's move drawn uniformly at random
//!   (N/K a move on average; seed 003's definition, ε-greedy at x = 1);
//! * `epsilon`: ε-greedy with ε_n = min(1, cK / (d² n)) at the n-th
//!   playout (Auer et al.'s ε_n-greedy): with probability ε_n a move at
//!   random, else the best so far. Its parameter is x = cK/N, the form
//!   seed 003 varies over 0 … 1 (its best, c = N/(2K) and d = 1, is
//!   x = 0.5, the default), so ε_n = min(1, xN / (d² n));
//! * `softmax`: each playout's move drawn with probability proportional to
//!   exp(mean points / r) (seed 003's best r = 1);
//! * `ucb1-tuned`: the move maximising mean + sqrt(ln n / n_i · min(1/4,
//!   V_i)), V_i the variance of its points scaled to [0, 1] plus
//!   sqrt(2 ln n / n_i) (Auer et al. 2002; the UECda 2009 winner's rule);
//! * `majority`: five ε-greedy searches of ⌈N/5⌉ playouts each (N in all,
//!   so that it costs what `epsilon` costs, as seed 003 compares them),
//!   the move chosen most often, ties to the better mean over all five;
//! * `majority-full`: the same with five searches of N playouts each (5N
//!   in all).

use std::fmt;
use std::str::FromStr;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::bots::uecda_default as default_player;
use crate::daihinmin::cards::draw;
use crate::daihinmin::state::DaihinminState;
use crate::headtohead::sampled::Player;
use crate::{Action, State, Turn};

/// How the playouts are shared among the moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Allocation {
    /// Evenly.
    RandomSampling,
    /// ε-greedy with ε_n = min(1, xN/(d²n)), x = cK/N.
    Epsilon {
        /// x = cK/N (0.5: seed 003's best c = N/(2K)).
        x: f64,
        /// d.
        d: f64,
    },
    /// Boltzmann over mean points at temperature `r`.
    Softmax {
        /// The temperature.
        r: f64,
    },
    /// UCB1-Tuned.
    Ucb1Tuned,
    /// Five ε-greedy searches (default c and d), the most frequent move.
    Majority {
        /// Playouts of each search: the decision's N (`majority-full`),
        /// else N/5.
        full: bool,
    },
}

/// A Monte-Carlo player.
#[derive(Clone, Debug)]
pub struct MonteCarloPlayer {
    allocation: Allocation,
    playouts: usize,
    rng: ChaCha8Rng,
    /// Playouts run so far: what its decisions cost.
    playouts_run: u64,
}

/// Searches a majority player makes.
const MAJORITY_SEARCHES: usize = 5;

impl MonteCarloPlayer {
    /// A player sharing `playouts` playouts a decision by `allocation`, its
    /// randomness from `seed`.
    pub fn new(allocation: Allocation, playouts: usize, seed: u64) -> MonteCarloPlayer {
        MonteCarloPlayer {
            allocation,
            playouts: playouts.max(1),
            rng: ChaCha8Rng::seed_from_u64(seed),
            playouts_run: 0,
        }
    }

    /// Playouts run so far, over all its decisions.
    pub fn playouts_run(&self) -> u64 {
        self.playouts_run
    }

    /// Its move among `legal` at `state`.
    pub fn choose(&mut self, state: &DaihinminState, legal: &[Action]) -> Action {
        if state.in_exchange() || legal.len() == 1 {
            return default_player::choose(state, legal);
        }
        let search = |allocation, playouts: usize, rng: &mut ChaCha8Rng| {
            let mut stats = Stats::new(legal.len());
            for n in 1..=playouts {
                let k = pick(allocation, &stats, n, playouts, rng);
                let points = playout(state, legal[k], rng);
                stats.add(k, points);
            }
            stats
        };
        let mut run = 0;
        let mut search = |allocation, playouts: usize, rng: &mut ChaCha8Rng| {
            run += playouts as u64;
            search(allocation, playouts, rng)
        };
        let k = match self.allocation {
            Allocation::Majority { full } => {
                let playouts = if full {
                    self.playouts
                } else {
                    self.playouts.div_ceil(MAJORITY_SEARCHES)
                };
                let mut votes = vec![0usize; legal.len()];
                let mut pooled = Stats::new(legal.len());
                let eps = Allocation::Epsilon { x: 0.5, d: 1.0 };
                for _ in 0..MAJORITY_SEARCHES {
                    let stats = search(eps, playouts, &mut self.rng);
                    votes[stats.best()] += 1;
                    pooled.merge(&stats);
                }
                let most = *votes.iter().max().expect("a move");
                (0..legal.len())
                    .filter(|&k| votes[k] == most)
                    .max_by(|&a, &b| pooled.mean(a).total_cmp(&pooled.mean(b)).then(b.cmp(&a)))
                    .expect("a move")
            }
            allocation => {
                let mut rng = self.rng.clone();
                let k = search(allocation, self.playouts, &mut rng).best();
                self.rng = rng;
                k
            }
        };
        self.playouts_run += run;
        legal[k]
    }
}

impl Player for MonteCarloPlayer {
    fn policy(&mut self, state: &dyn State, legal: &[Action]) -> Vec<f64> {
        let state = state
            .as_any()
            .downcast_ref::<DaihinminState>()
            .expect("Monte-Carlo players play Daihinmin");
        let chosen = self.choose(state, legal);
        legal.iter().map(|&a| f64::from(a == chosen)).collect()
    }
}

/// Per-move playout counts and point sums.
struct Stats {
    count: Vec<f64>,
    sum: Vec<f64>,
    sum_sq: Vec<f64>,
}

impl Stats {
    fn new(moves: usize) -> Stats {
        Stats {
            count: vec![0.0; moves],
            sum: vec![0.0; moves],
            sum_sq: vec![0.0; moves],
        }
    }

    fn add(&mut self, k: usize, points: f64) {
        self.count[k] += 1.0;
        self.sum[k] += points;
        self.sum_sq[k] += points * points;
    }

    fn merge(&mut self, other: &Stats) {
        for k in 0..self.count.len() {
            self.count[k] += other.count[k];
            self.sum[k] += other.sum[k];
            self.sum_sq[k] += other.sum_sq[k];
        }
    }

    fn mean(&self, k: usize) -> f64 {
        if self.count[k] == 0.0 {
            0.0
        } else {
            self.sum[k] / self.count[k]
        }
    }

    /// The tried move with the best mean (the first on ties).
    fn best(&self) -> usize {
        (0..self.count.len())
            .filter(|&k| self.count[k] > 0.0)
            .fold(None, |best: Option<usize>, k| match best {
                Some(b) if self.mean(b) >= self.mean(k) => Some(b),
                _ => Some(k),
            })
            .unwrap_or(0)
    }
}

/// The move of the `n`-th playout (from 1) of `total`.
fn pick(
    allocation: Allocation,
    stats: &Stats,
    n: usize,
    total: usize,
    rng: &mut ChaCha8Rng,
) -> usize {
    let moves = stats.count.len();
    match allocation {
        Allocation::RandomSampling => rng.random_range(0..moves),
        Allocation::Epsilon { x, d } => {
            let epsilon = (x * total as f64 / (d * d * n as f64)).min(1.0);
            if rng.random::<f64>() < epsilon {
                rng.random_range(0..moves)
            } else {
                stats.best()
            }
        }
        Allocation::Softmax { r } => {
            // Shifted by the best mean so that a small r never overflows:
            // as r falls to 0 the draw becomes greedy.
            let top = (0..moves)
                .map(|k| stats.mean(k))
                .fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = (0..moves)
                .map(|k| ((stats.mean(k) - top) / r).exp())
                .collect();
            let total: f64 = weights.iter().sum();
            let mut u = rng.random::<f64>() * total;
            for (k, w) in weights.iter().enumerate() {
                if u < *w {
                    return k;
                }
                u -= w;
            }
            moves - 1
        }
        Allocation::Ucb1Tuned => {
            if let Some(untried) = (0..moves).find(|&k| stats.count[k] == 0.0) {
                return untried;
            }
            // Auer et al.'s n: the playouts so far (every move has one).
            let ln_n = ((n - 1) as f64).ln();
            // Points 1..=5 scaled to [0, 1].
            let score = |k: usize| {
                let (c, mean) = (stats.count[k], stats.mean(k));
                let scaled_mean = (mean - 1.0) / 4.0;
                let variance = (stats.sum_sq[k] / c - mean * mean) / 16.0;
                let v = variance + (2.0 * ln_n / c).sqrt();
                scaled_mean + (ln_n / c * v.min(0.25)).sqrt()
            };
            (0..moves)
                .max_by(|&a, &b| score(a).total_cmp(&score(b)))
                .expect("a move")
        }
        Allocation::Majority { .. } => unreachable!("majority searches with epsilon"),
    }
}

/// The points the player to move at `state` scores in this game playing
/// `first`, then everyone at random, with the unseen cards dealt at
/// random.
fn playout(state: &DaihinminState, first: Action, rng: &mut ChaCha8Rng) -> f64 {
    let seat = state.to_move();
    let mut game = state
        .determinized(seat, |cards, k| draw(cards, k, rng))
        .ending_after_this_game();
    game.apply_action(first);
    while !matches!(game.turn(), Turn::Terminal) {
        match game.turn() {
            Turn::Chance => {
                let outcomes = game.chance_outcomes();
                let pick = outcomes[rng.random_range(0..outcomes.len())].0;
                game.apply_action(pick);
            }
            _ => {
                let legal = game.legal_actions();
                game.apply_action(legal[rng.random_range(0..legal.len())]);
            }
        }
    }
    game.points()[seat] - state.points()[seat]
}

/// A Monte-Carlo player as named on the command line: `NAME:N[:PARAMS]`
/// with NAME random-sampling, epsilon (PARAMS `x` = cK/N or `x:d`),
/// softmax (PARAMS `r`), ucb1-tuned, majority or majority-full.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonteCarloSpec {
    /// The allocation.
    pub allocation: Allocation,
    /// Playouts a decision (N).
    pub playouts: usize,
}

impl FromStr for MonteCarloSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = s.split(':').collect();
        let number = |text: &str| {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("{s:?}: {text:?} is not a non-negative number"))
        };
        let playouts = parts
            .get(1)
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                format!(
                    "{s:?}: give the playouts a decision, e.g. {}:1500",
                    parts[0]
                )
            })?;
        let allocation = match (parts[0], &parts[2..]) {
            ("random-sampling", []) => Allocation::RandomSampling,
            ("ucb1-tuned", []) => Allocation::Ucb1Tuned,
            ("majority", []) => Allocation::Majority { full: false },
            ("majority-full", []) => Allocation::Majority { full: true },
            ("epsilon", []) => Allocation::Epsilon { x: 0.5, d: 1.0 },
            ("epsilon", [x]) => Allocation::Epsilon {
                x: number(x)?,
                d: 1.0,
            },
            ("epsilon", [x, d]) => Allocation::Epsilon {
                x: number(x)?,
                d: number(d)?.max(f64::MIN_POSITIVE),
            },
            ("softmax", []) => Allocation::Softmax { r: 1.0 },
            ("softmax", [r]) => Allocation::Softmax {
                r: number(r)?.max(f64::MIN_POSITIVE),
            },
            _ => {
                return Err(format!(
                    "{s:?}: Monte-Carlo players are random-sampling:N, epsilon:N[:x[:d]] \
                     (x = cK/N), softmax:N[:r], ucb1-tuned:N, majority:N (N in all) \
                     and majority-full:N (N a search)"
                ))
            }
        };
        Ok(MonteCarloSpec {
            allocation,
            playouts,
        })
    }
}

impl fmt::Display for MonteCarloSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.playouts;
        match self.allocation {
            Allocation::RandomSampling => write!(f, "random-sampling:{n}"),
            Allocation::Epsilon { x, d } => write!(f, "epsilon:{n}:{x}:{d}"),
            Allocation::Softmax { r } => write!(f, "softmax:{n}:{r}"),
            Allocation::Ucb1Tuned => write!(f, "ucb1-tuned:{n}"),
            Allocation::Majority { full: false } => write!(f, "majority:{n}"),
            Allocation::Majority { full: true } => write!(f, "majority-full:{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daihinmin::{parse_cards, Daihinmin};
    use crate::GameSpec;

    /// A lead with several plays: seat 0 holds three cards.
    fn lead() -> DaihinminState {
        let game = Daihinmin::new("daihinmin".parse::<GameSpec>().unwrap());
        let hands = ["4S 7H KD", "5H 5D", "6C 6S", "9D TD", "JS QS"]
            .iter()
            .map(|h| parse_cards(h).unwrap())
            .collect();
        DaihinminState::from_hands(game.rules(), hands, 0)
    }

    #[test]
    fn majority_spends_n_playouts_a_decision_as_epsilon_does_and_majority_full_five_times_that() {
        let state = lead();
        let legal = state.legal_actions();
        assert!(legal.len() > 2);
        for (name, per_decision) in [
            ("epsilon:100", 100),
            ("random-sampling:100", 100),
            ("majority:100", 100),
            ("majority-full:100", 500),
        ] {
            let spec: MonteCarloSpec = name.parse().unwrap();
            let mut player = MonteCarloPlayer::new(spec.allocation, spec.playouts, 1);
            for _ in 0..3 {
                player.choose(&state, &legal);
            }
            assert_eq!(player.playouts_run(), 3 * per_decision, "{name}");
        }
    }

    #[test]
    fn a_softmax_colder_than_any_float_is_greedy_not_overflowed() {
        let mut stats = Stats::new(3);
        stats.add(0, 5.0);
        stats.add(1, 1.0);
        stats.add(2, 2.0);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let softmax = Allocation::Softmax {
            r: f64::MIN_POSITIVE,
        };
        for n in 1..50 {
            assert_eq!(pick(softmax, &stats, n, 50, &mut rng), 0);
        }
    }

    #[test]
    fn random_sampling_draws_each_playouts_move_at_random() {
        // Not a round robin: over 3 moves and 300 playouts the counts
        // differ, and every move gets some.
        let stats = Stats::new(3);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0usize; 3];
        for n in 1..=300 {
            counts[pick(Allocation::RandomSampling, &stats, n, 300, &mut rng)] += 1;
        }
        assert!(counts.iter().all(|&c| (60..140).contains(&c)), "{counts:?}");
        assert!(counts.iter().any(|&c| c != 100), "{counts:?}");
    }
}
