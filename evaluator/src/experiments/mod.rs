//! Experiments over several runs: reading run directories, grouping runs
//! into variants (everything that differs besides the seed), statistics
//! over seeds, the sweep summary, the NashConv plot and one run's goal
//! tables.

pub mod group;
pub mod plot;
pub mod runs;
pub mod stats;
pub mod summary;
pub mod tables;

use std::path::PathBuf;

/// What is wrong with a set of runs, naming the file or directory.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A run's recorded config cannot be used.
    #[error("{}: {source}", path.display())]
    Config {
        /// The config file.
        path: PathBuf,
        /// Why.
        source: rnad_run::config::ConfigError,
    },
    /// A history line that is not an evaluation.
    #[error("{}:{line}: not a history entry: {message}", path.display())]
    Malformed {
        /// The history file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A run with nothing to show.
    #[error("{}: {message}", path.display())]
    Unusable {
        /// The run directory or history file.
        path: PathBuf,
        /// What is missing.
        message: String,
    },
    /// Runs of different games cannot share a figure or summary.
    #[error("runs of different games: {first} and {other} ({})", path.display())]
    MixedGames {
        /// The first run's game.
        first: String,
        /// Another game.
        other: String,
        /// The run of the other game.
        path: PathBuf,
    },
    /// The figure could not be drawn or encoded.
    #[error("cannot draw {}: {message}", path.display())]
    Draw {
        /// The output file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}
