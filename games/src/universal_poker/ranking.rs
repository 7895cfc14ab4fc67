//! Hand strength as the ACPC server ranks hands, for any number of cards:
//! the best five-card poker hand a player can make from all its cards
//! (hole and board), as one integer where higher wins and equal ties.
//!
//! The integers are the ACPC evaluator's own (its lookup tables reduce to
//! the closed forms below), so that games with fewer than five cards, such
//! as OpenSpiel's default `universal_poker` with one hole and one board
//! card, order hands exactly as OpenSpiel does. Category bases: high card 0,
//! pair 1287, two pair 5005, trips 8606, straight 9620, flush 9633, full
//! house 10920, quads 11934, straight flush 12103. Within a category, ranks
//! compare highest first (the colexicographic index of a set of ranks).

/// Rank masks: bit `r` set when rank `r` (0 = deuce … 12 = ace) is present.
pub type Ranks = u16;

const ALL_RANKS: Ranks = 0x1fff;
/// The wheel, A-2-3-4-5.
const WHEEL: Ranks = 0x100f;

/// The lowest strength of high card.
pub const HIGH_CARD: u32 = 0;
/// The lowest strength of one pair.
pub const PAIR: u32 = 1287;
/// The lowest strength of two pair.
pub const TWO_PAIR: u32 = 5005;
/// The lowest strength of three of a kind.
pub const TRIPS: u32 = 8606;
/// The lowest strength of straights.
pub const STRAIGHT: u32 = 9620;
/// The lowest strength of flushes.
pub const FLUSH: u32 = 9633;
/// The lowest strength of full houses.
pub const FULL_HOUSE: u32 = 10920;
/// The lowest strength of four of a kind.
pub const QUADS: u32 = 11934;
/// The lowest strength of straight flushes.
pub const STRAIGHT_FLUSH: u32 = 12103;

/// `C(n, k)` for `n < 13`, `k <= 5`.
const fn binomial(n: u32, k: u32) -> u32 {
    if k > n {
        return 0;
    }
    let mut result = 1;
    let mut i = 0;
    while i < k {
        result = result * (n - i) / (i + 1);
        i += 1;
    }
    result
}

/// The colexicographic index of a set of ranks: `Σ C(s_i, i)` over its
/// members in increasing order (i from 1). Among sets of one size it orders
/// them by highest rank first.
fn colex(ranks: Ranks) -> u32 {
    let mut index = 0;
    let mut i = 1;
    for r in 0..13 {
        if ranks & (1 << r) != 0 {
            index += binomial(r, i);
            i += 1;
        }
    }
    index
}

/// The `k` highest ranks of a set (all of them when it has fewer).
fn top(ranks: Ranks, k: u32) -> Ranks {
    let mut kept = ranks;
    while kept.count_ones() > k {
        kept &= kept - 1;
    }
    kept
}

/// The highest rank of a set, 0 when it is empty.
fn highest(ranks: Ranks) -> u32 {
    if ranks == 0 {
        0
    } else {
        15 - ranks.leading_zeros()
    }
}

/// The highest card of the best straight in a set, if it has one (3 for
/// the wheel).
fn straight_top(ranks: Ranks) -> Option<u32> {
    let runs = ranks & (ranks << 1) & (ranks << 2) & (ranks << 3) & (ranks << 4) & ALL_RANKS;
    if runs != 0 {
        Some(highest(runs))
    } else if ranks & WHEEL == WHEEL {
        Some(3)
    } else {
        None
    }
}

/// The strength of the hand whose cards of suit `s` are `by_suit[s]`.
pub fn rank_hand(by_suit: [Ranks; 4]) -> u32 {
    let flush = by_suit
        .iter()
        .filter(|s| s.count_ones() >= 5)
        .map(|&s| match straight_top(s) {
            Some(t) => STRAIGHT_FLUSH + t,
            None => FLUSH + colex(top(s, 5)),
        })
        .max();
    if let Some(f) = flush.filter(|&f| f >= STRAIGHT_FLUSH) {
        return f;
    }
    let [a, b, c, d] = by_suit;
    let any = a | b | c | d;
    let quads = a & b & c & d;
    let trips = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d);
    let pairs = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d);
    if quads != 0 {
        let r = highest(quads);
        return QUADS + 13 * r + highest(any & !(1 << r));
    }
    if trips != 0 {
        let r = highest(trips);
        let other_pairs = pairs & !(1 << r);
        if other_pairs != 0 {
            return FULL_HOUSE + 78 * r + highest(other_pairs);
        }
    }
    if let Some(f) = flush {
        return f;
    }
    if let Some(t) = straight_top(any) {
        return STRAIGHT + t;
    }
    if trips != 0 {
        let r = highest(trips);
        return TRIPS + 78 * r + colex(top(any & !(1 << r), 2));
    }
    if pairs != 0 {
        let r = highest(pairs);
        let rest = pairs & !(1 << r);
        if rest != 0 {
            let r2 = highest(rest);
            return TWO_PAIR + 286 * r + 13 * r2 + highest(any & !(1 << r) & !(1 << r2));
        }
        return PAIR + 286 * r + colex(top(any & !(1 << r), 3));
    }
    HIGH_CARD + colex(top(any, 5))
}

/// The standard deck's cards `rank * 4 + suit` as rs_poker's.
const TABLE_CARDS: [rs_poker::core::Card; 52] = {
    use rs_poker::core::{Card, Suit, Value};
    const VALUES: [Value; 13] = [
        Value::Two,
        Value::Three,
        Value::Four,
        Value::Five,
        Value::Six,
        Value::Seven,
        Value::Eight,
        Value::Nine,
        Value::Ten,
        Value::Jack,
        Value::Queen,
        Value::King,
        Value::Ace,
    ];
    const SUITS: [Suit; 4] = [Suit::Club, Suit::Diamond, Suit::Heart, Suit::Spade];
    let mut cards = [Card {
        value: Value::Two,
        suit: Suit::Club,
    }; 52];
    let mut i = 0;
    while i < 52 {
        cards[i] = Card {
            value: VALUES[i / 4],
            suit: SUITS[i % 4],
        };
        i += 1;
    }
    cards
};

/// What ranks a game's showdown hands. Hold'em's hands (five to seven
/// cards of the standard deck) go to rs_poker's perfect-hash tables, a
/// maintained crates.io evaluator about ten times faster than the closed
/// forms here and ordering every hand alike (`benches/holdem.rs` in the
/// learner's command-line crate measures both on the same hands and counts
/// disagreements; `tests/hand_ranking.rs` checks both exhaustively). Its
/// tables cover only that deck and those sizes, so every other game (fewer
/// ranks or suits, fewer than five cards) goes to [`rank_hand`]. Strengths
/// of the two are different integers: compare only strengths from one
/// game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandEvaluator {
    /// rs_poker's tables: cards `rank * 4 + suit` of 13 ranks and 4 suits,
    /// five to seven of them.
    Tables,
    /// [`rank_hand`]: cards `rank * suits + suit`, any number.
    ClosedForms {
        /// Suits in the deck.
        suits: usize,
    },
}

impl HandEvaluator {
    /// The evaluator for hands of `cards` cards from a deck of `ranks`
    /// ranks and `suits` suits.
    pub fn for_hands(ranks: usize, suits: usize, cards: usize) -> HandEvaluator {
        if ranks == 13 && suits == 4 && (5..=7).contains(&cards) {
            HandEvaluator::Tables
        } else {
            HandEvaluator::ClosedForms { suits }
        }
    }

    /// The strength of a hand (higher wins, equal ties).
    pub fn strength(self, cards: impl IntoIterator<Item = u8>) -> u32 {
        match self {
            HandEvaluator::Tables => {
                let mut hand = rs_poker::core::SevenCardAccum::new();
                for card in cards {
                    hand.add(TABLE_CARDS[usize::from(card)]);
                }
                let rank = hand.rank();
                ((rank.category() as u32) << 12) | u32::from(rank.value_bits())
            }
            HandEvaluator::ClosedForms { suits } => {
                let mut by_suit: [Ranks; 4] = [0; 4];
                for card in cards {
                    let card = usize::from(card);
                    by_suit[card % suits] |= 1 << (card / suits);
                }
                rank_hand(by_suit)
            }
        }
    }

    /// The poker category of one of this evaluator's strengths, 0 (high
    /// card) to 8 (straight flush).
    pub fn category(self, strength: u32) -> usize {
        match self {
            HandEvaluator::Tables => (strength >> 12) as usize,
            HandEvaluator::ClosedForms { .. } => category(strength),
        }
    }
}

/// The poker category of a strength, 0 (high card) to 8 (straight flush).
pub fn category(strength: u32) -> usize {
    [
        PAIR,
        TWO_PAIR,
        TRIPS,
        STRAIGHT,
        FLUSH,
        FULL_HOUSE,
        QUADS,
        STRAIGHT_FLUSH,
    ]
    .iter()
    .filter(|&&base| strength >= base)
    .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rank masks by suit from cards written as OpenSpiel writes them.
    fn hand(text: &str) -> [Ranks; 4] {
        let mut by_suit = [0; 4];
        let chars: Vec<char> = text.chars().collect();
        for card in chars.chunks(2) {
            let rank = "23456789TJQKA".find(card[0]).unwrap();
            let suit = "cdhs".find(card[1]).unwrap();
            by_suit[suit] |= 1 << rank;
        }
        by_suit
    }

    #[test]
    fn categories_and_kickers_order_as_poker_does() {
        let order = [
            "2c3d4h5s7c9dJh", // high card
            "2c2d4h5s7c9dJh", // pair of deuces
            "AcAd2h3s7c9dJh", // pair of aces
            "2c2d3h3s7c9dJh", // two pair
            "2c2d2h5s7c9dJh", // trips
            "Ac2d3h4s5c9dJh", // wheel
            "2c3d4h5s6c9dJh", // six-high straight
            "TcJdQhKsAc9d2h", // broadway
            "2c4c6c8cTc9dJh", // flush
            "2c2d2h5s5c9dJh", // full house
            "2c2d2h2s7c9dJh", // quads
            "Ac2c3c4c5c9dJh", // steel wheel
            "TcJcQcKcAc9d2h", // royal flush
        ];
        let strengths: Vec<u32> = order.iter().map(|h| rank_hand(hand(h))).collect();
        assert!(
            strengths.windows(2).all(|w| w[0] < w[1]),
            "{order:?} {strengths:?}"
        );
        let categories: Vec<usize> = strengths.iter().map(|&s| category(s)).collect();
        assert_eq!(categories, [0, 1, 1, 2, 3, 4, 4, 4, 5, 6, 7, 8, 8]);
        // The best five of seven: the sixth and seventh cards do not count.
        assert_eq!(
            rank_hand(hand("AcKdQh9s7c3d2h")),
            rank_hand(hand("AcKdQh9s7c5d4h"))
        );
        // A pair's kickers count, highest first.
        assert!(rank_hand(hand("AcAdKhQs2c")) > rank_hand(hand("AcAdKhJsTc")));
        // Two cards, as in OpenSpiel's default game: a pair beats any high card.
        assert!(rank_hand(hand("2c2d")) > rank_hand(hand("AcKd")));
        assert_eq!(rank_hand(hand("7c")), colex(1 << 5));
    }
}
