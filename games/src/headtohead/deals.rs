//! The fixed chance of a match: every deal drawn once from the seed, and
//! replayed for every seating (duplicate format), so that luck cancels
//! between players.
//!
//! A deal gives each seat its private hand (drawn as the game deals them:
//! distinct cards uniformly, or independent hands with their
//! probabilities) and one uniform number for each later public chance move
//! (a board card), used by inverse CDF over that move's outcomes. The board
//! then depends only on the deal, never on the betting, so every seating
//! sees the same cards.

use crate::sampling::inverse_cdf;
use crate::Hands;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One deal: the hands by seat and the numbers for public chance moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Deal {
    /// Each seat's private hand.
    pub hands: Vec<usize>,
    /// One uniform number in [0, 1) per public chance move, in order.
    pub public: Vec<f64>,
}

/// Most public chance moves a deal carries numbers for.
const PUBLIC_MOVES: usize = 4;

/// `count` deals for `players` seats, drawn from `seed` (deal `d` from its
/// own stream, so a deal does not depend on how many are drawn).
pub fn draw(hands: &Hands, players: usize, count: usize, seed: u64) -> Vec<Deal> {
    (0..count)
        .map(|d| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(d as u64);
            let hands = match hands {
                Hands::Cards { cards } => {
                    let mut deck: Vec<usize> = (0..*cards).collect();
                    (0..players)
                        .map(|_| deck.swap_remove(rng.random_range(0..deck.len())))
                        .collect()
                }
                Hands::Independent { probabilities } => (0..players)
                    .map(|_| {
                        inverse_cdf(
                            rng.random::<f64>(),
                            probabilities.iter().copied().enumerate(),
                        )
                    })
                    .collect(),
            };
            let public = (0..PUBLIC_MOVES).map(|_| rng.random::<f64>()).collect();
            Deal { hands, public }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deals_are_reproducible_distinct_cards_and_independent_of_the_count() {
        let cards = Hands::Cards { cards: 6 };
        let ten = draw(&cards, 2, 10, 7);
        assert_eq!(ten, draw(&cards, 2, 10, 7));
        assert_eq!(&ten[..3], &draw(&cards, 2, 3, 7)[..]);
        assert_ne!(ten, draw(&cards, 2, 10, 8));
        for deal in &ten {
            assert_ne!(deal.hands[0], deal.hands[1]);
            assert!(deal.hands.iter().all(|&h| h < 6));
            assert!(deal.public.iter().all(|u| (0.0..1.0).contains(u)));
        }
        // Every card shows up over many deals.
        let many = draw(&cards, 2, 600, 1);
        for card in 0..6 {
            let count = many.iter().filter(|d| d.hands[0] == card).count();
            assert!((70..=130).contains(&count), "card {card}: {count} of 600");
        }
    }
}
