//! Duplicate matches played state by state against the exact expectation:
//! seed 004's heuristic against the uniform player on Leduc poker, whose
//! expected payoff a walk of the whole game gives. The raw estimate covers
//! it; the control variate (AIVAT) hits it exactly, with no luck left, when
//! its values are exact, and still covers it when they are noise.

use std::collections::HashMap;
use std::ops::ControlFlow;

use rnad_games::bots::poker_baselines::Baseline;
use rnad_games::headtohead::sampled::{
    play_duplicate, DuplicateReport, Player, Stopped, ValueFunction,
};
use rnad_games::{Game, GameSpec, State, Turn};

/// The expected returns from `state` with `players[seat]` in each seat.
fn expected(state: &dyn State, players: &[Baseline; 2]) -> Vec<f64> {
    let weighted: Vec<(Box<dyn State>, f64)> = match state.turn() {
        Turn::Terminal => return state.returns(),
        Turn::Chance => state
            .chance_outcomes()
            .into_iter()
            .map(|(a, p)| (child(state, a), p))
            .collect(),
        Turn::Player(seat) => {
            let legal = state.legal_actions();
            let probs = players[seat].probabilities(&legal);
            legal.iter().map(|&a| child(state, a)).zip(probs).collect()
        }
    };
    let mut total = vec![0.0; 2];
    for (next, p) in weighted {
        for (t, v) in total.iter_mut().zip(expected(next.as_ref(), players)) {
            *t += p * v;
        }
    }
    total
}

fn child(state: &dyn State, action: usize) -> Box<dyn State> {
    let mut next = state.clone_box();
    next.apply_action(action);
    next
}

const PLAYERS: [Baseline; 2] = [Baseline::Heuristic, Baseline::Uniform];

/// Both players' information states: the whole state in Leduc.
fn key(state: &dyn State) -> String {
    format!(
        "{}|{}",
        state.information_state_string(0),
        state.information_state_string(1)
    )
}

/// The exact expected returns under the seating played (memoised).
#[derive(Default)]
struct Exact(HashMap<(String, Vec<usize>), Vec<f64>>);

impl ValueFunction for Exact {
    fn values(&mut self, states: &[&dyn State], seat: usize, seating: &[usize]) -> Vec<f64> {
        let players = [PLAYERS[seating[0]], PLAYERS[seating[1]]];
        states
            .iter()
            .map(|s| {
                self.0
                    .entry((key(*s), seating.to_vec()))
                    .or_insert_with(|| expected(*s, &players))[seat]
            })
            .collect()
    }
}

/// Values unrelated to the game: a hash of the state's string.
struct Noise;

impl ValueFunction for Noise {
    fn values(&mut self, states: &[&dyn State], seat: usize, _: &[usize]) -> Vec<f64> {
        states
            .iter()
            .map(|s| {
                let text = format!("{}|{seat}", key(*s));
                let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                });
                (hash % 2001) as f64 / 100.0 - 10.0
            })
            .collect()
    }
}

fn play(game: &dyn Game, value: Option<&mut dyn ValueFunction>) -> DuplicateReport {
    let names = ["heuristic".to_string(), "uniform".to_string()];
    let mut players: Vec<Box<dyn Player>> =
        vec![Box::new(Baseline::Heuristic), Box::new(Baseline::Uniform)];
    play_duplicate(
        game,
        &names,
        &mut players,
        (3000, 7),
        1.0,
        value,
        &mut |_, _, _, _| ControlFlow::Continue(()),
    )
    .expect("the record never stops the match")
}

#[test]
fn the_control_variate_keeps_the_expectation_and_exact_values_leave_no_luck() {
    let game = "leduc_poker".parse::<GameSpec>().unwrap().load();
    let root = game.new_initial_state();
    let heuristic_first = expected(root.as_ref(), &PLAYERS)[0];
    let heuristic_second = expected(root.as_ref(), &[PLAYERS[1], PLAYERS[0]])[1];
    let exact = (heuristic_first + heuristic_second) / 2.0;
    assert!(
        exact.abs() > 0.1,
        "the heuristic's edge is visible: {exact}"
    );

    let plain = play(game.as_ref(), None);
    assert!(plain.control_variate.is_none());
    let raw = &plain.raw[0];
    assert!(
        (raw.mean - exact).abs() <= raw.ci95,
        "raw {raw:?} against {exact}"
    );

    let good = play(game.as_ref(), Some(&mut Exact::default()));
    // The same games: the raw estimate does not change.
    assert_eq!(good.raw[0].mean, raw.mean);
    let corrected = &good.control_variate.as_ref().unwrap()[0];
    assert!(
        (corrected.mean - exact).abs() < 1e-9 && corrected.ci95 < 1e-9,
        "exact values leave the expectation alone: {corrected:?} against {exact}"
    );

    let noisy = play(game.as_ref(), Some(&mut Noise));
    let corrected = &noisy.control_variate.as_ref().unwrap()[0];
    assert!(
        (corrected.mean - exact).abs() <= corrected.ci95,
        "noise keeps the expectation: {corrected:?} against {exact}"
    );
    assert!(corrected.ci95 > raw.ci95, "and widens the interval");
}

#[test]
fn a_match_stops_after_the_game_its_record_breaks_at() {
    let game = "leduc_poker".parse::<GameSpec>().unwrap().load();
    let names = ["heuristic".to_string(), "uniform".to_string()];
    let mut players: Vec<Box<dyn Player>> =
        vec![Box::new(Baseline::Heuristic), Box::new(Baseline::Uniform)];
    let mut seen = 0;
    let stopped = play_duplicate(
        game.as_ref(),
        &names,
        &mut players,
        (3000, 7),
        1.0,
        None,
        &mut |_, _, _, _| {
            seen += 1;
            if seen == 5 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    // Two seatings a deal: the fifth game is the first of the third deal.
    assert_eq!(
        stopped.unwrap_err(),
        Stopped {
            finished: 5,
            planned: 6000
        }
    );
    assert_eq!(seen, 5);
}

/// Values that note every state they are asked at (and answer 0).
#[derive(Default)]
struct Asked(Vec<(Turn, usize)>);

impl ValueFunction for Asked {
    fn values(&mut self, states: &[&dyn State], seat: usize, _: &[usize]) -> Vec<f64> {
        self.0.extend(states.iter().map(|s| (s.turn(), seat)));
        vec![0.0; states.len()]
    }
}

/// In heads-up hold'em (zero-sum, cards dealt one at a time) the value
/// function is asked only where the seat it is asked for acts: never at a
/// chance state, between a flop's cards, at a terminal state or for the
/// seat that waits.
#[test]
fn the_value_function_is_asked_only_where_the_seat_acts() {
    let game = "holdem".parse::<GameSpec>().unwrap().load();
    let names = ["heuristic".to_string(), "call".to_string()];
    let mut players: Vec<Box<dyn Player>> =
        vec![Box::new(Baseline::Heuristic), Box::new(Baseline::Call)];
    let mut asked = Asked::default();
    let report = play_duplicate(
        game.as_ref(),
        &names,
        &mut players,
        (20, 3),
        100.0,
        Some(&mut asked),
        &mut |_, _, _, _| ControlFlow::Continue(()),
    )
    .unwrap();
    assert!(asked.0.len() > 100, "asked {} times", asked.0.len());
    for (turn, seat) in &asked.0 {
        assert_eq!(*turn, Turn::Player(*seat));
    }
    assert!(report.control_variate.unwrap()[0].mean.is_finite());
}
