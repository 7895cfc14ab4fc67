//! What the processes under test write: log lines tests look for and the
//! run's evaluation history.

use std::path::Path;

/// The step of a learner log's `stopped at step N; checkpoint …` line.
pub fn stopped_at(log: &str) -> Option<u64> {
    let (_, rest) = log.split_once("stopped at step ")?;
    rest.split(';').next()?.trim().parse().ok()
}

/// How many games a head-to-head evaluation had played when a signal
/// stopped it: the N of a log's `evaluation stopped after N of M games`.
pub fn games_before_stop(log: &str) -> Option<u64> {
    let (_, rest) = log.split_once("evaluation stopped after ")?;
    rest.split(' ').next()?.parse().ok()
}

/// The history file's lines, parsed.
pub fn history(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_give_their_numbers() {
        let log = "INFO stopped at step 350; checkpoint step-350.safetensors\n";
        assert_eq!(stopped_at(log), Some(350));
        assert_eq!(stopped_at("still running"), None);
        let stopped = "WARN evaluation stopped after 12 of 400 games";
        assert_eq!(games_before_stop(stopped), Some(12));
    }
}
