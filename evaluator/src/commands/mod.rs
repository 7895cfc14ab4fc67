//! The `rnad-evaluator` command line: one module per subcommand, each with
//! its clap arguments and a `run` function that writes its report to a given
//! output, so that tests drive them exactly as the binary does.

pub mod bench;
pub mod br;
pub mod eval;
pub mod export;
pub mod gain_train;
pub mod head_to_head;
pub mod history;
pub mod lbr;
pub mod playthrough;
pub mod plot;
pub mod reduction;
pub mod replay_average;
pub mod replay_log;
pub mod solve;
pub mod tensorboard;
pub mod watch;

use std::io::Write;

use clap::{Parser, Subcommand};
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use rnad_process::logging::LogFormat;

use crate::error::EvaluatorError;

/// Exact exploitability and reference solutions for rnad's games.
///
/// NashConv is the sum over players of what a best response gains against
/// the policy (seed 000's "exploitability"); OpenSpiel's `exploitability` is
/// NashConv divided by the number of players. Every report names which is
/// which.
#[derive(Debug, Parser)]
#[command(name = "rnad-evaluator", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Log format: text or json.
    #[arg(long, global = true, env = "RNAD_LOG_FORMAT", default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// The evaluator's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Exact NashConv of a tabular policy file (OpenSpiel's JSON format) or
    /// of every policy kind in a learner checkpoint.
    Eval(eval::EvalArgs),
    /// Write a checkpoint's policy as a tabular policy file (OpenSpiel's
    /// JSON format).
    Export(export::ExportArgs),
    /// Solve a game with tabular CFR+ and write the average policy.
    Solve(solve::SolveArgs),
    /// Evaluate a running learner's policies at every new version.
    Watch(watch::WatchArgs),
    /// Players against each other in duplicate format: every seating on
    /// the same deals, mean payoff per player with a 95% interval.
    #[command(name = "match")]
    Match(head_to_head::MatchArgs),
    /// Every combination of the players (and a run's checkpoints) in
    /// matches: a cross table and a ranking.
    League(head_to_head::LeagueArgs),
    /// Seed 002's experiment: reduced k-player CFR players against n − 1
    /// n-player CFR players, by the n-player CFR's iterations.
    Reduction(reduction::ReductionArgs),
    /// Draw NashConv (or any logged column) over training for a set of
    /// runs: per variant the mean over seeds and the min–max band (one
    /// seed's logged 95% interval for a match or LBR column).
    Plot(plot::PlotArgs),
    /// A run's target average replayed from its checkpoints under other
    /// horizon rules: each rule's NashConv every --every steps, as CSV.
    ReplayAverage(replay_average::ReplayAverageArgs),
    /// One run's NashConv history as goal tables: when the played policy
    /// first reached a threshold and the highest after, wall-clock bins,
    /// and one row per period of the entropy schedule.
    History(history::HistoryArgs),
    /// Time one exact NashConv and one CFR+ iteration; write the figures.
    Bench(bench::BenchArgs),
    /// Random games as JSON lines, one per state (history, player, legal
    /// actions, information states, returns), to replay in OpenSpiel.
    Playthrough(playthrough::PlaythroughArgs),
    /// Replay an ACPC hand-history log through the engine, checking every
    /// payoff; each player's total.
    ReplayLog(replay_log::ReplayLogArgs),
    /// Local best response against a heads-up poker player: a lower bound
    /// on its exploitability, in mbb/hand.
    Lbr(lbr::LbrArgs),
    /// A best response learned by reinforcement learning against a frozen
    /// policy: its gain in each seat, and the exact best response's beside
    /// it where the game has a public tree.
    Br(br::BrArgs),
    /// Seed 004's learning: a convolutional network fitted to the chips
    /// every decision of some hand-history logs won, for `gain:FILE`.
    GainTrain(gain_train::GainTrainArgs),
    /// A run directory's training.jsonl and history.jsonl as TensorBoard
    /// event files, one scalar tag per column; --follow keeps converting as
    /// the run writes them.
    Tensorboard(tensorboard::TensorboardArgs),
}

impl Cli {
    /// Runs the chosen subcommand, writing its report to `out`.
    pub fn run(&self, out: &mut dyn Write) -> Result<(), EvaluatorError> {
        match &self.command {
            Command::Eval(args) => eval::run(args, out),
            Command::Export(args) => export::run(args, out),
            Command::Solve(args) => solve::run(args, out),
            Command::Bench(args) => bench::run(args, out),
            Command::Plot(args) => plot::run(args, out),
            Command::History(args) => history::run(args, out),
            Command::ReplayAverage(args) => replay_average::run(args, out),
            Command::Match(args) => head_to_head::run_match(args, out),
            Command::League(args) => head_to_head::run_league(args, out),
            Command::Reduction(args) => reduction::run(args, out),
            Command::Watch(args) => watch::run(args),
            Command::Playthrough(args) => playthrough::run(args, out),
            Command::ReplayLog(args) => replay_log::run(args, out),
            Command::Lbr(args) => lbr::run(args, out),
            Command::Br(args) => br::run(args, out),
            Command::GainTrain(args) => gain_train::run(args, out),
            Command::Tensorboard(args) => tensorboard::run(args, out),
        }
    }
}

/// The long help of every `--game` option: the registry's games and
/// parameters.
pub fn game_help() -> String {
    format!(
        "Game, as an OpenSpiel spec: NAME or NAME(key=value,...), e.g. leduc_poker(players=3).\n\n{}",
        rnad_games::registry::help()
    )
}

/// Walks `game`'s public tree.
fn build_tree(game: &GameSpec) -> Result<PublicTree, EvaluatorError> {
    Ok(PublicTree::build(game.load())?)
}

/// Writes one line of a command's report.
fn emit(out: &mut dyn Write, text: &str) -> Result<(), EvaluatorError> {
    writeln!(out, "{text}").map_err(|source| EvaluatorError::Write {
        path: "standard output".into(),
        source,
    })
}
