//! The first bytes on every RPC connection, before any frame is read.
//!
//! The client sends `RNAD`, its protocol version (u32, big-endian), the
//! length of its token (u16) and the token. The learner answers `RNAD`, a
//! status byte, its own protocol version and the largest request and
//! response frames it will accept and send (u32 each). Only after an
//! accepted handshake does either side read a length-delimited frame, so a
//! peer that does not know the token can make the learner buffer no more
//! than [`MAX_TOKEN_LEN`] + 10 bytes, and a client learns the frame limits
//! before its first request.

use std::fmt;
use std::io;
use std::path::Path;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::frames::FrameLimits;
use rnad_process::listener::Refusal;

/// Opens both halves of the handshake.
const MAGIC: &[u8; 4] = b"RNAD";
/// Longest token accepted.
pub const MAX_TOKEN_LEN: usize = 256;

/// A shared secret that peers present before anything else is read.
/// Compared in constant time; never printed (its `Debug` is redacted).
#[derive(Clone, PartialEq, Eq)]
pub struct Token(Vec<u8>);

impl Token {
    /// A token from its text; surrounding whitespace (a file's trailing
    /// newline) is not part of it. `None` for an empty token.
    pub fn new(text: &str) -> Result<Option<Token>, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if text.len() > MAX_TOKEN_LEN {
            return Err(format!(
                "the token is {} bytes long; at most {MAX_TOKEN_LEN} are allowed",
                text.len()
            ));
        }
        Ok(Some(Token(text.as_bytes().to_vec())))
    }

    /// The token a process presents or requires: the contents of `file`
    /// when one is given, else the `RNAD_TOKEN` environment variable; none
    /// when neither is set or the token is empty.
    pub fn load(file: Option<&Path>) -> Result<Option<Token>, String> {
        match file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
                Token::new(&text).map_err(|e| format!("token file {}: {e}", path.display()))
            }
            None => match std::env::var("RNAD_TOKEN") {
                Ok(text) => Token::new(&text).map_err(|e| format!("RNAD_TOKEN: {e}")),
                Err(_) => Ok(None),
            },
        }
    }

    /// Whether `presented` is this token, in time independent of where they
    /// differ.
    fn matches(&self, presented: &[u8]) -> bool {
        self.0.len() == presented.len()
            && self
                .0
                .iter()
                .zip(presented)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// What went wrong on the learner's side of a handshake.
#[derive(Debug)]
pub enum AnswerError {
    /// The peer was refused (and told so, where it could be).
    Refused(Refusal),
    /// The connection failed or closed mid-handshake.
    Io(io::Error),
}

impl From<io::Error> for AnswerError {
    fn from(e: io::Error) -> Self {
        AnswerError::Io(e)
    }
}

/// What went wrong on the client's side of a handshake.
#[derive(Debug, thiserror::Error)]
pub enum OfferError {
    /// The learner refused the protocol version.
    #[error("the learner speaks protocol {learner}, this process {client}; run matching builds")]
    Protocol {
        /// The learner's version.
        learner: u32,
        /// Ours.
        client: u32,
    },
    /// The learner refused the token.
    #[error("the learner refused this process's token: give the learner's token with --token-file or RNAD_TOKEN")]
    Token,
    /// The other side is not an rnad learner.
    #[error("the other side is not an rnad learner (it answered something else)")]
    NotALearner,
    /// The learner closed the connection before answering (it may be at
    /// its connection limit) or the network failed.
    #[error("the learner closed the connection during the handshake ({0}); it may be at its connection limit")]
    Io(io::Error),
}

const ACCEPTED: u8 = 0;
const WRONG_PROTOCOL: u8 = 1;
const WRONG_TOKEN: u8 = 2;

/// The learner's side: reads the client's opening, checks it, answers.
pub async fn answer<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    protocol: u32,
    token: Option<&Token>,
    limits: FrameLimits,
) -> Result<(), AnswerError> {
    let mut head = [0u8; 10];
    stream.read_exact(&mut head).await?;
    if &head[..4] != MAGIC {
        return Err(AnswerError::Refused(Refusal::NotRnad));
    }
    let client = u32::from_be_bytes(head[4..8].try_into().expect("4 bytes"));
    let token_len = usize::from(u16::from_be_bytes([head[8], head[9]]));
    if token_len > MAX_TOKEN_LEN {
        return Err(AnswerError::Refused(Refusal::Token));
    }
    let mut presented = vec![0u8; token_len];
    stream.read_exact(&mut presented).await?;
    let (status, refusal) = if client != protocol {
        (WRONG_PROTOCOL, Some(Refusal::Protocol { client }))
    } else if token.is_some_and(|t| !t.matches(&presented)) {
        (WRONG_TOKEN, Some(Refusal::Token))
    } else {
        (ACCEPTED, None)
    };
    let mut reply = MAGIC.to_vec();
    reply.push(status);
    reply.extend_from_slice(&protocol.to_be_bytes());
    reply.extend_from_slice(&limit_bytes(limits.request));
    reply.extend_from_slice(&limit_bytes(limits.response));
    stream.write_all(&reply).await?;
    stream.flush().await?;
    match refusal {
        Some(refusal) => Err(AnswerError::Refused(refusal)),
        None => Ok(()),
    }
}

fn limit_bytes(limit: usize) -> [u8; 4] {
    u32::try_from(limit).unwrap_or(u32::MAX).to_be_bytes()
}

/// The client's side: presents the protocol version and token, and
/// returns the learner's frame limits once accepted.
pub async fn offer<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    protocol: u32,
    token: Option<&Token>,
) -> Result<FrameLimits, OfferError> {
    let token = token.map_or(&[][..], |t| t.0.as_slice());
    let mut opening = MAGIC.to_vec();
    opening.extend_from_slice(&protocol.to_be_bytes());
    opening.extend_from_slice(&(token.len() as u16).to_be_bytes());
    opening.extend_from_slice(token);
    stream.write_all(&opening).await.map_err(OfferError::Io)?;
    stream.flush().await.map_err(OfferError::Io)?;
    let mut reply = [0u8; 17];
    stream
        .read_exact(&mut reply)
        .await
        .map_err(OfferError::Io)?;
    if &reply[..4] != MAGIC {
        return Err(OfferError::NotALearner);
    }
    let word = |at: usize| u32::from_be_bytes(reply[at..at + 4].try_into().expect("4 bytes"));
    match reply[4] {
        ACCEPTED => Ok(FrameLimits {
            request: word(9) as usize,
            response: word(13) as usize,
        }),
        WRONG_PROTOCOL => Err(OfferError::Protocol {
            learner: word(5),
            client: protocol,
        }),
        WRONG_TOKEN => Err(OfferError::Token),
        _ => Err(OfferError::NotALearner),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: FrameLimits = FrameLimits {
        request: 1000,
        response: 2000,
    };

    async fn pair(
        client_protocol: u32,
        client_token: Option<&str>,
        learner_token: Option<&str>,
    ) -> (Result<FrameLimits, OfferError>, Result<(), AnswerError>) {
        let (mut client, mut server) = tokio::io::duplex(4096);
        let learner_token = learner_token.map(|t| Token::new(t).unwrap().unwrap());
        let client_token = client_token.map(|t| Token::new(t).unwrap().unwrap());
        let server =
            tokio::spawn(
                async move { answer(&mut server, 2, learner_token.as_ref(), LIMITS).await },
            );
        let offered = offer(&mut client, client_protocol, client_token.as_ref()).await;
        (offered, server.await.unwrap())
    }

    #[tokio::test]
    async fn a_matching_client_learns_the_frame_limits() {
        let (offered, answered) = pair(2, None, None).await;
        assert_eq!(offered.unwrap(), LIMITS);
        assert!(answered.is_ok());
        let (offered, answered) = pair(2, Some("s3cret"), Some("s3cret\n")).await;
        assert_eq!(offered.unwrap(), LIMITS);
        assert!(answered.is_ok());
    }

    #[tokio::test]
    async fn wrong_or_missing_tokens_and_versions_are_refused_on_both_sides() {
        for client_token in [None, Some("guess")] {
            let (offered, answered) = pair(2, client_token, Some("s3cret")).await;
            assert!(matches!(offered, Err(OfferError::Token)), "{offered:?}");
            assert!(matches!(
                answered,
                Err(AnswerError::Refused(Refusal::Token))
            ));
        }
        let (offered, answered) = pair(1, None, None).await;
        let error = offered.unwrap_err();
        assert!(
            error.to_string().contains("protocol 2, this process 1"),
            "{error}"
        );
        assert!(matches!(
            answered,
            Err(AnswerError::Refused(Refusal::Protocol { client: 1 }))
        ));
    }

    #[tokio::test]
    async fn a_stranger_is_refused_after_four_bytes() {
        let (mut client, mut server) = tokio::io::duplex(4096);
        client
            .write_all(b"GET /metrics HTTP/1.1\r\n\r\n")
            .await
            .unwrap();
        let answered = answer(&mut server, 2, None, LIMITS).await;
        assert!(matches!(
            answered,
            Err(AnswerError::Refused(Refusal::NotRnad))
        ));
    }

    #[test]
    fn tokens_are_trimmed_bounded_and_never_printed() {
        assert_eq!(Token::new("  \n").unwrap(), None);
        let token = Token::new("abc\n").unwrap().unwrap();
        assert!(token.matches(b"abc") && !token.matches(b"abd") && !token.matches(b"ab"));
        assert_eq!(format!("{token:?}"), "Token(<redacted>)");
        assert!(Token::new(&"x".repeat(300))
            .unwrap_err()
            .contains("300 bytes"));
    }
}
