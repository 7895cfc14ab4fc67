//! A run: its experiment's [`config`] (every key declared once, checked,
//! migrated from older files and overridden with `--set`) and the
//! [`ResolvedRun`] it becomes once its game is loaded, the entropy
//! [`schedule`] it sets, and everything a run directory holds
//! ([`run_dir`]): the directory opened for training with its lock
//! ([`training_dir`], [`run_lock`]), [`checkpoint`]s, the evaluation
//! [`history`] and the [`training_log`], all written so that a crash or a
//! power loss leaves nothing torn that counts ([`files`], [`jsonl`],
//! [`tensor_file`]).
//!
//! Above the networks ([`rnad_net`]: a config names a torso, a checkpoint
//! holds parameter sets) and below the processes that train and judge.

pub mod best_response_log;
pub mod checkpoint;
pub mod config;
pub mod files;
pub mod history;
pub mod jsonl;
mod resolved;
pub mod run_dir;
pub mod run_lock;
pub mod schedule;
pub mod tensor_file;
pub mod training_dir;
pub mod training_log;

pub use resolved::ResolvedRun;
