//! `rnad-learner local`: the learner, actors and exact evaluation in one
//! process.
//!
//! The learner serves the same tarpc protocol as `serve`, on loopback, and
//! actor threads play against it through real TCP connections exactly as
//! `rnad-actor` processes do, so the main command exercises the real path.
//! With `actors.lockstep` the learner instead plays each batch itself with
//! the current parameters (no threads, no network): slower, but bit-for-bit
//! reproducible across restarts.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rnad_actor::metrics::ActorMetrics;
use rnad_actor::worker::{self, WorkerOptions};
use rnad_common::config::Config;

use crate::error::LearnerError;
use crate::serve::{run_serve, ServeOptions};
use crate::training::{open, Opened, RunSummary, Source, TrainOptions, Trainer};

/// Options of a local run beyond the config.
#[derive(Clone, Debug, Default)]
pub struct LocalOptions {
    /// Stop when the learner reaches this step (counted across restarts).
    pub max_steps: Option<u64>,
    /// Print progress lines on stderr.
    pub progress: bool,
}

/// Runs until `stop` is set or the step limit is reached; resumes from the
/// newest checkpoint in the run directory.
pub fn run_local(
    config: Config,
    options: LocalOptions,
    stop: Arc<AtomicBool>,
) -> Result<RunSummary, LearnerError> {
    let train = TrainOptions {
        max_steps: options.max_steps,
        progress: options.progress,
        evaluate: true,
    };
    if config.actors.lockstep {
        return run_lockstep(&config, &train, &stop);
    }
    let actors_stop = Arc::new(AtomicBool::new(false));
    let mut actors = Vec::new();
    let serve = ServeOptions {
        listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        metrics: None,
        train,
    };
    let result = run_serve(config.clone(), serve, stop, |bound| {
        let metrics = ActorMetrics::new();
        for index in 0..config.actors.count {
            let options = WorkerOptions {
                learner: bound.service.to_string(),
                games: config.actors.games_per_actor,
                seed: actor_seed(config.seed, index as u64),
                submit_every: config.actors.games_per_actor,
                name: format!("actor-{index}"),
            };
            let (stop, metrics) = (actors_stop.clone(), metrics.clone());
            actors.push(
                std::thread::Builder::new()
                    .name(format!("actor-{index}"))
                    .spawn(move || worker::run(&options, &stop, &metrics))
                    .expect("spawn actor thread"),
            );
        }
    });
    actors_stop.store(true, Ordering::SeqCst);
    for actor in actors {
        let _ = actor.join();
    }
    result
}

fn run_lockstep(
    config: &Config,
    train: &TrainOptions,
    stop: &AtomicBool,
) -> Result<RunSummary, LearnerError> {
    let Opened {
        dir, resumed, hub, ..
    } = open(config, train.progress)?;
    let mut learner = resumed.learner;
    let mut trainer = Trainer {
        config,
        dir: &dir,
        hub: &hub,
        source: Source::lockstep(config, &resumed.actor_rngs),
        wall_offset: resumed.wall_offset,
    };
    trainer.run(&mut learner, train, stop)
}

/// A distinct generator seed per (run seed, actor).
fn actor_seed(seed: u64, actor: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ actor.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}
