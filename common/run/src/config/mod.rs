//! The experiment configuration: one typed TOML document, unknown keys
//! refused, every value checked once at start-up with the key named.
//!
//! Each key is declared once, in `sections.rs`, with its meaning, values,
//! check and whether a resume may change it; [`Config::validate`], the
//! resume check ([`SettingChange::changes_experiment`]), `rnad-learner
//! config` ([`describe`]) and `docs/configuration.md` are derived from the
//! declarations. Files from older versions are brought up to date in one
//! place (`migrate.rs`).

mod checks;
pub mod describe;
mod keys;
mod migrate;
pub mod overrides;
mod sections;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use checks::DEALS_RANGE;
pub use keys::{KeyInfo, Resume};
pub use sections::{
    ActorConfig, AverageNetworkConfig, Averaging, CheckpointConfig, Config, EtaUnit,
    EvaluationConfig, EvaluationMode, NetworkConfig, RnadConfig, TrainingLogConfig,
};

/// A configuration that cannot be used, and which key is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// TOML syntax, an unknown key or a wrong type (the message names the key
    /// and, for syntax, the line).
    #[error("config {origin}: {message}")]
    Parse {
        /// The file or other origin.
        origin: String,
        /// The parser's message.
        message: String,
    },
    /// A `--set` or `--grid` that names no key of the config or gives a
    /// value of the wrong type.
    #[error("--set `{key}`: {message}")]
    Override {
        /// The dotted key as given.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A value out of its range.
    #[error("config key `{key}`: {message}")]
    Invalid {
        /// The dotted key.
        key: String,
        /// What is wrong, with the value.
        message: String,
    },
}

/// One setting that differs between a run's recorded config and the config
/// it is restarted with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingChange {
    /// The dotted key (`rnad.learning_rate`).
    pub key: String,
    /// The recorded value (`(unset)` for a key the recorded config lacks).
    pub from: String,
    /// The new value.
    pub to: String,
}

impl SettingChange {
    /// Whether the change can alter what the run computes: any key not
    /// declared [`Resume::Operational`].
    pub fn changes_experiment(&self) -> bool {
        !operational_keys().contains(&self.key)
    }
}

impl std::fmt::Display for SettingChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {} -> {}", self.key, self.from, self.to)
    }
}

/// Every key's declaration, in the order a config file lists them.
pub fn keys() -> Vec<KeyInfo> {
    Config::keys("")
}

/// The keys a resumed run may change freely.
pub fn operational_keys() -> Vec<String> {
    keys()
        .into_iter()
        .filter(|k| k.resume == Resume::Operational)
        .map(|k| k.key)
        .collect()
}

impl Config {
    /// Parses and validates a config from TOML text; an older file's keys
    /// are brought up to date first.
    pub fn from_toml(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let parse_error = |message: String| ConfigError::Parse {
            origin: origin.to_string(),
            message: message.trim_end().to_string(),
        };
        let mut tree: toml::Table = toml::from_str(text).map_err(|e| parse_error(e.to_string()))?;
        let game = tree
            .get("game")
            .and_then(toml::Value::as_str)
            .map(str::to_string);
        migrate::migrate(&mut tree, || {
            let spec: rnad_games::GameSpec = game?.parse().ok()?;
            Some(spec.load().max_game_length())
        })?;
        let config = Config::deserialize(tree).map_err(|e| parse_error(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Reads, parses and validates a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Config::from_toml(&text, &path.display().to_string())
    }

    /// The config as TOML (the resolved config a run records).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("config serialises")
    }

    /// Every setting as (dotted key, value): `rnad.averaging` → `ema`,
    /// `network.hidden` → `[256, 256]`. What runs are compared and grouped
    /// by.
    pub fn settings(&self) -> BTreeMap<String, String> {
        let value = toml::Value::try_from(self).expect("config serialises");
        let mut settings = BTreeMap::new();
        flatten("", &value, &mut settings);
        settings
    }

    /// Every setting whose value differs from `recorded`'s, by key.
    pub fn changes_from(&self, recorded: &Config) -> Vec<SettingChange> {
        let (old, new) = (recorded.settings(), self.settings());
        let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
        keys.sort();
        keys.dedup();
        let unset = || "(unset)".to_string();
        keys.into_iter()
            .filter(|key| old.get(*key) != new.get(*key))
            .map(|key| SettingChange {
                key: key.clone(),
                from: old.get(key).cloned().unwrap_or_else(unset),
                to: new.get(key).cloned().unwrap_or_else(unset),
            })
            .collect()
    }

    /// Checks what concerns training with this config rather than reading
    /// it, so that a recorded config (a checkpoint's, an older run's) that
    /// fails them still loads: an asynchronous run's queue must hold a whole
    /// batch.
    pub fn validate_for_training(&self) -> Result<(), ConfigError> {
        let r = &self.rnad;
        let largest_batch = r.batch_size.max(r.late_batch_size);
        check(
            self.actors.lockstep || self.actors.queue_capacity >= largest_batch,
            "actors.queue_capacity",
            format!(
                "{} is smaller than a learner step's batch ({largest_batch} trajectories): the learner would wait for the actors at every step while they wait for room in the queue, leaving the CPU idle; make it at least the batch, best twice it",
                self.actors.queue_capacity
            ),
        )
    }

    /// Checks every key's value (its declared check) and the relations
    /// between keys; what needs the game loaded (does the network fit its
    /// input?) is checked when the config is resolved
    /// ([`crate::ResolvedRun::new`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check_values("")?;
        if let Err(message) = self.network.torso.check_hidden(&self.network.hidden) {
            return Err(ConfigError::Invalid {
                key: "network.hidden".into(),
                message,
            });
        }
        let r = &self.rnad;
        check(
            (r.late_batch_start_step > 0) == (r.late_batch_size > 0),
            if r.late_batch_size > 0 {
                "rnad.late_batch_start_step"
            } else {
                "rnad.late_batch_size"
            },
            format!(
                "rnad.late_batch_start_step ({}) and rnad.late_batch_size ({}) go together: set both above 0, or neither",
                r.late_batch_start_step, r.late_batch_size
            ),
        )?;
        check(
            r.learning_rate_final_fraction == 1.0 || r.learning_rate_decay_steps > 0,
            "rnad.learning_rate_decay_steps",
            format!(
                "must be positive when rnad.learning_rate_final_fraction ({}) decays the rate",
                r.learning_rate_final_fraction
            ),
        )?;
        check(
            r.learning_rate_decay_start_step == 0 || r.learning_rate_final_fraction < 1.0,
            "rnad.learning_rate_decay_start_step",
            format!(
                "{} starts a decay that does not happen: set rnad.learning_rate_final_fraction below 1 and rnad.learning_rate_decay_steps, or remove the key",
                r.learning_rate_decay_start_step
            ),
        )?;
        check(
            r.entropy_schedule_repeats.len() == r.entropy_schedule_size.len(),
            "rnad.entropy_schedule_repeats",
            format!(
                "needs one positive count per size ({} sizes), got {:?}",
                r.entropy_schedule_size.len(),
                r.entropy_schedule_repeats
            ),
        )?;
        check(
            r.learning_rate * r.weight_decay < 1.0,
            "rnad.weight_decay",
            format!(
                "{} times rnad.learning_rate ({}) must be below 1, or each step would flip or zero every weight",
                r.weight_decay, r.learning_rate
            ),
        )?;
        check(
            !self.actors.lockstep || self.actors.count == 1,
            "actors.count",
            format!(
                "lockstep runs use exactly 1 actor, got {}",
                self.actors.count
            ),
        )
    }
}

fn check(ok: bool, key: &str, message: impl Into<String>) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::Invalid {
            key: key.to_string(),
            message: message.into(),
        })
    }
}

/// Writes a TOML value's leaves under dotted keys; strings lose their quotes.
fn flatten(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, String>) {
    match value {
        toml::Value::Table(table) => {
            for (key, value) in table {
                flatten(&keys::dotted(prefix, key), value, out);
            }
        }
        toml::Value::String(text) => {
            out.insert(prefix.to_string(), text.clone());
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

#[cfg(test)]
mod tests;
