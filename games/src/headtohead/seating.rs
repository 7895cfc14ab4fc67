//! Which player sits in which seat, for every game of a deal.
//!
//! With up to four players every permutation is played (at most 24), so
//! each player meets each deal from every seat and every order of the
//! others; beyond four, the n rotations of the given order (each player in
//! each seat once, the cyclic order kept), which balances seats but not
//! orders.

/// Players listed up to this many get every permutation.
pub const ALL_PERMUTATIONS_UP_TO: usize = 4;

/// The seatings of `players` players: `seating[seat]` is the player in
/// that seat.
pub fn seatings(players: usize) -> Vec<Vec<usize>> {
    if players <= ALL_PERMUTATIONS_UP_TO {
        permutations(players)
    } else {
        (0..players)
            .map(|shift| (0..players).map(|seat| (seat + shift) % players).collect())
            .collect()
    }
}

/// Every permutation of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current = Vec::with_capacity(n);
    let mut used = vec![false; n];
    fn extend(n: usize, current: &mut Vec<usize>, used: &mut [bool], out: &mut Vec<Vec<usize>>) {
        if current.len() == n {
            out.push(current.clone());
            return;
        }
        for p in 0..n {
            if !used[p] {
                used[p] = true;
                current.push(p);
                extend(n, current, used, out);
                current.pop();
                used[p] = false;
            }
        }
    }
    extend(n, &mut current, &mut used, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_matches_play_every_permutation_and_large_ones_every_rotation() {
        assert_eq!(seatings(2), vec![vec![0, 1], vec![1, 0]]);
        let three = seatings(3);
        assert_eq!(three.len(), 6);
        assert_eq!(three[1], vec![0, 2, 1]);
        assert_eq!(seatings(4).len(), 24);
        let six = seatings(6);
        assert_eq!(six.len(), 6);
        for seat in 0..6 {
            let mut players: Vec<usize> = six.iter().map(|s| s[seat]).collect();
            players.sort_unstable();
            assert_eq!(players, (0..6).collect::<Vec<_>>(), "seat {seat}");
        }
    }
}
