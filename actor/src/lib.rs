//! Self-play actors: many concurrent games advanced together, one batched
//! forward pass of the policy network per step, finished games shipped as
//! [`rnad_common::trajectory::Trajectory`] values.

pub mod selfplay;
