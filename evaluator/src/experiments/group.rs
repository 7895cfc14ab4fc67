//! Runs grouped into variants: runs whose configs agree on everything but
//! the seed (and where and how often they saved their work) are seeds of
//! one variant.

use std::collections::BTreeMap;

use super::runs::Run;

/// Settings that never make a variant: the seed, and where a run lives
/// and how often it checkpoints or logs, which change nothing it computes
/// (a run kept 50 checkpoints for a later analysis, its seeds kept 2).
const NOT_VARIANT: [&str; 5] = [
    "seed",
    "run_dir",
    "checkpoint.interval_steps",
    "checkpoint.keep",
    "training_log.interval_steps",
];
/// Always named in labels, so a figure says which averaging each line is.
const ALWAYS_LABELLED: &str = "rnad.averaging";

/// The seeds of one configuration.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The settings that tell it from the other variants, e.g.
    /// `averaging=ema` or `averaging=ema, learning_rate=0.001`.
    pub label: String,
    /// Its runs.
    pub runs: Vec<Run>,
}

impl Variant {
    /// The seeds of its runs, in run order.
    pub fn seeds(&self) -> Vec<u64> {
        self.runs.iter().map(|r| r.config.seed).collect()
    }
}

/// Groups runs by every setting but the seed, in order of first appearance.
/// Labels name the settings that differ between groups (by their last key
/// segment) and always the averaging mode.
pub fn group(runs: Vec<Run>) -> Vec<Variant> {
    let keyed: Vec<(BTreeMap<String, String>, Run)> = runs
        .into_iter()
        .map(|run| {
            let mut settings = run.config.settings();
            for key in NOT_VARIANT {
                settings.remove(key);
            }
            (settings, run)
        })
        .collect();
    let differing: Vec<&String> = match keyed.first() {
        Some((first, _)) => first
            .keys()
            .filter(|key| {
                key.as_str() == ALWAYS_LABELLED
                    || keyed
                        .iter()
                        .any(|(other, _)| other.get(*key) != first.get(*key))
            })
            .collect(),
        None => Vec::new(),
    };
    let label = |settings: &BTreeMap<String, String>| {
        differing
            .iter()
            .map(|key| {
                let short = key.rsplit('.').next().unwrap_or(key);
                let value = settings.get(*key).map_or("(unset)", String::as_str);
                format!("{short}={value}")
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut variants: Vec<(BTreeMap<String, String>, Variant)> = Vec::new();
    for (settings, run) in &keyed {
        match variants.iter_mut().find(|(s, _)| s == settings) {
            Some((_, variant)) => variant.runs.push(run.clone()),
            None => variants.push((
                settings.clone(),
                Variant {
                    label: label(settings),
                    runs: vec![run.clone()],
                },
            )),
        }
    }
    variants.into_iter().map(|(_, v)| v).collect()
}
