//! One player's counterfactual values at a terminal public node, for each of
//! its hands: where the players' hands meet.
//!
//! For player `i` holding hand `h`, the value is the sum, over every deal of
//! hands to the other players that fits (no card twice, none on the board),
//! of the deal's chance probability times the others' reach probabilities
//! for their hands times `i`'s return. The chance probability of the public
//! moves is a factor of the node (`scale`); the deal's own probability is
//! [`DealWeights`].
//!
//! With cards, summing over every fitting deal to `m` opponents costs
//! `O(cards^m)` per hand if done deal by deal. Instead a dynamic programme
//! over the cards, whose state is the set of opponents already given a card
//! (`Injective`), gives every "sum over fitting deals" in
//! `O(cards · 2^m · m)` per node, for all hands at once:
//!
//! * a fixed payoff needs, for each hand `h`, the sum over deals avoiding
//!   `h` of the opponents' weights: the prefix and suffix programmes on
//!   either side of `h`, joined;
//! * a showdown needs, for each hand `h`, the deals where every contending
//!   opponent holds a weaker card, or one of equal strength (a tie, which
//!   splits the pot): with the cards sorted by strength, the prefix up to
//!   `h`'s strength (anyone), the cards of equal strength (anyone; a
//!   contender there ties), and the suffix above it (folded opponents only).
//!
//! Dice are dealt independently: a fixed payoff needs only each opponent's
//! total weight, and a two-player table is a matrix-vector product.

use crate::{Hands, Payoff};

/// The probability of each private deal, factored per player.
#[derive(Clone, Debug)]
pub struct DealWeights {
    /// Each hand's own weight (dice: its probability; cards: 1).
    pub hand: Vec<f64>,
    /// A factor of every deal (cards: 1 / the number of ordered deals).
    pub deal: f64,
    /// Whether hands are cards (then hands must differ and avoid the public
    /// cards).
    pub cards: bool,
}

impl DealWeights {
    /// The weights of a game's hands for `players` players.
    pub fn new(hands: &Hands, players: usize) -> DealWeights {
        match hands {
            Hands::Cards { cards } => DealWeights {
                hand: vec![1.0; *cards],
                deal: 1.0 / (0..players).map(|k| (cards - k) as f64).product::<f64>(),
                cards: true,
            },
            Hands::Independent { probabilities } => DealWeights {
                hand: probabilities.clone(),
                deal: 1.0,
                cards: false,
            },
        }
    }
}

/// Reusable buffers for [`counterfactual_values`] (one per walk, so that a
/// terminal node allocates nothing).
#[derive(Debug, Default)]
pub struct TerminalScratch {
    /// The opponents' weighted reach, `opponents × hands`.
    weighted: Vec<f64>,
    /// Cards in the order a programme visits them.
    order: Vec<usize>,
    prefix: Injective,
    suffix: Injective,
    /// Per hand: the sum over fitting deals avoiding it.
    avoiding: Vec<f64>,
    /// Scratch subset sums.
    combine: Vec<f64>,
    tie: Vec<f64>,
}

/// Writes `player`'s counterfactual value of every hand at a terminal node
/// into `out`: `reach` is every player's reach of each hand, row-major
/// `players × hands` (`player`'s own row is not read), `public_cards` the
/// cards on the board, `scale` the chance probability of the public moves.
#[allow(clippy::too_many_arguments)]
pub fn counterfactual_values(
    payoff: &Payoff,
    player: usize,
    reach: &[f64],
    weights: &DealWeights,
    public_cards: u64,
    scale: f64,
    scratch: &mut TerminalScratch,
    out: &mut [f64],
) {
    let hands = out.len();
    let players = reach.len() / hands;
    let scale = scale * weights.deal;
    // The opponents' reach times hand weights, public cards removed.
    scratch.weighted.clear();
    for p in (0..players).filter(|&p| p != player) {
        for h in 0..hands {
            let gone = weights.cards && public_cards & (1 << h) != 0;
            let v = if gone {
                0.0
            } else {
                reach[p * hands + h] * weights.hand[h]
            };
            scratch.weighted.push(v);
        }
    }
    let opponents = players - 1;
    let own = |h: usize| -> f64 {
        if weights.cards && public_cards & (1 << h) != 0 {
            0.0
        } else {
            scale * weights.hand[h]
        }
    };
    match payoff {
        Payoff::Table {
            hands: width,
            player0,
        } => {
            debug_assert_eq!((*width, opponents), (hands, 1));
            let other = &scratch.weighted[..hands];
            for (h, v) in out.iter_mut().enumerate() {
                let sum: f64 = (0..hands)
                    .map(|g| {
                        let value = if player == 0 {
                            player0[h * hands + g]
                        } else {
                            -player0[g * hands + h]
                        };
                        other[g] * value
                    })
                    .sum();
                *v = own(h) * sum;
            }
        }
        Payoff::Fixed(returns) => {
            let value = returns[player];
            avoiding_sums(scratch, weights.cards, opponents, hands);
            for (h, v) in out.iter_mut().enumerate() {
                *v = own(h) * value * scratch.avoiding[h];
            }
        }
        Payoff::Showdown {
            pot,
            contributions,
            contenders,
            strength,
        } => {
            avoiding_sums(scratch, weights.cards, opponents, hands);
            let cost = contributions[player];
            if !contenders.contains(&player) {
                for (h, v) in out.iter_mut().enumerate() {
                    *v = -own(h) * cost * scratch.avoiding[h];
                }
                return;
            }
            assert!(weights.cards, "showdowns are between cards");
            let opponent_ids: Vec<usize> = (0..players).filter(|&p| p != player).collect();
            let contending: usize = opponent_ids
                .iter()
                .enumerate()
                .filter(|(_, p)| contenders.contains(p))
                .map(|(k, _)| 1 << k)
                .sum();
            winning_sums(scratch, opponents, hands, strength, contending, out);
            for (h, v) in out.iter_mut().enumerate() {
                *v = own(h) * (pot * *v - cost * scratch.avoiding[h]);
            }
        }
    }
}

/// Fills `scratch.avoiding[h]` with the sum over fitting deals to the
/// opponents that avoid hand `h` of the product of their weighted reach.
fn avoiding_sums(scratch: &mut TerminalScratch, cards: bool, opponents: usize, hands: usize) {
    scratch.avoiding.clear();
    if !cards {
        // Independent hands: every opponent's total, multiplied.
        let total: f64 = scratch
            .weighted
            .chunks_exact(hands)
            .map(|row| row.iter().sum::<f64>())
            .product();
        scratch.avoiding.resize(hands, total);
        return;
    }
    scratch.order.clear();
    scratch.order.extend(0..hands);
    let (order, weighted) = (&scratch.order, &scratch.weighted);
    scratch
        .prefix
        .run(order, weighted, opponents, hands, usize::MAX);
    scratch
        .suffix
        .run_backwards(order, weighted, opponents, hands, usize::MAX);
    let full = (1 << opponents) - 1;
    for t in 0..hands {
        let before = scratch.prefix.after(t);
        let after = scratch.suffix.after(t + 1);
        let sum: f64 = (0..=full)
            .map(|mask| before[mask] * after[full ^ mask])
            .sum();
        scratch.avoiding.push(sum);
    }
}

/// Writes into `out[h]`, for each hand `h` of the walking player, the sum
/// over fitting deals of the opponents' weighted reach times the walking
/// player's share of the pot: 1 / (1 + ties) when every contending
/// opponent (bits of `contending`) holds a card no stronger than `h`, else
/// nothing.
fn winning_sums(
    scratch: &mut TerminalScratch,
    opponents: usize,
    hands: usize,
    strength: &[u32],
    contending: usize,
    out: &mut [f64],
) {
    let full = (1usize << opponents) - 1;
    let folded = full & !contending;
    scratch.order.clear();
    scratch.order.extend(0..hands);
    scratch.order.sort_by_key(|&c| strength[c]);
    let (order, weighted) = (&scratch.order, &scratch.weighted);
    // Below a card: anyone; above it: folded opponents only.
    scratch.prefix.run(order, weighted, opponents, hands, full);
    scratch
        .suffix
        .run_backwards(order, weighted, opponents, hands, folded);
    let mut start = 0;
    while start < hands {
        let s = strength[order[start]];
        let end = start
            + order[start..]
                .iter()
                .take_while(|&&c| strength[c] == s)
                .count();
        let below = scratch.prefix.after(start);
        let above = scratch.suffix.after(end);
        for t in start..end {
            let h = order[t];
            // The other cards of equal strength: anyone may hold them; each
            // contender there ties.
            tie_sums(
                &mut scratch.tie,
                order,
                start..end,
                t,
                weighted,
                opponents,
                hands,
            );
            let tie = &scratch.tie;
            // R[mask] = Σ over tie ⊎ above = mask, above ⊆ folded.
            scratch.combine.clear();
            scratch.combine.resize(full + 1, 0.0);
            for mask in 0..=full {
                let mut sub = mask & folded;
                loop {
                    let ties = mask ^ sub;
                    let share = 1.0 / (1 + (ties & contending).count_ones()) as f64;
                    scratch.combine[mask] += tie[ties] * share * above[sub];
                    if sub == 0 {
                        break;
                    }
                    sub = (sub - 1) & mask & folded;
                }
            }
            out[h] = (0..=full)
                .map(|mask| below[mask] * scratch.combine[full ^ mask])
                .sum();
        }
        start = end;
    }
}

/// Sums over giving the cards `order[group]` other than `order[skip]` to
/// subsets of the opponents (at most one card each), per subset, into
/// `tie`.
fn tie_sums(
    tie: &mut Vec<f64>,
    order: &[usize],
    group: std::ops::Range<usize>,
    skip: usize,
    weighted: &[f64],
    opponents: usize,
    hands: usize,
) {
    let size = 1 << opponents;
    tie.clear();
    tie.resize(size, 0.0);
    tie[0] = 1.0;
    for t in group.filter(|&t| t != skip) {
        let card = order[t];
        for mask in (0..size).rev() {
            for k in 0..opponents {
                if mask & (1 << k) != 0 {
                    tie[mask] += tie[mask ^ (1 << k)] * weighted[k * hands + card];
                }
            }
        }
    }
}

/// The programme over cards: `table[t][mask]` is the sum, over ways of
/// giving each opponent in `mask` one distinct card among the first `t`
/// cards of an order, of the product of their weights.
#[derive(Debug, Default)]
struct Injective {
    table: Vec<f64>,
    width: usize,
    backwards: bool,
    length: usize,
}

impl Injective {
    /// Runs forwards over `order`; only opponents in `allowed` may take
    /// cards.
    fn run(
        &mut self,
        order: &[usize],
        weighted: &[f64],
        opponents: usize,
        hands: usize,
        allowed: usize,
    ) {
        self.fill(order.iter().copied(), weighted, opponents, hands, allowed);
        self.backwards = false;
    }

    /// Runs backwards over `order` (so `after(t)` covers `order[t..]`).
    fn run_backwards(
        &mut self,
        order: &[usize],
        weighted: &[f64],
        opponents: usize,
        hands: usize,
        allowed: usize,
    ) {
        self.fill(
            order.iter().rev().copied(),
            weighted,
            opponents,
            hands,
            allowed,
        );
        self.backwards = true;
    }

    fn fill(
        &mut self,
        cards: impl ExactSizeIterator<Item = usize>,
        weighted: &[f64],
        opponents: usize,
        hands: usize,
        allowed: usize,
    ) {
        let width = 1 << opponents;
        self.width = width;
        self.length = cards.len();
        self.table.clear();
        self.table.resize(width * (self.length + 1), 0.0);
        self.table[0] = 1.0;
        for (t, card) in cards.enumerate() {
            let (done, next) = self.table.split_at_mut((t + 1) * width);
            let previous = &done[t * width..];
            let next = &mut next[..width];
            next.copy_from_slice(previous);
            for (mask, slot) in next.iter_mut().enumerate() {
                let mut bits = mask & allowed;
                while bits != 0 {
                    let k = bits.trailing_zeros() as usize;
                    *slot += previous[mask ^ (1 << k)] * weighted[k * hands + card];
                    bits &= bits - 1;
                }
            }
        }
    }

    /// The sums over the cards before position `t` of the order (forwards)
    /// or from position `t` on (backwards).
    fn after(&self, t: usize) -> &[f64] {
        let row = if self.backwards { self.length - t } else { t };
        &self.table[row * self.width..(row + 1) * self.width]
    }
}
