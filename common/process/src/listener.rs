//! Listeners that a week of real traffic cannot take down: a cap on
//! concurrent connections, backoff on accept errors, and connections that
//! are dropped when their peer goes quiet or sends too slowly.
//!
//! Every TCP listener of the project (the learner's RPC service and every
//! `/metrics` endpoint) accepts through [`accept_loop`]:
//!
//! * At most [`Limits::max_connections`] connections are served at once. A
//!   connection over the cap is accepted and closed at once, so it costs
//!   neither a file descriptor nor memory for longer than that; leaving it
//!   in the kernel's queue instead would let idle peers starve everyone.
//! * An error from `accept` (out of file descriptors, typically) is logged
//!   (throttled) and followed by a pause that doubles up to a second, so a
//!   process out of descriptors does not spin.
//!
//! [`GuardedStream`] wraps a served connection and fails its reads and
//! writes with `TimedOut` when the peer sends nothing for
//! [`Limits::idle_timeout`], takes longer than [`Limits::frame_timeout`] to
//! deliver one length-delimited frame once it started it, or does not read
//! what is written to it for as long. It follows the 4-byte big-endian
//! length prefixes of the transport's frames to know where one ends.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

use crate::logging::Throttle;

/// Shortest pause after a failed `accept`.
const ACCEPT_BACKOFF_START: Duration = Duration::from_millis(10);
/// Longest pause after failed `accept`s in a row.
const ACCEPT_BACKOFF_CAP: Duration = Duration::from_secs(1);
/// How often a repeating listener complaint is logged.
const COMPLAINT_INTERVAL: Duration = Duration::from_secs(60);

/// What a listener allows one peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once.
    pub max_connections: usize,
    /// Time a new connection has to identify itself (the RPC handshake, or
    /// a whole HTTP request head).
    pub handshake_timeout: Duration,
    /// Longest silence from a connected peer.
    pub idle_timeout: Duration,
    /// Longest time one frame may take to arrive once its first byte has,
    /// and longest a written frame may wait for the peer to read it.
    pub frame_timeout: Duration,
}

/// Why a connection was closed by the listener rather than by its peer:
/// at accept ([`accept_loop`]) or during the handshake
/// (`rnad_wire::handshake`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The listener was at its connection cap.
    Busy,
    /// The peer did not open with `RNAD`: not an rnad client.
    NotRnad,
    /// Another protocol version.
    Protocol {
        /// The client's version.
        client: u32,
    },
    /// A missing or wrong token.
    Token,
}

impl Refusal {
    /// The `reason` label of the refusal counters.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::Busy => "busy",
            Refusal::NotRnad => "not_rnad",
            Refusal::Protocol { .. } => "protocol",
            Refusal::Token => "token",
        }
    }
}

/// Accepts connections on `listener` for as long as the runtime runs,
/// handing each one under the cap to `serve` together with the permit that
/// holds its place (drop it when the connection ends). `on_refused` hears
/// about each connection closed over the cap; `name` says which listener
/// speaks in the logs.
pub async fn accept_loop<F, Fut>(
    listener: TcpListener,
    limits: Limits,
    name: &'static str,
    on_refused: impl Fn(Refusal) + Send + 'static,
    serve: F,
) where
    F: Fn(TcpStream, SocketAddr, OwnedSemaphorePermit) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let busy = Mutex::new(Throttle::new(COMPLAINT_INTERVAL));
    let mut failing = Throttle::new(COMPLAINT_INTERVAL);
    let mut backoff = ACCEPT_BACKOFF_START;
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                backoff = ACCEPT_BACKOFF_START;
                failing.reset();
                match slots.clone().try_acquire_owned() {
                    Ok(permit) => {
                        tokio::spawn(serve(stream, peer, permit));
                    }
                    Err(_) => {
                        drop(stream);
                        on_refused(Refusal::Busy);
                        if let Some(held) = busy.lock().expect("throttle lock").ready() {
                            tracing::warn!(
                                listener = name,
                                max_connections = limits.max_connections,
                                refused_since_last_report = held + 1,
                                "at the connection cap: closing new connections until some end"
                            );
                        }
                    }
                }
            }
            Err(error) => {
                if let Some(held) = failing.ready() {
                    tracing::error!(
                        listener = name,
                        %error,
                        failures_since_last_report = held + 1,
                        "cannot accept connections; retrying with backoff"
                    );
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_CAP);
            }
        }
    }
}

/// Where a guarded read is in the stream of length-delimited frames.
#[derive(Clone, Copy, Debug, Default)]
struct FrameTracker {
    /// Bytes of the current length prefix seen so far (0 to 3).
    header_len: usize,
    /// The length prefix so far.
    header: [u8; 4],
    /// Body bytes still to come of the current frame.
    body_left: u64,
    /// When the current frame's first byte arrived (`None` between frames).
    started: Option<Instant>,
}

impl FrameTracker {
    /// Follows `bytes` through the frames; `now` is when they arrived.
    fn observe(&mut self, mut bytes: &[u8], now: Instant) {
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let take = (bytes.len() as u64).min(self.body_left);
                self.body_left -= take;
                bytes = &bytes[take as usize..];
            } else {
                if self.header_len == 0 {
                    self.started = Some(now);
                }
                self.header[self.header_len] = bytes[0];
                self.header_len += 1;
                bytes = &bytes[1..];
                if self.header_len == 4 {
                    self.header_len = 0;
                    self.body_left = u64::from(u32::from_be_bytes(self.header));
                }
            }
            if self.header_len == 0 && self.body_left == 0 {
                self.started = None;
            }
        }
    }
}

/// A connection whose reads and writes fail with `TimedOut` when the peer
/// is idle or slow (see the module documentation).
#[derive(Debug)]
pub struct GuardedStream<S> {
    inner: S,
    limits: Limits,
    timer: Pin<Box<Sleep>>,
    last_read: Instant,
    frames: FrameTracker,
    write_blocked_since: Option<Instant>,
}

impl<S> GuardedStream<S> {
    /// Guards `inner` with `limits`' idle and frame timeouts.
    pub fn new(inner: S, limits: Limits) -> GuardedStream<S> {
        let now = Instant::now();
        GuardedStream {
            inner,
            limits,
            timer: Box::pin(tokio::time::sleep_until(now + limits.idle_timeout)),
            last_read: now,
            frames: FrameTracker::default(),
            write_blocked_since: None,
        }
    }

    /// The earliest moment something is overdue, and what.
    fn deadline(&self) -> (Instant, &'static str) {
        let mut deadline = (
            self.last_read + self.limits.idle_timeout,
            "the peer sent nothing for too long",
        );
        let slow = [
            (
                self.frames.started,
                "the peer took too long to send a frame",
            ),
            (
                self.write_blocked_since,
                "the peer did not read what was sent to it",
            ),
        ];
        for (since, what) in slow {
            if let Some(since) = since {
                let due = since + self.limits.frame_timeout;
                if due < deadline.0 {
                    deadline = (due, what);
                }
            }
        }
        deadline
    }

    /// `Ready(error)` when a deadline has passed; otherwise arms the timer
    /// to wake the task at the next one.
    fn poll_overdue(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let (due, what) = self.deadline();
        if self.timer.deadline() != due {
            self.timer.as_mut().reset(due);
        }
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(io::ErrorKind::TimedOut, what)),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for GuardedStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let now = Instant::now();
                let received = &buf.filled()[before..];
                if !received.is_empty() {
                    this.last_read = now;
                    this.frames.observe(received, now);
                }
                match this.frames.started {
                    Some(started) if now - started > this.limits.frame_timeout => {
                        Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the peer took too long to send a frame",
                        )))
                    }
                    _ => Poll::Ready(Ok(())),
                }
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.poll_overdue(cx).map(Err),
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for GuardedStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Pending => {
                this.write_blocked_since.get_or_insert_with(Instant::now);
                this.poll_overdue(cx).map(Err)
            }
            ready => {
                this.write_blocked_since = None;
                ready
            }
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const LIMITS: Limits = Limits {
        max_connections: 2,
        handshake_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_millis(300),
        frame_timeout: Duration::from_millis(200),
    };

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut bytes = (body.len() as u32).to_be_bytes().to_vec();
        bytes.extend_from_slice(body);
        bytes
    }

    #[test]
    fn frames_are_followed_across_reads_of_any_size() {
        let now = Instant::now();
        let mut tracker = FrameTracker::default();
        let stream: Vec<u8> = [frame(b"abc"), frame(b""), frame(&[7; 300])].concat();
        // Byte by byte: between frames nothing is pending.
        for (i, byte) in stream.iter().enumerate() {
            tracker.observe(std::slice::from_ref(byte), now);
            let frame_ends = [6, 10, stream.len() - 1].contains(&i);
            assert_eq!(tracker.started.is_none(), frame_ends, "after byte {i}");
        }
        // All at once, then half a frame.
        tracker.observe(&stream, now);
        assert!(tracker.started.is_none());
        tracker.observe(&frame(b"hello")[..6], now);
        assert_eq!((tracker.started, tracker.body_left), (Some(now), 3));
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_quiet_peer_times_out_and_an_active_one_does_not() {
        let (client, server) = tokio::io::duplex(1024);
        let mut guarded = GuardedStream::new(server, LIMITS);
        let mut client = client;
        let writer = tokio::spawn(async move {
            for _ in 0..5 {
                client.write_all(&frame(b"ping")).await.unwrap();
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            client
        });
        let mut buf = vec![0u8; 8 * 5];
        guarded.read_exact(&mut buf).await.unwrap();
        let _client = writer.await.unwrap();
        let mut one = [0u8; 1];
        let error = guarded.read(&mut one).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(
            error.to_string().contains("nothing for too long"),
            "{error}"
        );
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_trickled_frame_times_out_even_while_bytes_keep_coming() {
        let (mut client, server) = tokio::io::duplex(1024);
        let mut guarded = GuardedStream::new(server, LIMITS);
        tokio::spawn(async move {
            client.write_all(&1000u32.to_be_bytes()).await.unwrap();
            for _ in 0..100 {
                if client.write_all(&[1]).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        let mut buf = vec![0u8; 1004];
        let error = guarded.read_exact(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(error.to_string().contains("frame"), "{error}");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_peer_that_does_not_read_times_out_the_writer() {
        let (_client, server) = tokio::io::duplex(64);
        let mut guarded = GuardedStream::new(server, LIMITS);
        let error = guarded.write_all(&[0u8; 4096]).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(error.to_string().contains("did not read"), "{error}");
    }
}
