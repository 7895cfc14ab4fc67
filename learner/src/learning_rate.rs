//! The learning-rate schedule: Adam's rate at each learner step.
//!
//! With b1 = 0, Adam moves every weight by about the learning rate at every
//! step, whatever the gradient's size, so at a constant rate the online
//! network keeps moving around the point it is pulled toward. A decaying
//! rate was the obvious remedy for the default Leduc run's wandering; on
//! Leduc it did not calm the wandering and slowed progress
//! (docs/results/leduc-quality/), so it is off by default and kept as a
//! knob.
//!
//! A decay can also start late, so that a run first gets to its level at
//! the full rate. On the default Leduc run neither a late cut (to a third,
//! once the played average had levelled out) nor a decay from 600k steps
//! lowered the average: the decay calmed the target, and the average of a
//! calmer target gained less. The start step is there for settings such as
//! seed 000's, where a decay from 300k left a third of the late drift.
//!
//! `lr(t) = lr₀ · f^clamp((t − S)/T, 0, 1)` with `f` =
//! `rnad.learning_rate_final_fraction`, `T` = `rnad.learning_rate_decay_steps`
//! and `S` = `rnad.learning_rate_decay_start_step`: constant until step `S`,
//! a geometric decay to `f` times the configured rate over the next `T`
//! steps, then constant. `T = 0` keeps the rate constant. `t` is the run's
//! learner step, so a run resumed with a decay it did not have before
//! starts at the rate the schedule gives its current step.

use rnad_run::config::RnadConfig;

/// Adam's learning rate as a function of the learner step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LearningRateSchedule {
    initial: f64,
    final_fraction: f64,
    decay_start_step: u64,
    decay_steps: u64,
}

impl LearningRateSchedule {
    /// The schedule `config` describes (validated with the config).
    pub fn from_config(config: &RnadConfig) -> Self {
        LearningRateSchedule {
            initial: config.learning_rate,
            final_fraction: config.learning_rate_final_fraction,
            decay_start_step: config.learning_rate_decay_start_step,
            decay_steps: config.learning_rate_decay_steps,
        }
    }

    /// The rate for the update made at `step` (the first update is step 0).
    pub fn at(&self, step: u64) -> f64 {
        if self.decay_steps == 0 {
            return self.initial;
        }
        let into_decay = step.saturating_sub(self.decay_start_step);
        let progress = (into_decay as f64 / self.decay_steps as f64).min(1.0);
        self.initial * self.final_fraction.powf(progress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(initial: f64, final_fraction: f64, decay_steps: u64) -> LearningRateSchedule {
        late_schedule(initial, final_fraction, 0, decay_steps)
    }

    fn late_schedule(
        initial: f64,
        final_fraction: f64,
        decay_start_step: u64,
        decay_steps: u64,
    ) -> LearningRateSchedule {
        LearningRateSchedule {
            initial,
            final_fraction,
            decay_start_step,
            decay_steps,
        }
    }

    #[test]
    fn without_decay_steps_the_rate_is_constant() {
        let s = schedule(6e-4, 0.1, 0);
        assert!([0, 1, 1_000, u64::MAX].iter().all(|&t| s.at(t) == 6e-4));
    }

    #[test]
    fn the_rate_decays_geometrically_then_holds() {
        // 1e-3 to a hundredth over 1,000 steps: a tenth at the half-way
        // step, 10^(-2·t/1000) in general, 1e-5 from step 1,000 on.
        let s = schedule(1e-3, 0.01, 1_000);
        assert_eq!(s.at(0), 1e-3);
        assert!((s.at(500) - 1e-4).abs() < 1e-15, "{}", s.at(500));
        assert!((s.at(250) - 1e-3 * 10f64.powf(-0.5)).abs() < 1e-15);
        assert!((s.at(1_000) - 1e-5).abs() < 1e-17, "{}", s.at(1_000));
        assert_eq!(s.at(1_000), s.at(50_000));
        // Monotone in between.
        let rates: Vec<f64> = (0..=1_000).step_by(50).map(|t| s.at(t)).collect();
        assert!(rates.windows(2).all(|w| w[1] < w[0]), "{rates:?}");
    }

    #[test]
    fn a_fraction_of_one_is_constant_whatever_the_steps() {
        let s = schedule(3e-4, 1.0, 10);
        assert!((0..30).all(|t| s.at(t) == 3e-4));
    }

    #[test]
    fn a_late_decay_holds_the_rate_until_its_start_then_decays_the_same_way() {
        // 1.5e-3 held for 100,000 steps, then down to a fifth over 400,000:
        // 1.5e-3·0.2^0.5 = 6.708e-4 half-way (step 300,000), 3e-4 from
        // step 500,000 on.
        let late = late_schedule(1.5e-3, 0.2, 100_000, 400_000);
        assert!([0, 1, 50_000, 100_000]
            .iter()
            .all(|&t| late.at(t) == 1.5e-3));
        assert!(late.at(100_001) < 1.5e-3);
        assert!((late.at(300_000) - 1.5e-3 * 0.2f64.sqrt()).abs() < 1e-15);
        assert!(
            (late.at(500_000) - 3e-4).abs() < 1e-15,
            "{}",
            late.at(500_000)
        );
        assert_eq!(late.at(500_000), late.at(2_000_000));
        // The same curve as a decay from step 0, shifted by the start.
        let early = schedule(1.5e-3, 0.2, 400_000);
        assert!((0..=400_000)
            .step_by(25_000)
            .all(|t| late.at(t + 100_000) == early.at(t)));
    }
}
