//! Hold'em speed in one run, written to a file and printed:
//!
//! * seven-card hand evaluations per second on one core: the games layer's
//!   closed forms, rs_poker as the engine calls it for hold'em, and three
//!   crates.io evaluators (rs_poker, poker_eval, poker) each on the same
//!   random hands in its own card type, after checking that every one
//!   orders those hands as the closed forms do;
//! * self-play hands per second of one actor thread with `configs/holdem.toml`'s
//!   MLP;
//! * duplicate-match hands per second (heuristic against uniform);
//! * local-best-response hands per second (fcpa, against uniform).
//!
//! `cargo bench -p rnad-learner-cli --bench holdem -- [--seconds S] [--out FILE]`
//! (default 3 s a measurement, `target/bench/holdem.json`).

use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::Device;
use clap::Parser;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
use rnad_games::algorithms::lbr::{local_best_response, LbrOptions, DEFAULT_MAX_BOARDS};
use rnad_games::bots::poker_baselines::Baseline;
use rnad_games::headtohead::sampled::{play_duplicate, Player};
use rnad_games::universal_poker::ranking::{rank_hand, HandEvaluator, Ranks};
use rnad_games::universal_poker::UniversalPoker;
use rnad_learner::rnad::Learner;
use rnad_run::config::Config;
use rnad_run::ResolvedRun;
use serde::Serialize;

/// Random hands each evaluator is timed on (cycled until the time is spent).
const HANDS: usize = 1 << 20;

#[derive(Parser)]
struct Args {
    /// Seconds spent on each measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Where the figures go (cargo runs benchmarks in the crate's folder:
    /// the default is the workspace's `target/bench/holdem.json`).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench/holdem.json"))]
    out: PathBuf,
    /// `cargo bench` passes this to every bench target.
    #[arg(long, hide = true)]
    bench: bool,
}

/// One evaluator's figures.
#[derive(Serialize)]
struct EvaluatorFigures {
    name: &'static str,
    /// Seven-card evaluations per second on one core.
    evaluations_per_second: f64,
    /// Of the random hand pairs compared, how many this evaluator orders
    /// differently from the games layer's (must be 0).
    order_disagreements: usize,
    /// Pairs compared.
    pairs_compared: usize,
}

#[derive(Serialize)]
struct Report {
    game: String,
    seconds_per_measurement: f64,
    evaluators: Vec<EvaluatorFigures>,
    selfplay_hands_per_second: f64,
    selfplay_decisions_per_second: f64,
    selfplay_hidden: Vec<usize>,
    match_hands_per_second: f64,
    lbr_hands_per_second: f64,
    lbr_hands: usize,
    threads: usize,
}

/// `HANDS` random seven-card hands, each card `rank * 4 + suit`.
fn random_hands(seed: u64) -> Vec<[u8; 7]> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut deck: Vec<u8> = (0..52).collect();
    (0..HANDS)
        .map(|_| {
            let (drawn, _) = deck.partial_shuffle(&mut rng, 7);
            let mut hand = [0u8; 7];
            hand.copy_from_slice(drawn);
            hand
        })
        .collect()
}

fn ours(hand: &[u8; 7]) -> u32 {
    let mut by_suit: [Ranks; 4] = [0; 4];
    for &card in hand {
        by_suit[usize::from(card % 4)] |= 1 << (card / 4);
    }
    rank_hand(by_suit)
}

/// Evaluations per second of `evaluate` over `hands`, for about `seconds`.
fn rate<H, R>(hands: &[H], seconds: f64, evaluate: impl Fn(&H) -> R) -> f64 {
    let start = Instant::now();
    let mut done = 0usize;
    loop {
        for hand in hands {
            black_box(evaluate(black_box(hand)));
        }
        done += hands.len();
        let elapsed = start.elapsed().as_secs_f64();
        if elapsed >= seconds {
            return done as f64 / elapsed;
        }
    }
}

/// Pairs of consecutive hands on which `values` orders differently from `truth`.
fn disagreements<T: Ord, R: Ord>(truth: &[T], values: &[R]) -> usize {
    truth
        .windows(2)
        .zip(values.windows(2))
        .filter(|(t, v)| t[0].cmp(&t[1]) != v[0].cmp(&v[1]))
        .count()
}

/// `evaluate`'s figures on `hands` (the same hands as `truth`, the closed
/// forms' strengths, in the evaluator's own card type).
fn measure<H, R: Ord>(
    name: &'static str,
    hands: &[H],
    truth: &[u32],
    seconds: f64,
    evaluate: impl Fn(&H) -> R,
) -> EvaluatorFigures {
    let values: Vec<R> = hands.iter().map(&evaluate).collect();
    EvaluatorFigures {
        name,
        evaluations_per_second: rate(hands, seconds, evaluate),
        order_disagreements: disagreements(truth, &values),
        pairs_compared: hands.len() - 1,
    }
}

fn evaluators(seconds: f64) -> Vec<EvaluatorFigures> {
    let hands = random_hands(7);
    let truth: Vec<u32> = hands.iter().map(ours).collect();
    let mut figures = vec![measure(
        "rnad-games closed forms (ranking::rank_hand)",
        &hands,
        &truth,
        seconds,
        ours,
    )];
    // What the engine runs for hold'em: rs_poker behind HandEvaluator,
    // from the engine's card ids.
    let engine = |h: &[u8; 7]| HandEvaluator::Tables.strength(h.iter().copied());
    figures.push(measure(
        "rnad-games HandEvaluator::Tables (rs_poker from engine card ids)",
        &hands,
        &truth,
        seconds,
        engine,
    ));

    // rs_poker: its cards are (value, suit) with value 0 = deuce.
    let rs_hands: Vec<[rs_poker::core::Card; 7]> = hands
        .iter()
        .map(|h| {
            h.map(|c| {
                rs_poker::core::Card::new(
                    rs_poker::core::Value::from(c / 4),
                    rs_poker::core::Suit::from(c % 4),
                )
            })
        })
        .collect();
    let rs_rank = |h: &[rs_poker::core::Card; 7]| {
        let mut accum = rs_poker::core::SevenCardAccum::new();
        for &card in h {
            accum.add(card);
        }
        accum.rank()
    };
    figures.push(measure(
        "rs_poker 5.0 (SevenCardAccum)",
        &rs_hands,
        &truth,
        seconds,
        rs_rank,
    ));

    // poker_eval: cards are 4 * face + suit, as ours; tables built first.
    let table = poker_eval::eval::seven::build_tables(false);
    let pe_hands: Vec<[usize; 7]> = hands.iter().map(|h| h.map(usize::from)).collect();
    let pe_rank = |h: &[usize; 7]| poker_eval::eval::seven::get_rank(&table, *h);
    figures.push(measure(
        "poker_eval 0.1 (seven::get_rank)",
        &pe_hands,
        &truth,
        seconds,
        pe_rank,
    ));

    // poker (a treys port): the best of the 21 five-card subsets.
    let ranks = [
        poker::Rank::Two,
        poker::Rank::Three,
        poker::Rank::Four,
        poker::Rank::Five,
        poker::Rank::Six,
        poker::Rank::Seven,
        poker::Rank::Eight,
        poker::Rank::Nine,
        poker::Rank::Ten,
        poker::Rank::Jack,
        poker::Rank::Queen,
        poker::Rank::King,
        poker::Rank::Ace,
    ];
    let suits = [
        poker::Suit::Clubs,
        poker::Suit::Diamonds,
        poker::Suit::Hearts,
        poker::Suit::Spades,
    ];
    let treys_hands: Vec<[poker::Card; 7]> = hands
        .iter()
        .map(|h| h.map(|c| poker::Card::new(ranks[usize::from(c / 4)], suits[usize::from(c % 4)])))
        .collect();
    let evaluator = poker::Evaluator::new();
    let treys_rank =
        |h: &[poker::Card; 7]| evaluator.evaluate_five(h).expect("seven distinct cards");
    figures.push(measure(
        "poker 0.7 (Evaluator::evaluate_five, 7 cards)",
        &treys_hands,
        &truth,
        seconds,
        treys_rank,
    ));
    for figure in &figures {
        eprintln!(
            "{}: {:.3e} evaluations/s, {} order disagreements",
            figure.name, figure.evaluations_per_second, figure.order_disagreements
        );
    }
    figures
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let run = ResolvedRun::new(Config::load(&workspace.join("configs/holdem.toml"))?)?;
    let (config, game) = (run.config(), run.game());
    let seconds = args.seconds;

    let evaluators = evaluators(seconds);

    // One actor thread playing with the config's MLP.
    let learner = Learner::new(&run, &Device::Cpu)?;
    let snapshot = PolicySnapshot {
        version: 0,
        params: learner.state().online.clone(),
    };
    let mut play = SelfPlay::new(
        game.clone(),
        run.shape().clone(),
        config.actors.games_per_actor,
        RngStream::of(config.seed),
    );
    let start = Instant::now();
    let mut selfplay_hands = 0usize;
    while start.elapsed().as_secs_f64() < seconds {
        selfplay_hands += play.step(&snapshot)?.len();
    }
    let elapsed = start.elapsed().as_secs_f64();
    let selfplay_hands_per_second = selfplay_hands as f64 / elapsed;
    let selfplay_decisions_per_second = play.decisions() as f64 / elapsed;
    eprintln!("self-play: {selfplay_hands_per_second:.0} hands/s");

    // A duplicate match, grown until it takes the time asked for.
    let names = vec!["heuristic".to_string(), "uniform".to_string()];
    let big_blind = game
        .spec()
        .capabilities()
        .units
        .big_blind()
        .expect("a poker game");
    let mut deals = 1_000;
    let match_hands_per_second = loop {
        let mut players: Vec<Box<dyn Player>> =
            vec![Box::new(Baseline::Heuristic), Box::new(Baseline::Uniform)];
        let started = Instant::now();
        let report = play_duplicate(
            game.as_ref(),
            &names,
            &mut players,
            (deals, 4),
            big_blind,
            None,
            &mut |_, _, _, _| ControlFlow::Continue(()),
        )?;
        if started.elapsed().as_secs_f64() >= seconds {
            break report.games_per_second;
        }
        deals *= 2;
    };
    eprintln!("match: {match_hands_per_second:.0} hands/s");

    // Local best response, likewise.
    let poker = UniversalPoker::new(game.spec().clone());
    let mut hands = 50;
    let lbr = loop {
        let options = LbrOptions {
            hands,
            seed: 4,
            bets: vec![2, 3],
            call_before_round: 0,
            max_boards: DEFAULT_MAX_BOARDS,
        };
        let mut uniform = Baseline::Uniform;
        let started = Instant::now();
        let report = local_best_response(&poker, &mut uniform, &options, &|| false)?;
        if started.elapsed().as_secs_f64() >= seconds {
            break report;
        }
        hands *= 2;
    };
    eprintln!("lbr: {:.0} hands/s", lbr.hands_per_second);

    let report = Report {
        game: game.spec().to_string(),
        seconds_per_measurement: seconds,
        evaluators,
        selfplay_hands_per_second,
        selfplay_decisions_per_second,
        selfplay_hidden: config.network.hidden.clone(),
        match_hands_per_second,
        lbr_hands_per_second: lbr.hands_per_second,
        lbr_hands: lbr.hands,
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
