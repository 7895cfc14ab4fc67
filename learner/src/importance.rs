//! How far θ has drifted from the policies that played a batch: the spread
//! of v-trace's importance weights, which the training log reports.

/// The importance weights `ρ = π(a_t)/μ(a_t)` of a batch's taken actions
/// (θ's probability over the behaviour policy's): v-trace multiplies
/// returns by them, so stale or far-off behaviour shows here first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImportanceSpread {
    /// The largest ρ.
    pub max: f64,
    /// The mean of |log ρ| (0 when θ plays exactly the behaviour policy).
    pub mean_abs_log: f64,
}

/// The spread of the importance weights of the rows' `taken` cells of
/// θ's `policy` under behaviour probabilities `behaviour` (one per row).
pub fn importance_spread(policy: &[f32], taken: &[usize], behaviour: &[f32]) -> ImportanceSpread {
    let mut spread = ImportanceSpread::default();
    for (&cell, &mu) in taken.iter().zip(behaviour) {
        // θ's probability can underflow to 0 in f32; the floor keeps the
        // logarithm finite (a JSON log line cannot hold infinity).
        let rho = (f64::from(policy[cell]) / f64::from(mu)).max(f64::MIN_POSITIVE);
        spread.max = spread.max.max(rho);
        spread.mean_abs_log += rho.ln().abs();
    }
    spread.mean_abs_log /= taken.len().max(1) as f64;
    spread
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn importance_spread_reads_the_taken_actions_ratio() {
        // Two rows of two cells. Row 0 took its second (cell 1): π 0.5
        // over μ 0.25 → ρ = 2. Row 1 took its first (cell 2): π 0.2 over
        // μ 0.4 → ρ = 0.5. |log ρ| = ln 2 for both.
        let policy = [0.5, 0.5, 0.2, 0.8];
        let spread = importance_spread(&policy, &[1, 2], &[0.25, 0.4]);
        assert!((spread.max - 2.0).abs() < 1e-6, "{spread:?}");
        assert!((spread.mean_abs_log - 2f64.ln()).abs() < 1e-6, "{spread:?}");
        // On-policy: every ρ is 1.
        let on_policy = importance_spread(&policy, &[1, 2], &[0.5, 0.2]);
        assert!((on_policy.max - 1.0).abs() < 1e-6);
        assert!(on_policy.mean_abs_log < 1e-6);
        // θ's probability underflowed to 0: the spread stays finite.
        let underflow = importance_spread(&[0.0, 1.0], &[0], &[0.5]);
        assert!(underflow.mean_abs_log.is_finite() && underflow.mean_abs_log > 700.0);
    }
}
