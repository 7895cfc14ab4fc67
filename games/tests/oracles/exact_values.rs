//! Exact NashConv, CFR and CFR+ against independent truth: OpenSpiel's
//! values for uniform, first-action, CFR and CFR+ policies of every fixture
//! game (`fixtures/openspiel/`), Kuhn poker's known one-parameter family of
//! equilibria, hand-worked best responses, and the per-history reference
//! best response on many random policies.

use std::path::PathBuf;

use crate::history_tree::HistoryTree;
use crate::reference::{history_policy, BestResponse};
use rnad_games::cfr::{CfrSolver, CfrVariant};
use rnad_games::exploitability::nash_conv;
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use serde_json::Value;

/// The fixture games: (file prefix, spec, uniform NashConv per OpenSpiel).
const GAMES: [(&str, &str, f64); 9] = [
    ("kuhn_poker", "kuhn_poker", 11.0 / 12.0),
    ("leduc_poker", "leduc_poker", 4.747222222222222),
    ("kuhn_poker_3p", "kuhn_poker(players=3)", 2.0624999999999996),
    (
        "leduc_poker_3p",
        "leduc_poker(players=3)",
        12.611221340388003,
    ),
    ("liars_dice", "liars_dice", 1.5614886463844795),
    ("kuhn_poker_4p", "kuhn_poker(players=4)", 3.4760416666666663),
    (
        "leduc_poker_start1",
        "leduc_poker(starting_player=1)",
        4.747222222222222,
    ),
    (
        "liars_dice_2dice_2sides",
        "liars_dice(numdice=2,dice_sides=2)",
        1.640625,
    ),
    (
        "liars_dice_4sides_reset_quantity",
        "liars_dice(dice_sides=4,bidding_rule=reset-quantity)",
        1.400390625,
    ),
];

fn tree(spec: &str) -> PublicTree {
    PublicTree::build(spec.parse::<GameSpec>().unwrap().load()).unwrap()
}

/// A fixture policy and the NashConv OpenSpiel computed for it.
fn openspiel_policy(tree: &PublicTree, file: &str) -> (TabularPolicy, f64) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/openspiel")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let nash_conv = serde_json::from_str::<Value>(&text).unwrap()["nash_conv"]
        .as_f64()
        .unwrap();
    (TabularPolicy::from_json(tree, &text).unwrap(), nash_conv)
}

#[test]
fn uniform_policies_match_openspiel_on_every_game() {
    for (_, spec, expected) in GAMES {
        let tree = tree(spec);
        let report = nash_conv(&tree, &TabularPolicy::uniform(&tree));
        assert!(
            (report.nash_conv - expected).abs() < 1e-9,
            "{spec}: {} vs OpenSpiel {expected}",
            report.nash_conv
        );
        let total: f64 = report.on_policy_values.iter().sum();
        assert!(total.abs() < 1e-12, "{spec}: zero-sum, {report:?}");
    }
}

#[test]
fn uniform_kuhn_best_responses_match_a_hand_computation() {
    let kuhn = tree("kuhn_poker");
    let report = nash_conv(&kuhn, &TabularPolicy::uniform(&kuhn));
    assert!((report.nash_conv - 11.0 / 12.0).abs() < 1e-12, "{report:?}");
    assert_eq!(
        report.exploitability(kuhn.game().as_ref()),
        Some(report.nash_conv / 2.0)
    );
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
    let three = tree("kuhn_poker(players=3)");
    let report = nash_conv(&three, &TabularPolicy::uniform(&three));
    assert_eq!(
        report.exploitability(three.game().as_ref()),
        None,
        "not two-player"
    );
}

#[test]
fn always_the_first_legal_action_has_nash_conv_two_in_poker() {
    for spec in ["kuhn_poker", "leduc_poker"] {
        let tree = tree(spec);
        let mut probs = vec![0.0; tree.num_slots()];
        for d in tree.decisions() {
            for hand in 0..tree.num_hands() {
                probs[d.slots(hand).start] = 1.0;
            }
        }
        let policy = TabularPolicy::from_slots(&tree, probs).unwrap();
        let value = nash_conv(&tree, &policy).nash_conv;
        assert!((value - 2.0).abs() < 1e-9, "{spec}: {value}");
    }
}

#[test]
fn openspiel_solver_policies_evaluate_to_openspiel_nash_conv() {
    for (spec, file) in [
        ("kuhn_poker", "kuhn_poker_cfrplus100_policy.json"),
        ("leduc_poker", "leduc_poker_cfrplus100_policy.json"),
        ("leduc_poker", "leduc_poker_cfr100_policy.json"),
        (
            "kuhn_poker(players=3)",
            "kuhn_poker_3p_cfrplus100_policy.json",
        ),
        ("kuhn_poker(players=3)", "kuhn_poker_3p_cfr100_policy.json"),
        (
            "leduc_poker(players=3)",
            "leduc_poker_3p_cfrplus3_policy.json",
        ),
        ("liars_dice", "liars_dice_cfrplus10_policy.json"),
        ("liars_dice", "liars_dice_cfr5_policy.json"),
    ] {
        let tree = tree(spec);
        let (policy, expected) = openspiel_policy(&tree, file);
        let value = nash_conv(&tree, &policy).nash_conv;
        assert!(
            (value - expected).abs() < 1e-9,
            "{file}: {value} vs OpenSpiel {expected}"
        );
    }
}

/// Kuhn's equilibria: player 0 bets a Jack with probability α ∈ [0, 1/3],
/// a King with 3α, calls with a Queen after check-bet with α + 1/3; player 1
/// bets a Jack after a check with 1/3, calls a bet with a Queen with 1/3,
/// and otherwise plays the obvious pure actions.
#[test]
fn kuhn_equilibrium_family_has_zero_nash_conv() {
    let tree = tree("kuhn_poker");
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
        let mut probs = TabularPolicy::uniform(&tree).probs().to_vec();
        for (d, hand) in tree.info_states() {
            let slots = d.slots(hand);
            let p = bet(&tree.info_state_string(d, hand));
            probs[slots.start] = 1.0 - p;
            probs[slots.start + 1] = p;
        }
        let policy = TabularPolicy::from_slots(&tree, probs).unwrap();
        let report = nash_conv(&tree, &policy);
        assert!(report.nash_conv.abs() < 1e-12, "alpha {alpha}: {report:?}");
        // The game value is -1/18 for player 0.
        assert!((report.on_policy_values[0] + 1.0 / 18.0).abs() < 1e-12);
    }
}

/// Runs a solver and checks its average policy against OpenSpiel's slot by
/// slot, and its NashConv against OpenSpiel's.
fn check_solver(spec: &str, variant: CfrVariant, iterations: u64, file: &str) {
    let tree = tree(spec);
    let mut solver = CfrSolver::new(&tree, variant);
    for _ in 0..iterations {
        solver.iterate();
    }
    let ours = solver.average_policy();
    let (theirs, expected) = openspiel_policy(&tree, file);
    for (d, hand) in tree.info_states() {
        for slot in d.slots(hand) {
            let (a, b) = (ours.probs()[slot], theirs.probs()[slot]);
            assert!(
                (a - b).abs() < 1e-9,
                "{spec} {variant:?} {:?}: {a} vs OpenSpiel {b}",
                tree.info_state_string(d, hand)
            );
        }
    }
    let value = nash_conv(&tree, &ours).nash_conv;
    assert!(
        (value - expected).abs() < 1e-9,
        "{spec}: {value} vs {expected}"
    );
}

#[test]
fn cfr_plus_reproduces_openspiel_iterate_for_iterate() {
    check_solver(
        "kuhn_poker",
        CfrVariant::CfrPlus,
        100,
        "kuhn_poker_cfrplus100_policy.json",
    );
    check_solver(
        "leduc_poker",
        CfrVariant::CfrPlus,
        100,
        "leduc_poker_cfrplus100_policy.json",
    );
    check_solver(
        "kuhn_poker(players=3)",
        CfrVariant::CfrPlus,
        100,
        "kuhn_poker_3p_cfrplus100_policy.json",
    );
    check_solver(
        "leduc_poker(players=3)",
        CfrVariant::CfrPlus,
        3,
        "leduc_poker_3p_cfrplus3_policy.json",
    );
    check_solver(
        "liars_dice",
        CfrVariant::CfrPlus,
        10,
        "liars_dice_cfrplus10_policy.json",
    );
}

#[test]
fn cfr_reproduces_openspiel_iterate_for_iterate() {
    check_solver(
        "leduc_poker",
        CfrVariant::Cfr,
        100,
        "leduc_poker_cfr100_policy.json",
    );
    check_solver(
        "kuhn_poker(players=3)",
        CfrVariant::Cfr,
        100,
        "kuhn_poker_3p_cfr100_policy.json",
    );
    check_solver(
        "liars_dice",
        CfrVariant::Cfr,
        5,
        "liars_dice_cfr5_policy.json",
    );
}

#[test]
fn cfr_plus_converges_on_leduc() {
    let tree = tree("leduc_poker");
    let mut solver = CfrSolver::new(&tree, CfrVariant::CfrPlus);
    let mut at_100 = f64::NAN;
    for i in 1..=1000 {
        solver.iterate();
        if i == 100 {
            at_100 = nash_conv(&tree, &solver.average_policy()).nash_conv;
        }
    }
    let at_1000 = nash_conv(&tree, &solver.average_policy()).nash_conv;
    assert!(at_100 <= 0.03, "NashConv after 100 iterations: {at_100}");
    assert!(
        at_1000 <= 0.002,
        "NashConv after 1000 iterations: {at_1000}"
    );
    assert_eq!(solver.iterations(), 1000);
}

/// A deterministic generator of random policies.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A random policy: each information state's probabilities drawn
    /// uniformly and normalised, some pure.
    fn policy(&mut self, tree: &PublicTree) -> TabularPolicy {
        let mut probs = vec![0.0; tree.num_slots()];
        for d in tree.decisions() {
            for hand in 0..tree.num_hands() {
                let slots = d.slots(hand);
                let pure = self.unit() < 0.2;
                let pick = (self.unit() * slots.len() as f64) as usize;
                for (k, slot) in slots.clone().enumerate() {
                    probs[slot] = if pure {
                        f64::from(k == pick)
                    } else {
                        self.unit()
                    };
                }
                let total: f64 = probs[slots.clone()].iter().sum();
                probs[slots].iter_mut().for_each(|p| *p /= total);
            }
        }
        TabularPolicy::from_slots(tree, probs).unwrap()
    }
}

/// The public-tree best responses agree with the per-history reference to
/// 1e-9 on random policies of games small enough for the reference.
#[test]
fn best_responses_agree_with_the_per_history_reference_on_random_policies() {
    let mut random = Lcg(7);
    for spec in [
        "kuhn_poker",
        "kuhn_poker(players=3)",
        "kuhn_poker(players=4)",
        "leduc_poker",
        "leduc_poker(players=2,ranks=4,starting_player=1)",
        "liars_dice(dice_sides=3)",
        "liars_dice(numdice=2,dice_sides=2,bidding_rule=reset-quantity)",
    ] {
        let tree = tree(spec);
        let history = HistoryTree::build(tree.game().as_ref()).unwrap();
        let mut reference = BestResponse::new(&history);
        for _ in 0..20 {
            let policy = random.policy(&tree);
            let ours = nash_conv(&tree, &policy);
            let theirs = reference.nash_conv(&history_policy(&history, &tree, &policy));
            for (a, b) in ours
                .best_response_values
                .iter()
                .chain(&ours.on_policy_values)
                .zip(
                    theirs
                        .best_response_values
                        .iter()
                        .chain(&theirs.on_policy_values),
                )
            {
                assert!((a - b).abs() < 1e-9, "{spec}: {ours:?} vs {theirs:?}");
            }
        }
    }
}
