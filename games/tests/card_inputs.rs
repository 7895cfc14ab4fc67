//! How networks see hold'em's cards: seed 004's planes, checked cell by
//! cell on hands written out by hand, and the card layout of the network
//! input on random hands.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rnad_games::encodings::card_planes::{PLANES, SIDE, SIZE};
use rnad_games::universal_poker::UniversalPokerState;
use rnad_games::{GameSpec, State, Turn};

/// Seed 004's game with every raise size an action (fullgame), so the
/// hand below can name its sizes.
const GAME: &str = "universal_poker(betting=nolimit,numPlayers=2,numRounds=4,blind=100 50,\
firstPlayer=2 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,numBoardCards=0 3 1 1,\
stack=5000 5000,bettingAbstraction=fullgame)";

/// The state after dealing `cards` (in dealing order) and playing
/// `moves` (ACPC's letter and raise-to size) in between, cards first as
/// the game asks for them.
fn play(cards: &[&str], moves: &[(char, &str)]) -> UniversalPokerState {
    let game = GameSpec::parse(GAME).unwrap().load();
    let mut state = game.new_initial_state();
    let (mut cards, mut moves) = (cards.iter(), moves.iter());
    loop {
        let poker = state
            .as_any()
            .downcast_ref::<UniversalPokerState>()
            .unwrap();
        let action = if state.turn() == Turn::Chance {
            let Some(card) = cards.next() else { break };
            let c: Vec<char> = card.chars().collect();
            poker.card_id(c[0], c[1]).unwrap()
        } else {
            let Some(&(letter, size)) = moves.next() else {
                break;
            };
            poker.action_for(letter, size).unwrap()
        };
        state.apply_action(action);
    }
    state
        .as_any()
        .downcast_ref::<UniversalPokerState>()
        .unwrap()
        .clone()
}

/// Plane `plane`'s 4×13 grid (suits ♣ ♦ ♥ ♠ by ranks 2 … A), checking
/// that nothing outside it is set.
fn grid(planes: &[f32], plane: usize) -> [[f32; 13]; 4] {
    let mut out = [[0.0; 13]; 4];
    for row in 0..SIDE {
        for column in 0..SIDE {
            let value = planes[(plane * SIDE + row) * SIDE + column];
            if (6..10).contains(&row) && (2..15).contains(&column) {
                out[row - 6][column - 2] = value;
            } else {
                assert_eq!(value, 0.0, "plane {plane} at ({row}, {column})");
            }
        }
    }
    out
}

/// The cells set in `grid`, as (suit, rank) with rank 0 the deuce.
fn set_cells(grid: [[f32; 13]; 4]) -> Vec<(usize, usize)> {
    let mut cells = Vec::new();
    for (suit, row) in grid.iter().enumerate() {
        for (rank, &v) in row.iter().enumerate() {
            if v != 0.0 {
                assert_eq!(v, 1.0);
                cells.push((suit, rank));
            }
        }
    }
    cells
}

/// The cells set in plane `plane`, sorted.
fn cells(planes: &[f32], plane: usize) -> Vec<(usize, usize)> {
    sorted(set_cells(grid(planes, plane)))
}

/// A grid filled with `value`.
fn filled(value: f32) -> [[f32; 13]; 4] {
    [[value; 13]; 4]
}

/// `n` small blinds: the first `n` cells column by column.
fn chips(n: usize) -> Vec<(usize, usize)> {
    let mut cells: Vec<_> = (0..n).map(|i| (i % 4, i / 4)).collect();
    cells.sort_unstable();
    cells
}

fn sorted(mut cells: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    cells.sort_unstable();
    cells
}

/// Seat 0 (big blind 100) holds A♠ K♦, seat 1 (small blind 50) 7♣ 2♥.
/// Preflop seat 1 raises to 300 and seat 0 calls; on the flop Q♠ J♥ T♣
/// seat 0 checks and seat 1 bets to 500. Seat 0 considers raising to
/// 1,500.
#[test]
fn a_written_out_flop_decision_has_the_planes_worked_out_by_hand() {
    let state = play(
        &["As", "Kd", "7c", "2h", "Qs", "Jh", "Tc"],
        &[('r', "300"), ('c', ""), ('c', ""), ('r', "500")],
    );
    assert_eq!(state.turn(), Turn::Player(0));
    assert!(state.has_cnn_planes());
    let raise = state.action_for('r', "1500").unwrap();
    let mut planes = vec![f32::NAN; SIZE];
    state.cnn_planes(0, raise, &mut planes);
    assert_eq!(planes.len(), PLANES * 17 * 17);
    // Suits ♣ 0, ♦ 1, ♥ 2, ♠ 3; ranks 2 = 0 … T = 8, J 9, Q 10, K 11, A 12.
    // Hole cards, lower deck index first: K♦ (45), then A♠ (51).
    assert_eq!(cells(&planes, 0), [(1, 11)]);
    assert_eq!(cells(&planes, 1), [(3, 12)]);
    // The flop; no turn or river yet.
    assert_eq!(cells(&planes, 2), [(0, 8), (2, 9), (3, 10)]);
    assert!(cells(&planes, 3).is_empty() && cells(&planes, 4).is_empty());
    assert_eq!(
        cells(&planes, 5),
        [(0, 8), (1, 11), (2, 9), (3, 10), (3, 12)]
    );
    // Pot 300 + 500 = 800 chips = 16 small blinds: four full columns.
    assert_eq!(cells(&planes, 6), chips(16));
    // On the flop two rounds remain (turn, river).
    assert_eq!(grid(&planes, 7), filled(1.0));
    assert_eq!(grid(&planes, 8), filled(1.0));
    assert_eq!(grid(&planes, 9), filled(0.0));
    // Seat 0 acted first on the flop.
    assert_eq!(grid(&planes, 10), filled(1.0));
    // This round, most recent first: the bet of 200 (four small blinds),
    // then the check (a call of nothing); three empty slots.
    assert_eq!(grid(&planes, 11), filled(1.0));
    assert_eq!(grid(&planes, 12), filled(0.5));
    assert_eq!(cells(&planes, 16), chips(4));
    assert!(cells(&planes, 17).is_empty());
    for empty in [13, 14, 15, 18, 19, 20] {
        assert_eq!(grid(&planes, empty), filled(0.0), "plane {empty}");
    }
    // Preflop, most recent first: the call of 200 (four small blinds),
    // then the raise that put in 250 (five, rounded up).
    assert_eq!(grid(&planes, 21), filled(0.5));
    assert_eq!(grid(&planes, 22), filled(1.0));
    assert_eq!(cells(&planes, 26), chips(4));
    assert_eq!(cells(&planes, 27), chips(5));
    for empty in [23, 24, 25, 28, 29, 30] {
        assert_eq!(grid(&planes, empty), filled(0.0), "plane {empty}");
    }
    // The candidate: a raise putting in 1,200 (24 small blinds).
    assert_eq!(grid(&planes, 31), filled(1.0));
    assert_eq!(cells(&planes, 32), chips(24));

    // Folding instead: a kind of zeros and no chips; calling: halves and
    // the 200 to call.
    state.cnn_planes(0, state.action_for('f', "").unwrap(), &mut planes);
    assert_eq!(grid(&planes, 31), filled(0.0));
    assert!(cells(&planes, 32).is_empty());
    state.cnn_planes(0, state.action_for('c', "").unwrap(), &mut planes);
    assert_eq!(grid(&planes, 31), filled(0.5));
    assert_eq!(cells(&planes, 32), chips(4));
}

/// Preflop, first to act: no board, three rounds to come, the blinds in
/// the pot, no history; a shove fills every cell.
#[test]
fn the_first_decision_of_a_hand() {
    let state = play(&["As", "Kd", "7c", "2h"], &[]);
    assert_eq!(state.turn(), Turn::Player(1));
    let mut planes = vec![0.0; SIZE];
    state.cnn_planes(1, state.action_for('r', "5000").unwrap(), &mut planes);
    assert_eq!(cells(&planes, 0), [(2, 0)]);
    assert_eq!(cells(&planes, 1), [(0, 5)]);
    assert_eq!(cells(&planes, 5), [(0, 5), (2, 0)]);
    assert_eq!(cells(&planes, 6), chips(3));
    for plane in [7, 8, 9, 10, 31] {
        assert_eq!(grid(&planes, plane), filled(1.0), "plane {plane}");
    }
    for plane in (2..5).chain(11..31) {
        assert_eq!(grid(&planes, plane), filled(0.0), "plane {plane}");
    }
    // 4,950 chips are more than 52 small blinds: all cells.
    assert_eq!(cells(&planes, 32), chips(52));
}

/// The layout's blocks hold exactly the player's hole cards and the board,
/// at `block + rank · suits + suit`, in OpenSpiel's default game and in
/// seed 004's.
#[test]
fn the_card_layout_finds_the_hole_cards_and_the_board_in_the_network_input() {
    for spec in ["universal_poker", GAME] {
        let game = GameSpec::parse(spec).unwrap().load();
        let layout = game.card_layout().unwrap();
        let deck = layout.suits * layout.ranks;
        let mut seen_board = false;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let mut state = game.new_initial_state();
            while state.turn() != Turn::Terminal {
                let moves = state.moves();
                let action = moves[rng.random_range(0..moves.len())];
                let Turn::Player(player) = state.turn() else {
                    state.apply_action(action);
                    continue;
                };
                let mut input = vec![0.0; game.information_state_tensor_size()];
                state.network_input(player, &mut input);
                let poker = state
                    .as_any()
                    .downcast_ref::<UniversalPokerState>()
                    .unwrap();
                let block = |b: usize| -> Vec<u8> {
                    (0..deck)
                        .filter(|&c| input[layout.blocks[b] + c] == 1.0)
                        .map(|c| c as u8)
                        .collect()
                };
                let mut hole = poker.hole_cards(player).to_vec();
                hole.sort_unstable();
                let mut board = poker.board_cards().to_vec();
                board.sort_unstable();
                assert_eq!(block(0), hole, "{spec}");
                assert_eq!(block(1), board, "{spec}");
                seen_board |= !board.is_empty();
                state.apply_action(action);
            }
        }
        assert!(seen_board, "{spec}: some decisions after a board card");
    }
}
