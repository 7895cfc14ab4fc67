//! Statistics over the seeds of a variant: the mean curve with its band
//! (the seeds' min–max, or one seed's own 95% interval), and the summary
//! figures of a sweep.

use rnad_run::history::{HistoryEntry, PolicyKind};

use super::runs::Run;

/// What the horizontal axis counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Axis {
    /// Learner steps.
    Steps,
    /// Training wall time, seconds.
    Wall,
    /// Decisions consumed: the axis on which runs with different batch
    /// sizes have seen the same data.
    Decisions,
}

impl Axis {
    /// The fields of `history.jsonl` and `training.jsonl` lines that this
    /// axis reads, the current name first (files written before the
    /// decisions were called so name them `samples`).
    fn fields(self) -> &'static [&'static str] {
        match self {
            Axis::Steps => &["learner_step"],
            Axis::Wall => &["wall_seconds"],
            Axis::Decisions => &["decisions", "samples"],
        }
    }

    /// An evaluation's position on this axis.
    fn of_entry(self, entry: &HistoryEntry) -> f64 {
        match self {
            Axis::Steps => entry.learner_step as f64,
            Axis::Wall => entry.wall_seconds,
            Axis::Decisions => entry.decisions as f64,
        }
    }

    /// A log line's position on this axis (none when the line lacks the
    /// field).
    fn of_line(self, line: &serde_json::Value) -> Option<f64> {
        self.fields()
            .iter()
            .find_map(|field| line.get(field)?.as_f64())
    }

    /// The axis title.
    pub fn title(self) -> &'static str {
        match self {
            Axis::Steps => "learner steps",
            Axis::Wall => "training wall time (s)",
            Axis::Decisions => "decisions consumed",
        }
    }
}

/// What a curve shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    /// One policy kind's NashConv from `history.jsonl`.
    NashConv(PolicyKind),
    /// A numeric column of `training.jsonl` (`loss_value`, `alpha`, ...)
    /// or, failing that, of `history.jsonl` with dots for nested fields
    /// (`decisions`, `nash_conv.reg`), or of `best_response.jsonl`
    /// (`best_response.gain`, `best_response.seats.0.gain`).
    Column(String),
}

impl Measure {
    /// The vertical axis's title.
    pub fn title(&self) -> String {
        match self {
            Measure::NashConv(kind) => format!("NashConv ({})", kind.name()),
            Measure::Column(name) => name.clone(),
        }
    }

    /// Its short name: the policy kind or the column.
    pub fn name(&self) -> String {
        match self {
            Measure::NashConv(kind) => kind.name().to_string(),
            Measure::Column(name) => name.clone(),
        }
    }

    /// A run's curve of this measure, in file order (empty when the run
    /// has no such values).
    pub fn curve(&self, run: &Run, axis: Axis) -> Vec<(f64, f64)> {
        match self {
            Measure::NashConv(kind) => run
                .history
                .iter()
                .filter_map(|e| Some((axis.of_entry(e), kind.of(e.nash_conv.as_ref()?)?)))
                .collect(),
            Measure::Column(name) => {
                let from_training = column(&run.training, name, axis);
                if !from_training.is_empty() {
                    return from_training;
                }
                let history: Vec<serde_json::Value> = run
                    .history
                    .iter()
                    .map(|e| serde_json::to_value(e).expect("history entries serialise"))
                    .collect();
                let from_history = column(&history, name, axis);
                if !from_history.is_empty() {
                    return from_history;
                }
                column(&run.best_responses, name, axis)
            }
        }
    }

    /// A run's curve of the 95% half-width the evaluator logs beside this
    /// measure's values (a match's `ci95` beside its `mean`, LBR's
    /// `ci95_mbb` beside its `mbb_per_hand`, a best response's `ci95`
    /// beside its `gain`); none for other measures.
    pub fn interval(&self, run: &Run, axis: Axis) -> Option<Vec<(f64, f64)>> {
        let Measure::Column(name) = self else {
            return None;
        };
        let (path, leaf) = name.rsplit_once('.')?;
        let sibling = match leaf {
            "mean" | "gain" => "ci95",
            "mbb_per_hand" => "ci95_mbb",
            _ => return None,
        };
        let curve = Measure::Column(format!("{path}.{sibling}")).curve(run, axis);
        (!curve.is_empty()).then_some(curve)
    }
}

/// The numeric values of the dotted field `name` in `lines`, against
/// `axis`.
fn column(lines: &[serde_json::Value], name: &str, axis: Axis) -> Vec<(f64, f64)> {
    lines
        .iter()
        .filter_map(|line| {
            let value = name.split('.').try_fold(line, field)?.as_f64()?;
            Some((axis.of_line(line)?, value))
        })
        .collect()
}

/// One step of a dotted path: an object's field, or in an array the
/// element of that index or the one whose `opponent` it names
/// (`head_to_head.heuristic.mean`).
fn field<'v>(value: &'v serde_json::Value, part: &str) -> Option<&'v serde_json::Value> {
    match value {
        serde_json::Value::Array(items) => match part.parse::<usize>() {
            Ok(i) => items.get(i),
            Err(_) => items.iter().find(|item| item["opponent"] == part),
        },
        _ => value.get(part),
    }
}

/// What a band's edges are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandEdges {
    /// The lowest and highest seed.
    Seeds,
    /// One seed's value ± the 95% half-width logged beside it: a single
    /// seed's match or LBR estimate is itself uncertain, and a figure
    /// without that interval would show noise as progress.
    Interval95,
}

/// A variant's curve: at each x, the mean over seeds and the band's edges.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// Positions on the axis.
    pub x: Vec<f64>,
    /// Mean over seeds.
    pub mean: Vec<f64>,
    /// Lower edge: the lowest seed, or the one seed's interval's bottom.
    pub min: Vec<f64>,
    /// Upper edge: the highest seed, or the one seed's interval's top.
    pub max: Vec<f64>,
    /// Which of the two the edges are.
    pub edges: BandEdges,
}

/// The band over `runs`: on every x where some run was evaluated, within
/// the range every run covers, each run's value linearly interpolated
/// between its own evaluations (exact where runs share evaluation steps).
/// Its edges are the seeds' minimum and maximum, except for a single run
/// whose measure carries a logged 95% interval: then that interval.
/// Every run must have at least one value of `measure`.
pub fn band(runs: &[Run], measure: &Measure, axis: Axis) -> Band {
    let curves: Vec<Vec<(f64, f64)>> = runs.iter().map(|run| measure.curve(run, axis)).collect();
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
    let interval = match runs {
        [run] => measure.interval(run, axis),
        _ => None,
    };
    let mut band = Band {
        x: Vec::with_capacity(xs.len()),
        mean: Vec::with_capacity(xs.len()),
        min: Vec::with_capacity(xs.len()),
        max: Vec::with_capacity(xs.len()),
        edges: match interval {
            Some(_) => BandEdges::Interval95,
            None => BandEdges::Seeds,
        },
    };
    for x in xs {
        let values: Vec<f64> = curves.iter().map(|c| interpolate(c, x)).collect();
        let (low, high) = match &interval {
            Some(half_widths) => {
                let half = interpolate(half_widths, x);
                (values[0] - half, values[0] + half)
            }
            None => (
                values.iter().copied().fold(f64::INFINITY, f64::min),
                values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ),
        };
        band.x.push(x);
        band.mean.push(mean(&values));
        band.min.push(low);
        band.max.push(high);
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

/// The summary figures of `runs` (the seeds of one variant, at least one);
/// none unless every run evaluated `kind` (a run keeps `target_average`
/// only when its config asks for it).
pub fn variant_stats(runs: &[Run], kind: PolicyKind) -> Option<VariantStats> {
    let values: Vec<Vec<f64>> = runs
        .iter()
        .map(|run| {
            run.history
                .iter()
                .filter_map(|e| kind.of(e.nash_conv.as_ref()?))
                .collect()
        })
        .collect();
    if values.iter().any(Vec::is_empty) {
        return None;
    }
    let tails: Vec<&[f64]> = values
        .iter()
        .map(|v| &v[v.len() - v.len().div_ceil(10)..])
        .collect();
    let last: Vec<f64> = values.iter().map(|v| v[v.len() - 1]).collect();
    Some(VariantStats {
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_fields_reach_into_objects_and_arrays_by_index_or_opponent() {
        let line = serde_json::json!({
            "learner_step": 10,
            "lbr": {"mbb_per_hand": 250.0},
            "head_to_head": [
                {"opponent": "heuristic", "mean": 1.5},
                {"opponent": "uniform", "mean": 2.5}
            ]
        });
        let lines = [line];
        let at = |name: &str| column(&lines, name, Axis::Steps);
        assert_eq!(at("lbr.mbb_per_hand"), vec![(10.0, 250.0)]);
        assert_eq!(at("head_to_head.uniform.mean"), vec![(10.0, 2.5)]);
        assert_eq!(at("head_to_head.0.mean"), vec![(10.0, 1.5)]);
        assert!(at("head_to_head.previous.mean").is_empty());
        assert!(at("head_to_head.7.mean").is_empty());
    }

    /// A run directory's best responses are drawn where their versions
    /// were trained (not where their lines were written), with their
    /// intervals, from the file itself.
    #[test]
    fn best_responses_are_read_from_their_own_file_at_their_versions_steps() {
        let dir = rnad_testkit::scratch("best-response-curve");
        rnad_testkit::TestConfig::file("holdem").write(&dir.join("config.toml"));
        let entry = |step: u64| {
            format!("{{\"learner_step\":{step},\"wall_seconds\":{step}.0,\"decisions\":1,\"head_to_head\":[]}}\n")
        };
        std::fs::write(
            dir.join("history.jsonl"),
            entry(100) + &entry(200) + &entry(300),
        )
        .unwrap();
        let line = |step: u64, gain: f64| {
            format!(
                "{{\"learner_step\":{step},\"wall_seconds\":{step}.5,\"decisions\":7,\"best_response\":\
                 {{\"policy\":\"target_postprocessed\",\"unit\":\"mbb/hand\",\"budget_steps\":5,\
                 \"seconds\":1.0,\"gain\":{gain},\"ci95\":40.0,\"seats\":[]}}}}\n"
            )
        };
        std::fs::write(
            dir.join("best_response.jsonl"),
            line(100, 900.0) + &line(200, 450.0),
        )
        .unwrap();
        let run = super::super::runs::load_run(&dir).unwrap();
        let gain = Measure::Column("best_response.gain".into());
        assert_eq!(
            gain.curve(&run, Axis::Steps),
            vec![(100.0, 900.0), (200.0, 450.0)]
        );
        assert_eq!(
            gain.curve(&run, Axis::Wall),
            vec![(100.5, 900.0), (200.5, 450.0)]
        );
        assert_eq!(
            gain.interval(&run, Axis::Steps),
            Some(vec![(100.0, 40.0), (200.0, 40.0)])
        );
    }
}
