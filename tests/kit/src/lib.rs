//! What every rnad test shares, in one place at the bottom of the house:
//! a fresh [`scratch`] directory, loopback ports nobody else holds
//! ([`free_port`]), bounded waits ([`wait_for`]), processes started, signalled
//! and watched ([`Process`]), scrapes of a `/metrics` page ([`scrape`]), what
//! a process logs and records ([`stopped_at`], [`history`]), and the one
//! builder of test configs ([`TestConfig`]).
//!
//! It depends on the layers (a test config is an [`rnad_run::config::Config`])
//! and on no binary's crate, so that every crate's tests can use it: the
//! binaries themselves are found beside the test executable ([`bin_dir`]).

mod config;
mod dirs;
mod logs;
mod metrics;
mod ports;
mod process;
mod wait;

pub use config::{TestConfig, SMALL_FULL_GAME};
pub use dirs::{bin_dir, openspiel_fixture, scratch, workspace};
pub use logs::{games_before_stop, history, stopped_at};
pub use metrics::{labelled, sample, sample_names, scrape};
pub use ports::{free_port, local};
pub use process::{
    binary_output, open_files, raise_open_file_limit, resident_bytes, run_binary, send_signal,
    stdout_json, Finished, Launch, Process,
};
pub use wait::wait_for;
