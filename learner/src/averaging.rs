//! The regularisation update at each roll of the entropy schedule: plain
//! R-NaD copies the target network; seed 000's two-stage averaging moves the
//! regularisation network toward it by an EMA, an arithmetic mean, or an
//! arithmetic mean that turns into an EMA.

use candle_core::Result;
use rnad_net::ParamSet;
use rnad_run::config::Averaging;

/// The rate at which `θ_reg` moves toward `θ_target` at the `n`-th roll
/// (`n` from 1): the new `θ_reg` is `θ_reg + rate · (θ_target − θ_reg)`.
pub fn rate(mode: Averaging, gamma: f64, n: u64) -> f64 {
    let mean = 1.0 / (n as f64 + 1.0);
    match mode {
        Averaging::None => 1.0,
        Averaging::Ema => gamma,
        Averaging::Am => mean,
        Averaging::Scheduled => mean.max(gamma),
    }
}

/// The new `θ_reg` at the `n`-th roll (`n` from 1).
pub fn next_reg(
    mode: Averaging,
    gamma: f64,
    n: u64,
    reg: &ParamSet,
    target: &ParamSet,
) -> Result<ParamSet> {
    match mode {
        Averaging::None => Ok(target.clone()),
        _ => reg.lerp(target, rate(mode, gamma, n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor};

    fn set(values: &[f32]) -> ParamSet {
        ParamSet::from_tensors(vec![Tensor::new(values, &Device::Cpu).unwrap()])
    }

    fn roll(mode: Averaging, gamma: f64, n: u64, reg: &[f32], target: &[f32]) -> Vec<f32> {
        next_reg(mode, gamma, n, &set(reg), &set(target))
            .unwrap()
            .to_vec()
            .unwrap()
    }

    fn close(a: &[f32], b: &[f32]) {
        assert!(
            a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6),
            "{a:?} vs {b:?}"
        );
    }

    #[test]
    fn plain_rnad_copies_the_target() {
        close(
            &roll(Averaging::None, 0.001, 7, &[1.0, -2.0], &[3.0, 5.0]),
            &[3.0, 5.0],
        );
    }

    #[test]
    fn ema_moves_by_gamma() {
        // 1 + 0.1·(3 − 1) = 1.2; −2 + 0.1·(5 + 2) = −1.3.
        close(
            &roll(Averaging::Ema, 0.1, 1, &[1.0, -2.0], &[3.0, 5.0]),
            &[1.2, -1.3],
        );
        close(
            &roll(Averaging::Ema, 0.1, 50, &[1.0, -2.0], &[3.0, 5.0]),
            &[1.2, -1.3],
        );
    }

    #[test]
    fn am_keeps_the_running_mean_of_all_targets() {
        // Initial reg 0, then targets 3, 6, 9: means 1.5, 3, 4.5 of (0, 3, 6, 9).
        let mut reg = vec![0.0f32];
        for (n, target, mean) in [(1, 3.0, 1.5), (2, 6.0, 3.0), (3, 9.0, 4.5)] {
            reg = roll(Averaging::Am, 0.5, n, &reg, &[target]);
            close(&reg, &[mean]);
        }
    }

    #[test]
    fn scheduled_is_am_until_one_over_n_plus_one_drops_below_gamma() {
        assert_eq!(rate(Averaging::Scheduled, 0.001, 1), 0.5);
        assert_eq!(rate(Averaging::Scheduled, 0.001, 998), 1.0 / 999.0);
        assert_eq!(rate(Averaging::Scheduled, 0.001, 999), 0.001);
        assert_eq!(rate(Averaging::Scheduled, 0.001, 5000), 0.001);
        close(&roll(Averaging::Scheduled, 0.25, 1, &[0.0], &[4.0]), &[2.0]);
        close(&roll(Averaging::Scheduled, 0.25, 9, &[0.0], &[4.0]), &[1.0]);
    }
}
