//! Tabular policies over a game's information states, and OpenSpiel's JSON
//! policy format.
//!
//! A policy file maps each information-state string to a list of
//! `[action, probability]` pairs, either as the bare object or under a
//! `policy` field (the shape of OpenSpiel's CFR+ fixtures, which also carry
//! `game`, `description` and `nash_conv`). Reading one checks it completely:
//! every information state present and known, only legal actions, each
//! probability finite and non-negative, each distribution summing to 1.

use serde_json::{Map, Value};

use crate::public_tree::{Decision, PublicTree};
use crate::{Action, GameSpec, State};

/// How far a distribution's sum may stray from 1 in a policy file.
pub const SUM_TOLERANCE: f64 = 1e-6;

/// A policy file or value that cannot be used, and where.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// Not JSON (NaN or Infinity as a probability lands here: JSON has no
    /// such numbers).
    #[error("policy is not valid JSON{}: {source}", near(info_state))]
    Json {
        /// The parser's complaint, with line and column.
        source: serde_json::Error,
        /// The information state whose entry holds the error, if any.
        info_state: Option<String>,
    },
    /// JSON, but not an object of information states.
    #[error("policy must be a JSON object mapping information-state strings to [[action, probability], ...], or an object with such a `policy` field")]
    NotAnObject,
    /// The file names another game.
    #[error("policy is for game `{found}`, not `{expected}`")]
    WrongGame {
        /// The game being evaluated.
        expected: GameSpec,
        /// The game the file names.
        found: String,
    },
    /// A key that is no information state of the game.
    #[error("unknown information state {info_state:?}: {game} has no such information state")]
    UnknownInfoState {
        /// The game.
        game: GameSpec,
        /// The unknown key.
        info_state: String,
    },
    /// Some information states have no entry.
    #[error("missing information state {info_state:?} ({count} of the game's information states have no entry)")]
    MissingInfoState {
        /// The first missing one.
        info_state: String,
        /// How many are missing.
        count: usize,
    },
    /// An entry that is not a list of `[action, probability]` pairs.
    #[error("information state {info_state:?}: {detail}")]
    MalformedEntry {
        /// Where.
        info_state: String,
        /// What is wrong.
        detail: String,
    },
    /// An action that is not legal there.
    #[error(
        "information state {info_state:?}: action {action} is not legal (legal actions: {legal:?})"
    )]
    IllegalAction {
        /// Where.
        info_state: String,
        /// The action.
        action: u64,
        /// The legal actions.
        legal: Vec<Action>,
    },
    /// The same action listed twice.
    #[error("information state {info_state:?}: action {action} is listed twice")]
    DuplicateAction {
        /// Where.
        info_state: String,
        /// The action.
        action: Action,
    },
    /// A negative or non-finite probability.
    #[error("information state {info_state:?}: probability {value} of action {action} is not a finite non-negative number")]
    BadProbability {
        /// Where.
        info_state: String,
        /// The action.
        action: Action,
        /// The probability.
        value: f64,
    },
    /// Probabilities that do not sum to 1.
    #[error("information state {info_state:?}: probabilities sum to {sum}, not 1 (tolerance {SUM_TOLERANCE})")]
    NotNormalised {
        /// Where.
        info_state: String,
        /// Their sum.
        sum: f64,
    },
    /// A flat probability vector of the wrong length.
    #[error("policy has {found} action probabilities, but {game} has {expected} (information state, legal action) slots")]
    WrongLength {
        /// The game.
        game: GameSpec,
        /// Slots in the game.
        expected: usize,
        /// Probabilities given.
        found: usize,
    },
}

/// One probability per (information state, legal action) slot of a
/// [`PublicTree`] (see its dense index). Information states that no history
/// reaches hold the uniform distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct TabularPolicy {
    probs: Vec<f64>,
}

impl TabularPolicy {
    /// A pure policy: at every information state, probability one on
    /// `choose(decision, a state of it)`.
    ///
    /// # Panics
    /// If `choose` picks an action that is not legal there.
    pub fn pure(tree: &PublicTree, choose: impl Fn(&Decision, &dyn State) -> Action) -> Self {
        let mut probs = TabularPolicy::uniform(tree).probs().to_vec();
        for (decision, hand) in tree.info_states() {
            let state = tree.representative_state(decision, hand);
            let action = choose(decision, state.as_ref());
            let k = decision
                .legal_actions
                .iter()
                .position(|&a| a == action)
                .expect("a player chooses a legal action");
            let slots = decision.slots(hand);
            probs[slots.clone()].fill(0.0);
            probs[slots.start + k] = 1.0;
        }
        TabularPolicy::from_slots(tree, probs).expect("one probability per slot")
    }

    /// Uniform over the legal actions everywhere.
    pub fn uniform(tree: &PublicTree) -> Self {
        let mut probs = vec![0.0; tree.num_slots()];
        for d in tree.decisions() {
            let n = d.legal_actions.len() as f64;
            for hand in 0..tree.num_hands() {
                probs[d.slots(hand)].fill(1.0 / n);
            }
        }
        TabularPolicy { probs }
    }

    /// A policy from one probability per slot; the caller keeps each
    /// information state's probabilities a distribution.
    pub fn from_slots(tree: &PublicTree, probs: Vec<f64>) -> Result<Self, PolicyError> {
        if probs.len() != tree.num_slots() {
            return Err(PolicyError::WrongLength {
                game: tree.spec().clone(),
                expected: tree.num_slots(),
                found: probs.len(),
            });
        }
        Ok(TabularPolicy { probs })
    }

    /// One probability per slot.
    pub fn probs(&self) -> &[f64] {
        &self.probs
    }

    /// Reads and validates a policy in OpenSpiel's JSON format.
    pub fn from_json(tree: &PublicTree, text: &str) -> Result<Self, PolicyError> {
        let value: Value = serde_json::from_str(text).map_err(|source| PolicyError::Json {
            info_state: key_before(text, &source),
            source,
        })?;
        let Value::Object(mut top) = value else {
            return Err(PolicyError::NotAnObject);
        };
        if let Some(Value::String(game)) = top.get("game") {
            if game.parse::<GameSpec>().ok().as_ref() != Some(tree.spec()) {
                return Err(PolicyError::WrongGame {
                    expected: tree.spec().clone(),
                    found: game.clone(),
                });
            }
        }
        let entries = match top.remove("policy") {
            Some(Value::Object(policy)) => policy,
            Some(_) => return Err(PolicyError::NotAnObject),
            None => top,
        };
        let index = tree.info_state_index();
        let mut policy = TabularPolicy::uniform(tree);
        let mut seen = vec![false; tree.num_info_slots()];
        for (key, entry) in &entries {
            let &(d, hand) =
                index
                    .get(key.as_str())
                    .ok_or_else(|| PolicyError::UnknownInfoState {
                        game: tree.spec().clone(),
                        info_state: key.clone(),
                    })?;
            let decision = &tree.decisions()[d];
            seen[decision.info(hand)] = true;
            let action_probs = parse_entry(key, entry, &decision.legal_actions)?;
            policy.probs[decision.slots(hand)].copy_from_slice(&action_probs);
        }
        let missing: Vec<_> = tree
            .info_states()
            .filter(|(d, h)| !seen[d.info(*h)])
            .collect();
        let count = missing.len();
        if let Some(&(d, hand)) = missing.first() {
            return Err(PolicyError::MissingInfoState {
                info_state: tree.info_state_string(d, hand),
                count,
            });
        }
        Ok(policy)
    }

    /// The policy as OpenSpiel's JSON mapping (information-state string to
    /// `[[action, probability], ...]`), every reachable information state.
    pub fn to_json(&self, tree: &PublicTree) -> Value {
        let mut map = Map::new();
        for (decision, hand) in tree.info_states() {
            let pairs = decision
                .legal_actions
                .iter()
                .zip(&self.probs[decision.slots(hand)])
                .map(|(&a, &p)| Value::from(vec![Value::from(a), Value::from(p)]))
                .collect();
            map.insert(tree.info_state_string(decision, hand), Value::Array(pairs));
        }
        Value::Object(map)
    }
}

/// ` in the entry for "…"` where the key holding the error is known.
fn near(info_state: &Option<String>) -> String {
    match info_state {
        Some(key) => format!(" in the entry for {key:?}"),
        None => String::new(),
    }
}

/// The last object key (`"key":`) before a parse error's position: the
/// information state whose entry the error is in.
fn key_before(text: &str, error: &serde_json::Error) -> Option<String> {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(error.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let end = (line_start + error.column()).min(text.len());
    let before = text.get(..end)?;
    let key_end = before.rfind("\":")?;
    let key_start = before[..key_end].rfind('"')? + 1;
    Some(before[key_start..key_end].to_string())
}

/// Parses one `[[action, probability], ...]` list into probabilities per
/// legal action (unlisted legal actions get 0).
fn parse_entry(info_state: &str, entry: &Value, legal: &[Action]) -> Result<Vec<f64>, PolicyError> {
    let malformed = |detail: &str| PolicyError::MalformedEntry {
        info_state: info_state.to_string(),
        detail: detail.to_string(),
    };
    let Value::Array(pairs) = entry else {
        return Err(malformed("expected a list of [action, probability] pairs"));
    };
    let mut probs = vec![0.0; legal.len()];
    let mut listed = vec![false; legal.len()];
    for pair in pairs {
        let (action, prob) = match pair.as_array().map(Vec::as_slice) {
            Some([a, p]) => (a, p),
            _ => return Err(malformed("each entry must be a pair [action, probability]")),
        };
        let action = action
            .as_u64()
            .ok_or_else(|| malformed("an action id must be a non-negative integer"))?;
        let k = legal
            .iter()
            .position(|&a| a as u64 == action)
            .ok_or_else(|| PolicyError::IllegalAction {
                info_state: info_state.to_string(),
                action,
                legal: legal.to_vec(),
            })?;
        let value = prob
            .as_f64()
            .ok_or_else(|| malformed("a probability must be a number"))?;
        if !value.is_finite() || value < 0.0 {
            return Err(PolicyError::BadProbability {
                info_state: info_state.to_string(),
                action: legal[k],
                value,
            });
        }
        if listed[k] {
            return Err(PolicyError::DuplicateAction {
                info_state: info_state.to_string(),
                action: legal[k],
            });
        }
        listed[k] = true;
        probs[k] = value;
    }
    let sum: f64 = probs.iter().sum();
    if (sum - 1.0).abs() > SUM_TOLERANCE {
        return Err(PolicyError::NotNormalised {
            info_state: info_state.to_string(),
            sum,
        });
    }
    Ok(probs)
}
