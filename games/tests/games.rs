//! One suite for every registered game, over a spread of parameters:
//! random playouts stay legal and within the game's declared dimensions,
//! chance probabilities sum to one, returns sum to zero where the game says
//! it is zero-sum and stay within its utility range, the payoff a terminal
//! state reports from public information gives the same returns as the
//! state, and dealing by [`Game::deal`] gives each player the hand asked
//! for. Every loop is bounded.

use rnad_games::{registry, Game, GameSpec, Hands, Turn};

/// Specs covering every registered game and each of its parameters.
const SPECS: [&str; 21] = [
    "kuhn_poker",
    "kuhn_poker(players=3)",
    "kuhn_poker(players=5)",
    "leduc_poker",
    "leduc_poker(players=3)",
    "leduc_poker(players=4,ranks=7)",
    "leduc_poker(players=6,ranks=7,starting_player=5)",
    "leduc_poker(players=10)",
    "liars_dice",
    "liars_dice(numdice=2,dice_sides=4)",
    "liars_dice(bidding_rule=reset-quantity,numdice=3,dice_sides=3)",
    "liars_dice(dice_sides=2)",
    "universal_poker",
    "universal_poker(betting=limit,numRounds=3,numBoardCards=0 1 1,raiseSize=10 20 20,maxRaises=3 2 2,numRanks=5)",
    "universal_poker(numPlayers=3,blind=1 2 0,stack=10 20 10,firstPlayer=3 1,numRanks=4,numSuits=2,bettingAbstraction=fchpa)",
    "holdem",
    "daihinmin",
    "daihinmin(ranks=2 5 1 4 3)",
    "daihinmin(players=3)",
    "daihinmin(players=4,ranks=4 3 2 1)",
    "daihinmin(games=3)",
];

/// A deterministic generator for the playouts.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n - 1)
    }
}

#[test]
fn every_registered_game_is_covered() {
    for name in registry::names() {
        assert!(
            SPECS.iter().any(|s| s.starts_with(name)),
            "{name} has no spec in the suite"
        );
    }
}

/// Plays one game to the end at random, checking every state on the way.
fn playout(game: &dyn Game, random: &mut Lcg) {
    let spec = game.spec();
    let players = game.num_players();
    let mut state = game.new_initial_state();
    let mut tensor = vec![0.0f32; game.information_state_tensor_size()];
    let mut input = tensor.clone();
    let mut decisions = 0;
    for _ in 0..10_000 {
        match state.turn() {
            Turn::Chance => {
                let outcomes = state.chance_outcomes();
                assert!(!outcomes.is_empty(), "{spec}: chance with no outcome");
                let total: f64 = outcomes.iter().map(|(_, p)| p).sum();
                assert!(
                    (total - 1.0).abs() < 1e-12,
                    "{spec}: chance sums to {total}"
                );
                assert!(state.legal_actions().is_empty());
                let pick = random.below(outcomes.len());
                state.apply_action(outcomes[pick].0);
            }
            Turn::Player(player) => {
                assert!(player < players, "{spec}: player {player}");
                let legal = state.legal_actions();
                assert!(!legal.is_empty(), "{spec}: a decision with no legal action");
                assert!(legal.windows(2).all(|w| w[0] < w[1]), "{spec}: {legal:?}");
                assert!(
                    legal.iter().all(|&a| a < game.num_distinct_actions()),
                    "{spec}: {legal:?}"
                );
                assert!(state.chance_outcomes().is_empty());
                for p in 0..players {
                    state.information_state_tensor(p, &mut tensor);
                    assert!(tensor.iter().all(|v| v.is_finite() && *v >= 0.0), "{spec}");
                    assert!(tensor[p] == 1.0, "{spec}: the observer's one-hot");
                    // The network's input: the tensor with amounts as
                    // fractions, every entry in [0, 1], zero where it is.
                    state.network_input(p, &mut input);
                    assert!(
                        input.iter().all(|v| (0.0..=1.0).contains(v)),
                        "{spec}: {input:?}"
                    );
                    assert!(
                        input
                            .iter()
                            .zip(&tensor)
                            .all(|(i, t)| (*i == 0.0) == (*t == 0.0)),
                        "{spec}: network input {input:?} against tensor {tensor:?}"
                    );
                }
                assert_eq!(
                    state.returns(),
                    vec![0.0; players],
                    "{spec}: returns before the end"
                );
                state.apply_action(legal[random.below(legal.len())]);
                decisions += 1;
            }
            Turn::Terminal => {
                assert!(
                    decisions <= game.max_game_length(),
                    "{spec}: {decisions} decisions"
                );
                let returns = state.returns();
                assert_eq!(returns.len(), players);
                let (low, high) = game.utility_range();
                assert!(
                    returns.iter().all(|r| (low..=high).contains(r)),
                    "{spec}: {returns:?} outside {low}..{high}"
                );
                if game.is_zero_sum() {
                    let total: f64 = returns.iter().sum();
                    assert!(total.abs() < 1e-9, "{spec}: returns {returns:?}");
                }
                return;
            }
        }
    }
    panic!("{spec}: a game did not end within 10,000 moves");
}

#[test]
fn random_playouts_stay_legal_zero_sum_and_within_the_declared_dimensions() {
    let mut random = Lcg(42);
    for text in SPECS {
        let game = text.parse::<GameSpec>().unwrap().load();
        for _ in 0..300 {
            playout(game.as_ref(), &mut random);
        }
    }
}

#[test]
fn dealt_hands_reach_their_players_and_the_payoff_gives_the_returns() {
    let mut random = Lcg(9);
    for text in SPECS {
        let game = text.parse::<GameSpec>().unwrap().load();
        let players = game.num_players();
        let Some(hands) = game.hands() else {
            continue;
        };
        for _ in 0..100 {
            // A random deal that fits: distinct cards, or any dice.
            let deal: Vec<usize> = match &hands {
                Hands::Cards { cards } => {
                    let mut deck: Vec<usize> = (0..*cards).collect();
                    (0..players)
                        .map(|_| deck.remove(random.below(deck.len())))
                        .collect()
                }
                Hands::Independent { probabilities } => (0..players)
                    .map(|_| random.below(probabilities.len()))
                    .collect(),
            };
            let mut state = game.new_initial_state();
            for action in game.deal(&deal) {
                assert_eq!(state.turn(), Turn::Chance, "{text}");
                state.apply_action(action);
            }
            // Finish at random; the state's returns come from the hands it
            // holds, the payoff's from the deal asked for: they agree at every
            // showdown only if the deal went to the right players.
            while state.turn() != Turn::Terminal {
                let moves = state.moves();
                state.apply_action(moves[random.below(moves.len())]);
            }
            let (payoff, returns) = (state.payoff().returns(&deal), state.returns());
            assert!(
                payoff
                    .iter()
                    .zip(&returns)
                    .all(|(a, b)| (a - b).abs() < 1e-9),
                "{text} {deal:?}: {payoff:?} {returns:?}"
            );
        }
        if let Hands::Independent { probabilities } = &hands {
            let total: f64 = probabilities.iter().sum();
            assert!((total - 1.0).abs() < 1e-12, "{text}: hands sum to {total}");
        }
    }
}

/// The documentation's list of games is the registry's own text.
#[test]
fn the_documentation_lists_the_games_as_the_registry_describes_them() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/games.md"))
        .expect("docs/games.md");
    let help = registry::help();
    assert!(
        doc.contains(&help),
        "docs/games.md must hold the registry's game list verbatim:\n{help}"
    );
}
