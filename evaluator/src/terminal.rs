//! One player's counterfactual values at a terminal public node, for each of
//! its hands: where the players' hands meet.
//!
//! For player `i` holding hand `h`, the value is the sum, over every deal of
//! hands to the other players that fits (no card twice, none on the board),
//! of the deal's chance probability times the others' reach probabilities
//! for their hands times `i`'s return. The chance probability of the public
//! moves is a factor of the node (`scale`); the deal's own probability is
//! [`DealWeights`]. A fixed payoff needs only the sum of the others' reach
//! products ([`fitting_mass`]); a showdown or a table looks at each deal.

use rnad_common::game::{Hands, Payoff};

/// The probability of each private deal, factored per player.
#[derive(Clone, Debug)]
pub struct DealWeights {
    /// Each hand's own weight (dice: its probability; cards: 1).
    pub hand: Vec<f64>,
    /// A factor of every deal (cards: 1 / the number of ordered deals).
    pub deal: f64,
    /// Cards in the deck, when hands are cards (then hands must differ and
    /// avoid the public cards).
    pub cards: Option<usize>,
}

impl DealWeights {
    /// The weights of a game's hands for `players` players.
    pub fn new(hands: &Hands, players: usize) -> DealWeights {
        match hands {
            Hands::Cards { cards } => DealWeights {
                hand: vec![1.0; *cards],
                deal: 1.0 / (0..players).map(|k| (cards - k) as f64).product::<f64>(),
                cards: Some(*cards),
            },
            Hands::Independent { probabilities } => DealWeights {
                hand: probabilities.clone(),
                deal: 1.0,
                cards: None,
            },
        }
    }
}

/// Writes `player`'s counterfactual value of every hand at a terminal node
/// into `out`: `reach[j]` is player `j`'s reach of each hand (the entry of
/// `player` itself is not read), `public_cards` the cards on the board,
/// `scale` the chance probability of the public moves.
pub fn counterfactual_values(
    payoff: &Payoff,
    player: usize,
    reach: &[&[f64]],
    weights: &DealWeights,
    public_cards: u64,
    scale: f64,
    out: &mut [f64],
) {
    let hands = out.len();
    let scale = scale * weights.deal;
    match payoff {
        Payoff::Fixed(returns) => {
            let value = returns[player];
            for (h, v) in out.iter_mut().enumerate() {
                *v = if fits(weights, public_cards, h) {
                    value
                        * scale
                        * weights.hand[h]
                        * fitting_mass(reach, player, weights, public_cards | bit(weights, h))
                } else {
                    0.0
                };
            }
        }
        Payoff::Table {
            hands: width,
            player0,
        } => {
            debug_assert_eq!(*width, hands);
            let other = 1 - player;
            for (h, v) in out.iter_mut().enumerate() {
                let mut sum = 0.0;
                for g in 0..hands {
                    let value = if player == 0 {
                        player0[h * hands + g]
                    } else {
                        -player0[g * hands + h]
                    };
                    sum += weights.hand[g] * reach[other][g] * value;
                }
                *v = scale * weights.hand[h] * sum;
            }
        }
        Payoff::Showdown {
            pot,
            contributions,
            contenders,
            strength,
        } => {
            let others: Vec<usize> = (0..reach.len()).filter(|&p| p != player).collect();
            let mut assignment = vec![0usize; reach.len()];
            for (h, v) in out.iter_mut().enumerate() {
                if !fits(weights, public_cards, h) {
                    *v = 0.0;
                    continue;
                }
                assignment[player] = h;
                let mut sum = 0.0;
                each_deal(
                    &others,
                    reach,
                    weights,
                    public_cards | bit(weights, h),
                    &mut assignment,
                    1.0,
                    &mut |hands, mass| {
                        let best = contenders.iter().map(|&p| strength[hands[p]]).max();
                        let winners = contenders
                            .iter()
                            .filter(|&&p| Some(strength[hands[p]]) == best)
                            .count();
                        let won = if contenders.contains(&player)
                            && Some(strength[hands[player]]) == best
                        {
                            pot / winners as f64
                        } else {
                            0.0
                        };
                        sum += mass * (won - contributions[player]);
                    },
                );
                *v = scale * weights.hand[h] * sum;
            }
        }
    }
}

/// The bit of card `hand` when hands are cards (0 otherwise).
fn bit(weights: &DealWeights, hand: usize) -> u64 {
    match weights.cards {
        Some(_) => 1 << hand,
        None => 0,
    }
}

/// Whether `hand` can be held with `used` cards gone.
fn fits(weights: &DealWeights, used: u64, hand: usize) -> bool {
    weights.cards.is_none() || used & (1 << hand) == 0
}

/// Calls `f(hands, mass)` for every way to give the `others` hands that fit
/// (`used` cards gone), `mass` being the product of their weights and reach.
fn each_deal(
    others: &[usize],
    reach: &[&[f64]],
    weights: &DealWeights,
    used: u64,
    hands: &mut [usize],
    mass: f64,
    f: &mut impl FnMut(&[usize], f64),
) {
    let Some((&p, rest)) = others.split_first() else {
        f(hands, mass);
        return;
    };
    for h in 0..weights.hand.len() {
        let m = mass * reach[p][h] * weights.hand[h];
        if m == 0.0 || !fits(weights, used, h) {
            continue;
        }
        hands[p] = h;
        each_deal(rest, reach, weights, used | bit(weights, h), hands, m, f);
    }
}

/// The sum over every fitting deal to the players other than `player` of
/// the product of their weights and reach probabilities, with `used` cards
/// gone.
pub fn fitting_mass(reach: &[&[f64]], player: usize, weights: &DealWeights, used: u64) -> f64 {
    let others: Vec<usize> = (0..reach.len()).filter(|&p| p != player).collect();
    let mut hands = vec![0usize; reach.len()];
    let mut total = 0.0;
    each_deal(
        &others,
        reach,
        weights,
        used,
        &mut hands,
        1.0,
        &mut |_, mass| total += mass,
    );
    total
}
