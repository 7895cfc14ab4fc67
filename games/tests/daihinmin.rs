//! Daihinmin's rules, hand-worked: each test deals hands by hand and plays
//! moves whose outcome the UECda rules fix (who moves next, what the
//! table holds, lock and revolution, who leads, the places).

use rnad_games::daihinmin::{
    catalogue, parse_cards, Daihinmin, DaihinminState, Kind, Play, PASS, PASS_LIMIT,
};
use rnad_games::{GameSpec, State, Turn};

fn game(spec: &str) -> Daihinmin {
    Daihinmin::new(spec.parse::<GameSpec>().unwrap())
}

/// A five-player game in play: seat `s` holds `hands[s]`, `to_move` leads.
fn dealt(hands: [&str; 5], to_move: usize) -> DaihinminState {
    let hands = hands.iter().map(|h| parse_cards(h).unwrap()).collect();
    DaihinminState::from_hands(game("daihinmin").rules(), hands, to_move)
}

/// The action playing exactly `cards` as `kind`, counting from rank `low`
/// (sequences with the joker at an end) with `suits` (groups with the
/// joker), where given.
fn action(kind: Kind, cards: &str, low: Option<i8>, suits: Option<u8>) -> usize {
    let cards = parse_cards(cards).unwrap();
    let matches: Vec<(usize, &Play)> = catalogue()
        .plays()
        .filter(|(_, p)| {
            p.kind == kind
                && p.cards == cards
                && low.is_none_or(|l| p.low == l)
                && suits.is_none_or(|s| p.suits == s)
        })
        .collect();
    assert_eq!(matches.len(), 1, "{kind:?} {cards:x}: {matches:?}");
    matches[0].0
}

fn single(card: &str) -> usize {
    action(Kind::Single, card, None, None)
}

fn group(cards: &str) -> usize {
    action(Kind::Group, cards, None, None)
}

fn sequence(cards: &str) -> usize {
    action(Kind::Sequence, cards, None, None)
}

fn to_move(state: &DaihinminState) -> usize {
    match state.turn() {
        Turn::Player(p) => p,
        other => panic!("no player to move: {other:?}"),
    }
}

const FILLER: [&str; 5] = ["", "9S 9H", "TS TH", "JS JH", "QS QH"];

fn with_first(first: &str) -> [&str; 5] {
    [first, FILLER[1], FILLER[2], FILLER[3], FILLER[4]]
}

#[test]
fn a_play_with_an_eight_clears_the_table_and_its_player_leads_again() {
    for (hand, play) in [
        ("8S 4H", single("8S")),
        ("7H 8H 9H 4H", sequence("7H 8H 9H")),
        // The joker standing for the 8.
        ("7H JK 9H 4H", sequence("7H JK 9H")),
    ] {
        let mut state = dealt(with_first(hand), 0);
        state.apply_action(play);
        assert!(state.table().is_none(), "{hand}");
        assert_eq!(to_move(&state), 0, "{hand}");
    }
    // A play without an 8 stays on the table, and the next seat moves.
    let mut state = dealt(with_first("7H 4H"), 0);
    state.apply_action(single("7H"));
    assert!(state.table().is_some());
    assert_eq!(to_move(&state), 1);
}

#[test]
fn the_last_player_to_play_gets_another_turn_then_leads() {
    let mut state = dealt(with_first("5S 6S 7D"), 0);
    state.apply_action(single("5S"));
    for seat in 1..5 {
        assert_eq!(to_move(&state), seat);
        state.apply_action(PASS);
    }
    // Everyone else passed: seat 0 again, the table still its 5S, and it
    // may play on its own card.
    assert_eq!(to_move(&state), 0);
    assert!(state.table().is_some());
    assert!(state.legal_actions().contains(&single("6S")));
    state.apply_action(PASS);
    // Now everyone holding cards has passed: the table clears, seat 0 leads.
    assert!(state.table().is_none());
    assert_eq!(to_move(&state), 0);
    assert!(state.legal_actions().contains(&single("7D")));
}

#[test]
fn a_player_who_passed_is_out_until_the_table_clears() {
    let mut state = dealt(["5S 3C", "6S 3H", "7S 4C", "8D 4H", "KS 4D"], 0);
    state.apply_action(single("5S"));
    state.apply_action(PASS); // seat 1
    state.apply_action(single("7S")); // seat 2
    state.apply_action(PASS); // seat 3
    state.apply_action(PASS); // seat 4
                              // Seat 0 has not passed: it may answer.
    assert_eq!(to_move(&state), 0);
    state.apply_action(PASS);
    // Seat 1 passed earlier, so seat 2 (the last to play) moves again.
    assert_eq!(to_move(&state), 2);
}

#[test]
fn a_player_who_goes_out_leaves_the_lead_to_the_next_seat_with_cards() {
    let mut state = dealt(["QS", "3H 4H", "3C 4C", "3D 4D", "5D 6D"], 0);
    state.apply_action(single("QS"));
    assert_eq!(state.places(), &[0]);
    for seat in 1..5 {
        assert_eq!(to_move(&state), seat);
        state.apply_action(PASS);
    }
    assert!(state.table().is_none());
    assert_eq!(to_move(&state), 1);
}

#[test]
fn a_lock_asks_for_the_same_suits_until_the_table_clears() {
    let mut state = dealt(["4H 9S 3C", "5H 6S", "7H 7S", "JS QS", "KS AS"], 0);
    state.apply_action(single("4H"));
    state.apply_action(single("5H")); // ♥ on ♥: locked
    assert!(state.locked());
    let legal = state.legal_actions();
    assert!(legal.contains(&single("7H")) && !legal.contains(&single("7S")));
    state.apply_action(single("7H"));
    for _ in 3..5 {
        state.apply_action(PASS);
    }
    state.apply_action(PASS); // seat 0
    state.apply_action(PASS); // seat 1
                              // Seat 2 played last and everyone else passed: it moves again.
    assert_eq!(to_move(&state), 2);
    state.apply_action(PASS);
    assert!(!state.locked() && state.table().is_none());
    assert_eq!(to_move(&state), 2);
}

#[test]
fn groups_lock_by_their_suits_the_joker_standing_for_one() {
    let mut state = dealt(["5S 5D 3C", "6S JK 4C", "7S 7H", "8C 4H", "KS AS"], 0);
    state.apply_action(group("5S 5D"));
    // The joker may stand for ♦ (a lock) or ♥ or ♣ (no lock).
    let locking = action(Kind::Group, "6S JK", None, Some(0b0101));
    let other = action(Kind::Group, "6S JK", None, Some(0b0011));
    assert!(state.legal_actions().contains(&locking) && state.legal_actions().contains(&other));
    state.apply_action(locking);
    assert!(state.locked());
    // ♠♥ does not fit the ♠♦ lock.
    assert!(!state.legal_actions().contains(&group("7S 7H")));
}

#[test]
fn a_lone_joker_beats_any_single_and_only_the_spade_three_beats_it() {
    let mut state = dealt(["4H 9D", "5H 8C", "JK 6C", "3S 3H", "2S KD"], 0);
    state.apply_action(single("4H"));
    state.apply_action(single("5H")); // locked to ♥
    assert!(state.locked());
    // The lone joker beats the locked ♥ and clears the lock.
    state.apply_action(single("JK"));
    assert!(!state.locked());
    // ♠3 beats it (♥3 and ♠2 do not), and clears the table.
    let legal = state.legal_actions();
    assert!(legal.contains(&single("3S")));
    assert!(!legal.contains(&single("3H")));
    state.apply_action(single("3S"));
    assert!(state.table().is_none());
    assert_eq!(to_move(&state), 3);
    // Seat 4 cannot beat a lone joker with its 2.
    let mut state = dealt(["JK 9D", "5H 8C", "4C 6C", "3H 4H", "2S KD"], 0);
    state.apply_action(single("JK"));
    state.apply_action(PASS);
    state.apply_action(PASS);
    state.apply_action(PASS);
    assert_eq!(state.legal_actions(), vec![PASS]);
}

#[test]
fn four_of_a_kind_or_five_in_sequence_reverse_the_order_until_reversed_back() {
    let mut state = dealt(["4S 4H 4D 4C 3H", "5H 3D", "9S 9H", "KD", "2D"], 0);
    state.apply_action(group("4S 4H 4D 4C"));
    assert!(state.revolution());
    // No one else has a four-card group: all pass; seat 0 leads again.
    for _ in 1..5 {
        state.apply_action(PASS);
    }
    state.apply_action(PASS);
    assert_eq!(to_move(&state), 0);
    state.apply_action(single("3H"));
    // Under the revolution a 5 does not beat a 3.
    assert!(!state.legal_actions().contains(&single("5H")));
    state.apply_action(PASS); // seat 1
                              // A five-card sequence with the joker (standing for 7♣) reverses back.
    let with_joker = action(Kind::Sequence, "3C 4C 5C 6C JK", Some(0), None);
    let mut other = dealt(["9D", "9H", "3C 4C 5C 6C JK 9S", "KD", "2D"], 2);
    other.apply_action(with_joker);
    assert!(other.revolution());
    // A sequence of four does not.
    let mut four = dealt(["9D", "9H", "3C 4C 5C 6C 9S", "KD", "2D"], 2);
    four.apply_action(sequence("3C 4C 5C 6C"));
    assert!(!four.revolution());
}

#[test]
fn sequences_take_the_joker_below_the_three_or_above_the_two() {
    let state = dealt(["JK 3S 4S KH AH 2H", "5H", "6H", "7H", "9H"], 0);
    let legal = state.legal_actions();
    let below = action(Kind::Sequence, "JK 3S 4S", Some(-1), None);
    let as_five = action(Kind::Sequence, "JK 3S 4S", Some(0), None);
    let above = action(Kind::Sequence, "KH AH 2H JK", Some(10), None);
    let as_queen = action(Kind::Sequence, "KH AH 2H JK", Some(9), None);
    for id in [below, as_five, above, as_queen] {
        assert!(legal.contains(&id), "{:?}", catalogue().play(id));
    }
}

/// The official server's rule: a leader may pass on an empty table, and
/// when everyone still holding cards has passed after it, the lead comes
/// back to that leader (not to the last to pass). Seat 0 holds nothing
/// here, so the passes run 2, 3, 4, 1.
#[test]
fn the_leader_of_an_empty_table_leads_again_when_everyone_passes() {
    let mut state = dealt(with_first(""), 2);
    for seat in [2, 3, 4, 1] {
        assert_eq!(to_move(&state), seat);
        assert!(state.table().is_none());
        state.apply_action(PASS);
    }
    assert_eq!(to_move(&state), 2, "the lead comes back to its leader");
    assert_eq!(state.passed(), 0, "the passes are forgotten");
    // The leader may pass again; the round comes back to it once more.
    for seat in [2, 3, 4, 1] {
        assert_eq!(to_move(&state), seat);
        state.apply_action(PASS);
    }
    assert_eq!(to_move(&state), 2);
}

#[test]
fn twenty_passes_in_a_row_end_the_game_with_places_drawn() {
    let mut state = dealt(["3S 4S", "3H 4H", "3D 4D", "3C 4C", "5S 5H"], 0);
    for _ in 0..PASS_LIMIT {
        assert!(matches!(state.turn(), Turn::Player(_)));
        state.apply_action(PASS);
    }
    assert_eq!(state.turn(), Turn::Chance);
    let outcomes = state.chance_outcomes();
    assert_eq!(outcomes.len(), 120, "5! orders of the five unplaced seats");
    state.apply_action(7);
    assert_eq!(state.turn(), Turn::Terminal);
    let mut places = state.places().to_vec();
    places.sort_unstable();
    assert_eq!(places, [0, 1, 2, 3, 4]);
    let returns = state.returns();
    assert_eq!(returns.iter().sum::<f64>(), 0.0);
    let mut sorted = returns.clone();
    sorted.sort_by(f64::total_cmp);
    assert_eq!(sorted, [-2.0, -1.0, 0.0, 1.0, 2.0]);
}

#[test]
fn the_game_ends_when_four_are_out_with_points_by_place() {
    let mut state = dealt(["9S", "TS", "JS", "QS", "3H 4H"], 0);
    state.apply_action(single("9S"));
    state.apply_action(single("TS"));
    state.apply_action(single("JS"));
    state.apply_action(single("QS"));
    assert_eq!(state.turn(), Turn::Terminal);
    assert_eq!(state.places(), &[0, 1, 2, 3, 4]);
    assert_eq!(state.returns(), vec![2.0, 1.0, 0.0, -1.0, -2.0]);
}

#[test]
fn the_deal_gives_eleven_to_three_seats_and_ten_to_two_and_the_diamond_three_leads() {
    let g = game("daihinmin");
    let mut state = g.initial_state();
    // The first card goes to seat 3.
    state.apply_action(3);
    for card in 0..53 {
        assert_eq!(state.turn(), Turn::Chance);
        state.apply_action(card);
    }
    let sizes: Vec<u32> = state.hands().iter().map(|h| h.count_ones()).collect();
    assert_eq!(sizes, [11, 10, 10, 11, 11]);
    // Card 2 (♦3) was the third dealt: seat 0.
    assert_eq!(to_move(&state), 0);
}

#[test]
fn the_exchange_takes_the_strongest_cards_and_gives_back_any() {
    // Seat ranks: seat 2 daifugo, seat 0 fugo, seat 4 heimin, seat 3 hinmin,
    // seat 1 daihinmin.
    let g = game("daihinmin(ranks=2 5 1 4 3)");
    let mut state = g.initial_state();
    // Dealt from the daifugo (seat 2): deal every card in order.
    for card in 0..53 {
        state.apply_action(card);
    }
    // Seat 1 (daihinmin) got cards 4, 9, 14, …, 49: its strongest two are
    // 2♥ (49) and A♠ (44); seat 3 (hinmin) got 1, 6, …, 51: 2♣ (51).
    let (received, _) = state.exchanged(2);
    assert_eq!(received, parse_cards("2H AS").unwrap());
    let (received, _) = state.exchanged(0);
    assert_eq!(received, parse_cards("2C").unwrap());
    // The daifugo gives two cards back, any it holds, then the fugo one.
    assert_eq!(to_move(&state), 2);
    let give_base = g.rules().give_base();
    let held = state.legal_actions();
    assert_eq!(held.len(), 13);
    state.apply_action(give_base + 49); // the 2♥ it just received
    state.apply_action(held[0]);
    assert_eq!(to_move(&state), 0);
    state.apply_action(state.legal_actions()[0]);
    let sizes: Vec<u32> = state.hands().iter().map(|h| h.count_ones()).collect();
    assert_eq!(sizes.iter().sum::<u32>(), 53);
    assert_eq!(sizes, [10, 10, 11, 11, 11]);
    assert!(
        state.hands()[1] & parse_cards("2H").unwrap() != 0,
        "the 2♥ went back"
    );
    // ♦3 leads.
    let diamond_three = parse_cards("3D").unwrap();
    assert!(state.hands()[to_move(&state)] & diamond_three != 0);
}

#[test]
fn the_daifugo_knows_what_it_gave_back_but_not_which_cards_it_got() {
    // The official server shows the daifugo and fugo their hand after the
    // gifts came in, the hinmin and daihinmin theirs before they gave.
    let g = game("daihinmin(ranks=2 5 1 4 3)");
    let mut state = g.initial_state();
    for card in 0..53 {
        state.apply_action(card);
    }
    for _ in 0..3 {
        let first = state.legal_actions()[0];
        state.apply_action(first);
    }
    assert!(!state.in_exchange());
    let (daifugo, fugo, hinmin, daihinmin) = (2, 0, 3, 1);
    assert_eq!(state.exchanged(daifugo).0, parse_cards("2H AS").unwrap());
    assert_eq!(
        state.seen_exchange(daifugo),
        (0, state.exchanged(daifugo).1)
    );
    assert_eq!(state.seen_exchange(fugo), (0, state.exchanged(fugo).1));
    assert_eq!(state.exchanged(fugo).1.count_ones(), 1);
    for poor in [hinmin, daihinmin] {
        assert_eq!(state.seen_exchange(poor), state.exchanged(poor));
    }
    assert_eq!(
        state.seen_exchange(daihinmin),
        (state.exchanged(daifugo).1, parse_cards("2H AS").unwrap())
    );
    // The information state says so too: the daifugo's shows no cards got.
    let text = state.information_state_string(daifugo);
    assert!(text.contains(" got - |"), "{text}");
    assert!(state
        .information_state_string(daihinmin)
        .contains(" got 3S"));
}

#[test]
fn the_seating_is_drawn_anew_every_three_games_and_deal_and_turns_follow_it() {
    use rand::{RngExt, SeedableRng};
    let g = game("daihinmin(games=4)");
    let mut state = g.initial_state();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    while state.games_done() < 3 {
        assert_eq!(
            state.order(),
            [0, 1, 2, 3, 4],
            "the first games keep the seats' order"
        );
        let moves = state.moves();
        state.apply_action(moves[rng.random_range(0..moves.len())]);
    }
    // Game 4: chance draws the seating (5! = 120 orders, lexicographic):
    // the last is 4 3 2 1 0, everyone's neighbours reversed.
    assert_eq!(state.chance_outcomes().len(), 120);
    state.apply_action(119);
    assert_eq!(state.order(), [4, 3, 2, 1, 0]);
    // The deal starts at the daifugo and goes round in the new order.
    let daifugo = state.ranks().unwrap().iter().position(|&r| r == 1).unwrap();
    for card in 0..10 {
        let before = state.hands().to_vec();
        state.apply_action(card);
        let got = (0..5).find(|&s| state.hands()[s] != before[s]).unwrap();
        assert_eq!(got, (daifugo + 5 - card % 5) % 5, "card {card}");
    }
    for card in 10..53 {
        state.apply_action(card);
    }
    while state.in_exchange() {
        let first = state.legal_actions()[0];
        state.apply_action(first);
    }
    // Passes go round the same way: each next seat is the one before.
    let leader = to_move(&state);
    state.apply_action(PASS);
    assert_eq!(to_move(&state), (leader + 4) % 5);
    assert!(state
        .information_state_string(0)
        .contains("order [4, 3, 2, 1, 0]"));
}

#[test]
fn a_series_plays_each_game_as_its_own_episode_carrying_ranks_and_seats() {
    use rand::{RngExt, SeedableRng};
    let g = game("daihinmin(series=4)");
    let mut state: Box<dyn State> = Box::new(g.initial_state());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
    let mut previous_places: Option<Vec<usize>> = None;
    for episode in 0..4 {
        let typed = state.as_any().downcast_ref::<DaihinminState>().unwrap();
        assert_eq!(typed.games_done(), 0);
        // The seating is drawn before the fourth game only.
        let draws_first = state.turn() == Turn::Chance && state.chance_outcomes().len() == 120;
        assert_eq!(draws_first, episode == 3, "episode {episode}");
        match &previous_places {
            None => assert!(typed.ranks().is_none()),
            Some(places) => {
                let ranks = typed.ranks().expect("ranks carried");
                for (place, &seat) in places.iter().enumerate() {
                    assert_eq!(ranks[seat], place + 1);
                }
            }
        }
        while state.turn() != Turn::Terminal {
            let moves = state.moves();
            state.apply_action(moves[rng.random_range(0..moves.len())]);
        }
        // This game's points alone, less their mean 3.
        let returns = state.returns();
        let mut sorted = returns.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(sorted, [-2.0, -1.0, 0.0, 1.0, 2.0]);
        let typed = state.as_any().downcast_ref::<DaihinminState>().unwrap();
        previous_places = Some(typed.places().to_vec());
        match state.next_episode() {
            Some(next) => state = next,
            None => {
                assert_eq!(episode, 3, "the series ends after its fourth game");
                return;
            }
        }
    }
    panic!("a fifth episode");
}

#[test]
fn series_and_games_are_not_both_above_one() {
    assert!("daihinmin(series=100)".parse::<GameSpec>().is_ok());
    let error = "daihinmin(series=100,games=3)"
        .parse::<GameSpec>()
        .unwrap_err()
        .to_string();
    assert!(error.contains("series and games"), "{error}");
}

#[test]
fn ranks_must_be_each_seat_a_different_rank() {
    for bad in [
        "daihinmin(ranks=1 2 3 4 4)",
        "daihinmin(ranks=1 2 3)",
        "daihinmin(players=3,ranks=1 2 4)",
    ] {
        let error = bad.parse::<GameSpec>().unwrap_err().to_string();
        assert!(error.contains("ranks"), "{bad}: {error}");
    }
}

#[test]
fn a_determinized_world_keeps_what_the_player_knows() {
    use rand::{RngExt, SeedableRng};
    // After an exchange: seat 2 (daifugo) gave two cards back to seat 1.
    let g = game("daihinmin(ranks=2 5 1 4 3)");
    let mut state = g.initial_state();
    for card in 0..53 {
        state.apply_action(card);
    }
    for _ in 0..3 {
        let give = state.legal_actions()[0];
        state.apply_action(give);
    }
    let (_, gave) = state.exchanged(2);
    assert_eq!(gave.count_ones(), 2);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for _ in 0..50 {
        let world = state.determinized(2, |cards, k| {
            let mut pool: Vec<u64> = (0..64).filter(|i| cards & (1 << i) != 0).collect();
            (0..k).fold(0, |out, _| {
                out | 1 << pool.swap_remove(rng.random_range(0..pool.len()))
            })
        });
        assert_eq!(world.hands()[2], state.hands()[2], "its own hand");
        let all = world.hands().iter().fold(0u64, |a, &h| {
            assert_eq!(a & h, 0, "no card twice");
            a | h
        });
        assert_eq!(all, (1u64 << 53) - 1, "every card somewhere");
        for (w, s) in world.hands().iter().zip(state.hands()) {
            assert_eq!(w.count_ones(), s.count_ones());
        }
        assert_eq!(world.hands()[1] & gave, gave, "its gifts stay with seat 1");
    }
}

#[test]
fn monte_carlo_players_go_out_when_they_can_and_beat_random_players() {
    use rnad_games::algorithms::monte_carlo::{MonteCarloPlayer, MonteCarloSpec};
    use rnad_games::bots::poker_baselines::Baseline;
    use rnad_games::headtohead::sampled::{play_duplicate, Player};
    use std::ops::ControlFlow;
    // Its last card: playing it is first place, passing is not.
    let state = dealt(["5S", "3H 4H", "3C 4C", "3D 4D", "6D 7D"], 0);
    for name in [
        "random-sampling:30",
        "epsilon:30",
        "softmax:30",
        "ucb1-tuned:30",
        "majority:10",
        "majority-full:10",
    ] {
        let spec: MonteCarloSpec = name.parse().unwrap();
        assert_eq!(
            spec.to_string().parse::<MonteCarloSpec>(),
            Ok(spec),
            "{name}"
        );
        let mut player = MonteCarloPlayer::new(spec.allocation, spec.playouts, 3);
        assert_eq!(
            player.choose(&state, &state.legal_actions()),
            single("5S"),
            "{name}"
        );
    }
    for bad in [
        "epsilon",
        "epsilon:0",
        "softmax:10:x",
        "greedy:10",
        "majority:10:1",
    ] {
        assert!(bad.parse::<MonteCarloSpec>().is_err(), "{bad}");
    }
    // Against four uniform players over rotated deals it scores well above
    // the 3 points a game of an equal share.
    let g = game("daihinmin");
    let names: Vec<String> = ["mc", "u1", "u2", "u3", "u4"].map(String::from).to_vec();
    let spec: MonteCarloSpec = "random-sampling:20".parse().unwrap();
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(MonteCarloPlayer::new(
        spec.allocation,
        spec.playouts,
        5,
    ))];
    players.extend((0..4).map(|_| Box::new(Baseline::Uniform) as Box<dyn Player>));
    let report = play_duplicate(
        &g,
        &names,
        &mut players,
        (4, 11),
        1.0,
        None,
        &mut |_, _, _, _| ControlFlow::Continue(()),
    )
    .expect("the record never stops the match");
    let mc = &report.raw[0];
    assert!(mc.mean + 3.0 > 4.0, "{mc:?}");
}

#[test]
fn a_guessed_world_learns_a_seats_cards_by_swapping_them_in() {
    let mut state = dealt(["3S 4S", "5H 6H", "7C 8C", "9D TD", "JS QS"], 0);
    // Seat 1 turns out to hold 9D: it swaps in for one of its cards.
    state.reveal(1, parse_cards("9D").unwrap(), 0).unwrap();
    assert!(state.hands()[1] & parse_cards("9D").unwrap() != 0);
    assert_eq!(state.hands()[1].count_ones(), 2);
    assert_eq!(state.hands()[3].count_ones(), 2);
    let all = state.hands().iter().fold(0u64, |a, &h| a | h);
    assert_eq!(all.count_ones(), 10, "no card lost or doubled");
    // The observer's own cards, or more cards than the seat holds: refused.
    assert!(state.reveal(1, parse_cards("3S").unwrap(), 0).is_err());
    assert!(state
        .reveal(2, parse_cards("JS QS 9D").unwrap(), 0)
        .is_err());
}

#[test]
fn a_match_of_games_carries_the_ranks_into_each_exchange() {
    use rand::{RngExt, SeedableRng};
    let g = game("daihinmin(games=3)");
    let mut state = g.initial_state();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    // The seat that went out first in each game.
    let mut first_out: Vec<usize> = Vec::new();
    let mut gifts = 0;
    while state.turn() != Turn::Terminal {
        if first_out.len() == state.games_done() && !state.places().is_empty() {
            first_out.push(state.places()[0]);
        }
        if state.in_exchange() {
            let ranks = state.ranks().expect("ranks in a later game");
            let mut sorted = ranks.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, [1, 2, 3, 4, 5]);
            // The first out of the game before is the daifugo now, and it
            // gives first.
            let daifugo = first_out[state.games_done() - 1];
            assert_eq!(ranks[daifugo], 1, "{ranks:?}");
            if gifts % 3 == 0 {
                assert_eq!(state.to_move(), daifugo);
            }
            gifts += 1;
        }
        let moves = state.moves();
        state.apply_action(moves[rng.random_range(0..moves.len())]);
    }
    assert_eq!(state.games_done(), 3);
    assert_eq!(gifts, 6, "three gifts in each of the two later games");
    let returns = state.returns();
    assert!(returns.iter().sum::<f64>().abs() < 1e-9);
    // Three games of 5 … 1 points, less 3 a game each.
    assert!(
        returns.iter().all(|r| (-6.0..=6.0).contains(r)),
        "{returns:?}"
    );
}

#[test]
fn monte_carlo_players_play_out_only_the_game_they_are_in() {
    use rnad_games::algorithms::monte_carlo::{Allocation, MonteCarloPlayer};
    // The second game of a three-game match: playouts end with it, so a
    // decision costs what a one-game decision costs and scores 1-5 points.
    let g = game("daihinmin(games=3)");
    let mut state = g.initial_state();
    let mut first = rnad_games::bots::uecda_default::DefaultPlayer;
    while state.games_done() == 0 {
        let moves: Vec<usize> = match state.turn() {
            Turn::Chance => vec![state.chance_outcomes()[0].0],
            _ => {
                let legal = state.legal_actions();
                let probs =
                    rnad_games::headtohead::sampled::Player::policy(&mut first, &state, &legal);
                vec![legal[probs.iter().position(|&p| p == 1.0).unwrap()]]
            }
        };
        state.apply_action(moves[0]);
    }
    // A world that ends with this (second) game is terminal after it.
    let mut world = state.clone().ending_after_this_game();
    while world.turn() != Turn::Terminal {
        let moves = world.moves();
        world.apply_action(moves[moves.len() / 2]);
    }
    assert_eq!(world.games_done(), 2);
    assert_eq!(world.points().iter().sum::<f64>(), 30.0);
    let before: f64 = state.points().iter().sum();
    assert_eq!(before, 15.0, "one game's points");
    let mut player = MonteCarloPlayer::new(Allocation::RandomSampling, 50, 1);
    while state.turn() == Turn::Chance || state.in_exchange() {
        match state.turn() {
            Turn::Chance => state.apply_action(state.chance_outcomes()[0].0),
            _ => {
                let legal = state.legal_actions();
                let pick = player.choose(&state, &legal);
                state.apply_action(pick);
            }
        }
    }
    let legal = state.legal_actions();
    let chosen = player.choose(&state, &legal);
    assert!(legal.contains(&chosen));
    assert_eq!(state.games_done(), 1, "choosing plays nothing out for real");
}

#[test]
fn a_lead_and_an_answer_offer_exactly_the_held_plays_the_rules_allow() {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let rules = game("daihinmin").rules();
    for _ in 0..200 {
        // Random hands of 1 to 10 cards, the joker among them at times.
        let mut deck: Vec<u64> = (0..53).collect();
        let mut hands = vec![0u64; 5];
        let size = rng.random_range(1..11);
        for hand in hands.iter_mut() {
            for _ in 0..size {
                *hand |= 1 << deck.swap_remove(rng.random_range(0..deck.len()));
            }
        }
        for seat in 0..5 {
            let state = DaihinminState::from_hands(rules.clone(), hands.clone(), seat);
            let mut expected = vec![PASS];
            expected.extend(
                catalogue()
                    .plays()
                    .filter(|(_, p)| p.cards & !hands[seat] == 0)
                    .map(|(id, _)| id),
            );
            assert_eq!(state.legal_actions(), expected);
            // Answering a play: exactly the held plays that beat it.
            let mut answered = state.clone();
            let lead = expected[rng.random_range(1..expected.len())];
            answered.apply_action(lead);
            let (Some((table, _)), Turn::Player(next)) = (answered.table(), answered.turn()) else {
                continue;
            };
            let mut beating = vec![PASS];
            beating.extend(
                catalogue()
                    .plays()
                    .filter(|(_, p)| {
                        p.cards & !answered.hands()[next] == 0
                            && p.beats(&table, answered.revolution(), answered.locked())
                    })
                    .map(|(id, _)| id),
            );
            assert_eq!(answered.legal_actions(), beating);
        }
    }
}

#[test]
fn a_policy_for_one_match_setting_plays_any_other_but_not_another_table() {
    let spec = |text: &str| text.parse::<GameSpec>().unwrap();
    let trained = spec("daihinmin(series=100)");
    for other in [
        "daihinmin",
        "daihinmin(games=100)",
        "daihinmin(ranks=2 5 1 4 3)",
    ] {
        assert!(trained.plays_as(&spec(other)), "{other}");
    }
    assert!(!trained.plays_as(&spec("daihinmin(players=4)")));
    assert!(!spec("leduc_poker").plays_as(&spec("leduc_poker(players=3)")));
    assert!(spec("leduc_poker").plays_as(&spec("leduc_poker")));
}
