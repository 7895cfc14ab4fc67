//! The judge of the learner's policies, built on the games layer's exact
//! best responses, solvers and match engine ([`rnad_games`]): neural
//! policies as tabular ones ([`neural`], [`checkpoint_policy`]), every
//! policy kind's NashConv ([`kinds`]) and the average of the target
//! ([`policy_average`]), what one evaluation during training computes
//! ([`run_eval`]) and the service that evaluates a running learner
//! ([`watch`]); the players of matches ([`players`]), seed 002's reduction
//! experiment ([`reduction`]), and reading, grouping, summarising and
//! plotting sets of runs ([`experiments`]), and runs as TensorBoard event
//! files ([`tensorboard`]). The `rnad-evaluator` binary
//! wraps these in its commands ([`commands`]).

pub mod best_response;
pub mod checkpoint_policy;
pub mod commands;
pub mod error;
pub mod experiments;
pub mod gain;
pub mod kinds;
pub mod metrics;
pub mod network_player;
pub mod neural;
pub mod output;
pub mod panel;
pub mod players;
pub mod policy_average;
pub mod reduction;
pub mod run_eval;
pub mod sampled_panel;
pub mod tensorboard;
pub mod watch;
