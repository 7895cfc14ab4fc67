//! Runs grouped into variants: runs whose configs agree on everything but
//! the seed (and where and how often they saved their work) are seeds of
//! one variant.

use std::collections::BTreeMap;
use std::path::Path;

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
/// The longest settings text a legend entry shows. Past it (a staged
/// schedule against a flat one differs in half a dozen keys) the entry
/// would run off the figure, so variants are named by their directories.
const LEGEND_SETTINGS_MAX_CHARS: usize = 60;

/// The seeds of one configuration.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The settings that tell it from the other variants, e.g.
    /// `averaging=ema` or `averaging=ema, learning_rate=0.001`.
    pub settings: String,
    /// Its name in a figure's legend: its settings, or where those are
    /// too long for a legend, the directory holding its runs (such as
    /// `two-hours-staged` for `two-hours-staged/seed-1`).
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
/// Settings name those that differ between groups (by their last key
/// segment) and always the averaging mode; labels are the settings unless
/// some are too long and each variant's runs sit in a directory of their
/// own.
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
    let differences = |settings: &BTreeMap<String, String>| {
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
            None => {
                let differences = differences(settings);
                variants.push((
                    settings.clone(),
                    Variant {
                        label: differences.clone(),
                        settings: differences,
                        runs: vec![run.clone()],
                    },
                ))
            }
        }
    }
    let mut variants: Vec<Variant> = variants.into_iter().map(|(_, v)| v).collect();
    let too_long = variants
        .iter()
        .any(|v| v.settings.chars().count() > LEGEND_SETTINGS_MAX_CHARS);
    if too_long {
        if let Some(names) = directory_names(&variants) {
            for (variant, name) in variants.iter_mut().zip(names) {
                variant.label = name;
            }
        }
    }
    variants
}

/// Each variant's directory name, where every variant's runs share one
/// parent directory and no two variants share it; otherwise none (the
/// names would not tell the variants apart).
fn directory_names(variants: &[Variant]) -> Option<Vec<String>> {
    let parent_name = |dir: &Path| {
        dir.parent()
            .and_then(Path::file_name)
            .map(|name| name.to_string_lossy().into_owned())
    };
    let mut names: Vec<String> = Vec::new();
    for variant in variants {
        let mut parents = variant.runs.iter().map(|run| parent_name(&run.dir));
        let first = parents.next()??;
        if parents.any(|other| other.as_deref() != Some(first.as_str())) || names.contains(&first) {
            return None;
        }
        names.push(first);
    }
    Some(names)
}
