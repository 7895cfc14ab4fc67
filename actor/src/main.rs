//! `rnad-actor`: a self-play actor process for an rnad learner.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use rand::RngExt;
use rnad_actor::metrics::ActorMetrics;
use rnad_actor::selfplay::RngStream;
use rnad_actor::worker::{run, WorkerOptions};
use rnad_common::logging::{self, Failure, LogFormat};
use rnad_common::proto::handshake::Token;
use rnad_common::shutdown::Shutdown;

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
    /// Default: the run's actors.games_per_actor, from the learner.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,
    /// Seed of the actor's generator, for a reproducible actor. Default: a
    /// fresh seed from the operating system's entropy (logged at start), so
    /// scaled or restarted replicas never share random numbers.
    #[arg(long)]
    seed: Option<u64>,
    /// Finished games per submit. Default: as many as it plays at once.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    submit_every: Option<u64>,
    /// File holding the token the learner requires (default: the
    /// RNAD_TOKEN environment variable; none if unset).
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Log format: text or json.
    #[arg(long, env = "RNAD_LOG_FORMAT", default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// mimalloc instead of the system allocator: candle allocates and soon
/// frees a buffer of up to hundreds of kilobytes for every tensor
/// operation, which glibc serves with `mmap` and returns with `munmap`
/// (page faults at every step, TLB flushes on every other thread), while
/// mimalloc keeps freed pages for reuse (`docs/results/leduc-speed/`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    rnad_common::compute::one_thread_per_product_unless_set();
    let cli = Cli::parse();
    let shutdown = Shutdown::on_signals();
    logging::init(cli.log_format);
    let token = match Token::load(cli.token_file.as_deref()) {
        Ok(token) => token,
        Err(error) => {
            return logging::report_failure(
                &format!("cannot read the token: {error}"),
                Failure::Usage,
            );
        }
    };
    let metrics = ActorMetrics::new();
    let _runtime = match cli.metrics {
        Some(addr) => match rnad_common::metrics::serve_blocking(addr, metrics.registry.clone()) {
            Ok((runtime, bound)) => {
                tracing::info!("metrics on http://{bound}/metrics");
                Some(runtime)
            }
            Err(error) => {
                return logging::report_failure(
                    &format!("cannot serve metrics on {addr}: {error}"),
                    Failure::Fatal,
                );
            }
        },
        None => None,
    };
    let seed = match cli.seed {
        Some(seed) => {
            tracing::info!(seed, "seed given with --seed");
            seed
        }
        None => {
            let seed = rand::rng().random::<u64>();
            tracing::info!(
                seed,
                "seed drawn from OS entropy (pass --seed {seed} to replay this actor)"
            );
            seed
        }
    };
    let options = WorkerOptions {
        learner: cli.learner.clone(),
        token,
        games: cli.games.map(|g| g as usize),
        random: RngStream::of(seed),
        submit_every: cli.submit_every.map(|s| s as usize),
    };
    tracing::info!(learner = %cli.learner, "playing for the learner");
    run(&options, &shutdown, &metrics);
    tracing::info!("stopped");
    ExitCode::SUCCESS
}
