//! Everything the rnad processes share: the games (with OpenSpiel's exact
//! rules, strings and tensors), the game tree with its information-state
//! index, tabular policies in OpenSpiel's JSON format, the experiment
//! configuration, the policy-value network and the trajectories actors send.
//!
//! The data flow of the project starts here: a [`game::Game`] is played by
//! actors into [`trajectory::Trajectory`] values with a [`net::PolicyValueNet`],
//! enumerated once into a [`tree::GameTree`] for exact evaluation, and
//! policies over its information states are [`policy::TabularPolicy`] values.

pub mod config;
pub mod files;
pub mod game;
pub mod history;
pub mod jsonl;
pub mod lifecycle;
pub mod listener;
pub mod logging;
pub mod metrics;
pub mod net;
pub mod policy;
pub mod proto;
pub mod run_dir;
pub mod trajectory;
pub mod tree;
