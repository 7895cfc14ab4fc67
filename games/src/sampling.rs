//! Drawing one item of a discrete distribution from a uniform number: how
//! actors sample chance and actions, and how matches replay a deal's public
//! chance.

/// Inverse-CDF sampling: the first item whose probability exceeds what is
/// left of `u` after subtracting those before it, or the last item when
/// rounding leaves some of `u` over.
pub fn inverse_cdf<T>(mut u: T, items: impl IntoIterator<Item = (usize, T)>) -> usize
where
    T: Copy + PartialOrd + std::ops::SubAssign,
{
    let mut last = 0;
    for (item, p) in items {
        if u < p {
            return item;
        }
        u -= p;
        last = item;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::inverse_cdf;

    #[test]
    fn inverse_cdf_walks_the_cumulative_probabilities() {
        let items = [(3, 0.25), (5, 0.5), (8, 0.25)];
        assert_eq!(inverse_cdf(0.0, items), 3);
        assert_eq!(inverse_cdf(0.3, items), 5);
        assert_eq!(inverse_cdf(0.8, items), 8);
        // Probabilities that sum to a hair under 1 still give an item.
        assert_eq!(inverse_cdf(0.9999f32, [(1, 0.5f32), (2, 0.4999)]), 2);
    }
}
