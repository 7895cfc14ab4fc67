//! A weighted reservoir: a fixed number of items drawn without replacement
//! from everything ever offered, each offered item kept with a chance that
//! grows with its weight (Efraimidis and Spirakis' A-Res: keep the items
//! with the largest `u^(1/w)`, `u` uniform in (0, 1)).
//!
//! Weights here grow exponentially with the learner step (`w = e^(t/H)`),
//! which overflows `f64` within a run, so the key is kept in a form that
//! orders the same way and stays finite: `ln(−ln u) − ln w`, smallest kept.
//! With every weight equal this is plain reservoir sampling: a uniform
//! sample of all items offered.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rand::RngExt;

/// An item and its key (smaller keys are kept).
#[derive(Debug)]
struct Keyed<T> {
    key: f64,
    item: T,
}

impl<T> PartialEq for Keyed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.key.total_cmp(&other.key) == Ordering::Equal
    }
}

impl<T> Eq for Keyed<T> {}

impl<T> PartialOrd for Keyed<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Keyed<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.total_cmp(&other.key)
    }
}

/// At most `capacity` items, a weighted sample without replacement of all
/// items offered.
#[derive(Debug)]
pub struct Reservoir<T> {
    capacity: usize,
    /// A max-heap on the key: the top is the first item to go.
    heap: BinaryHeap<Keyed<T>>,
}

impl<T> Reservoir<T> {
    /// An empty reservoir holding at most `capacity` items.
    pub fn new(capacity: usize) -> Reservoir<T> {
        Reservoir {
            capacity,
            heap: BinaryHeap::with_capacity(capacity),
        }
    }

    /// Offers `item` with weight `e^log_weight`; `item` is built only if it
    /// is kept.
    pub fn offer(&mut self, log_weight: f64, rng: &mut impl rand::Rng, item: impl FnOnce() -> T) {
        // u in (0, 1]: 1 - [0, 1); ln(-ln u) is -inf at u = 1 (kept first).
        let u: f64 = 1.0 - rng.random::<f64>();
        let key = (-u.ln()).ln() - log_weight;
        if self.heap.len() < self.capacity {
            self.heap.push(Keyed { key, item: item() });
        } else if self.heap.peek().is_some_and(|top| key < top.key) {
            self.heap.pop();
            self.heap.push(Keyed { key, item: item() });
        }
    }

    /// `count` items drawn uniformly with replacement from those held
    /// (none if it is empty).
    pub fn draw(&self, count: usize, rng: &mut impl rand::Rng) -> Vec<&T> {
        let held = self.heap.as_slice();
        if held.is_empty() {
            return Vec::new();
        }
        (0..count)
            .map(|_| &held[rng.random_range(0..held.len())].item)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Equal weights: every item offered is kept with chance
    /// capacity / offered (binomial counts over repeated fills).
    #[test]
    fn equal_weights_keep_a_uniform_sample() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (offered, capacity, fills) = (20usize, 5usize, 4000usize);
        let mut kept = vec![0usize; offered];
        for _ in 0..fills {
            let mut reservoir = Reservoir::new(capacity);
            for i in 0..offered {
                reservoir.offer(0.0, &mut rng, || i);
            }
            assert_eq!(reservoir.heap.len(), capacity);
            for keyed in reservoir.heap.as_slice() {
                kept[keyed.item] += 1;
            }
        }
        // Each count is Binomial(4000, 1/4): mean 1000, sd 27.4; 5 sd.
        for (i, &k) in kept.iter().enumerate() {
            assert!((863..=1137).contains(&k), "item {i} kept {k} times");
        }
    }

    /// With capacity one the item kept is item i with chance w_i / Σ w
    /// (A-Res draws the first item of a weighted sample exactly so).
    #[test]
    fn one_slot_keeps_an_item_in_proportion_to_its_weight() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let weights = [1.0f64, 2.0, 3.0, 4.0];
        let fills = 20_000;
        let mut kept = [0usize; 4];
        for _ in 0..fills {
            let mut reservoir = Reservoir::new(1);
            for (i, w) in weights.iter().enumerate() {
                reservoir.offer(w.ln(), &mut rng, || i);
            }
            kept[*reservoir.draw(1, &mut rng)[0]] += 1;
        }
        for (i, w) in weights.iter().enumerate() {
            let p = w / 10.0;
            let sd = (fills as f64 * p * (1.0 - p)).sqrt();
            let expected = fills as f64 * p;
            assert!(
                (kept[i] as f64 - expected).abs() < 5.0 * sd,
                "item {i} of weight {w}: kept {} times, expected {expected:.0}",
                kept[i]
            );
        }
    }

    /// Exponential weights of a long run stay orderable: the newest items
    /// dominate and nothing overflows.
    #[test]
    fn exponential_weights_far_into_a_run_keep_the_recent_items() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut reservoir = Reservoir::new(100);
        let horizon = 1_000.0;
        for step in 0..1_000_000u64 {
            reservoir.offer(step as f64 / horizon, &mut rng, || step);
        }
        let oldest = reservoir.heap.iter().map(|k| k.item).min().unwrap();
        // Items older than 10 horizons carry weight e^-10 of the newest.
        assert!(oldest > 1_000_000 - 10_000, "oldest kept step {oldest}");
        assert!(reservoir.heap.iter().all(|k| k.key.is_finite()));
        assert!(Reservoir::<u8>::new(3).draw(5, &mut rng).is_empty());
    }
}
