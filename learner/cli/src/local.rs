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

use candle_core::Device;

use rnad_actor::metrics::ActorMetrics;
use rnad_actor::selfplay::RngStream;
use rnad_actor::worker::{self, WorkerOptions};
use rnad_learner::error::LearnerError;
use rnad_learner::evaluate::Evaluate;
use rnad_learner::resume::{open, OpenOptions, Opened};
use rnad_learner::serve::{run_serve, ServeOptions};
use rnad_learner::service::ServiceLimits;
use rnad_learner::training::{RunSummary, Source, TrainOptions, Trainer};
use rnad_process::shutdown::Shutdown;
use rnad_run::ResolvedRun;

use crate::error::CliError;
use crate::evaluation::LocalEvaluation;
use crate::lockstep::LockstepActor;

/// Options of a local run beyond the config.
#[derive(Clone, Debug)]
pub struct LocalOptions {
    /// Stop when the learner reaches this step (counted across restarts).
    pub max_steps: Option<u64>,
    /// Print progress lines on stderr.
    pub progress: bool,
    /// How the run directory is opened.
    pub open: OpenOptions,
    /// Serve the learner's, the actors' and the evaluation's metrics on
    /// this address (`/metrics`).
    pub metrics: Option<SocketAddr>,
    /// Where the actors' forward passes run.
    pub actor_device: Device,
}

impl Default for LocalOptions {
    /// No step limit, no progress lines, no metrics; everything on the CPU.
    fn default() -> Self {
        LocalOptions {
            max_steps: None,
            progress: false,
            open: OpenOptions::default(),
            metrics: None,
            actor_device: Device::Cpu,
        }
    }
}

/// Runs until `shutdown` is cancelled or the step limit is reached;
/// resumes from the newest checkpoint in the run directory.
pub fn run_local(
    run: ResolvedRun,
    options: LocalOptions,
    shutdown: &Shutdown,
) -> Result<RunSummary, CliError> {
    let (seed, actor_count, lockstep) = {
        let config = run.config();
        (config.seed, config.actors.count, config.actors.lockstep)
    };
    let train = TrainOptions {
        max_steps: options.max_steps,
        progress: options.progress,
    };
    let mut opened = open(run, &options.open)?;
    let evaluation = LocalEvaluation::new(&mut opened)?;
    if lockstep {
        return run_lockstep(opened, evaluation, &train, &options, shutdown);
    }
    // The actors stop with the process, or once training has ended and
    // before the service closes, so that they leave quietly.
    let actors_shutdown = shutdown.child();
    let mut actors = Vec::new();
    let serve = ServeOptions {
        listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        metrics: options.metrics,
        limits: ServiceLimits::default(),
        train,
    };
    let result = run_serve(
        opened,
        evaluation.map(|e| Box::new(e) as Box<dyn Evaluate>),
        serve,
        shutdown,
        |bound, start_step| {
            if let Some(addr) = bound.metrics {
                tracing::info!("metrics on http://{addr}/metrics");
            }
            let metrics = ActorMetrics::in_registry(bound.registry.clone());
            for index in 0..actor_count {
                let worker = WorkerOptions {
                    learner: bound.service.to_string(),
                    token: None,
                    games: None,
                    random: actor_stream(seed, index as u64, start_step),
                    submit_every: None,
                    device: options.actor_device.clone(),
                };
                let (shutdown, metrics) = (actors_shutdown.clone(), metrics.clone());
                actors.push(
                    std::thread::Builder::new()
                        .name(format!("actor-{index}"))
                        .spawn(move || worker::run(&worker, &shutdown, &metrics))
                        .expect("spawn actor thread"),
                );
            }
        },
        || actors_shutdown.cancel(),
    );
    for actor in actors {
        let _ = actor.join();
    }
    Ok(result?)
}

fn run_lockstep(
    opened: Opened,
    evaluation: Option<LocalEvaluation>,
    train: &TrainOptions,
    options: &LocalOptions,
    shutdown: &Shutdown,
) -> Result<RunSummary, CliError> {
    let Opened {
        dir, resumed, hub, ..
    } = opened;
    // The endpoint's runtime lives until training ends.
    let _endpoint = match options.metrics {
        Some(addr) => {
            let (runtime, bound) =
                rnad_process::metrics::serve_blocking(addr, hub.metrics.registry.clone())
                    .map_err(|source| LearnerError::Bind { addr, source })?;
            tracing::info!("metrics on http://{bound}/metrics");
            Some(runtime)
        }
        None => None,
    };
    let mut learner = resumed.learner;
    let mut trainer = Trainer {
        dir: &dir,
        hub: &hub,
        source: Source::Lockstep(Box::new(LockstepActor::new(
            hub.run(),
            &resumed.actor_rngs,
            options.actor_device.clone(),
        ))),
        wall_offset: resumed.wall_offset,
        evaluation: evaluation.map(|e| Box::new(e) as Box<dyn Evaluate>),
        target_average: resumed.target_average,
    };
    Ok(trainer.run(&mut learner, train, shutdown)?)
}

/// The random numbers of local actor `actor` in a run of `seed` started
/// (or resumed) at `start_step`: the run's seed, on a stream of its own per
/// (actor, start step), so that actors never share numbers with each other,
/// with the lockstep actor (stream 0), or with the same actor before a
/// restart. Sessions take the streams after it.
fn actor_stream(seed: u64, actor: u64, start_step: u64) -> RngStream {
    let mix = |mut z: u64| {
        // SplitMix64's finaliser: a bijection that spreads every input bit.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    RngStream {
        seed,
        stream: mix(mix(actor + 1) ^ start_step) | (1 << 63),
    }
}
