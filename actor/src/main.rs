//! `rnad-actor`: a self-play actor process for an rnad learner.

use std::process::ExitCode;

use clap::Parser;
use rand::RngExt;
use rnad_actor::cli::Cli;
use rnad_actor::metrics::ActorMetrics;
use rnad_actor::selfplay::RngStream;
use rnad_actor::worker::{run_threads, WorkerOptions};
use rnad_process::logging::{self, Failure};
use rnad_process::shutdown::Shutdown;
use rnad_wire::handshake::Token;

/// mimalloc instead of the system allocator: candle allocates and soon
/// frees a buffer of up to hundreds of kilobytes for every tensor
/// operation, which glibc serves with `mmap` and returns with `munmap`
/// (page faults at every step, TLB flushes on every other thread), while
/// mimalloc keeps freed pages for reuse (`docs/results/leduc-speed/`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    rnad_net::compute::one_thread_per_product_unless_set();
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
        Some(addr) => match rnad_process::metrics::serve_blocking(addr, metrics.registry.clone()) {
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
        device: cli.device.clone(),
    };
    tracing::info!(learner = %cli.learner, "playing for the learner");
    let threads = cli.threads.map(|t| t as usize);
    run_threads(&options, threads, &shutdown, &metrics);
    tracing::info!("stopped");
    ExitCode::SUCCESS
}
