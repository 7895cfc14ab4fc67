//! The shipped default's quiet phase: the same learner as the flat default
//! (batch 512, rate 1.5e-3, θ_reg rolled every 500 steps) for the first
//! 300k steps, whose ten-minute results were measured before the phase
//! existed, then a batch of 2048, a fifth of the rate and a roll every
//! 25,000 steps.

use rnad_learner::learning_rate::LearningRateSchedule;
use rnad_run::config::RnadConfig;
use rnad_run::schedule::EntropySchedule;

const QUIET_FROM: u64 = 300_000;

/// The shipped default's `[rnad]` section, its entropy schedule and its
/// learning-rate schedule.
fn default_schedules() -> (RnadConfig, EntropySchedule, LearningRateSchedule) {
    let rnad = rnad_testkit::TestConfig::file("leduc").build().rnad;
    let schedule = EntropySchedule::new(
        rnad.entropy_schedule_size.clone(),
        rnad.entropy_schedule_repeats.clone(),
    );
    let rate = LearningRateSchedule::from_config(&rnad);
    (rnad, schedule, rate)
}

#[test]
fn before_the_quiet_phase_every_step_is_the_flat_defaults() {
    let (rnad, schedule, rate) = default_schedules();
    let flat = EntropySchedule::new(vec![500], vec![1]);
    for step in (0..QUIET_FROM).step_by(97).chain([QUIET_FROM - 1]) {
        assert_eq!(schedule.at(step), flat.at(step), "step {step}");
        assert_eq!(rate.at(step), 1.5e-3, "step {step}");
        assert_eq!(rnad.batch_size_after(step), 512, "step {step}");
    }
    // The flat default's last roll before the phase is its last step.
    assert!(schedule.at(QUIET_FROM - 1).roll);
}

#[test]
fn the_quiet_phase_takes_four_times_the_batch_a_fifth_of_the_rate_and_25k_periods() {
    let (rnad, schedule, rate) = default_schedules();
    let horizon = QUIET_FROM + 200_000;
    // The decay takes one step: the phase's first update still has the
    // full rate, every later one a fifth of it.
    assert_eq!(rate.at(QUIET_FROM), 1.5e-3);
    for step in (QUIET_FROM..horizon).step_by(89) {
        assert_eq!(rnad.batch_size_after(step), 2048, "step {step}");
        if step > QUIET_FROM {
            assert!(
                (rate.at(step) - 3e-4).abs() < 1e-15,
                "step {step}: {}",
                rate.at(step)
            );
        }
    }
    let rolls: Vec<u64> = (QUIET_FROM..horizon)
        .filter(|&s| schedule.at(s).roll)
        .collect();
    let expected: Vec<u64> = (1..=8).map(|k| QUIET_FROM + k * 25_000 - 1).collect();
    assert_eq!(rolls, expected);
    // Half way into a period the pull is wholly toward the new θ_reg (α
    // blends the previous one out over the first half).
    let start = QUIET_FROM + 25_000;
    assert_eq!(schedule.at(start).alpha, 0.0);
    assert_eq!(schedule.at(start + 6_250).alpha, 0.5);
    assert_eq!(schedule.at(start + 12_500).alpha, 1.0);
}
