//! A networked actor: self-play against the learner's latest parameters,
//! shipping finished games over tarpc, reconnecting for as long as it takes.
//!
//! Each session connects (a fresh tarpc client: a broken one stays broken),
//! asks the learner for the run's config, fetches θ, then plays and submits
//! batches, fetching θ again whenever a submit reports a newer version. Any
//! error ends the session; the worker waits with capped exponential backoff
//! and starts a new one. Only a stop request ends the worker.

use std::sync::atomic::{AtomicBool, Ordering};

use rnad_common::lifecycle::run_sessions;
use rnad_common::net::NetShape;
use rnad_common::proto::{self, Hello, LearnerServiceClient, PolicyKind};

use crate::metrics::ActorMetrics;
use crate::selfplay::{PolicySnapshot, SelfPlay};

/// What a worker does.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The learner's address (`HOST:PORT`).
    pub learner: String,
    /// Concurrent games.
    pub games: usize,
    /// Seed of the first session's generator (later sessions add their
    /// index).
    pub seed: u64,
    /// Finished games per submit.
    pub submit_every: usize,
    /// Name used in log lines.
    pub name: String,
}

/// Runs sessions until `stop` is set.
pub fn run(options: &WorkerOptions, stop: &AtomicBool, metrics: &ActorMetrics) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut session = 0u64;
    run_sessions(
        stop,
        |connected| {
            session += 1;
            runtime.block_on(play_session(options, session - 1, stop, metrics, connected))
        },
        |error, wait| {
            metrics.errors_total.inc();
            metrics.reconnects_total.inc();
            eprintln!(
                "{}: {error}; reconnecting to {} in {wait:?}",
                options.name, options.learner
            );
        },
    );
}

async fn fetch_online(
    client: &LearnerServiceClient,
    hello: &Hello,
    have: Option<u64>,
    shape: &NetShape,
) -> Result<Option<PolicySnapshot>, String> {
    let reply = client
        .fetch_params(
            proto::context(),
            hello.clone(),
            have,
            vec![PolicyKind::Online],
        )
        .await
        .map_err(|e| format!("fetching parameters: {e}"))?
        .map_err(|e| e.to_string())?;
    let Some(params) = reply else {
        return Ok(None);
    };
    let (_, wire) = params
        .sets
        .first()
        .ok_or("the learner sent no parameter set")?;
    let params_set = wire
        .to_set(shape)
        .map_err(|e| format!("parameters do not fit the network: {e}"))?;
    Ok(Some(PolicySnapshot {
        version: params.version,
        params: params_set,
    }))
}

/// One connection's worth of self-play; `Ok` only when stopped.
async fn play_session(
    options: &WorkerOptions,
    session: u64,
    stop: &AtomicBool,
    metrics: &ActorMetrics,
    connected: &mut bool,
) -> Result<(), String> {
    let proto::Joined {
        client,
        config,
        hello,
    } = proto::join(&options.learner).await?;
    let shape = NetShape::for_config(&config);
    let mut snapshot = fetch_online(&client, &hello, None, &shape)
        .await?
        .ok_or("the learner sent no parameters")?;
    metrics.param_fetches_total.inc();
    *connected = true;
    let mut play = SelfPlay::new(
        config.game.load(),
        shape.clone(),
        options.games,
        options.seed.wrapping_add(session),
    );
    let mut pending = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let before = play.decisions();
        let finished = play
            .step(&snapshot)
            .map_err(|e| format!("forward pass: {e}"))?;
        metrics.steps_total.inc_by(play.decisions() - before);
        metrics.games_total.inc_by(finished.len() as u64);
        pending.extend(finished);
        if pending.len() < options.submit_every {
            continue;
        }
        let ack = client
            .submit(
                proto::context(),
                hello.clone(),
                std::mem::take(&mut pending),
            )
            .await
            .map_err(|e| format!("submitting: {e}"))?
            .map_err(|e| e.to_string())?;
        if ack.version != snapshot.version {
            if let Some(newer) =
                fetch_online(&client, &hello, Some(snapshot.version), &shape).await?
            {
                snapshot = newer;
                metrics.param_fetches_total.inc();
            }
        }
    }
    Ok(())
}
