//! The learner's tarpc service: what actors and evaluators call.
//!
//! [`Hub`] is the state the training thread shares with the service: the
//! published parameters, the bounded trajectory queue and the metrics.
//! Submitted batches are checked (protocol, config hash, every trajectory's
//! shapes and values) before anything is queued; a full queue makes
//! `submit` wait, which is the backpressure that keeps memory bounded
//! however many actors push.
//!
//! [`serve`] accepts connections through the bounded accept loop of
//! [`rnad_process::listener`], shakes hands (protocol version, optional
//! token) before reading any frame, and reads at most one frame of the
//! protocol's largest legal request at a time per connection: what one peer
//! can make the learner hold is bounded by [`ServiceLimits`].

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use futures::prelude::*;
use rnad_net::{ParamSet, PublishedSet, PublishedSets};
use rnad_process::listener::{accept_loop, GuardedStream, Limits, Refusal};
use rnad_process::shutdown::Shutdown;
use rnad_run::ResolvedRun;
use rnad_wire::frames::{self, FrameLimits};
use rnad_wire::handshake::{self, AnswerError, Token};
use rnad_wire::trajectory::{Dims, Trajectory};
use rnad_wire::{
    config_hash, config_identity, Hello, Incarnation, LearnerService, Params, ProtoError, RunInfo,
    Submission, SubmitAck, WireParams, PROTOCOL_VERSION,
};
use tarpc::context::Context;
use tarpc::server::{BaseChannel, Channel};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::metrics::LearnerMetrics;

/// Requests one connection may have in flight (actors and evaluators make
/// one at a time); more are answered with an error at once.
const MAX_REQUESTS_PER_CONNECTION: usize = 4;
/// Responses that may wait for a slow reader per connection.
const PENDING_RESPONSES: usize = 2;

/// What the RPC listener allows its peers, and the token it requires.
#[derive(Clone, Debug)]
pub struct ServiceLimits {
    /// Connections, timeouts (see [`Limits`]).
    pub connections: Limits,
    /// The token peers must present, if any.
    pub token: Option<Token>,
}

impl Default for ServiceLimits {
    /// 256 connections; 10 s to shake hands; a peer silent for 10 minutes,
    /// or taking a minute over one frame, is dropped; no token.
    fn default() -> Self {
        ServiceLimits {
            connections: Limits {
                max_connections: 256,
                handshake_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(600),
                frame_timeout: Duration::from_secs(60),
            },
            token: None,
        }
    }
}

/// Parameters as last published by the training thread.
#[derive(Clone, Debug)]
pub struct Published {
    /// The learner step that produced them.
    pub version: u64,
    /// Decisions consumed so far.
    pub decisions: u64,
    /// Training wall time so far (across restarts), seconds.
    pub wall_seconds: f64,
    /// θ.
    pub online: ParamSet,
    /// θ_target.
    pub target: ParamSet,
    /// θ_reg.
    pub reg: ParamSet,
}

impl Published {
    /// Its parameter sets.
    pub fn sets(&self) -> PublishedSets<'_> {
        PublishedSets {
            online: &self.online,
            target: &self.target,
            reg: &self.reg,
        }
    }
}

/// State shared by the training thread and the service.
#[derive(Debug)]
pub struct Hub {
    run: ResolvedRun,
    hash: u64,
    /// This process, as clients tell it from the one before; a new one
    /// after every roll-back.
    incarnation: RwLock<Incarnation>,
    dims: Dims,
    published: RwLock<Arc<Published>>,
    queue: mpsc::Sender<Trajectory>,
    /// Cancelled when the learner stops taking work: submits waiting for
    /// room in the queue give up then.
    closing: Shutdown,
    /// The learner's metrics.
    pub metrics: LearnerMetrics,
}

impl Hub {
    /// A hub for `run` with initial parameters; returns the receiving end
    /// of the trajectory queue for the training thread.
    pub fn new(
        run: ResolvedRun,
        initial: Published,
        metrics: LearnerMetrics,
    ) -> (Arc<Hub>, mpsc::Receiver<Trajectory>) {
        let (config, game) = (run.config(), run.game());
        let (queue, receiver) = mpsc::channel(config.actors.queue_capacity);
        metrics.param_version.set(initial.version as i64);
        metrics.step.set(initial.version as i64);
        let hub = Hub {
            hash: config_hash(config),
            incarnation: RwLock::new(Incarnation::new(initial.version)),
            dims: Dims {
                obs: game.information_state_tensor_size(),
                actions: run.shape().actions,
                players: game.num_players(),
                max_len: run.trajectory_max(),
            },
            run,
            published: RwLock::new(Arc::new(initial)),
            queue,
            closing: Shutdown::new(),
            metrics,
        };
        (Arc::new(hub), receiver)
    }

    /// The run it serves.
    pub fn run(&self) -> &ResolvedRun {
        &self.run
    }

    /// Makes new parameters visible to callers.
    pub fn publish(&self, published: Published) {
        self.metrics.param_version.set(published.version as i64);
        *self.published.write().expect("published lock") = Arc::new(published);
    }

    /// The latest published parameters.
    pub fn latest(&self) -> Arc<Published> {
        self.published.read().expect("published lock").clone()
    }

    /// Trajectories waiting.
    pub fn queue_depth(&self) -> usize {
        self.queue.max_capacity() - self.queue.capacity()
    }

    /// Refuses new work from now on.
    pub fn stop_accepting(&self) {
        self.closing.cancel();
    }

    /// How many versions the published parameters are ahead of `version`.
    pub fn policy_lag(&self, version: u64) -> u64 {
        self.latest().version.saturating_sub(version)
    }

    /// Whether a trajectory made with `version` cannot be used now: too
    /// old, or newer than the published parameters (made before a
    /// roll-back, with parameters the run abandoned).
    pub fn is_stale(&self, version: u64) -> bool {
        version > self.latest().version
            || self.policy_lag(version) > self.run.config().actors.max_policy_lag
    }

    fn check(&self, hello: &Hello) -> Result<(), ProtoError> {
        if hello.protocol != PROTOCOL_VERSION {
            return Err(ProtoError::Protocol {
                learner: PROTOCOL_VERSION,
                caller: hello.protocol,
            });
        }
        if hello.config_hash != self.hash {
            return Err(ProtoError::Config {
                learner: config_identity(self.run.config()),
                caller: hello.config_hash,
            });
        }
        if self.closing.is_cancelled() {
            return Err(ProtoError::ShuttingDown);
        }
        let incarnation = *self.incarnation.read().expect("incarnation lock");
        if hello.learner != incarnation.id {
            return Err(ProtoError::WentBack {
                step: incarnation.resumed_at_step,
            });
        }
        Ok(())
    }

    /// The learner rolled back to its checkpoint at `step` and publishes
    /// `published` from there: every client joins again (its requests are
    /// refused until it does), and trajectories of the abandoned steps
    /// still queued are dropped as stale.
    pub fn went_back(&self, published: Published) {
        *self.incarnation.write().expect("incarnation lock") = Incarnation::new(published.version);
        self.publish(published);
    }

    fn reject(&self, error: ProtoError) -> ProtoError {
        let reason = match error {
            ProtoError::Protocol { .. } => "protocol",
            ProtoError::Config { .. } => "config",
            ProtoError::BadBatch(_) => "invalid",
            ProtoError::ShuttingDown | ProtoError::Internal(_) | ProtoError::WentBack { .. } => {
                "unavailable"
            }
        };
        self.metrics
            .rejected_batches_total
            .with_label_values(&[reason])
            .inc();
        error
    }
}

/// One connection's handle on the hub.
#[derive(Clone)]
struct Service(Arc<Hub>);

impl LearnerService for Service {
    async fn info(self, _: Context, protocol: u32) -> Result<RunInfo, ProtoError> {
        if protocol != PROTOCOL_VERSION {
            return Err(ProtoError::Protocol {
                learner: PROTOCOL_VERSION,
                caller: protocol,
            });
        }
        Ok(RunInfo {
            config_toml: self.0.run.config().to_toml(),
            config_hash: self.0.hash,
            version: self.0.latest().version,
            learner: *self.0.incarnation.read().expect("incarnation lock"),
        })
    }

    async fn fetch_params(
        self,
        _: Context,
        hello: Hello,
        have: Option<u64>,
        kinds: Vec<PublishedSet>,
    ) -> Result<Option<Params>, ProtoError> {
        self.0.check(&hello)?;
        let latest = self.0.latest();
        if have == Some(latest.version) {
            return Ok(None);
        }
        let sets = kinds
            .into_iter()
            .map(|kind| WireParams::from_set(latest.sets().get(kind)).map(|w| (kind, w)))
            .collect::<candle_core::Result<_>>()
            .map_err(|e| ProtoError::Internal(format!("cannot export parameters: {e}")))?;
        Ok(Some(Params {
            version: latest.version,
            decisions: latest.decisions,
            wall_seconds: latest.wall_seconds,
            sets,
        }))
    }

    async fn submit(
        self,
        _: Context,
        hello: Hello,
        Submission(trajectories): Submission,
    ) -> Result<SubmitAck, ProtoError> {
        let hub = &self.0;
        hub.check(&hello).map_err(|e| hub.reject(e))?;
        for (i, trajectory) in trajectories.iter().enumerate() {
            trajectory
                .validate(&hub.dims)
                .map_err(|e| hub.reject(ProtoError::BadBatch(format!("trajectory {i}: {e}"))))?;
        }
        for trajectory in trajectories {
            if hub.is_stale(trajectory.param_version) {
                hub.metrics.dropped_trajectories_total.inc();
                continue;
            }
            // A full queue holds the submit here, which slows the actor
            // down: that is the backpressure.
            tokio::select! {
                sent = hub.queue.send(trajectory) => {
                    sent.map_err(|_| ProtoError::ShuttingDown)?;
                }
                () = hub.closing.cancelled() => return Err(ProtoError::ShuttingDown),
            }
        }
        hub.metrics.queue_depth.set(hub.queue_depth() as i64);
        Ok(SubmitAck {
            version: hub.latest().version,
        })
    }
}

/// Binds `addr` and serves the hub on the current tokio runtime. Returns the
/// bound address.
pub async fn serve(
    addr: SocketAddr,
    hub: Arc<Hub>,
    limits: ServiceLimits,
) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let frames = FrameLimits::for_run(&hub.run);
    let refused = hub.metrics.refused_connections_total.clone();
    let connections = limits.connections;
    tokio::spawn(accept_loop(
        listener,
        connections,
        "rpc",
        move |refusal: Refusal| refused.with_label_values(&[refusal.reason()]).inc(),
        move |stream, peer, permit| {
            let (hub, token) = (hub.clone(), limits.token.clone());
            async move {
                hub.metrics.connections.inc();
                serve_connection(stream, peer, &hub, token.as_ref(), connections, frames).await;
                hub.metrics.connections.dec();
                drop(permit);
            }
        },
    ));
    Ok(bound)
}

/// One connection: the handshake within its timeout, then requests until
/// the peer leaves or a guard drops it.
async fn serve_connection(
    mut stream: TcpStream,
    peer: SocketAddr,
    hub: &Arc<Hub>,
    token: Option<&Token>,
    limits: Limits,
    frames: FrameLimits,
) {
    let _ = stream.set_nodelay(true);
    let answered = tokio::time::timeout(
        limits.handshake_timeout,
        handshake::answer(&mut stream, PROTOCOL_VERSION, token, frames),
    )
    .await;
    let refusal = match answered {
        Ok(Ok(())) => None,
        Ok(Err(AnswerError::Refused(refusal))) => Some(refusal.reason()),
        Ok(Err(AnswerError::Io(_))) | Err(_) => Some("handshake"),
    };
    if let Some(reason) = refusal {
        hub.metrics
            .refused_connections_total
            .with_label_values(&[reason])
            .inc();
        tracing::debug!(%peer, reason, "refused a connection");
        return;
    }
    let transport = frames::transport(
        GuardedStream::new(stream, limits),
        frames.request,
        frames.response,
    );
    let config = tarpc::server::Config {
        pending_response_buffer: PENDING_RESPONSES,
    };
    BaseChannel::new(config, transport)
        .max_concurrent_requests(MAX_REQUESTS_PER_CONNECTION)
        .execute(Service(hub.clone()).serve())
        .for_each(|response| async move {
            tokio::spawn(response);
        })
        .await;
}
