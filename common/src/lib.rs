//! Everything the rnad processes share: the games (with OpenSpiel's exact
//! rules, strings and tensors), the game tree with its information-state
//! index, tabular policies in OpenSpiel's JSON format, the experiment
//! configuration, the policy-value network and the trajectories actors send.
//!
//! The data flow of the project starts here: a [`game::Game`], named by a
//! [`game::GameSpec`], is played by actors into [`trajectory::Trajectory`]
//! values with a [`net::PolicyValueNet`], walked once into a
//! [`public_tree::PublicTree`] for exact evaluation, and policies over its
//! information states are [`policy::TabularPolicy`] values.

pub mod checkpoint;
pub mod compute;
pub mod config;
pub mod distinct;
pub mod files;
pub mod history;
pub mod jsonl;
pub mod lifecycle;
pub mod listener;
pub mod logging;
pub mod metrics;
pub mod net;
pub mod packed;
pub mod proto;
pub mod run_dir;
pub mod run_lock;
pub mod shutdown;
pub mod training_dir;
pub mod training_log;
pub mod trajectory;
