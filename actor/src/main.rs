//! `rnad-actor`: self-play actor processes for the learner. Not built yet;
//! until then it only says so.

use std::process::ExitCode;

use clap::Parser;

/// An rnad self-play actor. Not implemented yet: actors arrive with the
/// learner.
#[derive(Debug, Parser)]
#[command(name = "rnad-actor", version)]
struct Cli {}

fn main() -> ExitCode {
    Cli::parse();
    eprintln!("rnad-actor: the networked actor process is not implemented yet; `rnad-learner local` runs actors in-process");
    ExitCode::from(2)
}
