//! One run's NashConv history as the tables a quality goal asks for: when
//! the played policy first reached a threshold and the highest it went
//! after, the evaluations binned by wall-clock minutes, and one row per
//! period of the entropy schedule (as the learner reads the run's config).

use std::collections::BTreeMap;
use std::fmt::Write;

use rnad_run::history::{HistoryEntry, PolicyKind};
use rnad_run::schedule::EntropySchedule;

use super::runs::Run;

/// What the tables show.
#[derive(Clone, Debug)]
pub struct TableSpec {
    /// The played policy (the threshold is about this kind).
    pub kind: PolicyKind,
    /// The goal's NashConv.
    pub threshold: f64,
    /// Width of a wall-clock bin, minutes.
    pub minutes: f64,
    /// Periods that start before this step are left out.
    pub from_step: u64,
}

fn value(entry: &HistoryEntry, kind: PolicyKind) -> Option<f64> {
    kind.of(entry.nash_conv.as_ref()?)
}

fn series(entries: &[&HistoryEntry], kind: PolicyKind) -> Vec<f64> {
    entries.iter().filter_map(|e| value(e, kind)).collect()
}

/// `min / mean / max`, or a dash for none.
fn stats(values: &[f64]) -> String {
    if values.is_empty() {
        return "–".into();
    }
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    format!("{min:.3} / {mean:.3} / {max:.3}")
}

/// A step with thousands separators, as the tables print them.
fn grouped(step: u64) -> String {
    let digits = step.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// When `kind` first reached the threshold, the highest it went from
/// then on, and its last value.
pub fn first_and_highest(history: &[HistoryEntry], spec: &TableSpec) -> String {
    let (kind, threshold) = (spec.kind, spec.threshold);
    let Some(first) = history
        .iter()
        .position(|e| value(e, kind).is_some_and(|v| v <= threshold))
    else {
        return format!(
            "{kind} never reached {threshold} in {} evaluations",
            history.len()
        );
    };
    let after = &history[first..];
    let highest = after
        .iter()
        .filter(|e| value(e, kind).is_some())
        .max_by(|a, b| value(a, kind).unwrap().total_cmp(&value(b, kind).unwrap()))
        .expect("the first one has the kind");
    let last = history
        .iter()
        .rev()
        .find(|e| value(e, kind).is_some())
        .expect("the first one has the kind");
    let first = &history[first];
    format!(
        "{kind} first ≤ {threshold} at {:.0} s (step {}); highest of the {} evaluations from then on: {:.4} at step {} ({:.0} s); last: {:.4} at step {} ({:.0} s)",
        first.wall_seconds,
        first.learner_step,
        after.len(),
        value(highest, kind).unwrap(),
        highest.learner_step,
        highest.wall_seconds,
        value(last, kind).unwrap(),
        last.learner_step,
        last.wall_seconds
    )
}

/// One row per `minutes` of wall time: the step at its end and the spread
/// of the played kind, the target and θ_reg.
pub fn by_minutes(history: &[HistoryEntry], spec: &TableSpec) -> String {
    let kind = spec.kind;
    let mut out = format!(
        "| minutes | step at the end | {kind}: min / mean / max | target | θ_reg |\n|---|---|---|---|---|\n"
    );
    let width = spec.minutes * 60.0;
    let mut bins: BTreeMap<u64, Vec<&HistoryEntry>> = BTreeMap::new();
    for entry in history {
        bins.entry((entry.wall_seconds / width) as u64)
            .or_default()
            .push(entry);
    }
    for (index, entries) in bins {
        let _ = writeln!(
            out,
            "| {}–{} | {} | {} | {} | {} |",
            index as f64 * spec.minutes,
            (index + 1) as f64 * spec.minutes,
            grouped(entries.last().expect("a bin has entries").learner_step),
            stats(&series(&entries, kind)),
            stats(&series(&entries, PolicyKind::Target)),
            stats(&series(&entries, PolicyKind::Reg)),
        );
    }
    out
}

/// One row per period of the run's entropy schedule from `from_step`: the
/// target's spread, θ_reg during the period (one value where it held
/// still) and the played kind at the period's end.
pub fn by_period(run: &Run, spec: &TableSpec) -> String {
    let kind = spec.kind;
    let rnad = &run.config.rnad;
    let schedule = EntropySchedule::new(
        rnad.entropy_schedule_size.clone(),
        rnad.entropy_schedule_repeats.clone(),
    );
    let mut out = format!(
        "| steps | target: min / mean / max | θ_reg during it | {kind} at the end |\n|---|---|---|---|\n"
    );
    let mut periods: BTreeMap<(u64, u64), Vec<&HistoryEntry>> = BTreeMap::new();
    for entry in run
        .history
        .iter()
        .filter(|e| e.learner_step >= spec.from_step)
    {
        periods
            .entry(schedule.period(entry.learner_step))
            .or_default()
            .push(entry);
    }
    let last_period = periods.keys().next_back().copied();
    for ((start, size), entries) in &periods {
        let newest = entries.last().expect("a period has entries");
        // The run may end inside its last period.
        let end = if Some((*start, *size)) == last_period {
            newest.learner_step
        } else {
            start + size
        };
        let reg = series(entries, PolicyKind::Reg);
        let reg_text = match (reg.first(), reg.iter().all(|r| Some(r) == reg.first())) {
            (Some(r), true) => format!("{r:.3}"),
            _ => stats(&reg),
        };
        let at_end = value(newest, kind).map_or_else(|| "–".into(), |v| format!("{v:.4}"));
        let _ = writeln!(
            out,
            "| {}–{} | {} | {reg_text} | {at_end} |",
            grouped(*start),
            grouped(end),
            stats(&series(entries, PolicyKind::Target)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_run::history::NashConvs;

    fn entry(step: u64, seconds: f64, target: f64, reg: f64, average: f64) -> HistoryEntry {
        HistoryEntry {
            learner_step: step,
            wall_seconds: seconds,
            decisions: step * 10,
            nash_conv: Some(NashConvs {
                online: target,
                target,
                target_postprocessed: target,
                reg,
                target_average: Some(average),
                average_network: None,
            }),
            head_to_head: Vec::new(),
            lbr: None,
        }
    }

    fn spec() -> TableSpec {
        TableSpec {
            kind: PolicyKind::TargetAverage,
            threshold: 0.1,
            minutes: 1.0,
            from_step: 0,
        }
    }

    #[test]
    fn the_first_time_under_the_threshold_and_the_highest_after_it() {
        let history = [
            entry(0, 0.0, 4.0, 4.0, 4.0),
            entry(100, 30.0, 0.3, 4.0, 0.12),
            entry(200, 70.0, 0.2, 0.5, 0.09),
            entry(300, 100.0, 0.2, 0.5, 0.098),
            entry(400, 130.0, 0.2, 0.5, 0.08),
        ];
        let line = first_and_highest(&history, &spec());
        assert_eq!(
            line,
            "target_average first ≤ 0.1 at 70 s (step 200); highest of the 3 evaluations from then on: 0.0980 at step 300 (100 s); last: 0.0800 at step 400 (130 s)"
        );
        let never = TableSpec {
            threshold: 0.01,
            ..spec()
        };
        assert_eq!(
            first_and_highest(&history, &never),
            "target_average never reached 0.01 in 5 evaluations"
        );
        let minutes = by_minutes(&history, &spec());
        let rows: Vec<&str> = minutes.lines().skip(2).collect();
        assert_eq!(
            rows,
            [
                "| 0–1 | 100 | 0.120 / 2.060 / 4.000 | 0.300 / 2.150 / 4.000 | 4.000 / 4.000 / 4.000 |",
                "| 1–2 | 300 | 0.090 / 0.094 / 0.098 | 0.200 / 0.200 / 0.200 | 0.500 / 0.500 / 0.500 |",
                "| 2–3 | 400 | 0.080 / 0.080 / 0.080 | 0.200 / 0.200 / 0.200 | 0.500 / 0.500 / 0.500 |",
            ]
        );
    }

    #[test]
    fn periods_follow_the_schedule_and_the_last_ends_with_the_run() {
        let mut config = rnad_testkit::TestConfig::file("kuhn").build();
        // Two periods of 100, then periods of 250.
        config.rnad.entropy_schedule_size = vec![100, 250];
        config.rnad.entropy_schedule_repeats = vec![2, 1];
        let run = Run {
            dir: "run".into(),
            config,
            history: vec![
                entry(50, 1.0, 1.0, 2.0, 1.0),
                entry(150, 2.0, 0.8, 2.0, 0.9),
                entry(180, 3.0, 0.6, 2.0, 0.7),
                entry(250, 4.0, 0.5, 1.5, 0.6),
                entry(480, 5.0, 0.3, 1.0, 0.4),
                entry(520, 6.0, 0.2, 0.8, 0.3),
            ],
            training: Vec::new(),
            best_responses: Vec::new(),
        };
        let table = by_period(
            &run,
            &TableSpec {
                from_step: 100,
                ..spec()
            },
        );
        let rows: Vec<&str> = table.lines().skip(2).collect();
        assert_eq!(
            rows,
            [
                "| 100–200 | 0.600 / 0.700 / 0.800 | 2.000 | 0.7000 |",
                "| 200–450 | 0.500 / 0.500 / 0.500 | 1.500 | 0.6000 |",
                "| 450–520 | 0.200 / 0.250 / 0.300 | 0.800 / 0.900 / 1.000 | 0.3000 |",
            ]
        );
    }
}
