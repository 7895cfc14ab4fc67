//! Seed 004's learning from hand histories: samples from ACPC log lines,
//! Adadelta fitting them, the player taking the best predicted action, and
//! `gain-train` and `gain:FILE` as a user runs them.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_evaluator::gain::{samples_from_log, GainPlayer, GainTrainer};
use rnad_games::headtohead::sampled::Player;
use rnad_games::universal_poker::acpc_log::log_line;
use rnad_games::universal_poker::{UniversalPokerState, HEADS_UP_NO_LIMIT};
use rnad_games::{GameSpec, State, Turn, UniversalPoker};

// Not every test file uses every shared helper.
#[allow(dead_code)]
use rnad_testkit::{binary_output, scratch, stdout_json};

fn game() -> UniversalPoker {
    let spec = GameSpec::parse(HEADS_UP_NO_LIMIT).unwrap();
    UniversalPoker::new(spec)
}

/// `hands` hands of uniformly random play as log lines, with the number
/// of decisions and the payoffs of each.
fn random_log(game: &UniversalPoker, hands: u64, seed: u64) -> (String, Vec<(usize, Vec<f64>)>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut log = String::from("# random play\n");
    let mut hands_played = Vec::new();
    for hand in 0..hands {
        let mut state = game.initial_state();
        let (mut history, mut decisions) = (Vec::new(), 0);
        while state.turn() != Turn::Terminal {
            if let Turn::Player(_) = state.turn() {
                decisions += 1;
            }
            let moves = state.moves();
            let action = moves[rng.random_range(0..moves.len())];
            state.apply_action(action);
            history.push(action);
        }
        log.push_str(&log_line(game, &history, hand, &["a".into(), "b".into()]));
        log.push('\n');
        hands_played.push((decisions, state.returns()));
    }
    (log, hands_played)
}

#[test]
fn every_decision_of_a_log_is_a_sample_with_the_hands_chips_over_the_buy_in() {
    let game = game();
    let (log, hands) = random_log(&game, 50, 1);
    let samples = samples_from_log(&game, &log, 5000.0).unwrap();
    let mut next = samples.iter();
    for (decisions, returns) in hands {
        for _ in 0..decisions {
            let sample = next.next().unwrap();
            assert_eq!(sample.target, (returns[sample.player] / 5000.0) as f32);
        }
    }
    assert!(next.next().is_none());
    // A line whose payoffs are not the hand's is refused, naming it.
    let first = log.lines().nth(1).unwrap();
    let (hand, payoffs_and_players) = first.rsplit_once(':').unwrap().0.rsplit_once(':').unwrap();
    let wrong = format!(
        "# comment\n{hand}:1|-1:{}\n",
        first.rsplit_once(':').unwrap().1
    );
    assert_ne!(payoffs_and_players, "1|-1");
    let err = samples_from_log(&game, &wrong, 5000.0)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("line 2:") && err.contains("the hand as played pays"),
        "{err}"
    );
    let err = samples_from_log(&game, "STATE:0:x:AsKd|7c2h:0|0:a|b\n", 5000.0).unwrap_err();
    assert!(err.to_string().starts_with("line 1:"), "{err}");
}

/// Adadelta drives the error on a small batch well down, and the player
/// then takes, at each decision, the legal action whose gain the network
/// puts highest.
#[test]
fn training_fits_a_batch_and_the_player_takes_the_best_predicted_action() {
    let game = game();
    let (log, _) = random_log(&game, 10, 2);
    let samples = samples_from_log(&game, &log, 5000.0).unwrap();
    let batch: Vec<_> = samples.iter().take(16).collect();
    let mut trainer = GainTrainer::new(3, &candle_core::Device::Cpu).unwrap();
    let before = trainer.error(&batch).unwrap();
    for _ in 0..100 {
        let loss = trainer.step(&batch).unwrap();
        assert!(loss.is_finite());
    }
    let after = trainer.error(&batch).unwrap();
    assert!(after < before / 2.0, "error {before} before, {after} after");

    let mut player = GainPlayer::new(trainer.params()).unwrap();
    for sample in samples.iter().take(8) {
        let state: &UniversalPokerState = &sample.state;
        let legal = state.legal_actions();
        let gains = player.gains(state, &legal).unwrap();
        let policy = player.policy(state, &legal);
        let chosen = policy.iter().position(|&p| p == 1.0).unwrap();
        assert_eq!(policy.iter().sum::<f64>(), 1.0);
        assert!(
            gains.iter().all(|&g| g <= gains[chosen]),
            "{gains:?} {policy:?}"
        );
    }
}

/// A range's worth of states (one decision, the acting player's hole cards
/// varied, as a local best response asks) decided in batched forward
/// passes gets the gains of deciding each alone (to rounding far below how
/// much they differ between states), across a batch boundary, and plays
/// the best of them.
#[test]
fn a_batch_of_states_decides_as_each_state_alone() {
    // An untrained network's gains are about 1e-4 apart; a batch's
    // rounding is far below that.
    const TOLERANCE: f32 = 1e-7;
    let game = game();
    let (log, _) = random_log(&game, 4, 6);
    let samples = samples_from_log(&game, &log, 5000.0).unwrap();
    let trainer = GainTrainer::new(7, &candle_core::Device::Cpu).unwrap();
    let mut player = GainPlayer::new(trainer.params()).unwrap();
    let state: &UniversalPokerState = &samples[0].state;
    let Turn::Player(actor) = state.turn() else {
        panic!("a sample is a decision")
    };
    let legal = state.legal_actions();
    let free: Vec<u8> = (0..52u8)
        .filter(|&c| state.undealt() & (1 << c) != 0)
        .collect();
    let views: Vec<UniversalPokerState> = free
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| free[i + 1..].iter().map(move |&b| [a, b]))
        .take(30)
        .map(|pair| state.with_hole_cards(actor, &pair))
        .collect();
    let pairs = views.len() * legal.len();
    assert!(
        pairs > rnad_evaluator::gain::BATCH_DECISIONS,
        "{pairs} pairs fit one pass"
    );
    let refs: Vec<&UniversalPokerState> = views.iter().collect();
    let batched = player.gains_at(&refs, &legal).unwrap();
    let dyn_refs: Vec<&dyn State> = views.iter().map(|v| v as &dyn State).collect();
    let policies = player.policies(&dyn_refs, &legal);
    assert_eq!((batched.len(), policies.len()), (views.len(), views.len()));
    // The hands must tell the network's outputs apart, or a mix-up of
    // states could pass.
    let spread = batched
        .iter()
        .map(|gains| gains[0])
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), g| {
            (lo.min(g), hi.max(g))
        });
    assert!(
        spread.1 - spread.0 > 100.0 * TOLERANCE,
        "gains barely vary: {spread:?}"
    );
    for ((view, gains), policy) in views.iter().zip(&batched).zip(&policies) {
        assert_eq!((gains.len(), policy.len()), (legal.len(), legal.len()));
        let alone = player.gains(view, &legal).unwrap();
        for (a, b) in alone.iter().zip(gains) {
            assert!((a - b).abs() <= TOLERANCE, "{alone:?} {gains:?}");
        }
        let chosen = policy.iter().position(|&p| p == 1.0).unwrap();
        assert!(
            gains.iter().all(|&g| g <= gains[chosen]),
            "{gains:?} {policy:?}"
        );
    }
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A log goes in, a network file comes out that `match` plays and that
/// records what it learnt from; files that are not such networks, or are
/// for another game, are refused saying so.
#[test]
fn gain_train_writes_a_network_that_match_plays() {
    let dir = scratch("gain_train");
    let game = game();
    let (log, _) = random_log(&game, 20, 4);
    let log_path = dir.join("hands.log");
    std::fs::write(&log_path, &log).unwrap();
    let net = dir.join("generation-1.safetensors");
    let (log_arg, net_arg) = (log_path.to_str().unwrap(), net.to_str().unwrap());
    let trained = binary_output(
        "rnad-evaluator",
        &[
            "gain-train",
            "--game",
            HEADS_UP_NO_LIMIT,
            "--log",
            log_arg,
            "--out",
            net_arg,
            "--steps",
            "3",
            "--batch",
            "4",
            "--seed",
            "5",
        ],
    );
    assert!(trained.status.success(), "{}", stderr(&trained));
    let said = String::from_utf8(trained.stdout).unwrap();
    assert!(said.contains("of 20 hands: 3 steps of 4"), "{said}");
    let (params, meta) = rnad_evaluator::gain::file::load(&net).unwrap();
    assert_eq!(
        (
            meta.generation,
            meta.hands,
            meta.steps,
            meta.batch,
            meta.seed
        ),
        (1, 20, 3, 4, 5)
    );
    assert!(meta.samples >= 20 && meta.error.is_finite(), "{meta:?}");
    assert_eq!(params.len(), 12);

    let player = format!("gain:{net_arg}");
    let report = stdout_json(&binary_output(
        "rnad-evaluator",
        &[
            "match",
            "--game",
            HEADS_UP_NO_LIMIT,
            "--players",
            &format!("{player},heuristic"),
            "--deals",
            "10",
            "--seed",
            "1",
            "--json",
        ],
    ));
    assert_eq!(report["deals"], 10, "{report}");
    assert_eq!(report["raw"][0]["name"], player.as_str(), "{report}");

    let torn = dir.join("torn.safetensors");
    let bytes = std::fs::read(&net).unwrap();
    std::fs::write(&torn, &bytes[..bytes.len() / 2]).unwrap();
    let not_a_network = dir.join("log.safetensors");
    std::fs::copy(&log_path, &not_a_network).unwrap();
    for (file, expected) in [
        (&torn, "gain network"),
        (&not_a_network, "not a readable safetensors file"),
    ] {
        let refused = binary_output(
            "rnad-evaluator",
            &[
                "match",
                "--game",
                HEADS_UP_NO_LIMIT,
                "--players",
                &format!("gain:{},heuristic", file.display()),
                "--deals",
                "2",
            ],
        );
        assert!(!refused.status.success());
        assert!(stderr(&refused).contains(expected), "{}", stderr(&refused));
    }
    let other_game = HEADS_UP_NO_LIMIT.replace("stack=5000 5000", "stack=2000 2000");
    let refused = binary_output(
        "rnad-evaluator",
        &[
            "match",
            "--game",
            &other_game,
            "--players",
            &format!("{player},heuristic"),
            "--deals",
            "2",
        ],
    );
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("the match is"),
        "{}",
        stderr(&refused)
    );
    let refused = binary_output(
        "rnad-evaluator",
        &[
            "gain-train",
            "--game",
            "leduc_poker",
            "--log",
            log_arg,
            "--out",
            net_arg,
        ],
    );
    assert!(stderr(&refused).contains("seed 004's network reads heads-up universal_poker"));
}

/// `--max-seconds` ends training early with at least one step and records
/// the steps taken; a limit that is not a positive number is refused.
#[test]
fn gain_train_stops_at_its_time_limit() {
    let dir = scratch("gain_train_time_limit");
    let (log, _) = random_log(&game(), 10, 6);
    let log_path = dir.join("hands.log");
    std::fs::write(&log_path, &log).unwrap();
    let net = dir.join("generation-1.safetensors");
    let train = |limit: &str| {
        let limit = format!("--max-seconds={limit}");
        binary_output(
            "rnad-evaluator",
            &[
                "gain-train",
                "--game",
                HEADS_UP_NO_LIMIT,
                "--log",
                log_path.to_str().unwrap(),
                "--out",
                net.to_str().unwrap(),
                "--steps",
                "100000000",
                "--batch",
                "2",
                &limit,
            ],
        )
    };
    let trained = train("0.3");
    assert!(trained.status.success(), "{}", stderr(&trained));
    let (_, meta) = rnad_evaluator::gain::file::load(&net).unwrap();
    assert!(
        (1..100_000_000).contains(&meta.steps),
        "{} steps recorded",
        meta.steps
    );
    for bad in ["0", "-1", "NaN"] {
        let refused = train(bad);
        assert!(!refused.status.success(), "--max-seconds {bad} accepted");
        assert!(
            stderr(&refused).contains("--max-seconds must be a positive number"),
            "{}",
            stderr(&refused)
        );
    }
}
