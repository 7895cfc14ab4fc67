//! Seed 004's learning from hand histories: samples from ACPC log lines,
//! Adadelta fitting them, and the player taking the best predicted action.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_evaluator::gain::{samples_from_log, GainPlayer, GainTrainer};
use rnad_games::headtohead::sampled::Player;
use rnad_games::universal_poker::acpc_log::log_line;
use rnad_games::universal_poker::{UniversalPokerState, HEADS_UP_NO_LIMIT};
use rnad_games::{Action, GameSpec, State, Turn, UniversalPoker};

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
            let moves: Vec<Action> = match state.turn() {
                Turn::Chance => state.chance_outcomes().iter().map(|o| o.0).collect(),
                _ => {
                    decisions += 1;
                    state.legal_actions()
                }
            };
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
            assert!(sample.target.abs() <= 1.0);
        }
    }
    assert!(next.next().is_none());
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
    let mut trainer = GainTrainer::new(3).unwrap();
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
