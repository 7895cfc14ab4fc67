//! The actors' self-play as the learner's lockstep actor: each batch played
//! by one [`SelfPlay`] with the parameters the learner just published, its
//! generator position kept in the learner's checkpoints.

use candle_core::Device;
use rnad_actor::selfplay::{PolicySnapshot, RngStream, SelfPlay};
use rnad_learner::training::Lockstep;
use rnad_net::ParamSet;
use rnad_run::ResolvedRun;
use rnad_wire::trajectory::Trajectory;

/// One self-play actor the learner waits for.
pub struct LockstepActor(SelfPlay);

impl LockstepActor {
    /// The run's lockstep actor, at its saved generator position if a
    /// checkpoint kept one (`rngs`), its forward passes on `device`.
    pub fn new(run: &ResolvedRun, rngs: &[(u64, u128)], device: Device) -> LockstepActor {
        let mut play = SelfPlay::new(
            run.game().clone(),
            run.shape().clone(),
            0,
            RngStream::of(run.config().seed),
        )
        .on_device(device);
        if let Some(&(seed, pos)) = rngs.first() {
            play.set_rng_position(seed, pos);
        }
        LockstepActor(play)
    }
}

impl Lockstep for LockstepActor {
    fn play(
        &mut self,
        params: &ParamSet,
        version: u64,
        size: usize,
    ) -> candle_core::Result<Vec<Trajectory>> {
        // The published parameters are CPU copies; the actor copies them to
        // its own device if that is another.
        let snapshot = PolicySnapshot {
            version,
            params: params.clone(),
        };
        self.0.play_fresh(&snapshot, size)
    }

    fn rng_position(&self) -> (u64, u128) {
        self.0.rng_position()
    }
}
