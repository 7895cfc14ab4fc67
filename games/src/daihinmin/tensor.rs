//! What a network sees of a Daihinmin state, from one seat: every seat
//! counted from the observer in playing order (0 = itself, 1 = the next
//! to play after it …).
//!
//! Layout: the observer's seat, one-hot (n, as in every game here); own
//! hand (53); cards each seat has played (n × 53); the table's
//! cards (53), its kind (single, group, sequence), who played it (n); lock
//! and revolution (2); each seat's cards left over the most a
//! hand can hold (n); who passed (n);
//! each seat's place so far (n × n, none while it plays); whose turn (n);
//! the cards received (where it can tell) and given in the exchange
//! (2 × 53); each seat's
//! rank from the previous game (n × n, none in a first game).

use super::cards::{indices, Cards, JOKER_INDEX};
use super::plays::{Kind, Play};

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

/// What a seat's tensor is written from: the public state, the seat's own
/// hand and its exchange.
pub struct Seen<'a> {
    /// Every seat's hand (only the observer's cards are written; the others
    /// only as counts).
    pub hands: &'a [Cards],
    /// Cards each seat has played.
    pub played: &'a [Cards],
    /// The play on the table, and who made it.
    pub table: Option<(Play, usize)>,
    /// Whether the table's suits are locked.
    pub locked: bool,
    /// Whether a revolution is on.
    pub revolution: bool,
    /// Seats out of the trick, as bits.
    pub passed: u32,
    /// Seats in the order they went out.
    pub places: &'a [usize],
    /// Whose turn.
    pub to_move: usize,
    /// Each seat's index in playing order.
    pub order_index: &'a [usize],
    /// The cards the observer received (where it can tell which) and gave
    /// in the exchange.
    pub exchanged: (Cards, Cards),
    /// Each seat's rank from the game before (1 = daifugo), if any.
    pub ranks: Option<&'a [usize]>,
}

/// Writes what `player` has `seen` into `out`.
pub fn write(seen: &Seen, player: usize, out: &mut [f32]) {
    let n = seen.hands.len();
    let index = seen.order_index;
    let relative = |seat: usize| (index[seat] + n - index[player]) % n;
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
    put_cards(&mut out[r], seen.hands[player]);
    let r = take(n * CARDS);
    for (seat, &cards) in seen.played.iter().enumerate() {
        let start = r.start + relative(seat) * CARDS;
        put_cards(&mut out[start..start + CARDS], cards);
    }
    let (cards, kind, owner) = (take(CARDS), take(3), take(n));
    if let Some((play, by)) = seen.table {
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
    out[flags.start] = f32::from(u8::from(seen.locked));
    out[flags.start + 1] = f32::from(u8::from(seen.revolution));
    // The most a hand holds: the largest deal and two gifts.
    let most = CARDS.div_ceil(n) + 2;
    let left = take(n);
    for (seat, &hand) in seen.hands.iter().enumerate() {
        out[left.start + relative(seat)] = hand.count_ones() as f32 / most as f32;
    }
    let passed = take(n);
    for seat in (0..n).filter(|s| seen.passed & (1 << s) != 0) {
        out[passed.start + relative(seat)] = 1.0;
    }
    let places = take(n * n);
    for (place, &seat) in seen.places.iter().enumerate() {
        out[places.start + relative(seat) * n + place] = 1.0;
    }
    let turn = take(n);
    out[turn.start + relative(seen.to_move)] = 1.0;
    let (received, given) = seen.exchanged;
    let r = take(CARDS);
    put_cards(&mut out[r], received);
    let r = take(CARDS);
    put_cards(&mut out[r], given);
    let ranks = take(n * n);
    if let Some(previous) = seen.ranks {
        for (seat, &rank) in previous.iter().enumerate() {
            out[ranks.start + relative(seat) * n + rank - 1] = 1.0;
        }
    }
    debug_assert_eq!(at, size(n));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(indices: &[usize]) -> Cards {
        indices.iter().map(|&i| 1 << i).sum()
    }

    /// Three seats, written for seat 1: every non-zero cell worked out by
    /// hand from the layout (seats counted from the observer: seat 2 is
    /// 1, seat 0 is 2), and nothing else written.
    #[test]
    fn a_three_seat_state_as_seat_one_sees_it() {
        let hands = [
            cards(&[0, 1]),
            cards(&[4, JOKER_INDEX]),
            cards(&[10, 11, 12]),
        ];
        let played = [cards(&[20]), 0, cards(&[30])];
        let pair_of_sevens = Play {
            kind: Kind::Group,
            cards: cards(&[16, 17]),
            low: 4,
            high: 4,
            size: 2,
            suits: 0b0011,
            eight: false,
        };
        let seen = Seen {
            hands: &hands,
            played: &played,
            table: Some((pair_of_sevens, 0)),
            locked: true,
            revolution: false,
            passed: 1 << 2,
            places: &[2],
            to_move: 0,
            order_index: &[0, 1, 2],
            exchanged: (cards(&[40]), cards(&[41])),
            ranks: Some(&[3, 1, 2]),
        };
        assert_eq!(size(3), 409);
        let mut out = vec![7.0; 409];
        write(&seen, 1, &mut out);

        let mut expected = vec![0.0f32; 409];
        for (at, value) in [
            (1, 1.0),                // own seat, absolute
            (3 + 4, 1.0),            // own hand from 3
            (3 + 52, 1.0),           // the joker in it
            (56 + 53 + 30, 1.0),     // played, from 56: seat 2 (relative 1)
            (56 + 2 * 53 + 20, 1.0), // seat 0 (relative 2)
            (215 + 16, 1.0),         // table cards from 215
            (215 + 17, 1.0),         // and the other seven
            (268 + 1, 1.0),          // kind from 268: group
            (271 + 2, 1.0),          // owner from 271: seat 0
            (274, 1.0),              // locked (274), no revolution (275)
            (276, 2.0 / 20.0),       // cards left from 276 over 18 + 2
            (277, 3.0 / 20.0),       // seat 2
            (278, 2.0 / 20.0),       // seat 0
            (279 + 1, 1.0),          // passed from 279: seat 2
            (282 + 3, 1.0),          // places from 282: seat 2 (row 1) went out first (column 0)
            (291 + 2, 1.0),          // turn from 291: seat 0
            (294 + 40, 1.0),         // received from 294
            (347 + 41, 1.0),         // given from 347
            (400, 1.0),              // ranks from 400: own rank 1 (row 0, column 0)
            (400 + 3 + 1, 1.0),      // seat 2's rank 2
            (400 + 6 + 2, 1.0),      // seat 0's rank 3
        ] {
            expected[at] = value;
        }
        for (at, (&got, &want)) in out.iter().zip(&expected).enumerate() {
            assert_eq!(got, want, "cell {at}");
        }
    }
}
