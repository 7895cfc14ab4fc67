//! Daihinmin speed in one run, written to a file and printed: random
//! playouts (whole games from a fresh deal, every move uniformly at random)
//! per second on one core, one `epsilon` Monte-Carlo decision at N = 1500
//! in milliseconds (the first decision of a deal, averaged over deals),
//! match games per second (five default players), self-play decisions per
//! second of one actor thread with `configs/daihinmin.toml`'s MLP, and one
//! unbatched decision of that network, beside the Monte-Carlo decision.
//!
//! `cargo bench -p rnad-learner-cli --bench daihinmin -- [--seconds S] [--out FILE]`
//! (default 3 s a measurement, the workspace's `target/bench/daihinmin.json`).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::Device;
use clap::Parser;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
use rnad_evaluator::network_player::NetworkPlayer;
use rnad_games::algorithms::monte_carlo::{Allocation, MonteCarloPlayer};
use rnad_games::bots::uecda_default::DefaultPlayer;
use rnad_games::daihinmin::{Daihinmin, DaihinminState};
use rnad_games::headtohead::sampled::{play_duplicate, Player};
use rnad_games::{State, Turn};
use rnad_learner::rnad::Learner;
use rnad_run::config::Config;
use rnad_run::ResolvedRun;
use serde::Serialize;

#[derive(Parser)]
struct Args {
    /// Seconds spent on each measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Where the figures go (cargo runs benchmarks in the crate's folder:
    /// the default is the workspace's `target/bench/daihinmin.json`).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench/daihinmin.json"))]
    out: PathBuf,
    /// `cargo bench` passes this to every bench target.
    #[arg(long, hide = true)]
    bench: bool,
}

#[derive(Serialize)]
struct Report {
    seconds_per_measurement: f64,
    random_playouts_per_second: f64,
    epsilon_1500_decision_ms: f64,
    epsilon_1500_decisions_timed: usize,
    match_games_per_second: f64,
    selfplay_decisions_per_second: f64,
    selfplay_games_per_second: f64,
    selfplay_hidden: Vec<usize>,
    /// One decision of the config's network alone (not batched), as a
    /// match or the UECda client makes it.
    network_decision_ms: f64,
    /// How many network decisions one epsilon:1500 decision costs.
    epsilon_1500_over_network: f64,
    threads: usize,
}

/// A fresh deal, in play.
fn dealt(game: &Daihinmin, rng: &mut ChaCha8Rng) -> DaihinminState {
    let mut state = game.initial_state();
    while state.turn() == Turn::Chance {
        let outcomes = state.chance_outcomes();
        state.apply_action(outcomes[rng.random_range(0..outcomes.len())].0);
    }
    state
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let seconds = args.seconds;
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let run = ResolvedRun::new(Config::load(&workspace.join("configs/daihinmin.toml"))?)?;
    let config = run.config();
    let game = Daihinmin::new(config.game.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(3);

    // Random playouts from fresh deals (the deal itself not timed).
    let (mut playouts, mut spent) = (0usize, 0.0);
    while spent < seconds {
        let mut state = dealt(&game, &mut rng);
        let start = Instant::now();
        while let Turn::Player(_) | Turn::Chance = state.turn() {
            let moves = state.moves();
            state.apply_action(moves[rng.random_range(0..moves.len())]);
        }
        spent += start.elapsed().as_secs_f64();
        playouts += 1;
    }
    let random_playouts_per_second = playouts as f64 / spent;
    eprintln!("random playouts: {random_playouts_per_second:.0}/s");

    // One epsilon decision at N = 1500, first decision of fresh deals.
    let mut player = MonteCarloPlayer::new(Allocation::Epsilon { x: 0.5, d: 1.0 }, 1500, 7);
    let (mut decisions, mut spent) = (0usize, 0.0);
    while spent < seconds || decisions < 2 {
        let state = dealt(&game, &mut rng);
        let legal = state.legal_actions();
        let start = Instant::now();
        std::hint::black_box(player.choose(&state, &legal));
        spent += start.elapsed().as_secs_f64();
        decisions += 1;
    }
    let epsilon_1500_decision_ms = 1000.0 * spent / decisions as f64;
    eprintln!("epsilon:1500 decision: {epsilon_1500_decision_ms:.0} ms");

    // A match of five default players, grown until it takes the time.
    let names: Vec<String> = (0..5).map(|i| format!("default-{i}")).collect();
    let mut deals = 20;
    let match_games_per_second = loop {
        let mut players: Vec<Box<dyn Player>> = (0..5)
            .map(|_| Box::new(DefaultPlayer) as Box<dyn Player>)
            .collect();
        let started = Instant::now();
        let report = play_duplicate(
            &game,
            &names,
            &mut players,
            (deals, 4),
            1.0,
            None,
            &mut |_, _, _, _| ControlFlow::Continue(()),
        )?;
        if started.elapsed().as_secs_f64() >= seconds {
            break report.games_per_second;
        }
        deals *= 2;
    };
    eprintln!("match: {match_games_per_second:.0} games/s");

    // One actor thread with the config's MLP.
    let learner = Learner::new(&run, &Device::Cpu)?;
    let snapshot = PolicySnapshot {
        version: 0,
        params: learner.state().online.clone(),
    };
    let mut play = SelfPlay::new(
        run.game().clone(),
        run.shape().clone(),
        config.actors.games_per_actor,
        RngStream::of(config.seed),
    );
    let start = Instant::now();
    let mut games = 0usize;
    while start.elapsed().as_secs_f64() < seconds {
        games += play.step(&snapshot)?.len();
    }
    let elapsed = start.elapsed().as_secs_f64();
    let selfplay_decisions_per_second = play.decisions() as f64 / elapsed;
    eprintln!("self-play: {selfplay_decisions_per_second:.0} decisions/s");

    // One unbatched network decision, on the first decision of fresh deals.
    let mut network = NetworkPlayer::new(run.shape(), &learner.state().online, true)?;
    let (mut decisions_timed, mut spent) = (0usize, 0.0);
    while spent < seconds {
        let state = dealt(&game, &mut rng);
        let legal = state.legal_actions();
        let start = Instant::now();
        std::hint::black_box(network.policy(&state, &legal));
        spent += start.elapsed().as_secs_f64();
        decisions_timed += 1;
    }
    let network_decision_ms = 1000.0 * spent / decisions_timed as f64;
    eprintln!("network decision: {network_decision_ms:.3} ms");

    let report = Report {
        seconds_per_measurement: seconds,
        random_playouts_per_second,
        epsilon_1500_decision_ms,
        epsilon_1500_decisions_timed: decisions,
        match_games_per_second,
        selfplay_decisions_per_second,
        selfplay_games_per_second: games as f64 / elapsed,
        selfplay_hidden: config.network.hidden.clone(),
        network_decision_ms,
        epsilon_1500_over_network: epsilon_1500_decision_ms / network_decision_ms,
        threads: 1,
    };
    let text = serde_json::to_string_pretty(&report)?;
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&args.out, format!("{text}\n"))?;
    println!("{text}");
    println!("written to {}", args.out.display());
    Ok(())
}
