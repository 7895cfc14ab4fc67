//! Seed 004's baseline players, for poker games whose action ids are fold
//! 0, check/call 1 and raises from 2 up (`universal_poker` under every
//! abstraction, `leduc_poker`):
//!
//! * `uniform`: every legal action equally (seed 004's random player);
//! * `heuristic`: seed 004's rule of thumb, 45% bet/raise (the size drawn
//!   uniformly from the raises offered), 45% check/call, 10% fold. Where
//!   folding is not legal (checking is free) its 10% goes to check/call,
//!   and where no raise is offered its 45% does too, so the player never
//!   folds for free and never stands still;
//! * `call`: always check/call;
//! * `raise`: always the largest raise offered (all-in where offered),
//!   check/call when none is;
//! * `fold`: always fold, check where folding is not legal (what any best
//!   response must win exactly the blinds from).

use std::fmt;
use std::str::FromStr;

use crate::headtohead::sampled::Player;
use crate::{Action, State};

const FOLD: Action = 0;
const CALL: Action = 1;
/// `universal_poker`'s fcpa/fchpa ids by size, largest first: all-in, pot,
/// half-pot.
const RAISES_LARGEST_FIRST: [Action; 3] = [3, 2, 4];
/// From this id up, raise ids are raise-to amounts (`fullgame`).
const FIRST_AMOUNT_ID: Action = 5;

/// Which baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Every legal action equally.
    Uniform,
    /// 45% raise, 45% check/call, 10% fold.
    Heuristic,
    /// Always check/call.
    Call,
    /// Always the largest raise.
    Raise,
    /// Always fold (check where it cannot).
    Fold,
}

impl Baseline {
    /// Every baseline's name, as players are named.
    pub const NAMES: [&'static str; 5] = ["uniform", "heuristic", "call", "raise", "fold"];
}

impl fmt::Display for Baseline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Baseline::Uniform => "uniform",
            Baseline::Heuristic => "heuristic",
            Baseline::Call => "call",
            Baseline::Raise => "raise",
            Baseline::Fold => "fold",
        };
        f.write_str(name)
    }
}

impl FromStr for Baseline {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "uniform" => Ok(Baseline::Uniform),
            "heuristic" => Ok(Baseline::Heuristic),
            "call" => Ok(Baseline::Call),
            "raise" => Ok(Baseline::Raise),
            "fold" => Ok(Baseline::Fold),
            _ => Err(format!(
                "no baseline {s:?}: the baselines are {}",
                Baseline::NAMES.join(", ")
            )),
        }
    }
}

/// The largest raise among `legal`, if any.
fn largest_raise(legal: &[Action]) -> Option<Action> {
    let amounts = legal
        .iter()
        .copied()
        .filter(|&a| a >= FIRST_AMOUNT_ID)
        .max();
    amounts.or_else(|| RAISES_LARGEST_FIRST.into_iter().find(|a| legal.contains(a)))
}

impl Baseline {
    /// The probability of each of `legal`.
    pub fn probabilities(self, legal: &[Action]) -> Vec<f64> {
        let raises = legal.iter().filter(|&&a| a > CALL).count();
        let one_hot = |chosen: Action| legal.iter().map(|&a| f64::from(a == chosen)).collect();
        match self {
            Baseline::Uniform => vec![1.0 / legal.len() as f64; legal.len()],
            Baseline::Call => one_hot(CALL),
            Baseline::Raise => one_hot(largest_raise(legal).unwrap_or(CALL)),
            Baseline::Fold if legal.contains(&FOLD) => one_hot(FOLD),
            Baseline::Fold => one_hot(CALL),
            Baseline::Heuristic => {
                let fold = if legal.contains(&FOLD) { 0.10 } else { 0.0 };
                let raise = if raises > 0 { 0.45 } else { 0.0 };
                legal
                    .iter()
                    .map(|&a| match a {
                        FOLD => fold,
                        CALL => 1.0 - fold - raise,
                        _ => raise / raises as f64,
                    })
                    .collect()
            }
        }
    }
}

impl Player for Baseline {
    fn policy(&mut self, _state: &dyn State, legal: &[Action]) -> Vec<f64> {
        self.probabilities(legal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_split_their_probability_as_documented() {
        let facing_a_bet = [0, 1, 2, 3, 4];
        let heuristic = Baseline::Heuristic.probabilities(&facing_a_bet);
        assert_eq!(heuristic[0], 0.10);
        assert!((heuristic[1] - 0.45).abs() < 1e-12);
        assert!(heuristic[2..].iter().all(|p| (p - 0.15).abs() < 1e-12));
        // Checking is free: no fold, its share goes to checking.
        let free = Baseline::Heuristic.probabilities(&[1, 2, 3]);
        assert!((free[0] - 0.55).abs() < 1e-12 && (free[1] - 0.225).abs() < 1e-12);
        // Facing an all-in: fold or call only.
        assert_eq!(Baseline::Heuristic.probabilities(&[0, 1]), vec![0.10, 0.90]);
        assert_eq!(
            Baseline::Raise.probabilities(&[0, 1, 2, 3, 4]),
            vec![0.0, 0.0, 0.0, 1.0, 0.0]
        );
        assert_eq!(
            Baseline::Raise.probabilities(&[1, 2, 4]),
            vec![0.0, 1.0, 0.0]
        );
        assert_eq!(
            Baseline::Raise.probabilities(&[0, 1, 400, 401, 1200]),
            vec![0.0, 0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(Baseline::Raise.probabilities(&[0, 1]), vec![0.0, 1.0]);
        assert_eq!(
            Baseline::Call.probabilities(&[0, 1, 2]),
            vec![0.0, 1.0, 0.0]
        );
        assert_eq!(
            Baseline::Uniform.probabilities(&[0, 1, 2, 3]),
            vec![0.25; 4]
        );
        assert_eq!(
            Baseline::Fold.probabilities(&[0, 1, 2]),
            vec![1.0, 0.0, 0.0]
        );
        assert_eq!(
            Baseline::Fold.probabilities(&[1, 2, 3]),
            vec![1.0, 0.0, 0.0]
        );
        assert_eq!("heuristic".parse::<Baseline>(), Ok(Baseline::Heuristic));
        assert!("random"
            .parse::<Baseline>()
            .unwrap_err()
            .contains("uniform, heuristic, call, raise, fold"));
    }
}
