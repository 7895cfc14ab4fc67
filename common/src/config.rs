//! The experiment configuration: one typed TOML document, unknown keys
//! refused, every value range-checked once at start-up with the key named.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use rnad_games::GameSpec;

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
    /// and line).
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
        key: &'static str,
        /// What is wrong, with the value.
        message: String,
    },
}

/// How the regularisation network follows the target network at each roll
/// of the entropy schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Averaging {
    /// Plain R-NaD (Algorithm 1): `θ_reg ← θ_target`.
    None,
    /// Two-stage EMA: `θ_reg ← θ_reg + γ₂ (θ_target − θ_reg)`.
    Ema,
    /// Two-stage arithmetic mean: `θ_reg ← θ_reg + (θ_target − θ_reg)/(n+1)`.
    Am,
    /// AM first, EMA after: `γ = max(1/(n+1), γ₂)`.
    Scheduled,
}

/// Keys that say how a run is operated, not what it computes: where it
/// lives, how often it is evaluated and checkpointed, how many checkpoints
/// it keeps, and how many actors with how many games feed it (asynchronous
/// runs are not reproducible step for step anyway, and a lockstep run has
/// exactly one actor). A restart may change these freely; any other change
/// makes a different experiment and must be accepted explicitly.
pub const OPERATIONAL_KEYS: &[&str] = &[
    "run_dir",
    "evaluation.interval_seconds",
    "evaluation.interval_steps",
    "evaluation.mode",
    "evaluation.deals",
    "evaluation.average_horizon_steps",
    "checkpoint.interval_steps",
    "checkpoint.keep",
    "training_log.interval_steps",
    "actors.count",
    "actors.games_per_actor",
    "actors.queue_capacity",
];

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
    /// Whether the change can alter what the run computes (see
    /// [`OPERATIONAL_KEYS`]).
    pub fn changes_experiment(&self) -> bool {
        !OPERATIONAL_KEYS.contains(&self.key.as_str())
    }
}

impl std::fmt::Display for SettingChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {} -> {}", self.key, self.from, self.to)
    }
}

/// The whole experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The game to learn, as an OpenSpiel spec (`leduc_poker(players=3)`).
    pub game: GameSpec,
    /// Seed of every random number generator of the run.
    pub seed: u64,
    /// Where config, history and checkpoints go.
    pub run_dir: PathBuf,
    /// The policy-value network.
    pub network: NetworkConfig,
    /// R-NaD hyperparameters.
    pub rnad: RnadConfig,
    /// Self-play actors.
    pub actors: ActorConfig,
    /// Evaluation during training.
    pub evaluation: EvaluationConfig,
    /// Checkpointing.
    pub checkpoint: CheckpointConfig,
    /// The training log (`training.jsonl`); older files without the
    /// section log every 100 steps.
    #[serde(default)]
    pub training_log: TrainingLogConfig,
}

/// The training log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingLogConfig {
    /// Learner steps between lines of `training.jsonl`.
    pub interval_steps: u64,
}

impl Default for TrainingLogConfig {
    fn default() -> Self {
        TrainingLogConfig {
            interval_steps: 100,
        }
    }
}

/// The policy-value MLP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// Hidden layer widths of the ReLU torso.
    pub hidden: Vec<usize>,
}

/// R-NaD hyperparameters (what each does in a step: docs/rnad-update.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RnadConfig {
    /// Trajectories per learner step (B).
    pub batch_size: usize,
    /// The learner step from which each step takes `late_batch_size`
    /// trajectories instead of `batch_size` (0, and in older files: never).
    /// A batch of one trajectory stops seed 000's target from improving
    /// after about 300k steps; sixteen from then on let it improve again
    /// (docs/results/seed000-leduc/).
    #[serde(default)]
    pub late_batch_start_step: u64,
    /// Trajectories per learner step from `late_batch_start_step` on.
    #[serde(default)]
    pub late_batch_size: usize,
    /// Former knob for the longest trajectory, now the game's own maximum
    /// length. Accepted in old files when it is not shorter than that, and
    /// never written back.
    #[serde(default, skip_serializing)]
    pub trajectory_max: Option<usize>,
    /// Adam learning rate (at step 0, when it decays).
    pub learning_rate: f64,
    /// Steps over which the learning rate decays geometrically to
    /// `learning_rate_final_fraction` times itself (0: constant; older files
    /// lack the key).
    #[serde(default)]
    pub learning_rate_decay_steps: u64,
    /// The learner step at which the decay begins; the rate is constant
    /// before it (older files lack the key: from step 0).
    #[serde(default)]
    pub learning_rate_decay_start_step: u64,
    /// The fraction of `learning_rate` reached after the decay, in (0, 1].
    #[serde(default = "no_decay")]
    pub learning_rate_final_fraction: f64,
    /// Entropy (regularisation) strength η.
    pub eta: f64,
    /// Target network EMA rate γ_target.
    pub gamma_target: f64,
    /// NeuRD logit threshold β.
    pub beta_neurd: f64,
    /// Advantage clip for NeuRD.
    pub clip_neurd: f64,
    /// Clip of each parameter update.
    pub clip_gradient: f64,
    /// Entropy schedule period sizes (the last repeats forever).
    pub entropy_schedule_size: Vec<u64>,
    /// How often each size repeats.
    pub entropy_schedule_repeats: Vec<u64>,
    /// Regularisation update at each roll.
    pub averaging: Averaging,
    /// γ₂ of the EMA and scheduled averaging.
    pub gamma_averaging: f64,
    /// Adam's second-moment decay b2 (b1 is 0, as in the reference).
    pub adam_b2: f64,
    /// Adam's epsilon.
    pub adam_eps: f64,
    /// Decoupled weight decay λ: before each Adam update every parameter
    /// is multiplied by `1 − lr·λ`. With b1 = 0 every weight moves by about
    /// the rate at every step, so without it the weights the loss does not
    /// pin random-walk and the layers' norms keep growing; λ > 0 holds them
    /// near a stationary size (older files lack the key: 0, no decay).
    #[serde(default)]
    pub weight_decay: f64,
}

/// Self-play actors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorConfig {
    /// Number of actor threads or processes.
    pub count: usize,
    /// Concurrent games per actor, advanced by one batched forward pass.
    pub games_per_actor: usize,
    /// Capacity of the trajectory queue to the learner.
    pub queue_capacity: usize,
    /// Trajectories produced by parameters more than this many versions old
    /// are dropped.
    pub max_policy_lag: u64,
    /// Learner and actors take turns (each step consumes exactly the batch
    /// played with the current parameters): slower, but bit-reproducible.
    pub lockstep: bool,
}

/// Evaluation during training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationConfig {
    /// Seconds between evaluations (0: evaluate every `interval_steps` only).
    pub interval_seconds: f64,
    /// Also evaluate every this many learner steps (0: never by steps).
    pub interval_steps: u64,
    /// What an evaluation computes (older files, without the key, evaluate
    /// exactly).
    #[serde(default)]
    pub mode: EvaluationMode,
    /// Head-to-head mode: deals each opponent of the panel is played on,
    /// in every seat (the same deals at every evaluation).
    #[serde(default = "default_deals")]
    pub deals: usize,
    /// Exact mode: the horizon, in learner steps, of the `target_average`
    /// policy kind, a moving average of the target policy over the run's
    /// evaluations (0, and older files without the key: no average).
    #[serde(default)]
    pub average_horizon_steps: u64,
}

/// What an evaluation during training computes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvaluationMode {
    /// NashConv of every policy kind, by best responses over the whole
    /// game tree: the truth, for games whose tree fits in memory.
    #[default]
    Exact,
    /// The post-processed target policy's mean payoff against a fixed
    /// panel (uniform, the rule-based player, the previous evaluated
    /// version, optionally a policy file) on fixed deals in every seat,
    /// with 95% intervals: for games too large for exact evaluation, or to
    /// watch strength rather than distance from equilibrium.
    HeadToHead,
}

impl EvaluationMode {
    /// The name configs and command lines use.
    pub fn name(self) -> &'static str {
        match self {
            EvaluationMode::Exact => "exact",
            EvaluationMode::HeadToHead => "head_to_head",
        }
    }
}

impl std::str::FromStr for EvaluationMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [EvaluationMode::Exact, EvaluationMode::HeadToHead]
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown evaluation mode {s:?}: use exact or head_to_head"))
    }
}

impl RnadConfig {
    /// Trajectories the learner's next step takes once `steps_done` steps
    /// are done.
    pub fn batch_size_after(&self, steps_done: u64) -> usize {
        if self.late_batch_size > 0 && steps_done >= self.late_batch_start_step {
            self.late_batch_size
        } else {
            self.batch_size
        }
    }
}

/// `rnad.learning_rate_final_fraction` when a file does not set it: no decay.
fn no_decay() -> f64 {
    1.0
}

/// Deals per head-to-head opponent unless the config says otherwise: an
/// interval of about ±0.04 chips per game on Leduc against uniform.
fn default_deals() -> usize {
    10_000
}

/// The fewest and most deals a head-to-head evaluation may use: an
/// interval needs two, and an evaluation should take seconds, not hours.
pub const DEALS_RANGE: std::ops::RangeInclusive<usize> = 2..=10_000_000;

/// Checkpointing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointConfig {
    /// Learner steps between checkpoints.
    pub interval_steps: u64,
    /// Checkpoints kept (older ones are deleted).
    pub keep: usize,
}

impl Config {
    /// Parses and validates a config from TOML text.
    pub fn from_toml(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        config.validate()?;
        config.rnad.trajectory_max = None;
        Ok(config)
    }

    /// The longest trajectory a game of this config can produce: the
    /// game's maximum number of decisions.
    pub fn trajectory_max(&self) -> usize {
        self.game.load().max_game_length()
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
                "{} is smaller than a learner step's batch ({largest_batch} trajectories): the learner would wait for the actors at every step while they wait for room in the queue (a local Leduc run with a late batch of 2048 and a queue of 1024 left a third of its CPU idle); make it at least the batch, best twice it",
                self.actors.queue_capacity
            ),
        )
    }

    /// Checks every value's range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let r = &self.rnad;
        let max_len = self.game.load().max_game_length();
        check(
            !self.network.hidden.is_empty(),
            "network.hidden",
            "needs at least one layer",
        )?;
        check(
            self.network
                .hidden
                .iter()
                .all(|&h| (1..=65536).contains(&h)),
            "network.hidden",
            format!("widths must be 1..=65536, got {:?}", self.network.hidden),
        )?;
        positive(r.batch_size as f64, "rnad.batch_size")?;
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
            r.trajectory_max.is_none_or(|t| t >= max_len),
            "rnad.trajectory_max",
            format!(
                "{:?} is shorter than the longest {} game ({max_len} decisions); the key is obsolete: remove it",
                r.trajectory_max, self.game
            ),
        )?;
        positive(r.learning_rate, "rnad.learning_rate")?;
        check(
            r.learning_rate_final_fraction > 0.0 && r.learning_rate_final_fraction <= 1.0,
            "rnad.learning_rate_final_fraction",
            format!("must be in (0, 1], got {}", r.learning_rate_final_fraction),
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
        non_negative(r.eta, "rnad.eta")?;
        unit_interval(r.gamma_target, "rnad.gamma_target")?;
        positive(r.beta_neurd, "rnad.beta_neurd")?;
        positive(r.clip_neurd, "rnad.clip_neurd")?;
        positive(r.clip_gradient, "rnad.clip_gradient")?;
        check(
            !r.entropy_schedule_size.is_empty() && r.entropy_schedule_size.iter().all(|&s| s > 0),
            "rnad.entropy_schedule_size",
            format!(
                "needs one or more positive sizes, got {:?}",
                r.entropy_schedule_size
            ),
        )?;
        check(
            r.entropy_schedule_repeats.len() == r.entropy_schedule_size.len()
                && r.entropy_schedule_repeats.iter().all(|&n| n > 0),
            "rnad.entropy_schedule_repeats",
            format!(
                "needs one positive count per size ({} sizes), got {:?}",
                r.entropy_schedule_size.len(),
                r.entropy_schedule_repeats
            ),
        )?;
        unit_interval(r.gamma_averaging, "rnad.gamma_averaging")?;
        check(
            (0.0..1.0).contains(&r.adam_b2),
            "rnad.adam_b2",
            format!("must be in [0, 1), got {}", r.adam_b2),
        )?;
        positive(r.adam_eps, "rnad.adam_eps")?;
        non_negative(r.weight_decay, "rnad.weight_decay")?;
        check(
            r.learning_rate * r.weight_decay < 1.0,
            "rnad.weight_decay",
            format!(
                "{} times rnad.learning_rate ({}) must be below 1, or each step would flip or zero every weight",
                r.weight_decay, r.learning_rate
            ),
        )?;
        positive(self.actors.count as f64, "actors.count")?;
        check(
            !self.actors.lockstep || self.actors.count == 1,
            "actors.count",
            format!(
                "lockstep runs use exactly 1 actor, got {}",
                self.actors.count
            ),
        )?;
        positive(self.actors.games_per_actor as f64, "actors.games_per_actor")?;
        positive(self.actors.queue_capacity as f64, "actors.queue_capacity")?;
        non_negative(
            self.evaluation.interval_seconds,
            "evaluation.interval_seconds",
        )?;
        check(
            DEALS_RANGE.contains(&self.evaluation.deals),
            "evaluation.deals",
            format!(
                "must be between {} and {}, got {}",
                DEALS_RANGE.start(),
                DEALS_RANGE.end(),
                self.evaluation.deals
            ),
        )?;
        positive(
            self.checkpoint.interval_steps as f64,
            "checkpoint.interval_steps",
        )?;
        positive(self.checkpoint.keep as f64, "checkpoint.keep")?;
        positive(
            self.training_log.interval_steps as f64,
            "training_log.interval_steps",
        )
    }
}

fn check(ok: bool, key: &'static str, message: impl Into<String>) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::Invalid {
            key,
            message: message.into(),
        })
    }
}

fn positive(value: f64, key: &'static str) -> Result<(), ConfigError> {
    check(
        value.is_finite() && value > 0.0,
        key,
        format!("must be positive, got {value}"),
    )
}

fn non_negative(value: f64, key: &'static str) -> Result<(), ConfigError> {
    check(
        value.is_finite() && value >= 0.0,
        key,
        format!("must be finite and non-negative, got {value}"),
    )
}

fn unit_interval(value: f64, key: &'static str) -> Result<(), ConfigError> {
    check(
        value > 0.0 && value <= 1.0,
        key,
        format!("must be in (0, 1], got {value}"),
    )
}

/// Writes a TOML value's leaves under dotted keys; strings lose their quotes.
fn flatten(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, String>) {
    match value {
        toml::Value::Table(table) => {
            for (key, value) in table {
                let key = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&key, value, out);
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
mod tests {
    use super::*;

    const KUHN: &str = include_str!("../../configs/kuhn.toml");

    fn error_for(from: &str, to: &str) -> String {
        assert!(KUHN.contains(from), "the config has {from:?}");
        Config::from_toml(&KUHN.replacen(from, to, 1), "test.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn shipped_configs_are_valid() {
        for text in [
            KUHN,
            include_str!("../../configs/leduc.toml"),
            include_str!("../../configs/leduc-reference.toml"),
            include_str!("../../configs/leduc-two-stage.toml"),
            include_str!("../../configs/kuhn-3p.toml"),
            include_str!("../../configs/leduc-3p.toml"),
            include_str!("../../configs/liars_dice.toml"),
        ] {
            let config = Config::from_toml(text, "shipped").unwrap();
            let again = Config::from_toml(&config.to_toml(), "round trip").unwrap();
            assert_eq!(again, config);
        }
    }

    #[test]
    fn evaluation_mode_defaults_to_exact_and_names_head_to_head() {
        let config = Config::from_toml(KUHN, "kuhn").unwrap();
        assert_eq!(config.evaluation.mode, EvaluationMode::Exact);
        assert_eq!(config.evaluation.deals, 10_000);
        let text = KUHN.replacen(
            "interval_steps = 0",
            "interval_steps = 0\nmode = \"head_to_head\"\ndeals = 500",
            1,
        );
        let config = Config::from_toml(&text, "h2h").unwrap();
        assert_eq!(config.evaluation.mode, EvaluationMode::HeadToHead);
        assert_eq!(config.evaluation.deals, 500);
        assert_eq!(config.settings()["evaluation.mode"], "head_to_head");
        let err = error_for(
            "interval_steps = 0",
            "interval_steps = 0\nmode = \"sampled\"",
        );
        assert!(
            err.contains("sampled") && err.contains("head_to_head"),
            "{err}"
        );
    }

    #[test]
    fn settings_are_flat_dotted_keys() {
        let config = Config::from_toml(KUHN, "kuhn").unwrap();
        let settings = config.settings();
        assert_eq!(settings["game"], "kuhn_poker");
        assert_eq!(settings["rnad.averaging"], "ema");
        assert_eq!(settings["network.hidden"], "[64, 64]");
        assert_eq!(settings["actors.lockstep"], "false");
        assert!(!settings.contains_key("rnad"), "tables are not leaves");
    }

    #[test]
    fn changes_name_every_differing_key_and_whether_it_changes_the_experiment() {
        let recorded = Config::from_toml(KUHN, "kuhn").unwrap();
        assert!(recorded.changes_from(&recorded).is_empty());
        let mut restarted = recorded.clone();
        restarted.rnad.learning_rate *= 2.0;
        restarted.checkpoint.keep += 1;
        restarted.run_dir = "elsewhere".into();
        let changes = restarted.changes_from(&recorded);
        let keys: Vec<&str> = changes.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["checkpoint.keep", "rnad.learning_rate", "run_dir"]);
        let learning_rate = &changes[1];
        assert_eq!(
            (learning_rate.from.as_str(), learning_rate.to.as_str()),
            ("0.0003", "0.0006")
        );
        assert_eq!(
            learning_rate.to_string(),
            "rnad.learning_rate = 0.0003 -> 0.0006"
        );
        let experiment: Vec<bool> = changes.iter().map(|c| c.changes_experiment()).collect();
        assert_eq!(experiment, [false, true, false]);
    }

    #[test]
    fn the_learning_rate_decay_is_optional_and_read_when_given() {
        let constant = Config::from_toml(KUHN, "test.toml").unwrap();
        assert_eq!(constant.rnad.learning_rate_decay_steps, 0);
        assert_eq!(constant.rnad.learning_rate_decay_start_step, 0);
        assert_eq!(constant.rnad.learning_rate_final_fraction, 1.0);
        let decaying = KUHN.replacen(
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nlearning_rate_decay_steps = 5000\nlearning_rate_final_fraction = 0.1",
            1,
        );
        let decaying = Config::from_toml(&decaying, "test.toml").unwrap();
        assert_eq!(decaying.rnad.learning_rate_decay_steps, 5000);
        assert_eq!(decaying.rnad.learning_rate_decay_start_step, 0);
        assert_eq!(decaying.rnad.learning_rate_final_fraction, 0.1);
        let keys: Vec<String> = decaying
            .changes_from(&constant)
            .iter()
            .map(|c| c.key.clone())
            .collect();
        assert_eq!(
            keys,
            [
                "rnad.learning_rate_decay_steps",
                "rnad.learning_rate_final_fraction"
            ]
        );
    }

    #[test]
    fn a_late_decay_is_read_and_a_start_without_a_decay_is_refused() {
        let late = KUHN.replacen(
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nlearning_rate_decay_start_step = 100000\nlearning_rate_decay_steps = 400000\nlearning_rate_final_fraction = 0.2",
            1,
        );
        let late = Config::from_toml(&late, "test.toml").unwrap();
        assert_eq!(late.rnad.learning_rate_decay_start_step, 100_000);
        let err = error_for(
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nlearning_rate_decay_start_step = 100000",
        );
        assert!(
            err.contains("rnad.learning_rate_decay_start_step") && err.contains("100000"),
            "{err}"
        );
    }

    #[test]
    fn weight_decay_is_off_unless_given_and_must_not_flip_a_weight() {
        let constant = Config::from_toml(KUHN, "test.toml").unwrap();
        assert_eq!(constant.rnad.weight_decay, 0.0);
        let decaying = KUHN.replacen(
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nweight_decay = 0.01",
            1,
        );
        let decaying = Config::from_toml(&decaying, "test.toml").unwrap();
        assert_eq!(decaying.rnad.weight_decay, 0.01);
        let negative = error_for(
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nweight_decay = -1",
        );
        assert!(negative.contains("rnad.weight_decay"), "{negative}");
        // 3e-4 · 5000 = 1.5: a step would flip every weight's sign.
        let flipping = error_for(
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nweight_decay = 5000",
        );
        assert!(
            flipping.contains("rnad.weight_decay") && flipping.contains("below 1"),
            "{flipping}"
        );
    }

    #[test]
    fn a_late_batch_size_applies_from_its_step_and_needs_both_keys() {
        let constant = Config::from_toml(KUHN, "test.toml").unwrap();
        assert_eq!(constant.rnad.late_batch_start_step, 0);
        assert_eq!(constant.rnad.batch_size_after(0), 128);
        assert_eq!(constant.rnad.batch_size_after(u64::MAX), 128);
        let late = KUHN.replacen(
            "batch_size = 128",
            "batch_size = 128\nlate_batch_start_step = 300\nlate_batch_size = 512",
            1,
        );
        let late = Config::from_toml(&late, "test.toml").unwrap();
        let sizes: Vec<usize> = [0, 299, 300, 301, 1_000_000]
            .iter()
            .map(|&done| late.rnad.batch_size_after(done))
            .collect();
        assert_eq!(sizes, [128, 128, 512, 512, 512]);
        for (added, missing) in [
            ("late_batch_start_step = 300", "rnad.late_batch_size"),
            ("late_batch_size = 512", "rnad.late_batch_start_step"),
        ] {
            let err = error_for("batch_size = 128", &format!("batch_size = 128\n{added}"));
            assert!(
                err.contains(missing) && err.contains("go together"),
                "{err}"
            );
        }
    }

    #[test]
    fn an_asynchronous_queue_must_hold_a_whole_batch() {
        // Kuhn's config: batch 128, queue 1024. Such configs still load
        // (a checkpoint may have recorded one); training refuses them.
        let training_error = |text: &str| {
            Config::from_toml(text, "test.toml")
                .unwrap()
                .validate_for_training()
                .unwrap_err()
                .to_string()
        };
        let err =
            training_error(&KUHN.replacen("queue_capacity = 1024", "queue_capacity = 100", 1));
        assert!(
            err.contains("actors.queue_capacity") && err.contains("(128 trajectories)"),
            "{err}"
        );
        let late = "batch_size = 128\nlate_batch_start_step = 300\nlate_batch_size = 2048";
        let err = training_error(&KUHN.replacen("batch_size = 128", late, 1));
        assert!(
            err.contains("1024 is smaller") && err.contains("(2048 trajectories)"),
            "{err}"
        );
        Config::from_toml(KUHN, "test.toml")
            .unwrap()
            .validate_for_training()
            .unwrap();
        // Lockstep runs (one actor) do not use the queue.
        let lockstep = KUHN
            .replacen("batch_size = 128", late, 1)
            .replacen("count = 2", "count = 1", 1)
            .replacen("lockstep = false", "lockstep = true", 1);
        Config::from_toml(&lockstep, "test.toml")
            .unwrap()
            .validate_for_training()
            .unwrap();
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let err = error_for("eta = 0.2", "eta = 0.2\netta = 0.3");
        assert!(err.contains("etta") && err.contains("test.toml"), "{err}");
        let err = error_for("[actors]", "[actor]");
        assert!(err.contains("actor"), "{err}");
    }

    #[test]
    fn wrong_types_are_refused_by_name() {
        let err = error_for("batch_size = 128", "batch_size = \"many\"");
        assert!(err.contains("batch_size"), "{err}");
        let err = error_for("averaging = \"ema\"", "averaging = \"median\"");
        assert!(err.contains("averaging") || err.contains("median"), "{err}");
    }

    #[test]
    fn out_of_range_values_are_refused_by_name() {
        for (from, to, key) in [
            (
                "learning_rate = 3e-4",
                "learning_rate = -1.0",
                "rnad.learning_rate",
            ),
            (
                "gamma_target = 0.01",
                "gamma_target = 1.5",
                "rnad.gamma_target",
            ),
            (
                "learning_rate = 3e-4",
                "learning_rate = 3e-4\nlearning_rate_decay_steps = 100\nlearning_rate_final_fraction = 0",
                "rnad.learning_rate_final_fraction",
            ),
            (
                "learning_rate = 3e-4",
                "learning_rate = 3e-4\nlearning_rate_decay_steps = 100\nlearning_rate_final_fraction = 1.5",
                "rnad.learning_rate_final_fraction",
            ),
            (
                "learning_rate = 3e-4",
                "learning_rate = 3e-4\nlearning_rate_final_fraction = 0.1",
                "rnad.learning_rate_decay_steps",
            ),
            (
                "batch_size = 128",
                "batch_size = 128\ntrajectory_max = 2",
                "rnad.trajectory_max",
            ),
            (
                "entropy_schedule_repeats = [1]",
                "entropy_schedule_repeats = [1, 1]",
                "rnad.entropy_schedule_repeats",
            ),
            ("hidden = [64, 64]", "hidden = []", "network.hidden"),
            ("count = 2", "count = 0", "actors.count"),
            ("lockstep = false", "lockstep = true", "actors.count"),
            ("keep = 3", "keep = 0", "checkpoint.keep"),
            (
                "interval_steps = 0",
                "interval_steps = 0\ndeals = 1",
                "evaluation.deals",
            ),
        ] {
            let err = error_for(from, to);
            assert!(err.contains(&format!("`{key}`")), "{to}: {err}");
        }
    }
}
