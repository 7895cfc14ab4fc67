//! The judge of every policy: exact NashConv by best response over the whole
//! game tree, and a tabular CFR+ solver that gives each game a reference
//! equilibrium. The `rnad-evaluator` binary wraps these in its `eval`,
//! `solve`, `bench`, `watch` and `plot` commands (see [`commands`]);
//! [`experiments`] reads, groups, summarises and plots sets of runs.

pub mod cfr;
pub mod commands;
pub mod error;
pub mod experiments;
pub mod exploitability;
pub mod kinds;
pub mod metrics;
pub mod neural;
pub mod watch;
