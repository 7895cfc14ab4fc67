//! The checks a key's declaration names: each takes the value and says
//! what is wrong with it, in words that follow the key's name.

use std::ops::RangeInclusive;

/// The fewest and most deals a head-to-head evaluation may use: an
/// interval needs two, and an evaluation should take seconds, not hours.
pub const DEALS_RANGE: RangeInclusive<usize> = 2..=10_000_000;

/// The widest hidden layer a config may ask for.
const MAX_WIDTH: usize = 65_536;

/// What is wrong with a key's value, in words that follow the key's name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OutOfRange(pub String);

/// A number a range check can read as `f64`.
pub trait Number: Copy {
    /// The value as a float.
    fn as_f64(self) -> f64;
}

impl Number for f64 {
    fn as_f64(self) -> f64 {
        self
    }
}

impl Number for u64 {
    fn as_f64(self) -> f64 {
        self as f64
    }
}

impl Number for usize {
    fn as_f64(self) -> f64 {
        self as f64
    }
}

/// Any value of the type will do (the type itself is checked when the
/// file is read).
pub fn any<T>(_: &T) -> Result<(), OutOfRange> {
    Ok(())
}

/// Finite and above zero.
pub fn positive<T: Number>(value: &T) -> Result<(), OutOfRange> {
    let v = value.as_f64();
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(OutOfRange(format!("must be positive, got {v}")))
    }
}

/// The most self-play threads one actor process may run.
pub const MAX_ACTOR_THREADS: usize = 256;

/// 1 to [`MAX_ACTOR_THREADS`] self-play threads.
pub fn actor_threads(threads: &usize) -> Result<(), OutOfRange> {
    if (1..=MAX_ACTOR_THREADS).contains(threads) {
        Ok(())
    } else {
        Err(OutOfRange(format!(
            "must be 1..={MAX_ACTOR_THREADS}, got {threads}"
        )))
    }
}

/// 1 to 1,000 games in a panel deal (the longest Daihinmin match the
/// game's `games` parameter takes).
pub fn match_games(games: &usize) -> Result<(), OutOfRange> {
    if (1..=1000).contains(games) {
        Ok(())
    } else {
        Err(OutOfRange(format!("must be 1..=1000, got {games}")))
    }
}

/// Above zero, `inf` included (no limit).
pub fn positive_or_infinite(value: &f64) -> Result<(), OutOfRange> {
    if *value > 0.0 {
        Ok(())
    } else {
        Err(OutOfRange(format!("must be positive or inf, got {value}")))
    }
}

/// Finite and at least zero.
pub fn non_negative(value: &f64) -> Result<(), OutOfRange> {
    if value.is_finite() && *value >= 0.0 {
        Ok(())
    } else {
        Err(OutOfRange(format!(
            "must be finite and non-negative, got {value}"
        )))
    }
}

/// Zero (off), or finite and at least one.
pub fn zero_or_at_least_one(value: &f64) -> Result<(), OutOfRange> {
    if *value == 0.0 || (value.is_finite() && *value >= 1.0) {
        Ok(())
    } else {
        Err(OutOfRange(format!(
            "must be 0 (off) or a finite number of at least 1, got {value}"
        )))
    }
}

/// In (0, 1].
pub fn unit_interval(value: &f64) -> Result<(), OutOfRange> {
    if *value > 0.0 && *value <= 1.0 {
        Ok(())
    } else {
        Err(OutOfRange(format!("must be in (0, 1], got {value}")))
    }
}

/// In [0, 1).
pub fn below_one(value: &f64) -> Result<(), OutOfRange> {
    if (0.0..1.0).contains(value) {
        Ok(())
    } else {
        Err(OutOfRange(format!("must be in [0, 1), got {value}")))
    }
}

/// One or more hidden layers, each 1 to 65,536 wide.
pub fn layer_widths(widths: &Vec<usize>) -> Result<(), OutOfRange> {
    if widths.is_empty() {
        return Err(OutOfRange("needs at least one layer".into()));
    }
    if widths.iter().all(|w| (1..=MAX_WIDTH).contains(w)) {
        Ok(())
    } else {
        Err(OutOfRange(format!(
            "widths must be 1..={MAX_WIDTH}, got {widths:?}"
        )))
    }
}

/// One or more counts, each positive.
pub fn positive_counts(counts: &Vec<u64>) -> Result<(), OutOfRange> {
    if !counts.is_empty() && counts.iter().all(|&c| c > 0) {
        Ok(())
    } else {
        Err(OutOfRange(format!(
            "needs one or more positive values, got {counts:?}"
        )))
    }
}

/// Within [`DEALS_RANGE`].
pub fn deals(count: &usize) -> Result<(), OutOfRange> {
    if DEALS_RANGE.contains(count) {
        Ok(())
    } else {
        Err(OutOfRange(format!(
            "must be between {} and {}, got {count}",
            DEALS_RANGE.start(),
            DEALS_RANGE.end()
        )))
    }
}
