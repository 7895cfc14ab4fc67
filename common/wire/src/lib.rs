//! The wire protocol between the learner and its actors and evaluators: one
//! tarpc service over TCP with a length-delimited bincode transport.
//!
//! A connection opens with a [`handshake`]: the protocol version and an
//! optional shared token, answered with the frame limits ([`frames`]) both
//! sides then hold each other to. Every request carries a [`Hello`]: the
//! protocol version and a hash of the game and network shape. The learner
//! refuses a mismatch with an error saying what differs, so processes built
//! or configured differently never mix silently. [`LearnerService::info`]
//! needs only the protocol version: it hands a new client the run's config,
//! from which it computes the hash. What actors send is one finished game
//! a [`trajectory`]; vectors of numbers travel as byte strings
//! ([`packed`]).
//!
//! Above the run ([`rnad_run`]: the config the learner hands out and its
//! hash) and the networks ([`rnad_net`]: parameter sets), and the bounded
//! listeners of [`rnad_process`].

pub mod client;
pub mod frames;
pub mod handshake;
pub mod packed;
pub mod trajectory;

pub use client::{connect, context, join, ClientError, Joined, REQUEST_DEADLINE};

use serde::{Deserialize, Serialize};

use crate::trajectory::Trajectory;
use rnad_net::{NetShape, ParamSet, PublishedSet, ShapeMismatch};
use rnad_run::config::Config;

/// Bytes of `value` as the transport writes it (bincode; tarpc's envelope
/// not counted): what a submission or a reply costs on the wire.
pub fn encoded_len<T: Serialize + Unpin>(value: &T) -> usize {
    use tarpc::tokio_serde::Serializer;
    let mut codec = tarpc::tokio_serde::formats::Bincode::<(), T>::default();
    std::pin::Pin::new(&mut codec)
        .serialize(value)
        .expect("wire values serialise")
        .len()
}

/// Bumped whenever a wire type or call changes meaning.
pub const PROTOCOL_VERSION: u32 = 8;

/// Who is calling, and with what protocol and run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The caller's [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// [`config_hash`] of the config the caller works with.
    pub config_hash: u64,
    /// [`Incarnation::id`] of the learner the caller joined: a learner
    /// that has since gone back to a checkpoint refuses it, so the caller
    /// joins again and learns where the learner went back to.
    pub learner: u64,
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
    /// The learner went back to a checkpoint since the caller joined: what
    /// the caller holds belongs to steps the run abandoned.
    #[error("the learner went back to its checkpoint at step {step}; join again")]
    WentBack {
        /// The step it went back to.
        step: u64,
    },
    /// The learner is shutting down.
    #[error("the learner is shutting down")]
    ShuttingDown,
    /// The learner failed to answer (its message says why).
    #[error("learner error: {0}")]
    Internal(String),
}

/// Parameter tensors, flattened, in [`NetShape::param_names`] order, each
/// one byte string on the wire ([`crate::packed`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireParams(#[serde(with = "crate::packed::f32_vecs")] pub Vec<Vec<f32>>);

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
    pub fn to_set(&self, shape: &NetShape) -> Result<ParamSet, ShapeMismatch> {
        let names = shape.param_names();
        if names.len() != self.0.len() {
            return Err(ShapeMismatch(format!(
                "{} tensors, the network has {}",
                self.0.len(),
                names.len()
            )));
        }
        let tensors = names
            .iter()
            .zip(&self.0)
            .map(|((name, dims), values)| {
                let n: usize = dims.iter().product();
                if values.len() != n {
                    return Err(ShapeMismatch(format!(
                        "{name}: {} values, expected {n}",
                        values.len()
                    )));
                }
                candle_core::Tensor::from_slice(values, dims.as_slice(), &candle_core::Device::Cpu)
                    .map_err(|e| ShapeMismatch(e.to_string()))
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
    pub decisions: u64,
    /// Training wall time (across restarts) when they were published, so
    /// an evaluator's history is on the run's own clock.
    pub wall_seconds: f64,
    /// The requested kinds.
    pub sets: Vec<(PublishedSet, WireParams)>,
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
    /// The learner process that answers.
    pub learner: Incarnation,
}

/// Which learner process serves a run, and since when. A learner that
/// restarts is a new process going on from its checkpoint, and one that
/// rolls back after diverging goes back to one: what a client kept of the
/// steps after that (an evaluator's running average) belongs to steps the
/// run lost, however far the learner has trained by the time the client
/// looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Incarnation {
    /// Drawn at random when the process starts or rolls back.
    pub id: u64,
    /// The learner step it started at or went back to: a checkpoint's, or 0.
    pub resumed_at_step: u64,
}

impl Incarnation {
    /// A new learner process's, started at `resumed_at_step` (or a learner's
    /// after it rolled back there).
    pub fn new(resumed_at_step: u64) -> Incarnation {
        Incarnation {
            id: rand::random(),
            resumed_at_step,
        }
    }
}

/// The games of one `submit`: at most [`frames::MAX_SUBMIT_TRAJECTORIES`],
/// a bound enforced while decoding, before any game is built. A frame
/// within the request limit could otherwise carry about 190,000 empty
/// Leduc games (seven bytes each on the wire, 152 in memory) and make the
/// learner hold about 30 MB per request before counting them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Submission(pub Vec<Trajectory>);

impl<'de> Deserialize<'de> for Submission {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bounded;
        impl<'de> serde::de::Visitor<'de> for Bounded {
            type Value = Submission;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(
                    f,
                    "at most {} trajectories",
                    frames::MAX_SUBMIT_TRAJECTORIES
                )
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Submission, A::Error> {
                let too_many = |n: usize| {
                    serde::de::Error::custom(format!(
                        "{n} trajectories in one submit, at most {} are allowed",
                        frames::MAX_SUBMIT_TRAJECTORIES
                    ))
                };
                let declared = seq.size_hint().unwrap_or(0);
                if declared > frames::MAX_SUBMIT_TRAJECTORIES {
                    return Err(too_many(declared));
                }
                let mut games = Vec::with_capacity(declared);
                while let Some(game) = seq.next_element()? {
                    if games.len() == frames::MAX_SUBMIT_TRAJECTORIES {
                        return Err(too_many(games.len() + 1));
                    }
                    games.push(game);
                }
                Ok(Submission(games))
            }
        }
        deserializer.deserialize_seq(Bounded)
    }
}

/// The answer to a submitted batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmitAck {
    /// The current parameter version (fetch when it moved).
    pub version: u64,
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
        kinds: Vec<PublishedSet>,
    ) -> Result<Option<Params>, ProtoError>;
    /// Queues a batch of finished games (validated first; waits while the
    /// queue is full).
    async fn submit(hello: Hello, games: Submission) -> Result<SubmitAck, ProtoError>;
}

/// The game and network shape, in words (what [`config_hash`] covers).
pub fn config_identity(config: &Config) -> String {
    format!(
        "{} with torso {} of widths {:?}",
        config.game, config.network.torso, config.network.hidden
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

#[cfg(test)]
mod tests {
    use std::pin::Pin;

    use tarpc::tokio_serde::formats::Bincode;
    use tarpc::tokio_serde::{Deserializer, Serializer};
    use tarpc::tokio_util::bytes::BytesMut;

    use super::frames::{largest_trajectory, FrameLimits, MAX_SUBMIT_TRAJECTORIES};
    use super::*;
    use crate::trajectory::Decision;
    use rnad_run::ResolvedRun;

    /// The largest submit and the largest parameter reply of a config, as
    /// they travel, fit its frame limits, and the limits are not loose
    /// enough to let a peer make the learner buffer much more.
    #[test]
    fn the_largest_legal_messages_fit_the_frame_limits_tightly() {
        for text in [
            include_str!("../../../configs/kuhn.toml"),
            include_str!("../../../configs/leduc-reference.toml"),
        ] {
            let run = ResolvedRun::new(Config::from_toml(text, "shipped").unwrap()).unwrap();
            let limits = FrameLimits::for_run(&run);
            let game = run.game();
            let (actions, players) = (game.num_distinct_actions(), game.num_players());
            // Every action legal at every decision: the most a decision
            // can carry.
            let (obs, legal) = (
                vec![f32::MAX; game.information_state_tensor_size()],
                (0..actions as u16).collect::<Vec<u16>>(),
            );
            let (behaviour, rewards) = (vec![f32::MAX; actions], vec![f32::MAX; players]);
            let mut trajectory = Trajectory::new(u64::MAX);
            for _ in 0..run.trajectory_max() {
                trajectory.push(Decision {
                    obs: &obs,
                    legal: &legal,
                    player: (players - 1) as u8,
                    action: (actions - 1) as u16,
                    behaviour: &behaviour,
                    rewards: &rewards,
                });
            }
            // Exact, so that no column can be left out of the count: the
            // envelope's allowance would hide one.
            assert_eq!(encoded_len(&trajectory), largest_trajectory(&run));
            let hello = Hello {
                protocol: u32::MAX,
                config_hash: u64::MAX,
                learner: u64::MAX,
            };
            let submit = tarpc::ClientMessage::Request(tarpc::Request {
                context: context(),
                id: u64::MAX,
                message: LearnerServiceRequest::Submit {
                    hello,
                    games: Submission(vec![trajectory; MAX_SUBMIT_TRAJECTORIES]),
                },
            });
            let request = encoded_len(&submit);
            assert!(request <= limits.request, "{request} > {limits:?}");
            assert!(
                limits.request < request * 3 / 2 + 64 * 1024,
                "{request} vs {limits:?}"
            );

            let set = WireParams::from_set(&ParamSet::init(run.shape(), 0).unwrap()).unwrap();
            let reply = tarpc::Response {
                request_id: u64::MAX,
                message: Ok(LearnerServiceResponse::FetchParams(Ok(Some(Params {
                    version: u64::MAX,
                    decisions: u64::MAX,
                    wall_seconds: f64::MAX,
                    sets: PublishedSet::ALL
                        .iter()
                        .map(|&k| (k, set.clone()))
                        .collect(),
                })))),
            };
            let response = encoded_len(&reply);
            assert!(response <= limits.response, "{response} > {limits:?}");
            assert!(
                limits.response < response * 3 / 2 + 64 * 1024,
                "{response} vs {limits:?}"
            );
        }
    }

    /// A submit of more games than allowed fails while it is decoded,
    /// whatever their size; the largest allowed one decodes.
    #[test]
    fn a_submission_is_bounded_while_it_is_decoded() {
        let decode = |games: usize| {
            let bytes = {
                let mut codec = Bincode::<(), Submission>::default();
                Pin::new(&mut codec)
                    .serialize(&Submission(vec![Trajectory::new(0); games]))
                    .unwrap()
            };
            let mut codec = Bincode::<Submission, ()>::default();
            Pin::new(&mut codec).deserialize(&BytesMut::from(bytes.as_ref()))
        };
        assert_eq!(
            decode(MAX_SUBMIT_TRAJECTORIES).unwrap().0.len(),
            MAX_SUBMIT_TRAJECTORIES
        );
        let err = decode(MAX_SUBMIT_TRAJECTORIES + 1).unwrap_err();
        assert!(
            err.to_string()
                .contains("1025 trajectories in one submit, at most 1024 are allowed"),
            "{err}"
        );
    }
}
