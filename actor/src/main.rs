//! `rnad-actor`: a self-play actor process for an rnad learner.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Parser;
use rnad_actor::metrics::ActorMetrics;
use rnad_actor::worker::{run, WorkerOptions};

/// An rnad self-play actor: plays batched games with the learner's latest
/// parameters and ships them to it. Gets the game and network from the
/// learner; retries with capped backoff whenever the learner is away;
/// SIGINT/SIGTERM exits 0.
#[derive(Debug, Parser)]
#[command(name = "rnad-actor", version)]
struct Cli {
    /// The learner's address (HOST:PORT).
    #[arg(long)]
    learner: String,
    /// Where to serve Prometheus metrics (/metrics), e.g. 0.0.0.0:9101.
    #[arg(long)]
    metrics: Option<SocketAddr>,
    /// Concurrent games, advanced by one batched forward pass per step.
    #[arg(long, default_value_t = 64)]
    games: usize,
    /// Seed of the actor's generator (give each actor its own).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Finished games per submit.
    #[arg(long, default_value_t = 64)]
    submit_every: usize,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stop = rnad_common::lifecycle::stop_on_signals();
    let metrics = ActorMetrics::new();
    let _runtime = match cli.metrics {
        Some(addr) => match rnad_common::metrics::serve_blocking(addr, metrics.registry.clone()) {
            Ok((runtime, bound)) => {
                eprintln!("rnad-actor: metrics on http://{bound}/metrics");
                Some(runtime)
            }
            Err(e) => {
                eprintln!("error: --metrics {addr}: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let options = WorkerOptions {
        learner: cli.learner.clone(),
        games: cli.games,
        seed: cli.seed,
        submit_every: cli.submit_every,
        name: format!("rnad-actor (seed {})", cli.seed),
    };
    eprintln!("rnad-actor: playing for the learner at {}", cli.learner);
    run(&options, &stop, &metrics);
    eprintln!("rnad-actor: stopped");
    ExitCode::SUCCESS
}
