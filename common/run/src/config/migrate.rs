//! Configs written before a key existed, or after one was retired, read as
//! today's: the one place that knows the file's history. A run directory,
//! a checkpoint or a sweep from an older version records such a config,
//! and resuming or plotting it must keep working.

use toml::{Table, Value};

use super::ConfigError;

/// A key added after the first configs were written: its section, its
/// name and the value an older file meant.
type AddedKey = (&'static str, &'static str, fn() -> Value);

/// Keys added after the first configs were written, with the value that
/// keeps an older file's meaning (the MLP torso, dense head and no action groups, eta in reward units, and
/// each other is "off": no late batch, no decay, no weight decay, returns
/// unscaled, exact evaluation without an average, no local best
/// response), and the divergence guard's defaults.
const ADDED: &[AddedKey] = &[
    ("network", "torso", || Value::String("mlp".into())),
    ("network", "head", || Value::String("dense".into())),
    ("network", "action_groups", || Value::Boolean(false)),
    ("actors", "threads", || Value::Integer(1)),
    ("rnad", "late_batch_start_step", || Value::Integer(0)),
    ("rnad", "late_batch_size", || Value::Integer(0)),
    ("rnad", "learning_rate_decay_steps", || Value::Integer(0)),
    ("rnad", "learning_rate_decay_start_step", || {
        Value::Integer(0)
    }),
    ("rnad", "learning_rate_final_fraction", || Value::Float(1.0)),
    ("rnad", "weight_decay", || Value::Float(0.0)),
    ("rnad", "reward_scale", || Value::Float(1.0)),
    ("rnad", "eta_unit", || Value::String("reward".into())),
    ("rnad", "rho_vtrace", || Value::Float(f64::INFINITY)),
    ("rnad", "max_nonfinite_steps", || Value::Integer(10)),
    ("rnad", "max_rollbacks", || Value::Integer(3)),
    ("rnad", "rollback_learning_rate_factor", || {
        Value::Float(0.5)
    }),
    ("evaluation", "mode", || Value::String("exact".into())),
    ("evaluation", "deals", || Value::Integer(10_000)),
    ("evaluation", "average_horizon_steps", || Value::Integer(0)),
    ("evaluation", "lbr_interval_evaluations", || {
        Value::Integer(0)
    }),
    ("evaluation", "lbr_hands", || Value::Integer(1000)),
    ("evaluation", "br_interval_evaluations", || {
        Value::Integer(0)
    }),
    ("evaluation", "br_budget_steps", || Value::Integer(2000)),
    ("evaluation", "br_episodes_per_step", || Value::Integer(128)),
    ("evaluation", "br_judge_episodes", || Value::Integer(20_000)),
    ("evaluation", "panel_extra", || Value::Array(Vec::new())),
    ("evaluation", "panel_match_games", || Value::Integer(1)),
    ("training_log", "interval_steps", || Value::Integer(100)),
    ("average_network", "reservoir_size", || Value::Integer(0)),
    ("average_network", "horizon_steps", || Value::Integer(0)),
    ("average_network", "own_reach_clip", || Value::Float(0.0)),
    ("average_network", "offered_per_step", || Value::Integer(64)),
    ("average_network", "batch_size", || Value::Integer(256)),
    ("average_network", "learning_rate", || Value::Float(1e-3)),
];

/// Brings an older config's tree up to today's keys: missing keys take the
/// values older runs ran with, and the retired `rnad.trajectory_max` (now
/// the game's own maximum length, `max_game_length`) is accepted where it
/// is not shorter than that, and dropped.
pub fn migrate(
    tree: &mut Table,
    max_game_length: impl FnOnce() -> Option<usize>,
) -> Result<(), ConfigError> {
    for (section, key, value) in ADDED {
        // A missing section is left to the typed parse to name, except the
        // training log's and the averaged network's, which older files
        // lack entirely.
        let table = match tree.get_mut(*section) {
            Some(Value::Table(table)) => table,
            Some(_) => continue,
            None if *section == "training_log" || *section == "average_network" => tree
                .entry(section.to_string())
                .or_insert_with(|| Value::Table(Table::new()))
                .as_table_mut()
                .expect("just inserted a table"),
            None => continue,
        };
        table.entry(key.to_string()).or_insert_with(value);
    }
    let retired = tree
        .get_mut("rnad")
        .and_then(Value::as_table_mut)
        .and_then(|rnad| rnad.remove("trajectory_max"));
    if let Some(given) = retired {
        let longest = max_game_length();
        let fits = match (given.as_integer(), longest) {
            (Some(t), Some(longest)) => t >= 0 && t as usize >= longest,
            // Without a readable game the typed parse reports the game.
            (Some(_), None) => true,
            (None, _) => false,
        };
        if !fits {
            return Err(ConfigError::Invalid {
                key: "rnad.trajectory_max".into(),
                message: format!(
                    "{given} is shorter than the longest game ({} decisions); the key is obsolete: remove it",
                    longest.map_or_else(|| "?".into(), |l| l.to_string())
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    /// A config as the first versions wrote it: none of the keys added
    /// since, no training-log section, and the retired trajectory_max.
    const OLD: &str = include_str!("../../../../configs/kuhn.toml");

    #[test]
    fn an_old_file_reads_with_the_values_old_runs_ran_with() {
        let old = OLD.replacen(
            "batch_size = 128",
            "batch_size = 128\ntrajectory_max = 3",
            1,
        );
        assert!(!old.contains("training_log") && !old.contains("weight_decay"));
        let config = Config::from_toml(&old, "old.toml").unwrap();
        let r = &config.rnad;
        assert_eq!((r.late_batch_start_step, r.late_batch_size), (0, 0));
        assert_eq!(
            (
                r.learning_rate_decay_steps,
                r.learning_rate_decay_start_step,
                r.learning_rate_final_fraction
            ),
            (0, 0, 1.0)
        );
        assert_eq!(r.weight_decay, 0.0);
        assert_eq!(r.rho_vtrace, f64::INFINITY);
        assert_eq!(config.evaluation.mode.name(), "exact");
        assert_eq!(config.evaluation.deals, 10_000);
        assert_eq!(config.evaluation.average_horizon_steps, 0);
        assert_eq!(config.training_log.interval_steps, 100);
        // Written back, the file has today's keys and not the retired one.
        let written = config.to_toml();
        assert!(written.contains("[training_log]") && !written.contains("trajectory_max"));
        assert_eq!(Config::from_toml(&written, "today").unwrap(), config);
    }

    #[test]
    fn a_retired_trajectory_max_shorter_than_the_game_is_refused() {
        let short = OLD.replacen(
            "batch_size = 128",
            "batch_size = 128\ntrajectory_max = 2",
            1,
        );
        let error = Config::from_toml(&short, "old.toml")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("rnad.trajectory_max") && error.contains("3 decisions"),
            "{error}"
        );
    }
}
