//! The judge of every policy: exact NashConv by best response over the whole
//! game tree, and a tabular CFR+ solver that gives each game a reference
//! equilibrium. The `rnad-evaluator` binary wraps these in its `eval`,
//! `solve` and `bench` commands (see [`commands`]).

pub mod cfr;
pub mod commands;
pub mod error;
pub mod exploitability;
pub mod history;
pub mod metrics;
pub mod neural;
pub mod watch;
