//! What every long-running rnad process needs to run unattended: listeners
//! that floods and slow peers cannot take down ([`listener`]), the
//! Prometheus `/metrics` endpoint ([`metrics`]), [`logging`], one token to
//! stop every task ([`shutdown`]) and retries with backoff ([`lifecycle`]).
//!
//! Knows nothing of games, networks or runs: the learner, actors,
//! evaluators and the UECda client all stand on it.

pub mod lifecycle;
pub mod listener;
pub mod logging;
pub mod metrics;
pub mod shutdown;
