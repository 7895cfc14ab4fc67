//! Prometheus metrics: a registry per process, and the `/metrics` HTTP
//! endpoint that serves it in the text exposition format.
//!
//! The endpoint is a deliberately small HTTP/1.1 responder (one request per
//! connection, `GET /metrics` only): scrapes are all it has to answer. It
//! accepts through [`crate::listener::accept_loop`] with [`LIMITS`]: a
//! scraper sends its request at once and reads a page of a few kilobytes,
//! so a peer that does neither within seconds is closed, and a flood of
//! connections costs at most the cap in descriptors.

use std::net::SocketAddr;
use std::time::Duration;

use prometheus::{Encoder, Registry, TextEncoder};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::listener::{accept_loop, Limits};

/// Largest request head the endpoint reads.
const MAX_REQUEST: usize = 8192;

/// What a `/metrics` endpoint allows: a few scrapers at once, each with
/// five seconds (`handshake_timeout`) for the whole exchange.
pub const LIMITS: Limits = Limits {
    max_connections: 32,
    handshake_timeout: Duration::from_secs(5),
    idle_timeout: Duration::from_secs(5),
    frame_timeout: Duration::from_secs(5),
};

/// Binds `addr` and serves `registry` at `/metrics` on the current tokio
/// runtime until the runtime stops. Returns the bound address (useful with
/// port 0).
///
/// The page also carries the process's own `process_*` metrics (start time,
/// CPU, memory, file descriptors), which dashboards count restarts by.
pub async fn serve(addr: SocketAddr, registry: Registry) -> std::io::Result<SocketAddr> {
    // Already registered when this registry is served a second time.
    let _ = registry.register(Box::new(
        prometheus::process_collector::ProcessCollector::for_self(),
    ));
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(accept_loop(
        listener,
        LIMITS,
        "metrics",
        |_| {},
        move |stream, _, permit| {
            let registry = registry.clone();
            async move {
                let exchange = respond(stream, &registry);
                let _ = tokio::time::timeout(LIMITS.handshake_timeout, exchange).await;
                drop(permit);
            }
        },
    ));
    Ok(bound)
}

async fn respond(mut stream: TcpStream, registry: &Registry) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let request_line = String::from_utf8_lossy(&head);
    let path = request_line.split_whitespace().nth(1).unwrap_or("");
    let (status, content_type, body) =
        if request_line.starts_with("GET ") && path.split('?').next() == Some("/metrics") {
            let encoder = TextEncoder::new();
            let mut body = Vec::new();
            encoder
                .encode(&registry.gather(), &mut body)
                .map_err(std::io::Error::other)?;
            ("200 OK", encoder.format_type().to_string(), body)
        } else {
            (
                "404 Not Found",
                "text/plain".to_string(),
                b"only /metrics is served\n".to_vec(),
            )
        };
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(header.as_bytes()).await?;
    stream.write_all(&body).await?;
    stream.shutdown().await
}

/// Starts a small runtime of its own and serves `registry` on it (for
/// processes whose main work is not async). Keep the runtime alive as long
/// as the endpoint should answer.
pub fn serve_blocking(
    addr: SocketAddr,
    registry: Registry,
) -> std::io::Result<(tokio::runtime::Runtime, SocketAddr)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("metrics")
        .enable_all()
        .build()?;
    let bound = runtime.block_on(serve(addr, registry))?;
    Ok((runtime, bound))
}
