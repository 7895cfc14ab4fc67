//! The client side of the protocol, as actors and evaluators use it:
//! connect, shake hands, ask for the run's config.

use std::time::{Duration, Instant};

use tokio::net::TcpStream;

use super::frames;
use super::handshake::{self, OfferError, Token};
use super::{Hello, Incarnation, LearnerServiceClient, ProtoError, PROTOCOL_VERSION};
use rnad_run::config::{Config, ConfigError};
use rnad_run::ResolvedRun;

/// How long a client waits for an answer (submits may wait for queue space:
/// that is the learner's backpressure).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(60);
/// How long connecting and the handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a client could not join the learner or lost it.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No TCP connection.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The learner's address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The handshake failed or was refused.
    #[error("handshake with {addr}: {source}")]
    Handshake {
        /// The learner's address.
        addr: String,
        /// Why.
        source: OfferError,
    },
    /// A call got no answer (the connection broke or the deadline passed).
    #[error("{call}: {message}")]
    Rpc {
        /// What was being asked.
        call: &'static str,
        /// tarpc's error.
        message: String,
    },
    /// The learner answered with a refusal.
    #[error(transparent)]
    Refused(#[from] ProtoError),
    /// The learner's config cannot be used by this build.
    #[error("the learner's config: {0}")]
    Config(#[from] ConfigError),
    /// Anything else that ends a session, in words.
    #[error("{0}")]
    Other(String),
}

impl ClientError {
    /// A failed call's error, naming the call.
    pub fn rpc(call: &'static str, error: impl std::fmt::Display) -> ClientError {
        ClientError::Rpc {
            call,
            message: error.to_string(),
        }
    }
}

/// Connects a client to the learner at `addr` (`HOST:PORT`, resolved anew
/// on every call so a restarted learner may move), presenting `token`. One
/// connection: a broken client stays broken, so reconnecting means calling
/// this again.
pub async fn connect(
    addr: &str,
    token: Option<&Token>,
) -> Result<LearnerServiceClient, ClientError> {
    let connect_error = |source| ClientError::Connect {
        addr: addr.to_string(),
        source,
    };
    let timed_out = || std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out");
    let mut stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr))
        .await
        .map_err(|_| connect_error(timed_out()))?
        .map_err(connect_error)?;
    stream.set_nodelay(true).map_err(connect_error)?;
    let limits = tokio::time::timeout(
        CONNECT_TIMEOUT,
        handshake::offer(&mut stream, PROTOCOL_VERSION, token),
    )
    .await
    .unwrap_or_else(|_| Err(OfferError::Io(timed_out())))
    .map_err(|source| ClientError::Handshake {
        addr: addr.to_string(),
        source,
    })?;
    let transport = frames::transport(stream, limits.response, limits.request);
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
    /// The learner's config, resolved.
    pub run: ResolvedRun,
    /// What every later request carries.
    pub hello: Hello,
    /// The learner process that answered.
    pub learner: Incarnation,
}

/// Connects to the learner at `addr` and asks it for the run's config.
pub async fn join(addr: &str, token: Option<&Token>) -> Result<Joined, ClientError> {
    let client = connect(addr, token).await?;
    let info = client
        .info(context(), PROTOCOL_VERSION)
        .await
        .map_err(|e| ClientError::rpc("asking for the run's config", e))??;
    let run = ResolvedRun::new(Config::from_toml(
        &info.config_toml,
        "the learner's config",
    )?)?;
    let hello = Hello {
        protocol: PROTOCOL_VERSION,
        config_hash: info.config_hash,
        learner: info.learner.id,
    };
    Ok(Joined {
        client,
        run,
        hello,
        learner: info.learner,
    })
}
