//! `rnad-evaluator`: exact exploitability and reference solutions.

use std::process::ExitCode;

use clap::Parser;
use rnad_evaluator::commands::Cli;
use rnad_process::logging::{self, Failure};

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
    logging::init(cli.log_format);
    match cli.run(&mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let failure = if error.is_usage() {
                Failure::Usage
            } else {
                Failure::Fatal
            };
            logging::report_failure(&error, failure)
        }
    }
}
