//! The average against hand-worked weights, its go-back bookkeeping, and
//! exploitability's convexity.

use super::*;
use rnad_games::exploitability::nash_conv;

fn kuhn_spec() -> GameSpec {
    "kuhn_poker".parse().unwrap()
}

fn kuhn() -> PublicTree {
    PublicTree::build(kuhn_spec().load()).unwrap()
}

/// The policy that bets (action 1) with probability `bet` at every
/// information state.
fn betting(tree: &PublicTree, bet: impl Fn(&str) -> f64) -> TabularPolicy {
    let mut probs = vec![0.0; tree.num_slots()];
    for (decision, hand) in tree.info_states() {
        let b = bet(&tree.info_state_string(decision, hand));
        let slots = decision.slots(hand);
        probs[slots.start] = 1.0 - b;
        probs[slots.start + 1] = b;
    }
    TabularPolicy::from_slots(tree, probs).unwrap()
}

/// A state's probability of betting.
fn bet_at(tree: &PublicTree, policy: &TabularPolicy, info_state: &str) -> f64 {
    let (d, hand) = tree.info_state_index()[info_state];
    policy.probs()[tree.decisions()[d].slots(hand).start + 1]
}

fn reach_at(tree: &PublicTree, reach: &[f64], info_state: &str) -> f64 {
    let (d, hand) = tree.info_state_index()[info_state];
    reach[tree.decisions()[d].info(hand)]
}

#[test]
fn own_reach_multiplies_only_the_players_own_actions() {
    let tree = kuhn();
    // Player 0 bets first with 0.3 holding a jack (0) and 0.6 holding a
    // queen (1); player 1 bets after a pass with 0.8 whatever it holds.
    let policy = betting(&tree, |s| match s {
        "0" => 0.3,
        "1" => 0.6,
        "0p" | "1p" | "2p" => 0.8,
        _ => 0.5,
    });
    let reach = own_reach(&tree, &policy);
    for (state, expected) in [
        ("0", 1.0),
        ("1", 1.0),
        // Player 0 reaches "pass, bet" by passing; player 1's bet
        // is the opponent's and does not count.
        ("0pb", 0.7),
        ("1pb", 0.4),
        ("2pb", 0.5),
        // Player 1's first states are reached by no action of its own.
        ("0b", 1.0),
        ("2p", 1.0),
    ] {
        assert!(
            (reach_at(&tree, &reach, state) - expected).abs() < 1e-12,
            "{state}: {}",
            reach_at(&tree, &reach, state)
        );
    }
}

#[test]
fn own_reach_passes_through_the_opponents_moves_and_the_board_card() {
    // Leduc: player 0 with a jack raises first with 0.3 (calls 0.7) and
    // calls a re-raise with 0.6; everything else is uniform.
    let spec: GameSpec = "leduc_poker".parse().unwrap();
    let tree = PublicTree::build(spec.load()).unwrap();
    let first =
        "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]";
    let reraised = "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 8][Money: 97 95][Round1: 2 2][Round2: ]";
    let called_raise = "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 4][Money: 99 97][Round1: 1 2][Round2: ]";
    let mut probs = TabularPolicy::uniform(&tree).probs().to_vec();
    let index = tree.info_state_index();
    let set = |probs: &mut Vec<f64>, state: &str, row: &[f64]| {
        let (d, hand) = index[state];
        probs[tree.decisions()[d].slots(hand)].copy_from_slice(row);
    };
    set(&mut probs, first, &[0.7, 0.3]);
    set(&mut probs, reraised, &[0.4, 0.6]);
    let policy = TabularPolicy::from_slots(&tree, probs).unwrap();
    let reach = own_reach(&tree, &policy);
    // The second round, after the board card (a queen, 1) is dealt:
    // raise, re-raise, call is 0.3 · 0.6; call, raise, raise (1/3 of
    // three actions), call is 0.7 · 1/3. Player 1's moves and the card
    // count for nothing.
    let round2 = |round1: &str, pot: u32, money: u32| {
        format!(
            "[Observer: 0][Private: 0][Round 2][Player: 0][Pot: {pot}][Money: {money} {money}][Public: 1][Round1: {round1}][Round2: ]"
        )
    };
    for (state, expected) in [
        (first.to_string(), 1.0),
        (reraised.to_string(), 0.3),
        (called_raise.to_string(), 0.7),
        (round2("2 2 1", 10, 95), 0.3 * 0.6),
        (round2("1 2 2 1", 10, 95), 0.7 / 3.0),
    ] {
        let found = reach_at(&tree, &reach, &state);
        assert!((found - expected).abs() < 1e-12, "{state}: {found}");
    }
}

#[test]
fn the_average_weights_each_policy_by_its_own_reach_and_by_steps() {
    let tree = kuhn();
    // β large enough that nothing is dropped from these mixed policies.
    let horizon = 1000;
    let mut average = PolicyAverage::new(kuhn_spec(), horizon, 10.0);
    let first = betting(&tree, |s| if s == "0" { 0.2 } else { 0.5 });
    let second = betting(&tree, |s| if s == "0" { 0.6 } else { 0.9 });
    // A single policy is its own average, also when added again.
    let start = 10 * horizon;
    average.add(&tree, start, &first);
    let alone = average.add(&tree, start + 4 * horizon, &first);
    for (a, b) in alone.probs().iter().zip(first.probs()) {
        assert!((a - b).abs() < 1e-12);
    }
    // Once it has seen two horizons, a policy 0.7 horizons after the
    // previous one weighs 1 − e^(−0.7) ≈ 1/2.
    let step = start + 4 * horizon + 700;
    let weight = 1.0 - (-0.7f64).exp();
    let mixed = average.add(&tree, step, &second);
    // At the root both reach it with 1: the plain weighted mean.
    let root = (1.0 - weight) * 0.2 + weight * 0.6;
    assert!((bet_at(&tree, &mixed, "0") - root).abs() < 1e-12);
    // After "pass, bet", holding a jack: the first policy passed with
    // 0.8 and the second with 0.4, so the first counts twice as much.
    let (r1, r2) = ((1.0 - weight) * 0.8, weight * 0.4);
    let expected = (r1 * 0.5 + r2 * 0.9) / (r1 + r2);
    assert!((bet_at(&tree, &mixed, "0pb") - expected).abs() < 1e-12);
    // A learner that goes back to an earlier step starts the average
    // afresh where, as here, no earlier sums are kept.
    let restarted = average.add(&tree, start / 2, &first);
    assert!((bet_at(&tree, &restarted, "0pb") - 0.5).abs() < 1e-12);
    assert!((bet_at(&tree, &restarted, "0") - 0.2).abs() < 1e-12);
}

/// A Kuhn policy that bets more the larger `i`.
fn numbered(tree: &PublicTree, i: u64) -> TabularPolicy {
    betting(tree, |s| 0.05 * i as f64 + if s == "0" { 0.1 } else { 0.2 })
}

/// The average of the policies numbered `0..=last` at steps `100 · i`,
/// keeping the sums at checkpoints every `checkpoint_interval` steps
/// (0: none).
fn evaluated_to(tree: &PublicTree, last: u64, checkpoint_interval: u64) -> PolicyAverage {
    let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
    average.keep_sums_at_checkpoints(checkpoint_interval);
    for i in 0..=last {
        average.add(tree, 100 * i, &numbered(tree, i));
    }
    average
}

/// That average with `next` at `step` added: what a straight run
/// gives.
fn straight(tree: &PublicTree, last: u64, step: u64, next: &TabularPolicy) -> TabularPolicy {
    evaluated_to(tree, last, 0).add(tree, step, next)
}

#[test]
fn a_learner_that_goes_back_finds_the_average_as_it_stood() {
    let tree = kuhn();
    // Evaluations every 100 steps to 700, checkpoints every 250: the
    // sums kept are those of the newest policy at or before the last
    // two checkpoints, 500 (step 500's) and 250 (step 200's).
    let mut average = evaluated_to(&tree, 7, 250);
    let kept: Vec<u64> = average.earlier.iter().map(|s| s.step).collect();
    assert_eq!(kept, [200, 500], "the last two checkpoints and no more");
    // The learner went back to its checkpoint at 500 and trained to
    // 550: the average goes on from its sums at 500, exactly as one
    // that never saw steps 600 and 700.
    let next = numbered(&tree, 9);
    let went_back = average.add(&tree, 550, &next);
    assert_eq!(went_back.probs(), straight(&tree, 5, 550, &next).probs());
    // It crashes again before its next checkpoint: back at 500 once
    // more, the sums of 500 are still there.
    let again = numbered(&tree, 10);
    assert_eq!(
        average.add(&tree, 520, &again).probs(),
        straight(&tree, 5, 520, &again).probs()
    );
    // Its checkpoint at 500 unreadable, it goes back to 250.
    assert_eq!(
        average.add(&tree, 260, &again).probs(),
        straight(&tree, 2, 260, &again).probs()
    );
    // Further back than anything kept: afresh, the policy alone.
    let afresh = average.add(&tree, 150, &next);
    assert_eq!(afresh.probs(), next.probs());
    assert_eq!(average.saved().unwrap().counters.first_step, 150);
    // However long it runs, it keeps a bounded number of sums.
    for i in 2..200 {
        average.add(&tree, 100 * i + 50, &numbered(&tree, i % 7));
    }
    assert_eq!(average.earlier.len(), CHECKPOINTS_COVERED);
    // With none kept (a local run), going back starts afresh.
    let mut local = evaluated_to(&tree, 7, 0);
    assert!(local.earlier.is_empty());
    assert_eq!(local.add(&tree, 450, &next).probs(), next.probs());
}

#[test]
fn saved_with_its_earlier_sums_an_average_goes_back_as_the_one_it_was_saved_from() {
    // A watcher restarted together with a crashed learner (a host
    // reboot) has only what it saved.
    let tree = kuhn();
    let average = evaluated_to(&tree, 7, 250);
    let saved = average.saved_with_earlier().unwrap();
    let steps: Vec<u64> = saved.earlier.iter().map(|s| s.counters.step).collect();
    assert_eq!((steps, saved.newest.counters.step), (vec![200, 500], 700));
    let json = serde_json::to_string(&saved).unwrap();
    let read: SavedSums = serde_json::from_str(&json).unwrap();
    assert_eq!(read, saved, "the file reads back bit for bit");
    let mut restarted = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
    restarted.keep_sums_at_checkpoints(250);
    restarted.restore(&tree, read.newest).unwrap();
    restarted.restore_earlier(&tree, read.earlier).unwrap();
    let mut told = restarted.clone();
    let next = numbered(&tree, 9);
    assert_eq!(
        restarted.add(&tree, 510, &next).probs(),
        straight(&tree, 5, 510, &next).probs()
    );
    // A new learner process that resumed at 500 and trained past 700
    // before the watcher looked: told so, the average goes back all
    // the same; told of a step at or past its newest, it stays.
    told.learner_went_back_to(700);
    assert_eq!(told.saved(), Some(saved.newest.clone()));
    told.learner_went_back_to(500);
    assert_eq!(
        told.add(&tree, 900, &next).probs(),
        straight(&tree, 5, 900, &next).probs()
    );
    // Sums kept out of order, or one that does not fit, are refused
    // together; the newest average stands.
    let mut fresh = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
    let why = fresh
        .restore_earlier(&tree, saved.earlier.clone())
        .unwrap_err()
        .to_string();
    assert!(why.contains("no newest average"), "{why}");
    fresh.restore(&tree, saved.newest.clone()).unwrap();
    let mut disordered = saved.earlier.clone();
    disordered.reverse();
    let why = fresh
        .restore_earlier(&tree, disordered)
        .unwrap_err()
        .to_string();
    assert!(why.contains("[500, 200, 700]"), "{why}");
    let mut damaged = saved.earlier.clone();
    damaged[1].weighted_probs[0] = -1.0;
    let why = fresh
        .restore_earlier(&tree, damaged)
        .unwrap_err()
        .to_string();
    assert!(
        why.contains("earlier sums #2") && why.contains("-1"),
        "{why}"
    );
    assert!(fresh.earlier.is_empty());
    assert_eq!(fresh.saved(), Some(saved.newest));
}

#[test]
fn saved_sums_go_on_only_with_the_same_settings_and_game() {
    let tree = kuhn();
    let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
    average.add(&tree, 100, &betting(&tree, |_| 0.3));
    average.add(&tree, 300, &betting(&tree, |_| 0.7));
    let saved = average.saved().expect("two policies averaged");
    assert_eq!((saved.counters.first_step, saved.counters.step), (100, 300));
    // Restored, it goes on exactly as the average it was saved from.
    let mut resumed = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
    resumed.restore(&tree, saved.clone()).unwrap();
    let next = betting(&tree, |s| if s == "0" { 0.1 } else { 0.5 });
    assert_eq!(
        average.add(&tree, 500, &next).probs(),
        resumed.add(&tree, 500, &next).probs()
    );
    // Another horizon means another average: refused, nothing kept.
    let mut other = PolicyAverage::new(kuhn_spec(), 2000, 10.0);
    let why = other.restore(&tree, saved.clone()).unwrap_err().to_string();
    assert!(why.contains("horizon 1000"), "{why}");
    assert!(other.current(&tree).is_none());
    // Damaged sums are refused.
    let mut damaged = saved.clone();
    damaged.weighted_reach[3] = f64::NAN;
    let why = resumed.restore(&tree, damaged).unwrap_err().to_string();
    assert!(why.contains("NaN"), "{why}");
    let mut damaged = saved.clone();
    damaged.counters.first_step = 400;
    let why = resumed.restore(&tree, damaged).unwrap_err().to_string();
    assert!(why.contains("step 400"), "{why}");
    // Sums of another game do not fit its tree.
    let leduc: GameSpec = "leduc_poker".parse().unwrap();
    let leduc_tree = PublicTree::build(leduc.load()).unwrap();
    let mut other = PolicyAverage::new(leduc, 1000, 10.0);
    let why = other.restore(&leduc_tree, saved).unwrap_err().to_string();
    assert!(why.contains("24 slots"), "{why}");
    assert!(other.current(&leduc_tree).is_none());
}

#[test]
fn a_young_average_reaches_back_half_of_what_it_has_seen() {
    let tree = kuhn();
    let first = betting(&tree, |_| 0.2);
    let second = betting(&tree, |_| 0.6);
    let weight = 1.0 - (-2f64).exp();
    let root = (1.0 - weight) * 0.2 + weight * 0.6;
    // At the start of a run, and in an evaluator that joins late
    // (a watcher started on a running learner): 100 steps after its first policy the horizon is
    // 50 steps, not 1000, so the policy of step t₀ + 100 weighs
    // 1 − e^(−100/50) and the first one does not linger.
    for first_step in [0, 500_000] {
        let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
        average.add(&tree, first_step, &first);
        let mixed = average.add(&tree, first_step + 100, &second);
        assert!(
            (bet_at(&tree, &mixed, "0") - root).abs() < 1e-12,
            "first policy at step {first_step}"
        );
    }
}

#[test]
fn an_average_is_no_more_exploitable_than_the_mean_of_what_it_averages() {
    // Two-player zero-sum: exploitability is convex in the own-reach
    // weighted (sequence-form) representation, so an average of two
    // policies is at most the same average of their NashConvs.
    let tree = kuhn();
    let mut average = PolicyAverage::new(kuhn_spec(), 1000, 10.0);
    let bluffs = betting(&tree, |s| if s.starts_with('0') { 0.9 } else { 0.4 });
    let folds = betting(&tree, |s| if s.starts_with('0') { 0.1 } else { 0.6 });
    average.add(&tree, 10_000, &bluffs);
    // 700 steps after the first policy the horizon is 350 steps.
    let step = 10_700;
    let weight = 1.0 - (-2f64).exp();
    let mixed = average.add(&tree, step, &folds);
    let (a, b, m) = (
        nash_conv(&tree, &bluffs).nash_conv,
        nash_conv(&tree, &folds).nash_conv,
        nash_conv(&tree, &mixed).nash_conv,
    );
    let bound = (1.0 - weight) * a + weight * b;
    assert!(m <= bound + 1e-12, "{m} vs {a} and {b}, bound {bound}");
}

#[test]
fn horizon_rules_read_as_written_and_set_how_far_a_young_average_reaches() {
    let parse = |text: &str| text.parse::<HorizonRule>();
    assert_eq!(
        parse("400000"),
        Ok(HorizonRule {
            cap: 400_000,
            young_divisor: 2.0
        })
    );
    assert_eq!(
        parse("100000/0.5"),
        Ok(HorizonRule {
            cap: 100_000,
            young_divisor: 0.5
        })
    );
    assert_eq!(parse("half").unwrap().cap, u64::MAX);
    for bad in ["", "0", "x", "100/0", "100/-1", "100/x"] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    // Two policies 100 steps apart, the first at step 100: a young average
    // reaches back min(cap, 100 / divisor), so the second weighs
    // 1 − e^(−100 / (100 / divisor)) = 1 − e^(−divisor).
    let tree = kuhn();
    let first = betting(&tree, |_| 0.2);
    let second = betting(&tree, |_| 0.6);
    for divisor in [1.0, 2.0, 4.0] {
        let rule = HorizonRule {
            cap: 1_000_000,
            young_divisor: divisor,
        };
        let mut average = PolicyAverage::with_rule(kuhn_spec(), rule, 10.0);
        average.add(&tree, 100, &first);
        let mixed = average.add(&tree, 200, &second);
        let weight = 1.0 - (-divisor).exp();
        let root = (1.0 - weight) * 0.2 + weight * 0.6;
        assert!(
            (bet_at(&tree, &mixed, "0") - root).abs() < 1e-12,
            "{divisor}"
        );
    }
}
