//! What every config key means and which values it takes: the text
//! `rnad-learner config` prints beside each resolved value. A test holds
//! the table to the config's actual keys, so a new key cannot go
//! undocumented.

use crate::config::{Config, OPERATIONAL_KEYS};

/// One key's documentation.
#[derive(Clone, Copy, Debug)]
pub struct KeyDoc {
    /// The dotted key.
    pub key: &'static str,
    /// What it means.
    pub meaning: &'static str,
    /// The values it takes.
    pub range: &'static str,
}

const fn doc(key: &'static str, meaning: &'static str, range: &'static str) -> KeyDoc {
    KeyDoc {
        key,
        meaning,
        range,
    }
}

/// Every key, in the order a config file lists them.
pub const KEYS: &[KeyDoc] = &[
    doc("game", "the game to learn, as an OpenSpiel spec", "a registered game, e.g. leduc_poker, kuhn_poker(players=3), liars_dice (rnad-evaluator eval --help lists them)"),
    doc("seed", "seed of every random number generator of the run (actors draw their own streams of it)", "any non-negative integer"),
    doc("run_dir", "where config.toml, history.jsonl, training.jsonl and checkpoints/ go", "a directory path"),
    doc("network.hidden", "widths of the hidden ReLU layers of the policy-value network", "one or more widths, each 1..=65536"),
    doc("rnad.batch_size", "trajectories per learner step", "positive integer"),
    doc("rnad.late_batch_start_step", "learner step from which each step takes late_batch_size trajectories instead of batch_size, to cut the noise of small batches once a run has reached its level", "0 (never) or more; above 0 needs late_batch_size"),
    doc("rnad.late_batch_size", "trajectories per learner step from late_batch_start_step on", "0 (batch_size throughout) or more; above 0 needs late_batch_start_step"),
    doc("rnad.learning_rate", "Adam's learning rate", "positive"),
    doc("rnad.learning_rate_decay_steps", "steps over which the learning rate decays geometrically to learning_rate_final_fraction times itself, then holds; counted from learning_rate_decay_start_step (step 0 unless set), also when a resumed run adds a decay", "0 (constant rate) or more"),
    doc("rnad.learning_rate_decay_start_step", "learner step at which the decay begins; the rate is learning_rate until then, so a run can first reach its level at the full rate and then calm down", "0 (decay from the start) or more; above 0 needs learning_rate_final_fraction < 1"),
    doc("rnad.learning_rate_final_fraction", "fraction of learning_rate reached at the end of the decay", "(0, 1]; below 1 needs learning_rate_decay_steps > 0"),
    doc("rnad.eta", "entropy (regularisation) strength: the reward is shaped by -eta * log(pi / pi_reg)", "0 or more"),
    doc("rnad.gamma_target", "rate of the target network's moving average of the online network", "(0, 1]"),
    doc("rnad.beta_neurd", "NeuRD's logit threshold: logits beyond +-beta get no further push", "positive"),
    doc("rnad.clip_neurd", "clip of the advantages in the NeuRD loss", "positive"),
    doc("rnad.clip_gradient", "clip of each parameter update", "positive"),
    doc("rnad.entropy_schedule_size", "learner steps per period of the entropy schedule, at whose end the regularisation rolls (the last size repeats forever)", "one or more positive integers"),
    doc("rnad.entropy_schedule_repeats", "how many periods each size lasts", "one positive integer per size"),
    doc("rnad.averaging", "how the regularisation network follows the target at each roll: none (plain R-NaD), ema, am or scheduled (two-stage averaging)", "none, ema, am, scheduled"),
    doc("rnad.gamma_averaging", "gamma_2 of the ema and scheduled averaging", "(0, 1]"),
    doc("rnad.adam_b2", "Adam's second-moment decay (b1 is 0)", "[0, 1)"),
    doc("rnad.adam_eps", "Adam's epsilon", "positive"),
    doc("rnad.weight_decay", "decoupled weight decay: each step multiplies every parameter by 1 - lr * weight_decay before Adam's update, so the weights do not random-walk to ever larger norms", "0 (none) or more; times learning_rate below 1"),
    doc("actors.count", "actor threads (local) or expected actor processes", "positive; exactly 1 with lockstep"),
    doc("actors.games_per_actor", "games each actor plays at once, advanced by one batched forward pass", "positive integer"),
    doc("actors.queue_capacity", "trajectories the learner's queue holds; a full queue slows the actors down", "at least the largest batch (rnad.batch_size, rnad.late_batch_size) unless lockstep; best twice it"),
    doc("actors.max_policy_lag", "trajectories played with parameters more than this many versions old are dropped", "0 or more"),
    doc("actors.lockstep", "learner and actor take turns, each step on the batch played with the current parameters: slower, bit-reproducible", "true or false"),
    doc("evaluation.interval_seconds", "seconds between evaluations during training", "0 (by steps only) or more"),
    doc("evaluation.interval_steps", "also evaluate at every multiple of this many learner steps", "0 (by time only) or more"),
    doc("evaluation.mode", "exact: NashConv of every policy kind; head_to_head: the played policy against uniform, rules and the previous version on fixed deals", "exact, head_to_head"),
    doc("evaluation.average_horizon_steps", "exact mode: learner steps over which the target_average policy kind averages the target policy (actions whose centred logit is at or below -beta_neurd + 0.05 dropped, weighted by own reach; the horizon is min(this, half the learner steps averaged so far))", "0 (no average) or more"),
    doc("evaluation.deals", "deals per head-to-head opponent, each played in every seat", "2..=10000000"),
    doc("checkpoint.interval_steps", "learner steps between checkpoints", "positive integer"),
    doc("checkpoint.keep", "checkpoints kept; older ones are deleted", "positive integer"),
    doc("training_log.interval_steps", "learner steps between lines of training.jsonl", "positive integer"),
];

/// The documentation of `key`, if it is one.
pub fn doc_of(key: &str) -> Option<&'static KeyDoc> {
    KEYS.iter().find(|d| d.key == key)
}

/// The config as a TOML file with every key's meaning, range and whether
/// a resumed run may change it, above its value.
pub fn describe(config: &Config) -> String {
    let tree = toml::Value::try_from(config).expect("config serialises");
    let mut out = String::new();
    let mut section = "";
    for doc in KEYS {
        let (table, name) = doc.key.rsplit_once('.').unwrap_or(("", doc.key));
        if table != section {
            out.push_str(&format!("\n[{table}]\n"));
            section = table;
        }
        let value = doc
            .key
            .split('.')
            .try_fold(&tree, |v, part| v.get(part))
            .expect("every documented key is in the config");
        let changes = if OPERATIONAL_KEYS.contains(&doc.key) {
            "may change when a run resumes"
        } else {
            "changing it on resume needs --accept-config-change"
        };
        out.push_str(&format!(
            "# {}.\n# Values: {}; {changes}.\n{name} = {value}\n",
            capitalise(doc.meaning),
            doc.range
        ));
    }
    out
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_documented_and_the_description_reads_back() {
        for text in [
            include_str!("../../configs/leduc.toml"),
            include_str!("../../configs/kuhn-3p.toml"),
        ] {
            let config = Config::from_toml(text, "shipped").unwrap();
            let keys: Vec<&str> = KEYS.iter().map(|d| d.key).collect();
            let settings = config.settings();
            let actual: Vec<&str> = settings.keys().map(String::as_str).collect();
            let mut documented = keys.clone();
            documented.sort_unstable();
            assert_eq!(documented, actual, "KEYS lists exactly the config's keys");
            let described = describe(&config);
            assert_eq!(Config::from_toml(&described, "described").unwrap(), config);
            assert!(described.contains("# Entropy (regularisation) strength"));
        }
    }
}
