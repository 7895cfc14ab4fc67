//! The judge of every policy: exact NashConv by best responses over the
//! public tree for any number of players, and tabular CFR and CFR+ solvers
//! that give each game reference strategies. The `rnad-evaluator` binary
//! wraps these in its `eval`, `solve`, `bench`, `match`, `league`, `watch`
//! and `plot` commands (see [`commands`]); [`headtohead`] plays players
//! against each other where exactness ends, and [`run_eval`] is what one
//! evaluation during training computes; [`experiments`] reads, groups, summarises and plots
//! sets of runs; [`reference`] is the slow per-history best response the
//! tests hold the fast one against.

pub mod checkpoint_policy;
pub mod commands;
pub mod error;
pub mod experiments;
pub mod kinds;
pub mod metrics;
pub mod neural;
pub mod output;
pub mod panel;
pub mod players;
pub mod policy_average;
pub mod reduction;
pub mod run_eval;
pub mod watch;
