//! The wire protocol between the learner and its actors and evaluators: one
//! tarpc service over TCP with a length-delimited bincode transport.
//!
//! Every request carries a [`Hello`]: the protocol version and a hash of the
//! game and network shape. The learner refuses a mismatch with an error
//! saying what differs, so processes built or configured differently never
//! mix silently. [`LearnerService::info`] needs only the protocol version:
//! it hands a new client the run's config, from which it computes the hash.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tarpc::tokio_serde::formats::Bincode;

use crate::config::Config;
use crate::net::{NetShape, ParamSet};
use crate::trajectory::Trajectory;

/// Bumped whenever a wire type or call changes meaning.
pub const PROTOCOL_VERSION: u32 = 1;

/// Largest frame either side accepts. Parameters of a 256x256 network are
/// about 1.2 MB for all four sets; a batch of 256 Leduc games about 0.5 MB.
pub const MAX_FRAME_LENGTH: usize = 64 * 1024 * 1024;

/// How long a client waits for an answer (submits may wait for queue space:
/// that is the learner's backpressure).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(60);

/// Who is calling, and with what protocol and run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The caller's [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// [`config_hash`] of the config the caller works with.
    pub config_hash: u64,
}

/// A refusal from the learner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ProtoError {
    /// Different protocol versions.
    #[error("protocol version mismatch: the learner speaks {learner}, this process {caller}; run matching builds")]
    Protocol {
        /// The learner's version.
        learner: u32,
        /// The caller's version.
        caller: u32,
    },
    /// A different game or network.
    #[error("config mismatch: the learner runs {learner}, this process was set up for hash {caller:016x}; restart it to pick up the learner's config")]
    Config {
        /// The learner's game and network, in words.
        learner: String,
        /// The caller's hash.
        caller: u64,
    },
    /// A batch that fails validation; nothing of it was used.
    #[error("batch rejected: {0}")]
    BadBatch(String),
    /// The learner is shutting down.
    #[error("the learner is shutting down")]
    ShuttingDown,
    /// The learner failed to answer (its message says why).
    #[error("learner error: {0}")]
    Internal(String),
}

/// The parameter sets a caller can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PolicyKind {
    /// θ, what actors play.
    Online,
    /// θ_target.
    Target,
    /// θ_reg.
    Reg,
}

impl PolicyKind {
    /// Every kind.
    pub const ALL: [PolicyKind; 3] = [PolicyKind::Online, PolicyKind::Target, PolicyKind::Reg];
}

/// Parameter tensors, flattened, in [`NetShape::param_names`] order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireParams(pub Vec<Vec<f32>>);

impl WireParams {
    /// Flattens a parameter set.
    pub fn from_set(set: &ParamSet) -> candle_core::Result<WireParams> {
        set.tensors()
            .iter()
            .map(|t| t.flatten_all()?.to_vec1::<f32>())
            .collect::<candle_core::Result<_>>()
            .map(WireParams)
    }

    /// Rebuilds the parameter set, checking every length against `shape`.
    pub fn to_set(&self, shape: &NetShape) -> Result<ParamSet, String> {
        let names = shape.param_names();
        if names.len() != self.0.len() {
            return Err(format!(
                "{} tensors, the network has {}",
                self.0.len(),
                names.len()
            ));
        }
        let tensors = names
            .iter()
            .zip(&self.0)
            .map(|((name, dims), values)| {
                let n: usize = dims.iter().product();
                if values.len() != n {
                    return Err(format!("{name}: {} values, expected {n}", values.len()));
                }
                candle_core::Tensor::from_slice(values, dims.as_slice(), &candle_core::Device::Cpu)
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<_, _>>()?;
        Ok(ParamSet::from_tensors(tensors))
    }
}

/// Parameters at one version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// The learner step that produced them.
    pub version: u64,
    /// Decisions the learner had consumed.
    pub samples: u64,
    /// The requested kinds.
    pub sets: Vec<(PolicyKind, WireParams)>,
}

/// What a new client needs to know about the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The run's config (TOML).
    pub config_toml: String,
    /// Its [`config_hash`].
    pub config_hash: u64,
    /// The current parameter version.
    pub version: u64,
}

/// The answer to a submitted batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmitAck {
    /// Trajectories queued.
    pub accepted: usize,
    /// Trajectories dropped for being too stale.
    pub dropped: usize,
    /// The current parameter version (fetch when it moved).
    pub version: u64,
}

/// The learner's state, for monitoring.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// The learner step.
    pub step: u64,
    /// Decisions consumed.
    pub samples: u64,
    /// Trajectories waiting in the queue.
    pub queue_depth: usize,
}

/// The learner's service.
#[tarpc::service]
pub trait LearnerService {
    /// The run's config and current version (checks only the protocol).
    async fn info(protocol: u32) -> Result<RunInfo, ProtoError>;
    /// Parameters of the requested kinds, or `None` when `have` is already
    /// the current version.
    async fn fetch_params(
        hello: Hello,
        have: Option<u64>,
        kinds: Vec<PolicyKind>,
    ) -> Result<Option<Params>, ProtoError>;
    /// Queues a batch of finished games (validated first; waits while the
    /// queue is full).
    async fn submit(hello: Hello, trajectories: Vec<Trajectory>) -> Result<SubmitAck, ProtoError>;
    /// Counters for monitoring.
    async fn status(hello: Hello) -> Result<Status, ProtoError>;
}

/// The game and network shape, in words (what [`config_hash`] covers).
pub fn config_identity(config: &Config) -> String {
    format!(
        "{} with hidden layers {:?}",
        config.game, config.network.hidden
    )
}

/// FNV-1a of [`config_identity`]: stable across builds and machines.
pub fn config_hash(config: &Config) -> u64 {
    config_identity(config)
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// Connects a client to the learner at `addr` (`HOST:PORT`, resolved anew
/// on every call so a restarted learner may move). One connection: a broken
/// client stays broken, so reconnecting means calling this again.
pub async fn connect(addr: &str) -> std::io::Result<LearnerServiceClient> {
    let mut transport = tarpc::serde_transport::tcp::connect(addr, Bincode::default);
    transport.config_mut().max_frame_length(MAX_FRAME_LENGTH);
    let transport = transport.await?;
    Ok(LearnerServiceClient::new(tarpc::client::Config::default(), transport).spawn())
}

/// A request context with [`REQUEST_DEADLINE`].
pub fn context() -> tarpc::context::Context {
    let mut ctx = tarpc::context::current();
    ctx.deadline = Instant::now() + REQUEST_DEADLINE;
    ctx
}

/// A connected client with the run's config: what every session of an
/// actor or evaluator starts with.
pub struct Joined {
    /// The client.
    pub client: LearnerServiceClient,
    /// The learner's config.
    pub config: Config,
    /// What every later request carries.
    pub hello: Hello,
}

/// Connects to the learner at `addr` and asks it for the run's config.
pub async fn join(addr: &str) -> Result<Joined, String> {
    let client = connect(addr)
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    let info = client
        .info(context(), PROTOCOL_VERSION)
        .await
        .map_err(|e| format!("asking for the run's config: {e}"))?
        .map_err(|e| e.to_string())?;
    let config =
        Config::from_toml(&info.config_toml, "the learner's config").map_err(|e| e.to_string())?;
    let hello = Hello {
        protocol: PROTOCOL_VERSION,
        config_hash: info.config_hash,
    };
    Ok(Joined {
        client,
        config,
        hello,
    })
}
