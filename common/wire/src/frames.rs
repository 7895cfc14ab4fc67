//! How large a frame of the RPC protocol can legitimately be, computed from
//! the run's game and network rather than set to a blanket size: the
//! learner reads no request larger than the largest submit the protocol
//! allows, and clients read no response larger than the largest parameter
//! reply. Encoded sizes follow the transport's bincode options: lengths and
//! integers wider than a byte as variable-length integers (`varint_len`),
//! and the vectors of numbers as byte strings ([`crate::packed`]): a
//! length, then one byte per `u8` and four per `f32`.
//!
//! Requests and responses differ in size (a submit of Leduc games against
//! a parameter reply, or a small game with a wide network the other way
//! round), so each side's transport reads frames up to one limit and
//! writes frames up to the other ([`FrameCodec`]).

use std::io;

use serde::{Deserialize, Serialize};
use tarpc::tokio_serde::formats::Bincode;
use tarpc::tokio_serde::Framed as SerdeFramed;
use tarpc::tokio_util::bytes::{Bytes, BytesMut};
use tarpc::tokio_util::codec::{Decoder, Encoder, Framed, LengthDelimitedCodec};
use tokio::io::{AsyncRead, AsyncWrite};

use rnad_run::ResolvedRun;

/// Most trajectories one `submit` may carry (actors split larger batches).
pub const MAX_SUBMIT_TRAJECTORIES: usize = 1024;

/// Allowance for everything in a message but its bulk: tarpc's envelope
/// (request id, deadline, trace context), the call, the `Hello`, error
/// messages, and `info`'s config text.
const ENVELOPE: usize = 64 * 1024;
/// Most bytes of a variable-length `u64`.
const VARINT_U64: usize = 9;

/// Bytes of `n` as a bincode variable-length integer: one byte below 251,
/// else a marker byte and the value in 2, 4 or 8 bytes.
fn varint_len(n: usize) -> usize {
    match n as u64 {
        0..=250 => 1,
        251..=0xFFFF => 3,
        0x1_0000..=0xFFFF_FFFF => 5,
        _ => 9,
    }
}

/// Bytes of a byte string of `n` bytes.
fn packed(n: usize) -> usize {
    varint_len(n) + n
}

/// Bytes of a packed `Vec<f32>` of `n` values.
fn floats(n: usize) -> usize {
    packed(4 * n)
}

/// Bytes of the largest legal trajectory of `run`: the version, then the
/// columns of the game's longest game, player (a byte per decision),
/// action (two), obs (as floats, with its tag byte), legal counts (two), and with every action legal at
/// every decision their ids (two bytes each) and behaviour probabilities,
/// then rewards. Real games send far less: only what is legal. (A decision's
/// actions are the network's: the game's action groups where it scores
/// groups.)
pub(crate) fn largest_trajectory(run: &ResolvedRun) -> usize {
    let game = run.game();
    let n = run.trajectory_max();
    let actions = run.shape().actions;
    VARINT_U64
        + packed(n)
        + packed(2 * n)
        + packed(1 + 4 * n * game.information_state_tensor_size())
        + packed(2 * n)
        + packed(2 * n * actions)
        + floats(n * actions)
        + floats(n * game.num_players())
}

/// The largest frames each side of a connection reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameLimits {
    /// Largest request the learner reads (a full submit).
    pub request: usize,
    /// Largest response a client reads (every parameter set at once).
    pub response: usize,
}

impl FrameLimits {
    /// The limits for `run`.
    pub fn for_run(run: &ResolvedRun) -> FrameLimits {
        let trajectory = largest_trajectory(run);
        let request =
            ENVELOPE + varint_len(MAX_SUBMIT_TRAJECTORIES) + MAX_SUBMIT_TRAJECTORIES * trajectory;
        let tensors = run.shape().param_names();
        // Each set: its kind's tag, the tensor count, the tensors.
        let one_set = 1
            + varint_len(tensors.len())
            + tensors
                .iter()
                .map(|(_, dims)| floats(dims.iter().product()))
                .sum::<usize>();
        let kinds = rnad_net::PublishedSet::ALL.len();
        // Version and decisions, the wall time, the set count, the sets.
        let response = ENVELOPE + 2 * VARINT_U64 + 8 + varint_len(kinds) + kinds * one_set;
        FrameLimits { request, response }
    }
}

/// Length-delimited frames with one size limit for reading and another
/// for writing: tokio's codec has a single limit for both ways, and a
/// client bound by the response limit could not send a submit larger than
/// a parameter reply.
#[derive(Debug)]
pub struct FrameCodec {
    read: LengthDelimitedCodec,
    write: LengthDelimitedCodec,
}

impl FrameCodec {
    /// Reads frames of at most `read` bytes, writes frames of at most
    /// `write`.
    pub fn new(read: usize, write: usize) -> FrameCodec {
        let limited = |max| {
            LengthDelimitedCodec::builder()
                .max_frame_length(max)
                .new_codec()
        };
        FrameCodec {
            read: limited(read),
            write: limited(write),
        }
    }
}

impl Decoder for FrameCodec {
    type Item = BytesMut;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> io::Result<Option<BytesMut>> {
        self.read.decode(src)
    }
}

impl Encoder<Bytes> for FrameCodec {
    type Error = io::Error;

    fn encode(&mut self, frame: Bytes, dst: &mut BytesMut) -> io::Result<()> {
        self.write.encode(frame, dst)
    }
}

/// A tarpc transport: bincode messages in [`FrameCodec`] frames.
pub type Transport<S, Item, SinkItem> =
    SerdeFramed<Framed<S, FrameCodec>, Item, SinkItem, Bincode<Item, SinkItem>>;

/// A [`Transport`] over `io` that reads frames of at most `read` bytes
/// and writes frames of at most `write`.
pub fn transport<S, Item, SinkItem>(
    io: S,
    read: usize,
    write: usize,
) -> Transport<S, Item, SinkItem>
where
    S: AsyncRead + AsyncWrite,
{
    SerdeFramed::new(
        Framed::new(io, FrameCodec::new(read, write)),
        Bincode::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(len: usize) -> Bytes {
        Bytes::from(vec![7u8; len])
    }

    /// Frames up to the write limit are written and longer ones refused;
    /// frames up to the read limit are read and longer ones refused,
    /// whatever the write limit.
    #[test]
    fn each_way_has_its_own_limit() {
        let mut codec = FrameCodec::new(8, 16);
        let mut long = BytesMut::new();
        codec.encode(frame(16), &mut long).unwrap();
        assert!(codec.encode(frame(17), &mut BytesMut::new()).is_err());
        assert!(
            codec.decode(&mut long).is_err(),
            "16 bytes read under a limit of 8"
        );
        let mut short = BytesMut::new();
        codec.encode(frame(8), &mut short).unwrap();
        assert_eq!(codec.decode(&mut short).unwrap().unwrap(), frame(8));
    }
}
