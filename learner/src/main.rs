//! `rnad-learner`: the R-NaD learner's command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::{Parser, Subcommand};
use rnad_common::config::Config;
use rnad_learner::error::LearnerError;
use rnad_learner::local::{run_local, LocalOptions};

/// The project's default experiment (`configs/leduc.toml`).
const DEFAULT_CONFIG: &str = include_str!("../../configs/leduc.toml");

/// The rnad learner: R-NaD with two-stage averaging of the regularisation
/// network.
#[derive(Debug, Parser)]
#[command(name = "rnad-learner", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Train in one process: learner, actor threads and exact evaluation.
    /// Ctrl-C or SIGTERM saves a checkpoint and exits 0; running again on
    /// the same run directory resumes.
    Local {
        /// Experiment config (TOML). Default: RUN_DIR/config.toml when
        /// resuming, else the built-in configs/leduc.toml.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Stop when the learner reaches this step (counted across restarts).
        #[arg(long)]
        max_steps: Option<u64>,
        /// Run directory (config.toml, history.jsonl, checkpoints/);
        /// overrides the config's `run_dir`.
        #[arg(long)]
        run_dir: Option<PathBuf>,
    },
}

fn resolve_config(
    config: Option<PathBuf>,
    run_dir: Option<PathBuf>,
) -> Result<Config, LearnerError> {
    let recorded = run_dir
        .as_ref()
        .map(|d| d.join("config.toml"))
        .filter(|p| p.exists());
    let mut resolved = match (config, recorded) {
        (Some(path), _) | (None, Some(path)) => Config::load(&path)?,
        (None, None) => Config::from_toml(DEFAULT_CONFIG, "built-in configs/leduc.toml")?,
    };
    if let Some(dir) = run_dir {
        resolved.run_dir = dir;
    }
    Ok(resolved)
}

fn main() -> ExitCode {
    let Command::Local {
        config,
        max_steps,
        run_dir,
    } = Cli::parse().command;
    let stop = Arc::new(AtomicBool::new(false));
    let handler_flag = stop.clone();
    if let Err(e) = ctrlc::set_handler(move || handler_flag.store(true, Ordering::SeqCst)) {
        eprintln!("warning: cannot install the Ctrl-C/SIGTERM handler: {e}");
    }
    let result = resolve_config(config, run_dir).and_then(|config| {
        let options = LocalOptions {
            max_steps,
            progress: true,
        };
        run_local(config, options, stop)
    });
    match result {
        Ok(summary) => {
            if let Some(n) = summary.last {
                println!(
                    "step {}: NashConv online {} target {} target_postprocessed {} reg {}",
                    summary.step, n.online, n.target, n.target_postprocessed, n.reg
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
