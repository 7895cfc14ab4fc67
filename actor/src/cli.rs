//! `rnad-actor`'s command line, in the library so that deployments can be
//! checked against it (`tests/tests/kubernetes.rs` parses every container's
//! arguments with it).

use std::net::SocketAddr;
use std::path::PathBuf;

use candle_core::Device;
use clap::Parser;
use rnad_net::parse_device;
use rnad_process::logging::LogFormat;

/// An rnad self-play actor: plays batched games with the learner's latest
/// parameters and ships them to it. Gets the game and network from the
/// learner; retries with capped backoff whenever the learner is away;
/// SIGINT/SIGTERM exits 0.
#[derive(Debug, Parser)]
#[command(name = "rnad-actor", version)]
pub struct Cli {
    /// The learner's address (HOST:PORT).
    #[arg(long)]
    pub learner: String,
    /// Where to serve Prometheus metrics (/metrics), e.g. 0.0.0.0:9101.
    #[arg(long)]
    pub metrics: Option<SocketAddr>,
    /// Concurrent games, advanced by one batched forward pass per step.
    /// Default: the run's actors.games_per_actor, from the learner.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: Option<u64>,
    /// Self-play threads, each playing its own games (--games of them)
    /// with its own connection. Default: the run's actors.threads, from
    /// the learner.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: Option<u64>,
    /// Seed of the actor's generator, for a reproducible actor. Default: a
    /// fresh seed from the operating system's entropy (logged at start), so
    /// scaled or restarted replicas never share random numbers.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Finished games per submit. Default: as many as it plays at once.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub submit_every: Option<u64>,
    /// File holding the token the learner requires (default: the
    /// RNAD_TOKEN environment variable; none if unset).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Where the forward passes run: cpu, cuda or cuda:N (CUDA needs a
    /// build with --features cuda). The games are played on the CPU
    /// either way.
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    pub device: Device,
    /// Log format: text or json.
    #[arg(long, env = "RNAD_LOG_FORMAT", default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}
