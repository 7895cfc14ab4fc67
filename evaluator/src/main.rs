//! `rnad-evaluator`: exact exploitability and reference solutions.

use std::process::ExitCode;

use clap::Parser;
use rnad_evaluator::commands::Cli;

fn main() -> ExitCode {
    rnad_common::compute::one_thread_per_product_unless_set();
    let cli = Cli::parse();
    rnad_common::logging::init(cli.log_format);
    match cli.run(&mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error}");
            ExitCode::FAILURE
        }
    }
}
