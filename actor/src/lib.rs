//! Self-play actors: many concurrent games advanced together, one batched
//! forward pass of the policy network per step, finished games shipped to
//! the learner as [`rnad_wire::trajectory::Trajectory`] values.

pub mod cli;
pub mod metrics;
pub mod selfplay;
pub mod worker;
