//! Logging for every rnad process: `tracing` events with levels and
//! timestamps on stderr, filtered by `RUST_LOG` (default: `info` for rnad,
//! warnings and errors only from the libraries), as text for a terminal or
//! as one JSON object per line for a log collector.
//!
//! The format comes from `--log-format` or the `RNAD_LOG_FORMAT`
//! environment variable. Messages that could repeat without end (a learner
//! that stays away, a flood of refused connections) go through a
//! [`Throttle`], which lets one through per interval and says how many it
//! held back.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tracing_subscriber::EnvFilter;

/// What `RUST_LOG` means when it is not set: rnad's own events from `info`
/// up, the libraries' (tarpc logs every dropped connection) only from `warn`.
const DEFAULT_FILTER: &str =
    "warn,rnad_games=info,rnad_net=info,rnad_run=info,rnad_wire=info,rnad_process=info,\
     rnad_actor=info,rnad_learner=info,rnad_learner_cli=info,rnad_evaluator=info,rnad_uecda=info,rnad_uecda_client=info,\
     rnad_uecda_server=info,tarpc=error";

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines: timestamp, level, target, message, fields.
    #[default]
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, `fields`).
    Json,
}

/// A log format that is neither `text` nor `json`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown log format {0:?}: use text or json")]
pub struct UnknownLogFormat(pub String);

impl FromStr for LogFormat {
    type Err = UnknownLogFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(UnknownLogFormat(other.to_string())),
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogFormat::Text => "text",
            LogFormat::Json => "json",
        })
    }
}

static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// Installs the process's subscriber (once; later calls only return the
/// format in use). Writes to stderr, so a command's report on stdout stays
/// clean.
pub fn init(format: LogFormat) -> LogFormat {
    *FORMAT.get_or_init(|| {
        let filter =
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
        let builder = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr);
        let installed = match format {
            LogFormat::Text => builder
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .try_init(),
            LogFormat::Json => builder.json().flatten_event(true).try_init(),
        };
        // Tests that call `init` more than once find a subscriber in place.
        drop(installed);
        format
    })
}

/// What a command's failure means for its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The command line asked for something that cannot be done (a bad
    /// value, a flag combination, a `--set` of no key): exit status 2, as
    /// clap's own usage errors.
    Usage,
    /// The command could not do its work: exit status 1.
    Fatal,
    /// The work was stopped before its end and the same command resumes it
    /// (a sweep task stopped by a signal): exit status 75 (`EX_TEMPFAIL`),
    /// so that a scheduler runs it again rather than count it done.
    Unfinished,
}

/// Reports a command's error on stderr, as a log event where the filter
/// lets errors through and as a plain line where it does not
/// (`RUST_LOG=off`), so a failure is never silent; returns the exit status
/// for `failure`.
pub fn report_failure(error: &dyn fmt::Display, failure: Failure) -> std::process::ExitCode {
    if tracing::enabled!(tracing::Level::ERROR) {
        tracing::error!("{error}");
    } else {
        eprintln!("error: {error}");
    }
    std::process::ExitCode::from(match failure {
        Failure::Usage => 2,
        Failure::Fatal => 1,
        Failure::Unfinished => 75,
    })
}

/// The format [`init`] installed (text when it was never called).
pub fn format() -> LogFormat {
    FORMAT.get().copied().unwrap_or_default()
}

/// Lets a repeating message through at most once per interval.
#[derive(Debug)]
pub struct Throttle {
    every: Duration,
    last: Option<Instant>,
    held_back: u64,
}

impl Throttle {
    /// A throttle that lets one message through per `every`.
    pub const fn new(every: Duration) -> Throttle {
        Throttle {
            every,
            last: None,
            held_back: 0,
        }
    }

    /// `Some(n)` when a message may be logged now, `n` being how many were
    /// held back since the last one; `None` when this one is held back.
    pub fn ready(&mut self) -> Option<u64> {
        self.ready_at(Instant::now())
    }

    fn ready_at(&mut self, now: Instant) -> Option<u64> {
        match self.last {
            Some(last) if now.duration_since(last) < self.every => {
                self.held_back += 1;
                None
            }
            _ => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.held_back))
            }
        }
    }

    /// Forgets the history: the next message goes through at once (after
    /// the condition it reports has cleared).
    pub fn reset(&mut self) {
        *self = Throttle::new(self.every);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_lets_one_through_per_interval_and_counts_the_rest() {
        let mut throttle = Throttle::new(Duration::from_secs(60));
        let t0 = Instant::now();
        assert_eq!(throttle.ready_at(t0), Some(0));
        assert_eq!(throttle.ready_at(t0 + Duration::from_secs(1)), None);
        assert_eq!(throttle.ready_at(t0 + Duration::from_secs(59)), None);
        assert_eq!(throttle.ready_at(t0 + Duration::from_secs(60)), Some(2));
        assert_eq!(throttle.ready_at(t0 + Duration::from_secs(61)), None);
        throttle.reset();
        assert_eq!(throttle.ready_at(t0 + Duration::from_secs(62)), Some(0));
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!("json".parse::<LogFormat>(), Ok(LogFormat::Json));
        assert_eq!("text".parse::<LogFormat>(), Ok(LogFormat::Text));
        assert!("yaml"
            .parse::<LogFormat>()
            .unwrap_err()
            .to_string()
            .contains("yaml"));
    }
}
