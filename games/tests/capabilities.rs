//! What each game declares of itself, held to what its rules and the
//! tools that rely on it need: the units its results are reported in, the
//! players it offers, and which tools apply.

use rnad_games::bots::{rules, RuleBot};
use rnad_games::capabilities::Units;
use rnad_games::public_tree::PublicTree;
use rnad_games::registry::GAMES;
use rnad_games::GameSpec;

fn spec(text: &str) -> GameSpec {
    text.parse().unwrap()
}

#[test]
fn poker_reports_in_big_blinds_of_its_own_blinds() {
    assert_eq!(
        spec("kuhn_poker").capabilities().units,
        Units::Chips { big_blind: 1.0 }
    );
    assert_eq!(
        spec("leduc_poker(players=3)").capabilities().units,
        Units::Chips { big_blind: 1.0 }
    );
    // Seed 004's game: blinds 100 and 50.
    assert_eq!(
        spec("holdem").capabilities().units,
        Units::Chips { big_blind: 100.0 }
    );
    assert_eq!(spec("liars_dice").capabilities().units, Units::Returns);
    // Five players score 5..1 points: 3 each on average; a deal of
    // `games=3` is a match of three games.
    assert_eq!(
        spec("daihinmin(games=3)").capabilities().units,
        Units::Points {
            games: 3,
            mean_points: 3.0
        }
    );
    for game in GAMES {
        let offers = spec(game.name).capabilities();
        assert_eq!(
            offers.poker_baselines,
            offers.is_poker(),
            "{}: the poker baselines play exactly the games counted in big blinds",
            game.name
        );
    }
}

#[test]
fn local_best_response_and_hand_histories_are_heads_up_poker_tools() {
    assert!(spec("holdem").capabilities().local_best_response);
    assert!(spec("universal_poker").capabilities().acpc_logs);
    assert!(
        !spec(
            "universal_poker(numPlayers=3,blind=100 100 100,stack=2000 2000 2000,firstPlayer=1 1)"
        )
        .capabilities()
        .local_best_response
    );
    for name in ["kuhn_poker", "leduc_poker", "liars_dice", "daihinmin"] {
        let offers = spec(name).capabilities();
        assert!(!offers.local_best_response && !offers.acpc_logs, "{name}");
    }
    let uecda: Vec<&str> = GAMES
        .iter()
        .filter(|g| spec(g.name).capabilities().uecda)
        .map(|g| g.name)
        .collect();
    assert_eq!(uecda, ["daihinmin"]);
}

/// Every tabular rule-based player a game declares plays every information
/// state of its game's tree (a rule for another game would read the wrong
/// tensor and panic or play an illegal action); the one that decides
/// state by state is Daihinmin's.
#[test]
fn every_declared_rule_player_plays_its_game() {
    for text in [
        "kuhn_poker",
        "kuhn_poker(players=3)",
        "leduc_poker",
        "liars_dice",
    ] {
        let spec = spec(text);
        let bot = spec.capabilities().rules.expect("a rule player");
        assert!(bot.is_tabular(), "{text}");
        let tree = PublicTree::build(spec.load()).unwrap();
        let policy = rules::policy(&tree);
        // One legal action with probability 1 at every information state.
        let probs = policy.probs();
        let mut states = 0;
        for (decision, hand) in tree.info_states() {
            let here = &probs[decision.slots(hand)];
            assert_eq!(here.iter().filter(|&&p| p == 1.0).count(), 1, "{text}");
            assert_eq!(here.iter().sum::<f64>(), 1.0, "{text}");
            states += 1;
        }
        assert_eq!(states, tree.num_info_states(), "{text}");
    }
    assert_eq!(
        spec("daihinmin").capabilities().rules,
        Some(RuleBot::UecdaDefault)
    );
    assert_eq!(spec("universal_poker").capabilities().rules, None);
    for game in GAMES {
        let offers = spec(game.name).capabilities();
        if offers.monte_carlo {
            assert!(spec(game.name).load().hands().is_none(), "{}", game.name);
        }
    }
}

#[test]
fn reduced_players_are_leduc_policies_for_fewer_players_with_the_same_ranks() {
    let big = spec("leduc_poker(players=3,ranks=7)");
    let reduced_from = big.capabilities().reduced_from.expect("Leduc declares it");
    assert_eq!(reduced_from(&big, &spec("leduc_poker(ranks=7)")), Ok(()));
    for small in [
        "leduc_poker",
        "leduc_poker(players=3,ranks=7)",
        "kuhn_poker",
    ] {
        let why = reduced_from(&big, &spec(small)).unwrap_err();
        assert!(why.contains("fewer players with the same ranks"), "{why}");
    }
    let not_first = spec("leduc_poker(players=3,ranks=7,starting_player=1)");
    assert!(reduced_from(&not_first, &spec("leduc_poker(ranks=7)")).is_err());
    assert!(spec("kuhn_poker").capabilities().reduced_from.is_none());
}
