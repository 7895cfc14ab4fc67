//! `rnad-learner`: the R-NaD learner. Its training commands (`local`,
//! `serve`) are not built yet; until then it only says so.

use std::process::ExitCode;

use clap::Parser;

/// The rnad learner (R-NaD with two-stage averaging). Not implemented yet:
/// for now use `rnad-evaluator solve` for a reference equilibrium.
#[derive(Debug, Parser)]
#[command(name = "rnad-learner", version)]
struct Cli {}

fn main() -> ExitCode {
    Cli::parse();
    eprintln!("rnad-learner: training is not implemented yet; `rnad-evaluator solve --game leduc_poker --iterations 1000 --out leduc.json` solves Leduc with CFR+ meanwhile");
    ExitCode::from(2)
}
