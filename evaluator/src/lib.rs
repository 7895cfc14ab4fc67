//! The judge of every policy: exact NashConv by best responses over the
//! public tree for any number of players, and tabular CFR and CFR+ solvers
//! that give each game reference strategies. The `rnad-evaluator` binary
//! wraps these in its `eval`, `solve`, `bench`, `watch` and `plot` commands
//! (see [`commands`]); [`experiments`] reads, groups, summarises and plots
//! sets of runs; [`reference`] is the slow per-history best response the
//! tests hold the fast one against.

pub mod cfr;
pub mod commands;
pub mod error;
pub mod experiments;
pub mod exploitability;
pub mod kinds;
pub mod metrics;
pub mod neural;
pub mod reference;
pub mod terminal;
pub mod watch;
