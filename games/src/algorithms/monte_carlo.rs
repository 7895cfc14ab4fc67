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
//! Allocations, over K legal moves and N playouts:
//!
//! * `random-sampling`: N/K playouts a move (round robin);
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
//! * `majority`: five ε-greedy searches of N playouts each, the move
//!   chosen most often (ties to the better mean).

use std::fmt;
use std::str::FromStr;

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::bots::uecda_default as default_player;
use crate::daihinmin::cards::{indices, Cards, DECK};
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
    Majority,
}

/// A Monte-Carlo player.
#[derive(Clone, Debug)]
pub struct MonteCarloPlayer {
    allocation: Allocation,
    playouts: usize,
    rng: ChaCha8Rng,
}

/// Searches a majority player makes.
const MAJORITY_SEARCHES: usize = 5;

impl MonteCarloPlayer {
    /// A player sharing `playouts` playouts a move by `allocation`, its
    /// randomness from `seed`.
    pub fn new(allocation: Allocation, playouts: usize, seed: u64) -> MonteCarloPlayer {
        MonteCarloPlayer {
            allocation,
            playouts: playouts.max(1),
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Its move among `legal` at `state`.
    pub fn choose(&mut self, state: &DaihinminState, legal: &[Action]) -> Action {
        if state.in_exchange() || legal.len() == 1 {
            return default_player::choose(state, legal);
        }
        let search = |allocation, rng: &mut ChaCha8Rng| {
            let mut stats = Stats::new(legal.len());
            for n in 1..=self.playouts {
                let k = pick(allocation, &stats, n, self.playouts, rng);
                let points = playout(state, legal[k], rng);
                stats.add(k, points);
            }
            stats.best()
        };
        let k = match self.allocation {
            Allocation::Majority => {
                let mut votes = vec![0usize; legal.len()];
                let eps = Allocation::Epsilon { x: 0.5, d: 1.0 };
                for _ in 0..MAJORITY_SEARCHES {
                    votes[search(eps, &mut self.rng)] += 1;
                }
                (0..legal.len()).max_by_key(|&k| votes[k]).expect("a move")
            }
            allocation => {
                let mut rng = self.rng.clone();
                let k = search(allocation, &mut rng);
                self.rng = rng;
                k
            }
        };
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
        Allocation::RandomSampling => (n - 1) % moves,
        Allocation::Epsilon { x, d } => {
            let epsilon = (x * total as f64 / (d * d * n as f64)).min(1.0);
            if rng.random::<f64>() < epsilon {
                rng.random_range(0..moves)
            } else {
                stats.best()
            }
        }
        Allocation::Softmax { r } => {
            let weights: Vec<f64> = (0..moves).map(|k| (stats.mean(k) / r).exp()).collect();
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
            let ln_n = (n as f64).ln();
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
        Allocation::Majority => unreachable!("majority searches with epsilon"),
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

/// `k` cards drawn uniformly from `cards`.
fn draw(cards: Cards, k: usize, rng: &mut impl Rng) -> Cards {
    let mut pool: Vec<usize> = indices(cards & DECK).collect();
    let mut out = 0;
    for _ in 0..k {
        let i = rng.random_range(0..pool.len());
        out |= 1 << pool.swap_remove(i);
    }
    out
}

/// A Monte-Carlo player as named on the command line: `NAME:N[:PARAMS]`
/// with NAME random-sampling, epsilon (PARAMS `x` = cK/N or `x:d`),
/// softmax (PARAMS `r`), ucb1-tuned or majority.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonteCarloSpec {
    /// The allocation.
    pub allocation: Allocation,
    /// Playouts a move.
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
            .ok_or_else(|| format!("{s:?}: give the playouts a move, e.g. {}:1500", parts[0]))?;
        let allocation = match (parts[0], &parts[2..]) {
            ("random-sampling", []) => Allocation::RandomSampling,
            ("ucb1-tuned", []) => Allocation::Ucb1Tuned,
            ("majority", []) => Allocation::Majority,
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
                r: number(r)?.max(1e-9),
            },
            _ => {
                return Err(format!(
                    "{s:?}: Monte-Carlo players are random-sampling:N, epsilon:N[:x[:d]] \
                     (x = cK/N), softmax:N[:r], ucb1-tuned:N and majority:N"
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
            Allocation::Majority => write!(f, "majority:{n}"),
        }
    }
}
