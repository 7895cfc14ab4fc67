//! `rnad-evaluator bench`: the speed and memory of the exact passes on
//! every game asked for, beside OpenSpiel's when a Python with `pyspiel`
//! is given, written to a file.
//!
//! Per game: the public tree's size and build time; one exact NashConv of
//! the uniform policy (every player's best response and on-policy value),
//! one CFR and one CFR+ iteration, each repeated until a time budget is
//! spent (mean, median, minimum); `match` speed (games per second of a
//! sampled match between tabular players, and between network players
//! tabulated by one batched forward pass each); and the peak resident
//! memory while the game was measured. With `--openspiel PYTHON` the same operations run in
//! OpenSpiel 2.0.2's C++ through `pyspiel` in the same run (NashConv of its
//! uniform policy, `CFRSolver` and `CFRPlusSolver` iterations), and the
//! report gives OpenSpiel's seconds over ours.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use clap::Args;
use rnad_games::policy::TabularPolicy;
use rnad_games::GameSpec;
use rnad_net::{NetShape, ParamSet, TorsoKind};
use serde::{Deserialize, Serialize};

use super::{build_tree, emit, game_help};
use crate::error::EvaluatorError;
use crate::kinds::KindEvaluator;
use crate::neural::NetworkError;
use crate::output::write_atomically;
use rnad_games::cfr::{CfrSolver, CfrVariant};
use rnad_games::exploitability::{nash_conv, nash_conv_threads};
use rnad_games::headtohead::{play_match, Mode};
use rnad_run::history::PolicyKind;

/// The games measured when none is named.
const DEFAULT_GAMES: [&str; 7] = [
    "kuhn_poker",
    "leduc_poker",
    "kuhn_poker(players=3)",
    "leduc_poker(players=3)",
    "liars_dice",
    "leduc_poker(players=3,ranks=7)",
    "leduc_poker(players=4,ranks=7)",
];

/// The network a neural policy is timed with (the default config's).
const NEURAL_HIDDEN: [usize; 2] = [128, 128];
/// Deals of a timed match (each played by every seating).
const MATCH_DEALS: usize = 10_000;

/// Arguments of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Game to measure (repeatable). Default: kuhn_poker, leduc_poker,
    /// kuhn_poker(players=3), leduc_poker(players=3), liars_dice,
    /// leduc_poker(players=3,ranks=7), leduc_poker(players=4,ranks=7).
    #[arg(long = "game", long_help = game_help())]
    pub games: Vec<GameSpec>,
    /// Time spent on each measurement, in seconds (each runs at least 3
    /// times).
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// A Python interpreter with pyspiel (pip install open_spiel==2.0.2) to
    /// time OpenSpiel's C++ on the same games in the same run.
    #[arg(long)]
    pub openspiel: Option<PathBuf>,
    /// Where to write the figures (JSON); default `target/bench/evaluator.json`.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Timings of one repeated operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timing {
    /// How many times it ran.
    pub runs: usize,
    /// Mean seconds per run.
    pub mean_seconds: f64,
    /// Median seconds per run.
    pub median_seconds: f64,
    /// Fastest run, in seconds.
    pub min_seconds: f64,
}

/// The speed of one sampled match.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MatchSpeed {
    /// Games played (deals times seatings).
    pub games: usize,
    /// Seconds to turn the players into tabular policies (the network
    /// players' batched forward passes; 0 for tabular players).
    pub tabulate_seconds: f64,
    /// Seconds to play the games.
    pub play_seconds: f64,
    /// Games per second, tabulation included.
    pub games_per_second: f64,
}

/// OpenSpiel's figures for one game (seconds of one run each).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenSpielFigures {
    /// `pyspiel.nash_conv` of the uniform policy.
    pub nash_conv_seconds: f64,
    /// The NashConv it computed.
    pub nash_conv: f64,
    /// One `CFRSolver.evaluate_and_update_policy()`.
    pub cfr_iteration_seconds: f64,
    /// One `CFRPlusSolver.evaluate_and_update_policy()`.
    pub cfr_plus_iteration_seconds: f64,
}

/// OpenSpiel's seconds over ours (mean), per operation.
#[derive(Debug, Serialize)]
pub struct Speedups {
    /// Exact NashConv.
    pub nash_conv: f64,
    /// A CFR iteration.
    pub cfr_iteration: f64,
    /// A CFR+ iteration.
    pub cfr_plus_iteration: f64,
}

/// Everything measured on one game.
#[derive(Debug, Serialize)]
pub struct GameBench {
    /// The game.
    pub game: String,
    /// Public nodes.
    pub public_nodes: usize,
    /// Information states.
    pub info_states: usize,
    /// Histories the public tree stands for (deals times public nodes).
    pub histories: f64,
    /// Bytes of the public tree's own arrays.
    pub tree_bytes: usize,
    /// Tree bytes per public node.
    pub bytes_per_public_node: f64,
    /// Tree bytes per history it stands for.
    pub bytes_per_history: f64,
    /// Seconds to build the public tree (once per process).
    pub tree_build_seconds: f64,
    /// NashConv of the uniform policy.
    pub uniform_nash_conv: f64,
    /// One exact NashConv of the uniform policy, on every core (players'
    /// walks in parallel; small trees stay on one thread).
    pub nash_conv: Timing,
    /// The same on one thread.
    pub nash_conv_one_thread: Timing,
    /// One thread's mean over all cores' mean.
    pub parallel_speedup: f64,
    /// Whether one thread and all cores give the same report to the bit.
    pub parallel_identical: bool,
    /// Seconds to make the network inputs of every information state
    /// (once per evaluator).
    pub network_inputs_seconds: f64,
    /// One evaluation of a neural policy (MLP 128x128): the forward pass
    /// over every information state, then the exact NashConv.
    pub neural_nash_conv: Timing,
    /// A match of uniform players (tabular).
    pub match_tabular: MatchSpeed,
    /// A match of network players (MLP 128x128, one per seat), each
    /// tabulated by a batched forward pass before play.
    pub match_network: MatchSpeed,
    /// One CFR iteration (every player's update).
    pub cfr_iteration: Timing,
    /// One CFR+ iteration.
    pub cfr_plus_iteration: Timing,
    /// Peak resident memory while this game was measured, in bytes.
    pub peak_memory_bytes: u64,
    /// OpenSpiel's figures, when asked for.
    pub openspiel: Option<OpenSpielFigures>,
    /// OpenSpiel's seconds over ours.
    pub speedup_over_openspiel: Option<Speedups>,
}

/// Runs `op` until `budget` is spent (at least 3 times) and summarises.
fn time(budget: Duration, mut op: impl FnMut()) -> Timing {
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 3 || start.elapsed() < budget {
        let t = Instant::now();
        op();
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    Timing {
        runs: samples.len(),
        mean_seconds: samples.iter().sum::<f64>() / samples.len() as f64,
        median_seconds: samples[samples.len() / 2],
        min_seconds: samples[0],
    }
}

/// The process's peak resident memory (`VmHWM`), in bytes.
fn peak_memory() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Starts a new peak-memory measurement (Linux: writing 5 to
/// `/proc/self/clear_refs` resets `VmHWM` to the current size).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Measures one game.
fn bench_game(spec: &GameSpec, budget: Duration) -> Result<GameBench, EvaluatorError> {
    reset_peak_memory();
    let start = Instant::now();
    let tree = build_tree(spec)?;
    let tree_build_seconds = start.elapsed().as_secs_f64();
    let uniform = TabularPolicy::uniform(&tree);
    let report = nash_conv(&tree, &uniform);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parallel_identical =
        nash_conv_threads(&tree, &uniform, 1) == nash_conv_threads(&tree, &uniform, cores);
    let nash_conv_timing = time(budget, || {
        std::hint::black_box(nash_conv(&tree, &uniform));
    });
    let nash_conv_one_thread = time(budget, || {
        std::hint::black_box(nash_conv_threads(&tree, &uniform, 1));
    });
    let neural = neural_timing(spec, budget)?;
    let mut cfr = CfrSolver::new(&tree, CfrVariant::Cfr);
    let cfr_iteration = time(budget, || cfr.iterate());
    drop(cfr);
    let mut cfr_plus = CfrSolver::new(&tree, CfrVariant::CfrPlus);
    let cfr_plus_iteration = time(budget, || cfr_plus.iterate());
    drop(cfr_plus);
    let tree_bytes = tree.memory_bytes();
    Ok(GameBench {
        game: spec.to_string(),
        public_nodes: tree.num_nodes(),
        info_states: tree.num_info_states(),
        histories: tree.num_histories(),
        tree_bytes,
        bytes_per_public_node: tree_bytes as f64 / tree.num_nodes() as f64,
        bytes_per_history: tree_bytes as f64 / tree.num_histories(),
        tree_build_seconds,
        uniform_nash_conv: report.nash_conv,
        parallel_speedup: nash_conv_one_thread.mean_seconds / nash_conv_timing.mean_seconds,
        nash_conv: nash_conv_timing,
        nash_conv_one_thread,
        parallel_identical,
        network_inputs_seconds: neural.inputs_seconds,
        neural_nash_conv: neural.nash_conv,
        match_tabular: neural.match_tabular,
        match_network: neural.match_network,
        cfr_iteration,
        cfr_plus_iteration,
        peak_memory_bytes: peak_memory(),
        openspiel: None,
        speedup_over_openspiel: None,
    })
}

/// What [`neural_timing`] measures.
struct NeuralFigures {
    inputs_seconds: f64,
    nash_conv: Timing,
    match_tabular: MatchSpeed,
    match_network: MatchSpeed,
}

/// Times the exact evaluation of a freshly initialised network on `spec`
/// (making the inputs once, then each forward pass and NashConv), and
/// matches of tabular and of network players.
fn neural_timing(spec: &GameSpec, budget: Duration) -> Result<NeuralFigures, EvaluatorError> {
    let game = spec.load();
    let shape = NetShape {
        input: game.information_state_tensor_size(),
        torso: TorsoKind::Mlp,
        hidden: NEURAL_HIDDEN.to_vec(),
        actions: game.num_distinct_actions(),
        head: rnad_net::HeadKind::Dense,
        grouped: false,
        cards: game.card_layout(),
    };
    let players = game.num_players();
    let params = ParamSet::init(&shape, 0)?;
    let start = Instant::now();
    let evaluator = KindEvaluator::new(game, shape.clone())?;
    let inputs_seconds = start.elapsed().as_secs_f64();
    let mut failed = None;
    let timing = time(budget, || match evaluator.policy(&params) {
        Ok(policy) => {
            std::hint::black_box(nash_conv(evaluator.tree(), &policy));
        }
        Err(e) => failed = Some(e),
    });
    if let Some(e) = failed {
        return Err(network_error(e));
    }
    let tree = evaluator.tree();
    let match_tabular = match_speed(tree, || Ok(vec![TabularPolicy::uniform(tree); players]))?;
    let match_network = match_speed(tree, || {
        (0..players)
            .map(|seat| {
                let params = ParamSet::init(&shape, seat as u64 + 1)?;
                evaluator.policy(&params).map_err(network_error)
            })
            .collect()
    })?;
    Ok(NeuralFigures {
        inputs_seconds,
        nash_conv: timing,
        match_tabular,
        match_network,
    })
}

/// Times one sampled match of [`MATCH_DEALS`] deals between the players
/// `tabulate` makes.
fn match_speed(
    tree: &rnad_games::public_tree::PublicTree,
    tabulate: impl FnOnce() -> Result<Vec<TabularPolicy>, EvaluatorError>,
) -> Result<MatchSpeed, EvaluatorError> {
    let start = Instant::now();
    let policies = tabulate()?;
    let tabulate_seconds = start.elapsed().as_secs_f64();
    let names: Vec<String> = (0..policies.len()).map(|p| format!("p{p}")).collect();
    let mode = Mode::Sampled {
        deals: MATCH_DEALS,
        seed: 0,
    };
    let start = Instant::now();
    let report = play_match(tree, &names, &policies, mode);
    let play_seconds = start.elapsed().as_secs_f64();
    Ok(MatchSpeed {
        games: report.games,
        tabulate_seconds,
        play_seconds,
        games_per_second: report.games as f64 / (tabulate_seconds + play_seconds),
    })
}

/// The benchmark's randomly initialised networks as the policy they stand
/// for (any name would do; they are θ's shape).
fn network_error(source: NetworkError) -> EvaluatorError {
    EvaluatorError::Network {
        kind: PolicyKind::Online,
        source,
    }
}

/// Times OpenSpiel on `spec` with `python` (its pyspiel).
fn openspiel_figures(
    python: &PathBuf,
    spec: &GameSpec,
) -> Result<OpenSpielFigures, EvaluatorError> {
    /// The script file, carried by the binary so it runs from anywhere.
    const SCRIPT: &str = include_str!("../../../scripts/openspiel-bench.py");
    let output = Command::new(python)
        .args(["-c", SCRIPT, &spec.to_string()])
        .output()
        .map_err(|e| EvaluatorError::Usage(format!("--openspiel {}: {e}", python.display())))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(EvaluatorError::Usage(format!(
            "OpenSpiel on {spec} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    serde_json::from_str(stdout.trim())
        .map_err(|e| EvaluatorError::Usage(format!("OpenSpiel on {spec} printed {stdout:?}: {e}")))
}

/// Runs `bench`.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> Result<(), EvaluatorError> {
    let budget = Duration::from_secs_f64(args.seconds.max(0.0));
    let games: Vec<GameSpec> = if args.games.is_empty() {
        DEFAULT_GAMES
            .iter()
            .map(|g| g.parse().expect("default games parse"))
            .collect()
    } else {
        args.games.clone()
    };
    let mut reports = Vec::new();
    for spec in &games {
        tracing::info!("measuring {spec}");
        let mut report = bench_game(spec, budget)?;
        if let Some(python) = args.openspiel.as_ref().filter(|_| spec.is_openspiel()) {
            tracing::info!("measuring OpenSpiel on {spec}");
            let theirs = openspiel_figures(python, spec)?;
            report.speedup_over_openspiel = Some(Speedups {
                nash_conv: theirs.nash_conv_seconds / report.nash_conv.mean_seconds,
                cfr_iteration: theirs.cfr_iteration_seconds / report.cfr_iteration.mean_seconds,
                cfr_plus_iteration: theirs.cfr_plus_iteration_seconds
                    / report.cfr_plus_iteration.mean_seconds,
            });
            report.openspiel = Some(theirs);
        }
        emit(out, &describe(&report))?;
        reports.push(report);
    }
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("target/bench/evaluator.json"));
    let text = serde_json::to_string_pretty(&reports).expect("bench report serialises");
    write_atomically(&path, text.as_bytes())?;
    emit(out, &format!("figures written to {}", path.display()))
}

/// A report's lines.
fn describe(r: &GameBench) -> String {
    let ms = |t: &Timing| {
        format!(
            "{:.3} ms (median {:.3}, min {:.3}, {} runs)",
            t.mean_seconds * 1e3,
            t.median_seconds * 1e3,
            t.min_seconds * 1e3,
            t.runs
        )
    };
    let mut text = format!(
        "{}: {} public nodes ({:.3e} histories), {} information states, tree {:.1} MB ({:.0} bytes per public node), built in {:.1} ms, peak memory {:.1} MiB\n  \
         exact NashConv (uniform: {:.6}): {}\n  \
         on one thread: {} (speed-up {:.2}x, identical: {})\n  \
         neural policy (inputs made in {:.1} ms): {}\n  \
         match: {} games, tabular players {:.0} games/s, network players {:.0} games/s ({:.1} ms to tabulate them)\n  \
         CFR iteration: {}\n  CFR+ iteration: {}",
        r.game,
        r.public_nodes,
        r.histories,
        r.info_states,
        r.tree_bytes as f64 / 1e6,
        r.bytes_per_public_node,
        r.tree_build_seconds * 1e3,
        r.peak_memory_bytes as f64 / (1024.0 * 1024.0),
        r.uniform_nash_conv,
        ms(&r.nash_conv),
        ms(&r.nash_conv_one_thread),
        r.parallel_speedup,
        r.parallel_identical,
        r.network_inputs_seconds * 1e3,
        ms(&r.neural_nash_conv),
        r.match_tabular.games,
        r.match_tabular.games_per_second,
        r.match_network.games_per_second,
        r.match_network.tabulate_seconds * 1e3,
        ms(&r.cfr_iteration),
        ms(&r.cfr_plus_iteration),
    );
    if let (Some(o), Some(s)) = (&r.openspiel, &r.speedup_over_openspiel) {
        text.push_str(&format!(
            "\n  OpenSpiel: NashConv {:.3} s ({:.6}), CFR iteration {:.3} s, CFR+ iteration {:.3} s\n  \
             speed-up over OpenSpiel: NashConv {:.0}x, CFR {:.0}x, CFR+ {:.0}x",
            o.nash_conv_seconds,
            o.nash_conv,
            o.cfr_iteration_seconds,
            o.cfr_plus_iteration_seconds,
            s.nash_conv,
            s.cfr_iteration,
            s.cfr_plus_iteration
        ));
    }
    text
}
