//! Exact NashConv and CFR+ against independent truth: OpenSpiel's values for
//! uniform, first-action and CFR+ policies (`fixtures/openspiel/`), and
//! Kuhn poker's known one-parameter family of equilibria.

use std::path::PathBuf;

use rnad_common::game::GameName;
use rnad_common::policy::TabularPolicy;
use rnad_common::tree::GameTree;
use rnad_evaluator::cfr::CfrPlusSolver;
use rnad_evaluator::exploitability::BestResponse;
use serde_json::Value;

fn tree(game: GameName) -> GameTree {
    GameTree::build(game.load().as_ref()).unwrap()
}

fn fixture_path(game: GameName) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/openspiel")
        .join(format!("{game}_cfrplus100_policy.json"))
}

/// OpenSpiel's CFR+ policy after 100 iterations and the NashConv OpenSpiel
/// computed for it.
fn openspiel_cfr_plus(tree: &GameTree) -> (TabularPolicy, f64) {
    let text = std::fs::read_to_string(fixture_path(tree.game())).unwrap();
    let nash_conv = serde_json::from_str::<Value>(&text).unwrap()["nash_conv"]
        .as_f64()
        .unwrap();
    (TabularPolicy::from_json(tree, &text).unwrap(), nash_conv)
}

fn nash_conv(tree: &GameTree, policy: &TabularPolicy) -> f64 {
    BestResponse::new(tree).nash_conv(policy).nash_conv
}

#[test]
fn uniform_policy_matches_openspiel() {
    let kuhn = tree(GameName::KuhnPoker);
    let report = BestResponse::new(&kuhn).nash_conv(&TabularPolicy::uniform(&kuhn));
    assert!((report.nash_conv - 11.0 / 12.0).abs() < 1e-12, "{report:?}");
    assert!((report.exploitability() - 11.0 / 24.0).abs() < 1e-12);
    // Against a uniform opponent, by hand: player 0's best response is worth
    // 1/2, player 1's 5/12; on-policy player 0 expects 1/8.
    assert!(
        (report.best_response_values[0] - 0.5).abs() < 1e-12,
        "{report:?}"
    );
    assert!(
        (report.best_response_values[1] - 5.0 / 12.0).abs() < 1e-12,
        "{report:?}"
    );
    assert!(
        (report.on_policy_values[0] - 0.125).abs() < 1e-12,
        "{report:?}"
    );

    let leduc = tree(GameName::LeducPoker);
    let value = nash_conv(&leduc, &TabularPolicy::uniform(&leduc));
    assert!((value - 4.747222222222222).abs() < 1e-9, "{value}");
}

#[test]
fn first_legal_action_policy_has_nash_conv_two() {
    for game in GameName::ALL {
        let tree = tree(game);
        let value = nash_conv(&tree, &TabularPolicy::first_legal_action(&tree));
        assert!((value - 2.0).abs() < 1e-9, "{game}: {value}");
    }
}

#[test]
fn openspiel_cfr_plus_policies_evaluate_to_openspiel_nash_conv() {
    for game in GameName::ALL {
        let tree = tree(game);
        let (policy, expected) = openspiel_cfr_plus(&tree);
        let value = nash_conv(&tree, &policy);
        assert!(
            (value - expected).abs() < 1e-9,
            "{game}: {value} vs OpenSpiel {expected}"
        );
    }
}

/// Kuhn's equilibria: player 0 bets a Jack with probability α ∈ [0, 1/3],
/// a King with 3α, calls with a Queen after check-bet with α + 1/3; player 1
/// bets a Jack after a check with 1/3, calls a bet with a Queen with 1/3,
/// and otherwise plays the obvious pure actions.
#[test]
fn kuhn_equilibrium_family_has_zero_nash_conv() {
    let tree = tree(GameName::KuhnPoker);
    for alpha in [0.0, 0.1, 0.25, 1.0 / 3.0] {
        let bet = |s: &str| -> f64 {
            match s {
                "0" => alpha,
                "1" => 0.0,
                "2" => 3.0 * alpha,
                "0pb" => 0.0,
                "1pb" => alpha + 1.0 / 3.0,
                "2pb" => 1.0,
                "0p" => 1.0 / 3.0,
                "1p" => 0.0,
                "2p" => 1.0,
                "0b" => 0.0,
                "1b" => 1.0 / 3.0,
                "2b" => 1.0,
                other => panic!("unexpected information state {other}"),
            }
        };
        let mut probs = vec![0.0; tree.num_slots()];
        for state in tree.info_states() {
            let slots = state.slots();
            probs[slots.start] = 1.0 - bet(&state.string);
            probs[slots.start + 1] = bet(&state.string);
        }
        let policy = TabularPolicy::from_slots(&tree, probs).unwrap();
        let report = BestResponse::new(&tree).nash_conv(&policy);
        assert!(report.nash_conv.abs() < 1e-12, "alpha {alpha}: {report:?}");
        // The game value is -1/18 for player 0.
        assert!((report.on_policy_values[0] + 1.0 / 18.0).abs() < 1e-12);
    }
}

#[test]
fn cfr_plus_reproduces_openspiel_after_100_iterations() {
    for game in GameName::ALL {
        let tree = tree(game);
        let mut solver = CfrPlusSolver::new(&tree);
        for _ in 0..100 {
            solver.iterate();
        }
        let ours = solver.average_policy();
        let (theirs, expected) = openspiel_cfr_plus(&tree);
        for (state, (a, b)) in tree
            .info_states()
            .iter()
            .flat_map(|s| s.slots().map(move |_| s))
            .zip(ours.probs().iter().zip(theirs.probs()))
        {
            assert!(
                (a - b).abs() < 1e-9,
                "{game} {:?}: {a} vs OpenSpiel {b}",
                state.string
            );
        }
        let value = nash_conv(&tree, &ours);
        assert!(
            (value - expected).abs() < 1e-9,
            "{game}: {value} vs {expected}"
        );
    }
}

#[test]
fn cfr_plus_converges_on_leduc() {
    let tree = tree(GameName::LeducPoker);
    let mut solver = CfrPlusSolver::new(&tree);
    let mut at_100 = f64::NAN;
    for i in 1..=1000 {
        solver.iterate();
        if i == 100 {
            at_100 = nash_conv(&tree, &solver.average_policy());
        }
    }
    let at_1000 = nash_conv(&tree, &solver.average_policy());
    assert!(at_100 <= 0.03, "NashConv after 100 iterations: {at_100}");
    assert!(
        at_1000 <= 0.002,
        "NashConv after 1000 iterations: {at_1000}"
    );
    assert_eq!(solver.iterations(), 1000);
}
