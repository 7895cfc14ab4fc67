//! What the rnad processes share above the games layer ([`rnad_games`]):
//! the experiment's [`config`], the policy-value network ([`net`]) and the
//! [`trajectory`] values actors send, the wire protocol ([`proto`]) with its
//! listeners and frames, the run directory's files ([`run_dir`],
//! [`training_dir`], [`checkpoint`], [`history`], [`training_log`]),
//! metrics, logging, and how a process stops ([`shutdown`]) and retries
//! ([`lifecycle`]).
//!
//! The data flow: a game is played by actors into trajectories with a
//! [`net::PolicyValueNet`], shipped over [`proto`] to the learner, whose
//! parameters go back the same way and to the evaluator, whose results land
//! in the run directory's history.

pub mod checkpoint;
pub mod compute;
pub mod config;
pub mod distinct;
pub mod files;
pub mod held_actions;
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
pub mod schedule;
pub mod shutdown;
pub mod tensor_file;
pub mod training_dir;
pub mod training_log;
pub mod trajectory;
