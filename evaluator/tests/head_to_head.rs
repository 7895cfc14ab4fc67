//! `rnad-evaluator match` and `league` as a user runs them: exact payoffs
//! against a hand computation and the per-history reference, sampled
//! intervals that cover the exact values, the JSON format, refusals, and a
//! league's tables.

use rnad_evaluator::players::{PlayerSpec, Tabulator};
use rnad_games::policy::TabularPolicy;
use rnad_games::public_tree::PublicTree;
use rnad_games::GameSpec;
use serde_json::Value;

use rnad_testkit::{binary_output, openspiel_fixture, stdout_json};

/// A fixture's path as a command-line argument.
fn fixture(name: &str) -> String {
    openspiel_fixture(name).to_str().unwrap().to_string()
}

fn player<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {report}"))
}

/// Kuhn, the rule player against uniform, by hand. As player 0 it bets a
/// King (uniform calls half the time: +1.5), checks a Queen (then wins
/// 1.5 against a Jack and loses 1.5 against a King: 0) and checks and folds
/// a Jack (−1): 1/6 on average. As player 1 it wins 1/4 (the same kind of
/// count). Over both seats: 5/24.
#[test]
fn exact_kuhn_rules_against_uniform_match_a_hand_computation() {
    let report = stdout_json(&binary_output(
        "rnad-evaluator",
        &[
            "match",
            "--game",
            "kuhn_poker",
            "--players",
            "rules,uniform",
            "--exact",
            "--json",
        ],
    ));
    let rules = player(&report, "rules");
    assert!(
        (rules["mean"].as_f64().unwrap() - 5.0 / 24.0).abs() < 1e-12,
        "{report}"
    );
    assert!((rules["per_seat"][0].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-12);
    assert!((rules["per_seat"][1].as_f64().unwrap() - 0.25).abs() < 1e-12);
    assert_eq!(rules["ci95"], 0.0);
    assert!((rules["mbb_per_game"].as_f64().unwrap() - 5000.0 / 24.0).abs() < 1e-9);
    assert_eq!(report["seatings"], 2);
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in ["game", "deals", "seatings", "players"] {
        assert!(keys.contains(&key), "{keys:?}");
    }
}

/// With a fixed seed, the sampled estimate's interval covers the exact
/// value, and the same seed gives the same numbers.
#[test]
fn sampled_intervals_cover_the_exact_values() {
    for (spec, players) in [
        ("kuhn_poker", "rules,uniform".to_string()),
        (
            "leduc_poker",
            format!(
                "rules,policy:{}",
                fixture("leduc_poker_cfrplus100_policy.json")
            ),
        ),
    ] {
        let exact = stdout_json(&binary_output(
            "rnad-evaluator",
            &[
                "match",
                "--game",
                spec,
                "--players",
                &players,
                "--exact",
                "--json",
            ],
        ));
        let sampled_match = [
            "match",
            "--game",
            spec,
            "--players",
            &players,
            "--deals",
            "4000",
            "--seed",
            "3",
            "--json",
        ];
        let sampled = stdout_json(&binary_output("rnad-evaluator", &sampled_match));
        assert_eq!(sampled["deals"], 4000);
        assert_eq!(sampled["games"], 8000);
        for (e, s) in exact["players"]
            .as_array()
            .unwrap()
            .iter()
            .zip(sampled["players"].as_array().unwrap())
        {
            let (value, mean, ci) = (
                e["mean"].as_f64().unwrap(),
                s["mean"].as_f64().unwrap(),
                s["ci95"].as_f64().unwrap(),
            );
            assert!(
                ci > 0.0 && (mean - value).abs() <= ci,
                "{spec}: {mean} ± {ci} vs exact {value}"
            );
        }
        let again = stdout_json(&binary_output("rnad-evaluator", &sampled_match));
        assert_eq!(again["players"], sampled["players"], "reproducible");
    }
}

#[test]
fn bad_players_and_counts_are_refused_by_name() {
    for (args, expected) in [
        (
            vec!["--players", "rules"],
            "lists 1 players; kuhn_poker has 2 seats",
        ),
        (
            vec!["--players", "rules,champion"],
            "unknown player \"champion\"",
        ),
        (
            vec!["--players", "rules,policy:/nonexistent.json"],
            "/nonexistent.json",
        ),
        (
            vec!["--players", "rules,reduced:/nonexistent.json"],
            "/nonexistent.json",
        ),
    ] {
        let mut full = vec!["match", "--game", "kuhn_poker"];
        full.extend(args);
        let output = binary_output("rnad-evaluator", &full);
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{stderr}");
    }
    // A reduced player needs a Leduc policy for fewer players.
    let output = binary_output(
        "rnad-evaluator",
        &[
            "match",
            "--game",
            "leduc_poker(players=3)",
            "--players",
            &format!(
                "reduced:{},rules,rules",
                fixture("kuhn_poker_cfrplus100_policy.json")
            ),
        ],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the policy is for kuhn_poker"), "{stderr}");
}

#[test]
fn a_league_writes_a_cross_table_and_a_ranking() {
    let out = rnad_testkit::scratch("league").join("out");
    let policy = format!("policy:{}", fixture("kuhn_poker_cfrplus100_policy.json"));
    let output = binary_output(
        "rnad-evaluator",
        &[
            "league",
            "--game",
            "kuhn_poker",
            "--players",
            &format!("uniform,rules,{policy}"),
            "--exact",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{output:?}");
    let markdown = std::fs::read_to_string(out.join("league.md")).unwrap();
    assert!(
        markdown.contains("| row vs column | uniform | rules |"),
        "{markdown}"
    );
    // Three players, three pairings, each player in two of them.
    let csv = std::fs::read_to_string(out.join("league.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 6, "{csv}");
    // Uniform ranks last; the rule player exploits it most (5/24 a game),
    // and the near-equilibrium CFR+ policy does not lose to the rules.
    let rank = |n: usize| {
        markdown
            .lines()
            .find(|l| l.starts_with(&format!("| {n} |")))
            .unwrap()
    };
    assert!(rank(1).contains("| rules |"), "{markdown}");
    assert!(rank(3).contains("| uniform |"), "{markdown}");
    assert!(
        markdown.contains("| rules | +0.208 ± 0.000 |  | -0.001 ± 0.000 |"),
        "{markdown}"
    );
}

/// The panel's way of playing (one player in every seat in turn, the
/// opponent filling the others): its interval covers the exact payoff,
/// on Kuhn against the hand-worked 5/24 and on three-player Kuhn against
/// the exact payoff averaged over the hero's seats.
#[test]
fn play_against_covers_the_exact_payoff_in_every_seat() {
    use rnad_games::headtohead::{play_against, play_match, Mode};

    let kuhn = PublicTree::build("kuhn_poker".parse::<GameSpec>().unwrap().load()).unwrap();
    let mut tabulator = Tabulator::new(&kuhn);
    let rules = tabulator.policy(&PlayerSpec::Rules).unwrap();
    let uniform = tabulator.policy(&PlayerSpec::Uniform).unwrap();
    let sampled = |deals, seed| Mode::Sampled { deals, seed };
    let result = play_against(&kuhn, &rules, &uniform, sampled(20_000, 7));
    let exact = play_against(&kuhn, &rules, &uniform, Mode::Exact);
    assert!((exact.mean - 5.0 / 24.0).abs() < 1e-12, "{exact:?}");
    assert!(result.ci95 > 0.0 && result.ci95 < 0.05, "{result:?}");
    assert!(
        (result.mean - 5.0 / 24.0).abs() <= result.ci95,
        "{result:?}"
    );
    assert_eq!(result.per_seat.len(), 2);
    assert!((result.per_seat[0] - 1.0 / 6.0).abs() < 3.0 * result.ci95);
    assert!((result.per_seat[1] - 1.0 / 4.0).abs() < 3.0 * result.ci95);

    let three = "kuhn_poker(players=3)".parse::<GameSpec>().unwrap();
    let tree = PublicTree::build(three.load()).unwrap();
    let hero = TabularPolicy::from_json(
        &tree,
        &std::fs::read_to_string(fixture("kuhn_poker_3p_cfrplus100_policy.json")).unwrap(),
    )
    .unwrap();
    let uniform = TabularPolicy::uniform(&tree);
    // Every permutation of (hero, uniform, uniform) puts the hero in each
    // seat equally often, so the exact match's mean is the seat average.
    let names = ["hero", "a", "b"].map(String::from);
    let exact = play_match(
        &tree,
        &names,
        &[hero.clone(), uniform.clone(), uniform.clone()],
        Mode::Exact,
    )
    .players[0]
        .mean;
    let result = play_against(&tree, &hero, &uniform, sampled(20_000, 11));
    let by_seat = play_against(&tree, &hero, &uniform, Mode::Exact).mean;
    assert!((by_seat - exact).abs() < 1e-12, "{by_seat} vs {exact}");
    assert_eq!(result.per_seat.len(), 3);
    assert!(
        (result.mean - exact).abs() <= result.ci95,
        "{result:?} vs {exact}"
    );
    assert!(exact > 0.05, "CFR+ beats two uniform players: {exact}");
}
