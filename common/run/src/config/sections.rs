//! Every config key, declared once: the sections of the TOML file as
//! structs whose fields are the keys, each with its meaning, its values,
//! its check and whether a resumed run may change it (see
//! [`super::keys`]). What each R-NaD key does in a step is in
//! `docs/rnad-update.md`.

use std::path::PathBuf;

use rnad_games::GameSpec;
use serde::{Deserialize, Serialize};

use super::checks::{
    actor_threads, any, below_one, deals, layer_widths, match_games, non_negative, positive,
    positive_counts, positive_or_infinite, unit_interval, zero_or_at_least_one,
};
use super::keys::config_section;

config_section! {
    /// The whole experiment.
    pub struct Config {
        /// The game to learn, as an OpenSpiel spec.
        game: GameSpec => values: "a registered game, e.g. leduc_poker, kuhn_poker(players=3), liars_dice (rnad-evaluator eval --help lists them)", check: any, resume: Experiment;
        /// Seed of every random number generator of the run (actors draw
        /// their own streams of it).
        seed: u64 => values: "any non-negative integer", check: any, resume: Experiment;
        /// Where config.toml, history.jsonl, training.jsonl and
        /// checkpoints/ go.
        run_dir: PathBuf => values: "a directory path", check: any, resume: Operational;
        sections {
            /// The policy-value network.
            network: NetworkConfig;
            /// R-NaD's hyperparameters.
            rnad: RnadConfig;
            /// Self-play actors.
            actors: ActorConfig;
            /// Evaluation during training.
            evaluation: EvaluationConfig;
            /// Checkpointing.
            checkpoint: CheckpointConfig;
            /// The training log (`training.jsonl`).
            training_log: TrainingLogConfig;
            /// The averaged network (the `average_network` policy kind).
            average_network: AverageNetworkConfig;
        }
    }
}

config_section! {
    /// The policy-value network.
    pub struct NetworkConfig {
        /// The torso under the policy and value heads: mlp (ReLU layers of
        /// the widths in hidden; the learner's fastest), residual_mlp (a
        /// stem to the width in hidden, then one residual block per entry)
        /// or card_conv (convolutions over the cards as suit-by-rank
        /// planes, then ReLU layers; universal_poker).
        torso: rnad_net::TorsoKind => values: "mlp, residual_mlp or card_conv", check: any, resume: Experiment;
        /// Widths of the torso's layers (mlp), blocks (residual_mlp, all
        /// one width) or filters and then layers (card_conv: [filters,
        /// width, ...]).
        hidden: Vec<usize> => values: "one or more widths, each 1..=65536", check: layer_widths, resume: Experiment;
        /// How the policy head computes its logits: dense (every action of
        /// every state, one matrix product: the fast path for games of few
        /// actions) or gathered (only each state's legal actions, from the
        /// output layer's rows for them: for games of thousands of actions
        /// and a handful legal, such as Daihinmin). The parameters are the
        /// same, so a run may resume under the other head.
        head: rnad_net::HeadKind => values: "dense or gathered", check: any, resume: Operational;
        /// Whether the policy scores the game's action groups instead of
        /// its actions, sharing a group's probability evenly among its
        /// actions: for games whose actions differ in degree by the
        /// thousand (universal_poker's fullgame: raise sizes in a dozen
        /// bands of the pot), so that a decision costs what a dozen
        /// actions cost. Refused where the game has no groups.
        action_groups: bool => values: "true or false", check: any, resume: Experiment;
    }
}

config_section! {
    /// R-NaD's hyperparameters.
    pub struct RnadConfig {
        /// Trajectories per learner step.
        batch_size: usize => values: "positive integer", check: positive, resume: Experiment;
        /// Learner step from which each step takes late_batch_size
        /// trajectories instead of batch_size, to cut the noise of small
        /// batches once a run has reached its level.
        late_batch_start_step: u64 => values: "0 (never) or more; above 0 needs late_batch_size", check: any, resume: Experiment;
        /// Trajectories per learner step from late_batch_start_step on.
        late_batch_size: usize => values: "0 (batch_size throughout) or more; above 0 needs late_batch_start_step", check: any, resume: Experiment;
        /// Adam's learning rate (at step 0, when it decays).
        learning_rate: f64 => values: "positive", check: positive, resume: Experiment;
        /// Steps over which the learning rate decays geometrically to
        /// learning_rate_final_fraction times itself, then holds; counted
        /// from learning_rate_decay_start_step.
        learning_rate_decay_steps: u64 => values: "0 (constant rate) or more", check: any, resume: Experiment;
        /// Learner step at which the decay begins; the rate is
        /// learning_rate until then, so a run can first reach its level at
        /// the full rate and then calm down.
        learning_rate_decay_start_step: u64 => values: "0 (decay from the start) or more; above 0 needs learning_rate_final_fraction < 1", check: any, resume: Experiment;
        /// Fraction of learning_rate reached at the end of the decay.
        learning_rate_final_fraction: f64 => values: "(0, 1]; below 1 needs learning_rate_decay_steps > 0", check: unit_interval, resume: Experiment;
        /// Factor on the game's returns before the learner sees them, so
        /// that returns, values and the entropy term share a scale: 1 for
        /// games that pay a few units, 1/big blind for hold'em (returns in
        /// big blinds). Actors, matches and metrics keep the game's units.
        reward_scale: f64 => values: "positive; 1 keeps the game's returns", check: positive, resume: Experiment;
        /// Entropy (regularisation) strength: the reward is shaped by
        /// -eta * log(pi / pi_reg).
        eta: f64 => values: "0 or more", check: non_negative, resume: Experiment;
        /// What eta is measured in: reward (the rewards the learner sees,
        /// the game's returns times reward_scale) or stake (the most one
        /// player can lose in a game, so that one eta regularises games of
        /// any payoff size alike: Leduc's 13 chips, Liar's Dice's 1).
        eta_unit: EtaUnit => values: "reward or stake", check: any, resume: Experiment;
        /// Rate of the target network's moving average of the online
        /// network.
        gamma_target: f64 => values: "(0, 1]", check: unit_interval, resume: Experiment;
        /// NeuRD's logit threshold: logits beyond +-beta get no further
        /// push.
        beta_neurd: f64 => values: "positive", check: positive, resume: Experiment;
        /// Clip of the advantages in the NeuRD loss.
        clip_neurd: f64 => values: "positive", check: positive, resume: Experiment;
        /// Clip of each parameter update.
        clip_gradient: f64 => values: "positive", check: positive, resume: Experiment;
        /// Clip (rho-bar) of v-trace's importance weights in the value
        /// targets. The reference leaves them unclipped (inf); data a few
        /// policy versions old can carry weights in the thousands, whose
        /// value targets spike the value loss.
        rho_vtrace: f64 => values: "positive, or inf (unclipped)", check: positive_or_infinite, resume: Experiment;
        /// Learner steps per period of the entropy schedule, at whose end
        /// the regularisation rolls (the last size repeats forever).
        entropy_schedule_size: Vec<u64> => values: "one or more positive integers", check: positive_counts, resume: Experiment;
        /// How many periods each size lasts.
        entropy_schedule_repeats: Vec<u64> => values: "one positive integer per size", check: positive_counts, resume: Experiment;
        /// How the regularisation network follows the target at each roll:
        /// none (plain R-NaD), ema, am or scheduled (two-stage averaging).
        averaging: Averaging => values: "none, ema, am, scheduled", check: any, resume: Experiment;
        /// gamma_2 of the ema and scheduled averaging.
        gamma_averaging: f64 => values: "(0, 1]", check: unit_interval, resume: Experiment;
        /// Adam's second-moment decay (b1 is 0).
        adam_b2: f64 => values: "[0, 1)", check: below_one, resume: Experiment;
        /// Adam's epsilon.
        adam_eps: f64 => values: "positive", check: positive, resume: Experiment;
        /// Decoupled weight decay: each step multiplies every parameter by
        /// 1 - lr * weight_decay before Adam's update, so the weights the
        /// loss does not pin do not random-walk to ever larger norms.
        weight_decay: f64 => values: "0 (none) or more; times learning_rate below 1", check: non_negative, resume: Experiment;
        /// Consecutive steps whose loss, gradients, new parameters or new
        /// outputs are not finite (each skipped, never applied) before the
        /// learner rolls back to its newest checkpoint.
        max_nonfinite_steps: u64 => values: "positive integer", check: positive, resume: Operational;
        /// Roll-backs after which a run that keeps diverging stops with an
        /// error (exit status 1).
        max_rollbacks: u64 => values: "0 (stop at the first) or more", check: any, resume: Operational;
        /// What each roll-back multiplies the learning rate by (kept in
        /// later checkpoints).
        rollback_learning_rate_factor: f64 => values: "(0, 1]", check: unit_interval, resume: Operational;
    }
}

config_section! {
    /// Self-play actors.
    pub struct ActorConfig {
        /// Actor threads (local) or expected actor processes.
        count: usize => values: "positive; exactly 1 with lockstep", check: positive, resume: Operational;
        /// Self-play threads in each rnad-actor process, each playing
        /// games_per_actor games with one batched forward pass a step
        /// (rnad-actor --threads overrides it; a local run's actors are
        /// its count threads).
        threads: usize => values: "1..=256", check: actor_threads, resume: Operational;
        /// Games each actor plays at once, advanced by one batched forward
        /// pass.
        games_per_actor: usize => values: "positive integer", check: positive, resume: Operational;
        /// Trajectories the learner's queue holds; a full queue slows the
        /// actors down.
        queue_capacity: usize => values: "at least the largest batch (rnad.batch_size, rnad.late_batch_size) unless lockstep; best twice it", check: positive, resume: Operational;
        /// Trajectories played with parameters more than this many
        /// versions old are dropped.
        max_policy_lag: u64 => values: "0 or more", check: any, resume: Experiment;
        /// Learner and actor take turns, each step on the batch played
        /// with the current parameters: slower, bit-reproducible.
        lockstep: bool => values: "true or false", check: any, resume: Experiment;
    }
}

config_section! {
    /// Evaluation during training.
    pub struct EvaluationConfig {
        /// Seconds between evaluations during training.
        interval_seconds: f64 => values: "0 (by steps only) or more", check: non_negative, resume: Operational;
        /// Also evaluate at every multiple of this many learner steps.
        interval_steps: u64 => values: "0 (by time only) or more", check: any, resume: Operational;
        /// exact: NashConv of every policy kind; head_to_head: the played
        /// policy against uniform, rules and the previous version on fixed
        /// deals; best_response: only the learned best response (a
        /// watcher that is the run's best-response service).
        mode: EvaluationMode => values: "exact, head_to_head, best_response", check: any, resume: Operational;
        /// Deals per head-to-head opponent, each played in every seat (the
        /// same deals at every evaluation).
        deals: usize => values: "2..=10000000", check: deals, resume: Operational;
        /// Exact mode: learner steps over which the target_average policy
        /// kind averages the target policy (actions whose centred logit is
        /// at or below -beta_neurd + 0.05 dropped, weighted by own reach;
        /// the horizon is min(this, half the learner steps averaged so
        /// far)).
        average_horizon_steps: u64 => values: "0 (no average) or more", check: any, resume: Operational;
        /// Head-to-head mode on a heads-up universal_poker game: every this
        /// many evaluations, also the local best response (fcpa) to the
        /// evaluated policy, in mbb/hand.
        lbr_interval_evaluations: u64 => values: "0 (never) or more", check: any, resume: Operational;
        /// Hands of each local best response (LBR alternating seats).
        lbr_hands: usize => values: "positive integer", check: positive, resume: Operational;
        /// Every this many evaluations, a best response learned against the
        /// evaluated version (its post-processed target policy) in every
        /// seat, in a thread of its own beside the evaluator (which goes
        /// on meanwhile; a version offered while one is still learning
        /// waits for the next), each to `best_response.jsonl` and the
        /// `rnad_evaluator_br_*` metrics.
        br_interval_evaluations: u64 => values: "0 (never) or more", check: any, resume: Operational;
        /// Optimiser steps each seat's best response trains.
        br_budget_steps: u64 => values: "positive integer", check: positive, resume: Operational;
        /// Games each of those steps plays (against trained policies, 512
        /// for 10,000 steps reached 93% or more of the exact best response
        /// on Leduc and Liar's Dice; 128 for 3,000 steps, 49-79%).
        br_episodes_per_step: usize => values: "positive integer", check: positive, resume: Operational;
        /// Games that judge each seat's best response where the game has
        /// no public tree (exact values where it has one).
        br_judge_episodes: usize => values: "2..=10000000", check: deals, resume: Operational;
        /// Head-to-head mode: more opponents for the panel, as `match
        /// --players` names players (gain:FILE for seed 004's network,
        /// checkpoint:FILE:KIND, epsilon:N for Daihinmin, …), each in the
        /// history under its spec.
        panel_extra: Vec<String> => values: "a list of player specs, e.g. [\"gain:gen1.safetensors\"]", check: any, resume: Operational;
        /// Head-to-head mode on Daihinmin: games in each panel deal, a
        /// match as UECda plays it (the exchange by the ranks of the game
        /// before, seats drawn anew every 3 games); 1 plays first games.
        panel_match_games: usize => values: "1..=1000; above 1 only for daihinmin", check: match_games, resume: Operational;
    }
}

config_section! {
    /// Checkpointing.
    pub struct CheckpointConfig {
        /// Learner steps between checkpoints.
        interval_steps: u64 => values: "positive integer", check: positive, resume: Operational;
        /// Checkpoints kept; older ones are deleted.
        keep: usize => values: "positive integer", check: positive, resume: Operational;
    }
}

config_section! {
    /// The training log.
    pub struct TrainingLogConfig {
        /// Learner steps between lines of training.jsonl.
        interval_steps: u64 => values: "positive integer", check: positive, resume: Operational;
    }
}

config_section! {
    /// The averaged network: a second network of the same shape, trained
    /// by the learner to play the average of θ_target's policy over the
    /// run at the states actors visit (the `average_network` policy kind;
    /// `docs/rnad-update.md`).
    pub struct AverageNetworkConfig {
        /// Visited states (with θ_target's policy there, less the actions
        /// NeuRD holds at its threshold) kept to train it on: a weighted
        /// reservoir sample of all states offered.
        reservoir_size: usize => values: "0 (no averaged network) or more", check: any, resume: Experiment;
        /// A state offered at learner step t weighs e^(t/H) for this H (an
        /// exponential average reaching back about H steps); 0 weighs every
        /// step alike (the average of the whole run).
        horizon_steps: u64 => values: "0 (the whole run) or more", check: any, resume: Experiment;
        /// 0 weighs each state by how often actors reach it. A clip C ≥ 1
        /// weighs it by the own reach of the player to move, as an average
        /// strategy needs: each state's weight is divided by the other
        /// players' reach along its trajectory (their actors' action
        /// probabilities), the quotient at most C.
        own_reach_clip: f64 => values: "0 (visits) or at least 1", check: zero_or_at_least_one, resume: Experiment;
        /// States of each learner batch offered to the reservoir.
        offered_per_step: usize => values: "positive integer", check: positive, resume: Experiment;
        /// States of one training step of the averaged network (one per
        /// learner step), drawn from the reservoir.
        batch_size: usize => values: "positive integer", check: positive, resume: Experiment;
        /// Adam's learning rate for the averaged network (its other
        /// settings are rnad's).
        learning_rate: f64 => values: "positive number", check: positive, resume: Experiment;
    }
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

/// The unit `rnad.eta` is given in.
///
/// R-NaD shapes the reward by `-eta log(pi / pi_reg)`, so in reward units
/// the same eta regularises a game that pays ±1 thirteen times as hard as
/// one that pays up to 13. In stake units it is relative to the game's
/// payoffs: Leduc's 0.2 in chips is 0.2 / 13 of its stake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EtaUnit {
    /// The rewards the learner sees: the game's returns times
    /// `rnad.reward_scale`.
    Reward,
    /// The most one player can lose in a game (the negated lowest return
    /// of the game's utility range).
    Stake,
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
    /// Nothing but the learned best response (every
    /// `br_interval_evaluations` new versions): a watcher that is the run's
    /// best-response service, on a machine of its own, beside another that
    /// judges exactly or head to head.
    BestResponse,
}

impl EvaluationMode {
    /// The name configs and command lines use.
    pub fn name(self) -> &'static str {
        match self {
            EvaluationMode::Exact => "exact",
            EvaluationMode::HeadToHead => "head_to_head",
            EvaluationMode::BestResponse => "best_response",
        }
    }
}

/// An evaluation mode's name that is none of `exact`, `head_to_head` and
/// `best_response`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown evaluation mode {0:?}: use exact, head_to_head or best_response")]
pub struct UnknownEvaluationMode(pub String);

impl std::str::FromStr for EvaluationMode {
    type Err = UnknownEvaluationMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            EvaluationMode::Exact,
            EvaluationMode::HeadToHead,
            EvaluationMode::BestResponse,
        ]
        .into_iter()
        .find(|m| m.name() == s)
        .ok_or_else(|| UnknownEvaluationMode(s.to_string()))
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
