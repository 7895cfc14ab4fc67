//! The entropy schedule: how strongly the policy is pulled toward the
//! regularisation policy at each learner step, and when the regularisation
//! rolls.
//!
//! Periods have sizes `sizes[k]`, each repeated `repeats[k]` times; the
//! last size repeats forever. Within a period starting at `start` with
//! size `size`, `α = min(2·(step − start)/size, 1)` interpolates from the
//! previous regularisation policy to the current one, and the
//! regularisation rolls at the period's last step, `start + size − 1`
//! (never at step 0).

/// Where a learner step falls in the schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchedulePoint {
    /// Weight of the current regularisation policy (1 − α goes to the
    /// previous one).
    pub alpha: f64,
    /// Whether the regularisation rolls after this step.
    pub roll: bool,
    /// First step of the current period.
    pub period_start: u64,
}

/// Period sizes and their repeat counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntropySchedule {
    sizes: Vec<u64>,
    repeats: Vec<u64>,
}

impl EntropySchedule {
    /// A schedule; `sizes` and `repeats` are non-empty, positive and of equal
    /// length (the config validates this).
    pub fn new(sizes: Vec<u64>, repeats: Vec<u64>) -> Self {
        assert!(
            !sizes.is_empty() && sizes.len() == repeats.len(),
            "entropy schedule needs one repeat count per size"
        );
        EntropySchedule { sizes, repeats }
    }

    /// The start and size of the period containing `step`.
    pub fn period(&self, step: u64) -> (u64, u64) {
        let mut start = 0;
        for (&size, &repeats) in self.sizes.iter().zip(&self.repeats) {
            let span = size * repeats;
            if step < start + span {
                return (start + (step - start) / size * size, size);
            }
            start += span;
        }
        let size = *self.sizes.last().expect("non-empty schedule");
        (start + (step - start) / size * size, size)
    }

    /// α and the roll flag at `step`.
    pub fn at(&self, step: u64) -> SchedulePoint {
        let (start, size) = self.period(step);
        SchedulePoint {
            alpha: (2.0 * (step - start) as f64 / size as f64).min(1.0),
            roll: step > 0 && step == start + size - 1,
            period_start: start,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_and_rolls_follow_sizes_and_repeats() {
        let schedule = EntropySchedule::new(vec![3, 5, 10], vec![2, 4, 1]);
        let starts: Vec<u64> = (0..80).map(|s| schedule.at(s).period_start).collect();
        let mut distinct = starts.clone();
        distinct.dedup();
        assert_eq!(distinct, vec![0, 3, 6, 11, 16, 21, 26, 36, 46, 56, 66, 76]);
        let rolls: Vec<u64> = (0..80).filter(|&s| schedule.at(s).roll).collect();
        assert_eq!(rolls, vec![2, 5, 10, 15, 20, 25, 35, 45, 55, 65, 75]);
    }

    #[test]
    fn alpha_rises_over_the_first_half_of_a_period() {
        let schedule = EntropySchedule::new(vec![3, 5, 10], vec![2, 4, 1]);
        // Period [26, 36), size 10: α = min(2(step − 26)/10, 1).
        let alphas: Vec<f64> = (26..36).map(|s| schedule.at(s).alpha).collect();
        assert_eq!(
            alphas,
            vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 1.0, 1.0, 1.0]
        );
        // Period [6, 11), size 5.
        assert_eq!(schedule.at(6).alpha, 0.0);
        assert_eq!(schedule.at(7).alpha, 0.4);
        assert_eq!(schedule.at(9).alpha, 1.0);
        // Size 3: 2/3 then 1.
        assert!((schedule.at(1).alpha - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(schedule.at(2).alpha, 1.0);
    }

    #[test]
    fn step_zero_never_rolls_even_with_size_one() {
        let schedule = EntropySchedule::new(vec![1], vec![1]);
        assert!(!schedule.at(0).roll);
        assert!(schedule.at(1).roll && schedule.at(2).roll);
    }
}
