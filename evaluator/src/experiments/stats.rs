//! Statistics over the seeds of a variant: the mean curve with its min–max
//! band, and the summary figures of a sweep.

use rnad_common::history::{HistoryEntry, PolicyKind};

use super::runs::Run;

/// What the horizontal axis counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Axis {
    /// Learner steps.
    Steps,
    /// Training wall time, seconds.
    Wall,
}

impl Axis {
    /// An evaluation's position on this axis.
    pub fn of(self, entry: &HistoryEntry) -> f64 {
        match self {
            Axis::Steps => entry.learner_step as f64,
            Axis::Wall => entry.wall_seconds,
        }
    }

    /// The axis title.
    pub fn title(self) -> &'static str {
        match self {
            Axis::Steps => "learner steps",
            Axis::Wall => "training wall time (s)",
        }
    }
}

/// A variant's curve: at each x, the mean, minimum and maximum over seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// Positions on the axis.
    pub x: Vec<f64>,
    /// Mean over seeds.
    pub mean: Vec<f64>,
    /// Lowest seed.
    pub min: Vec<f64>,
    /// Highest seed.
    pub max: Vec<f64>,
}

/// The band over `runs`: on every x where some run was evaluated, within
/// the range every run covers, each run's value linearly interpolated
/// between its own evaluations (exact where runs share evaluation steps).
pub fn band(runs: &[Run], kind: PolicyKind, axis: Axis) -> Band {
    let curves: Vec<Vec<(f64, f64)>> = runs
        .iter()
        .map(|run| {
            run.history
                .iter()
                .filter_map(|e| Some((axis.of(e), kind.of(e.nash_conv.as_ref()?))))
                .collect()
        })
        .collect();
    let start = curves
        .iter()
        .map(|c| c[0].0)
        .fold(f64::NEG_INFINITY, f64::max);
    let end = curves
        .iter()
        .map(|c| c[c.len() - 1].0)
        .fold(f64::INFINITY, f64::min);
    let mut xs: Vec<f64> = curves
        .iter()
        .flatten()
        .map(|&(x, _)| x)
        .filter(|&x| x >= start && x <= end)
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let mut band = Band {
        x: Vec::with_capacity(xs.len()),
        mean: Vec::with_capacity(xs.len()),
        min: Vec::with_capacity(xs.len()),
        max: Vec::with_capacity(xs.len()),
    };
    for x in xs {
        let values: Vec<f64> = curves.iter().map(|c| interpolate(c, x)).collect();
        band.x.push(x);
        band.mean.push(mean(&values));
        band.min
            .push(values.iter().copied().fold(f64::INFINITY, f64::min));
        band.max
            .push(values.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    }
    band
}

/// The curve's value at `x`, which lies within its range.
fn interpolate(curve: &[(f64, f64)], x: f64) -> f64 {
    let after = curve.partition_point(|&(cx, _)| cx < x);
    match (after.checked_sub(1).map(|i| curve[i]), curve.get(after)) {
        (_, Some(&(cx, cy))) if cx == x => cy,
        (Some((x0, y0)), Some(&(x1, y1))) => y0 + (y1 - y0) * (x - x0) / (x1 - x0),
        (Some((_, y)), None) | (None, Some(&(_, y))) => y,
        (None, None) => f64::NAN,
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Population standard deviation.
fn std_dev(values: &[f64]) -> f64 {
    let m = mean(values);
    (values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / values.len() as f64).sqrt()
}

/// Mean, minimum and maximum over seeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Lowest.
    pub min: f64,
    /// Highest.
    pub max: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        Spread {
            mean: mean(values),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// A variant's summary figures for one policy kind.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantStats {
    /// How many seeds.
    pub seeds: usize,
    /// The lowest last learner step among the seeds.
    pub last_step: u64,
    /// The last evaluation of each seed.
    pub last: Spread,
    /// The lowest NashConv any seed reached at any evaluation.
    pub best: f64,
    /// Mean over the last 10% of each seed's evaluations (at least one),
    /// averaged over seeds.
    pub tail_mean: f64,
    /// Standard deviation over the last 10% of each seed's evaluations,
    /// averaged over seeds: how much NashConv still moves late in training.
    pub tail_std: f64,
}

/// The summary figures of `runs` (the seeds of one variant, at least one).
pub fn variant_stats(runs: &[Run], kind: PolicyKind) -> VariantStats {
    let values: Vec<Vec<f64>> = runs
        .iter()
        .map(|run| {
            run.history
                .iter()
                .filter_map(|e| Some(kind.of(e.nash_conv.as_ref()?)))
                .collect()
        })
        .collect();
    let tails: Vec<&[f64]> = values
        .iter()
        .map(|v| &v[v.len() - v.len().div_ceil(10)..])
        .collect();
    let last: Vec<f64> = values.iter().map(|v| v[v.len() - 1]).collect();
    VariantStats {
        seeds: runs.len(),
        last_step: runs
            .iter()
            .map(|r| r.history[r.history.len() - 1].learner_step)
            .min()
            .unwrap_or(0),
        last: Spread::of(&last),
        best: values
            .iter()
            .flatten()
            .copied()
            .fold(f64::INFINITY, f64::min),
        tail_mean: mean(&tails.iter().map(|t| mean(t)).collect::<Vec<_>>()),
        tail_std: mean(&tails.iter().map(|t| std_dev(t)).collect::<Vec<_>>()),
    }
}
