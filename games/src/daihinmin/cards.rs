//! Daihinmin's 53 cards as bits of a `u64`: card `rank * 4 + suit` for the
//! 52 ordinary cards, ranks in playing strength from 3 (rank 0) up to 2
//! (rank 12), suits ♠ ♥ ♦ ♣ (0–3, the order of UECda's table rows and of
//! the exchange's tie-break, ♠ strongest); the joker is bit 52.

use std::fmt::Write;

use rand::{Rng, RngExt};

/// A set of cards.
pub type Cards = u64;

/// Ranks, weakest first (outside a revolution).
pub const RANKS: usize = 13;
/// Suits.
pub const SUITS: usize = 4;
/// The joker's bit index.
pub const JOKER_INDEX: usize = 52;
/// The joker.
pub const JOKER: Cards = 1 << JOKER_INDEX;
/// Every card.
pub const DECK: Cards = (1 << 53) - 1;
/// The rank of the eights (8-cut).
pub const EIGHT: usize = 5;
/// ♠3: the only card that beats a lone joker.
pub const SPADE_THREE: Cards = 1;
/// ♦3: its holder leads the first trick.
pub const DIAMOND_THREE: Cards = 1 << 2;

const RANK_TEXT: &[u8; RANKS] = b"3456789TJQKA2";
const SUIT_TEXT: &[u8; SUITS] = b"SHDC";

/// The card of `rank` and `suit`.
pub const fn card(rank: usize, suit: usize) -> Cards {
    1 << (rank * SUITS + suit)
}

/// The four cards of `rank`.
pub const fn rank_cards(rank: usize) -> Cards {
    0b1111 << (rank * SUITS)
}

/// How strong a single card is for the exchange (higher is stronger): the
/// joker, then by rank, ties broken ♠ > ♥ > ♦ > ♣.
pub fn exchange_strength(index: usize) -> usize {
    if index == JOKER_INDEX {
        return usize::MAX;
    }
    let (rank, suit) = (index / SUITS, index % SUITS);
    rank * SUITS + (SUITS - 1 - suit)
}

/// The bit indices of `cards`, lowest first.
pub fn indices(cards: Cards) -> impl Iterator<Item = usize> {
    let mut rest = cards;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            i
        })
    })
}

/// A card as text: rank then suit (`3S`, `TH`, `2C`), `JK` for the joker.
pub fn card_text(index: usize) -> String {
    if index == JOKER_INDEX {
        return "JK".into();
    }
    let (rank, suit) = (index / SUITS, index % SUITS);
    format!("{}{}", RANK_TEXT[rank] as char, SUIT_TEXT[suit] as char)
}

/// Cards as text, weakest first, space-separated (`-` for none).
pub fn cards_text(cards: Cards) -> String {
    if cards == 0 {
        return "-".into();
    }
    let mut out = String::new();
    for (i, index) in indices(cards).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{}", card_text(index));
    }
    out
}

/// The card a text names (`card_text`'s inverse).
pub fn parse_card(text: &str) -> Option<usize> {
    if text == "JK" {
        return Some(JOKER_INDEX);
    }
    let bytes = text.as_bytes();
    if bytes.len() != 2 {
        return None;
    }
    let rank = RANK_TEXT.iter().position(|&r| r == bytes[0])?;
    let suit = SUIT_TEXT.iter().position(|&s| s == bytes[1])?;
    Some(rank * SUITS + suit)
}

/// Cards from space-separated texts.
pub fn parse_cards(text: &str) -> Option<Cards> {
    text.split_whitespace()
        .try_fold(0, |set, word| Some(set | 1 << parse_card(word)?))
}

/// `k` cards drawn uniformly from `cards`.
pub fn draw(cards: Cards, k: usize, rng: &mut impl Rng) -> Cards {
    let mut pool: Vec<usize> = indices(cards & DECK).collect();
    let mut out = 0;
    for _ in 0..k {
        let i = rng.random_range(0..pool.len());
        out |= 1 << pool.swap_remove(i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_read_back_from_their_text_and_the_exchange_orders_them() {
        assert_eq!(cards_text(DECK).split(' ').count(), 53);
        assert_eq!(parse_cards(&cards_text(DECK)), Some(DECK));
        assert_eq!(card_text(0), "3S");
        assert_eq!(card_text(2), "3D");
        assert_eq!(1u64 << parse_card("3D").unwrap(), DIAMOND_THREE);
        assert_eq!(card_text(EIGHT * SUITS), "8S");
        assert_eq!(card_text(51), "2C");
        let by_strength = |text: &str| exchange_strength(parse_card(text).unwrap());
        assert!(by_strength("JK") > by_strength("2S"));
        assert!(by_strength("2S") > by_strength("2H"));
        assert!(by_strength("2C") > by_strength("AS"));
        assert!(by_strength("3D") > by_strength("3C"));
        assert_eq!(parse_cards("5X"), None);
    }
}
