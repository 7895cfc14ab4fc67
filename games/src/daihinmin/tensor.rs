//! What a network sees of a Daihinmin state, from one seat: every seat
//! counted from the observer (0 = itself, 1 = the next to its left …).
//!
//! Layout: the observer's seat, one-hot (n, as in every game here); own
//! hand (53); cards each seat has played (n × 53); the table's
//! cards (53), its kind (single, group, sequence), who played it (n); lock
//! and revolution (2); each seat's cards left over the most a
//! hand can hold (n); who passed (n);
//! each seat's place so far (n × n, none while it plays); whose turn (n);
//! the cards received and given in the exchange (2 × 53); each seat's
//! rank from the previous game (n × n, none in a first game).

use super::cards::{indices, Cards, JOKER_INDEX};
use super::plays::Kind;
use super::state::DaihinminState;

const CARDS: usize = JOKER_INDEX + 1;

/// The tensor's length for `n` players.
pub fn size(n: usize) -> usize {
    n + CARDS + n * CARDS + CARDS + 3 + n + 2 + n + n + n * n + n + 2 * CARDS + n * n
}

fn put_cards(out: &mut [f32], cards: Cards) {
    for i in indices(cards) {
        out[i] = 1.0;
    }
}

/// Writes `state` as `player` sees it into `out`.
pub fn write(state: &DaihinminState, player: usize, out: &mut [f32]) {
    let n = state.rules().players;
    let relative = |seat: usize| (seat + n - player) % n;
    out.fill(0.0);
    let mut at = 0;
    let mut take = |len: usize| {
        let range = at..at + len;
        at += len;
        range
    };
    let seat = take(n);
    out[seat.start + player] = 1.0;
    let r = take(CARDS);
    put_cards(&mut out[r], state.hands()[player]);
    let r = take(n * CARDS);
    for (seat, &cards) in state.played().iter().enumerate() {
        let start = r.start + relative(seat) * CARDS;
        put_cards(&mut out[start..start + CARDS], cards);
    }
    let (cards, kind, owner) = (take(CARDS), take(3), take(n));
    if let Some((play, by)) = state.table() {
        put_cards(&mut out[cards], play.cards);
        let k = match play.kind {
            Kind::Single => 0,
            Kind::Group => 1,
            Kind::Sequence => 2,
        };
        out[kind.start + k] = 1.0;
        out[owner.start + relative(by)] = 1.0;
    }
    let flags = take(2);
    out[flags.start] = f32::from(u8::from(state.locked()));
    out[flags.start + 1] = f32::from(u8::from(state.revolution()));
    // The most a hand holds: the largest deal and two gifts.
    let most = CARDS.div_ceil(n) + 2;
    let left = take(n);
    for (seat, &hand) in state.hands().iter().enumerate() {
        out[left.start + relative(seat)] = hand.count_ones() as f32 / most as f32;
    }
    let passed = take(n);
    for seat in (0..n).filter(|s| state.passed() & (1 << s) != 0) {
        out[passed.start + relative(seat)] = 1.0;
    }
    let places = take(n * n);
    for (place, &seat) in state.places().iter().enumerate() {
        out[places.start + relative(seat) * n + place] = 1.0;
    }
    let turn = take(n);
    out[turn.start + relative(state.to_move())] = 1.0;
    let (received, given) = state.exchanged(player);
    let r = take(CARDS);
    put_cards(&mut out[r], received);
    let r = take(CARDS);
    put_cards(&mut out[r], given);
    let ranks = take(n * n);
    if let Some(previous) = state.ranks() {
        for (seat, &rank) in previous.iter().enumerate() {
            out[ranks.start + relative(seat) * n + rank - 1] = 1.0;
        }
    }
    debug_assert_eq!(at, size(n));
}
