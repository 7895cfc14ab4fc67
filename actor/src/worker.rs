//! A networked actor: self-play against the learner's latest parameters,
//! shipping finished games over tarpc, reconnecting for as long as it takes.
//!
//! Each session connects (a fresh tarpc client: a broken one stays broken),
//! asks the learner for the run's config, fetches θ, then plays and submits
//! batches, fetching θ again whenever a submit reports a newer version. Any
//! error ends the session; the worker waits with capped exponential backoff
//! and starts a new one. Only the shutdown ends the worker, and it ends a
//! session wherever it waits (connecting, submitting, fetching). Session `k`
//! draws its random numbers from stream `first_stream + k` of the worker's
//! seed, so no two sessions replay the same games.

use candle_core::Device;
use rnad_net::NetShape;
use rnad_net::PublishedSet;
use rnad_process::lifecycle::{run_sessions, Attempt};
use rnad_process::shutdown::Shutdown;
use rnad_wire::frames::MAX_SUBMIT_TRAJECTORIES;
use rnad_wire::handshake::Token;
use rnad_wire::{ClientError, Hello, LearnerServiceClient, Submission};

use crate::metrics::ActorMetrics;
use crate::selfplay::{PolicySnapshot, RngStream, SelfPlay};

/// What a worker does.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The learner's address (`HOST:PORT`).
    pub learner: String,
    /// The token the learner requires, if any.
    pub token: Option<Token>,
    /// Concurrent games; none: the run's `actors.games_per_actor`, as the
    /// learner's config says.
    pub games: Option<usize>,
    /// The first session's random numbers; later sessions take the
    /// following streams of the same seed.
    pub random: RngStream,
    /// Finished games per submit (split into submits of at most
    /// [`MAX_SUBMIT_TRAJECTORIES`]); none: as many as it plays at once.
    pub submit_every: Option<usize>,
    /// Where the forward passes run.
    pub device: Device,
}

/// Runs `threads` workers side by side until `shutdown` is cancelled, or,
/// with none given, as many as the run's `actors.threads` (asked of the
/// learner, waiting for it as sessions do). Each thread plays its own
/// games with its own connection; thread `i` draws its random numbers
/// from streams `i·2³²` on of the seed, so threads never share games.
pub fn run_threads(
    options: &WorkerOptions,
    threads: Option<usize>,
    shutdown: &Shutdown,
    metrics: &ActorMetrics,
) {
    let Some(threads) = threads.or_else(|| threads_of_run(options, shutdown)) else {
        return;
    };
    tracing::info!(threads, "self-play threads");
    std::thread::scope(|scope| {
        for thread in 0..threads {
            let options = WorkerOptions {
                random: RngStream {
                    seed: options.random.seed,
                    stream: options.random.stream.wrapping_add((thread as u64) << 32),
                },
                ..options.clone()
            };
            std::thread::Builder::new()
                .name(format!("actor-{thread}"))
                .spawn_scoped(scope, move || run(&options, shutdown, metrics))
                .expect("spawn an actor thread");
        }
    });
}

/// The run's `actors.threads`, from the learner's config; none if shut
/// down first.
fn threads_of_run(options: &WorkerOptions, shutdown: &Shutdown) -> Option<usize> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut threads = None;
    run_sessions(
        shutdown,
        &options.learner,
        |_| {
            runtime.block_on(async {
                tokio::select! {
                    joined = rnad_wire::join(&options.learner, options.token.as_ref()) => {
                        threads = Some(joined?.run.config().actors.threads);
                        Ok(())
                    }
                    () = shutdown.cancelled() => Ok::<(), ClientError>(()),
                }
            })
        },
        |_, _| {},
    );
    threads
}

/// Runs sessions until `shutdown` is cancelled.
pub fn run(options: &WorkerOptions, shutdown: &Shutdown, metrics: &ActorMetrics) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut session = 0u64;
    run_sessions(
        shutdown,
        &options.learner,
        |attempt| {
            let random = RngStream {
                seed: options.random.seed,
                stream: options.random.stream.wrapping_add(session),
            };
            session += 1;
            runtime.block_on(async {
                tokio::select! {
                    ended = play_session(options, random, shutdown, metrics, attempt) => ended,
                    () = shutdown.cancelled() => Ok(()),
                }
            })
        },
        |_, _| {
            metrics.errors_total.inc();
            metrics.reconnects_total.inc();
        },
    );
}

async fn fetch_online(
    client: &LearnerServiceClient,
    hello: &Hello,
    have: Option<u64>,
    shape: &NetShape,
) -> Result<Option<PolicySnapshot>, ClientError> {
    let reply = client
        .fetch_params(
            rnad_wire::context(),
            hello.clone(),
            have,
            vec![PublishedSet::Online],
        )
        .await
        .map_err(|e| ClientError::rpc("fetching parameters", e))??;
    let Some(params) = reply else {
        return Ok(None);
    };
    let (_, wire) = params
        .sets
        .first()
        .ok_or_else(|| ClientError::Other("the learner sent no parameter set".into()))?;
    let params_set = wire
        .to_set(shape)
        .map_err(|e| ClientError::Other(format!("parameters do not fit the network: {e}")))?;
    Ok(Some(PolicySnapshot {
        version: params.version,
        params: params_set,
    }))
}

/// One connection's worth of self-play; `Ok` only when shut down.
async fn play_session(
    options: &WorkerOptions,
    random: RngStream,
    shutdown: &Shutdown,
    metrics: &ActorMetrics,
    attempt: &mut Attempt<'_, '_>,
) -> Result<(), ClientError> {
    let rnad_wire::Joined {
        client, run, hello, ..
    } = rnad_wire::join(&options.learner, options.token.as_ref()).await?;
    let (config, shape) = (run.config(), run.shape());
    let mut snapshot = fetch_online(&client, &hello, None, shape)
        .await?
        .ok_or_else(|| ClientError::Other("the learner sent no parameters".into()))?;
    metrics.param_fetches_total.inc();
    let games = options.games.unwrap_or(config.actors.games_per_actor);
    let submit_every = options.submit_every.unwrap_or(games);
    tracing::info!(games, submit_every, game = %config.game, device = ?options.device, "playing");
    let mut play = SelfPlay::new(run.game().clone(), shape.clone(), games, random)
        .on_device(options.device.clone());
    let mut pending = Vec::new();
    // The forward passes between submits do not wait on anything, so the
    // loop looks at the token itself.
    while !shutdown.is_cancelled() {
        let before = play.decisions();
        let finished = play
            .step(&snapshot)
            .map_err(|e| ClientError::Other(format!("forward pass: {e}")))?;
        metrics.decisions_total.inc_by(play.decisions() - before);
        metrics.games_total.inc_by(finished.len() as u64);
        pending.extend(finished);
        if pending.len() < submit_every {
            continue;
        }
        let mut version = snapshot.version;
        while !pending.is_empty() {
            let rest = pending.split_off(pending.len().min(MAX_SUBMIT_TRAJECTORIES));
            let batch = std::mem::replace(&mut pending, rest);
            let ack = client
                .submit(rnad_wire::context(), hello.clone(), Submission(batch))
                .await
                .map_err(|e| ClientError::rpc("submitting", e))??;
            metrics.submits_total.inc();
            attempt.connected();
            version = ack.version;
        }
        if version != snapshot.version {
            if let Some(newer) =
                fetch_online(&client, &hello, Some(snapshot.version), shape).await?
            {
                snapshot = newer;
                metrics.param_fetches_total.inc();
            }
        }
    }
    Ok(())
}
