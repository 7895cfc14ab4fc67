//! What a match says about each player: its mean payoff per game with a
//! 95% confidence interval, and its means per seat.
//!
//! In the duplicate format the games of one deal are paired (the same cards
//! for every seating), so the unit of sampling is the deal: a player's
//! payoff on a deal is its mean over that deal's seatings, and the interval
//! is `1.96 · s / √N` over the N deals' payoffs, `s` their sample standard
//! deviation.

use serde::Serialize;

/// One player's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerResult {
    /// The player as named on the command line.
    pub name: String,
    /// Mean payoff per game (chips).
    pub mean: f64,
    /// Half-width of the 95% confidence interval of `mean` over deals (0 in
    /// exact mode).
    pub ci95: f64,
    /// Mean payoff per game in each seat.
    pub per_seat: Vec<f64>,
    /// `mean` in milli-big-blinds per game (poker; the big blind is the
    /// ante).
    pub mbb_per_game: Option<f64>,
    /// `ci95` in milli-big-blinds.
    pub ci95_mbb: Option<f64>,
}

/// Collects every game's returns and summarises them per player.
#[derive(Debug)]
pub struct Tally {
    players: usize,
    seats: usize,
    /// Per deal, per player: sum of payoffs and games.
    by_deal: Vec<Vec<(f64, usize)>>,
    /// Per player, per seat: sum of payoffs and games.
    by_seat: Vec<Vec<(f64, usize)>>,
}

impl Tally {
    /// An empty tally of `deals` deals for `players` players in `seats`
    /// seats (more seats than players when a player fills several).
    pub fn new(players: usize, seats: usize, deals: usize) -> Tally {
        Tally {
            players,
            seats,
            by_deal: vec![vec![(0.0, 0); players]; deals],
            by_seat: vec![vec![(0.0, 0); seats]; players],
        }
    }

    /// Records one game of deal `deal`: `returns[seat]` with
    /// `seating[seat]` in each seat.
    pub fn record(&mut self, deal: usize, seating: &[usize], returns: &[f64]) {
        for (seat, (&player, &value)) in seating.iter().zip(returns).enumerate() {
            let cell = &mut self.by_deal[deal][player];
            cell.0 += value;
            cell.1 += 1;
            let cell = &mut self.by_seat[player][seat];
            cell.0 += value;
            cell.1 += 1;
        }
    }

    /// Each player's result; `big_blind` converts chips to milli-big-blinds
    /// (poker only).
    pub fn results(&self, names: &[String], big_blind: Option<f64>) -> Vec<PlayerResult> {
        (0..self.players)
            .map(|p| {
                let per_deal: Vec<f64> = self
                    .by_deal
                    .iter()
                    .map(|deal| deal[p].0 / deal[p].1.max(1) as f64)
                    .collect();
                let (mean, ci95) = mean_and_ci95(&per_deal);
                let per_seat = (0..self.seats)
                    .map(|s| {
                        let (sum, games) = self.by_seat[p][s];
                        sum / games.max(1) as f64
                    })
                    .collect();
                PlayerResult {
                    name: names[p].clone(),
                    mean,
                    ci95,
                    per_seat,
                    mbb_per_game: big_blind.map(|bb| 1000.0 * mean / bb),
                    ci95_mbb: big_blind.map(|bb| 1000.0 * ci95 / bb),
                }
            })
            .collect()
    }
}

/// The mean of `values` and the half-width of its 95% confidence interval
/// (normal approximation; 0 for fewer than two values).
pub fn mean_and_ci95(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, 1.96 * (variance / n).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_over_deals_and_seats_are_kept_apart() {
        // Two players, two deals, both seatings each. Player 0 wins 2 on
        // deal 0 in both seats and loses 1 on deal 1 in both seats.
        let mut tally = Tally::new(2, 2, 2);
        tally.record(0, &[0, 1], &[2.0, -2.0]);
        tally.record(0, &[1, 0], &[-2.0, 2.0]);
        tally.record(1, &[0, 1], &[-1.0, 1.0]);
        tally.record(1, &[1, 0], &[1.0, -1.0]);
        let names = ["a".to_string(), "b".to_string()];
        let results = tally.results(&names, Some(1.0));
        // Per-deal payoffs of player 0: 2 and −1: mean 0.5, s = 2.1213…,
        // interval 1.96 · s / √2 = 2.94.
        assert!((results[0].mean - 0.5).abs() < 1e-12);
        assert!((results[0].ci95 - 1.96 * (4.5f64).sqrt() / 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(results[0].per_seat, vec![0.5, 0.5]);
        assert_eq!(results[1].mean, -0.5);
        assert_eq!(results[0].mbb_per_game, Some(500.0));
    }
}
