//! What the `rnad-learner` binary runs beyond the learner library: the
//! all-in-one local run ([`local`]: the learner, actor threads over real
//! loopback TCP, or a [`lockstep`] actor, and the evaluator as its judge,
//! [`evaluation`]), sweeps of local runs ([`sweep`]) and the throughput
//! benchmark ([`mod@bench`]). It is the one place where the learner, the actors
//! and the evaluator meet; none of their libraries knows the others.

pub mod bench;
pub mod commands;
pub mod error;
pub mod evaluation;
pub mod local;
pub mod lockstep;
pub mod sweep;
