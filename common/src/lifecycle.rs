//! How long-running processes stop and retry: a stop flag set by SIGINT or
//! SIGTERM, capped exponential backoff, waits that notice a stop, and a
//! session loop whose failures are logged without flooding the log.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::logging::Throttle;

/// First wait after a failure.
const BACKOFF_START: Duration = Duration::from_millis(100);
/// Longest wait between attempts.
const BACKOFF_CAP: Duration = Duration::from_secs(5);
/// Granularity of waits, so a stop request is seen promptly.
const STOP_POLL: Duration = Duration::from_millis(50);
/// How often a peer that stays away is reported again.
const STILL_FAILING_INTERVAL: Duration = Duration::from_secs(60);

/// A flag that SIGINT and SIGTERM set (install once per process).
pub fn stop_on_signals() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)) {
        tracing::warn!(error = %e, "cannot install the SIGINT/SIGTERM handler");
    }
    stop
}

/// Sleeps `total`, returning early once `stop` is set.
pub fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) {
    let mut left = total;
    while !left.is_zero() && !stop.load(Ordering::SeqCst) {
        let slice = left.min(STOP_POLL);
        std::thread::sleep(slice);
        left -= slice;
    }
}

/// Capped exponential backoff: 100 ms, doubling, at most 5 s.
#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            next: BACKOFF_START,
        }
    }
}

impl Backoff {
    /// The wait before the next attempt; each call doubles the one after.
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(BACKOFF_CAP);
        wait
    }

    /// Back to the shortest wait (after a success).
    pub fn reset(&mut self) {
        *self = Backoff::default();
    }
}

/// Runs `session` until it returns `Ok` or `stop` is set. After a failed
/// session, `on_error` hears the error and the wait before the next try;
/// the wait grows by [`Backoff`] and starts again short after a session
/// that got connected (it calls [`Attempt::connected`]).
///
/// Failures are logged here, naming `peer`: the first one after a
/// connected session, and any whose message differs from the last one
/// logged, as a warning; a repeated one once a minute with a count (each
/// at debug level); and a connection made after failures, as it is made,
/// as information.
pub fn run_sessions<E: Display>(
    stop: &AtomicBool,
    peer: &str,
    mut session: impl FnMut(&mut Attempt) -> Result<(), E>,
    mut on_error: impl FnMut(&E, Duration),
) {
    let mut backoff = Backoff::default();
    let mut log = FailureLog::new(peer);
    while !stop.load(Ordering::SeqCst) {
        let mut attempt = Attempt {
            log: &mut log,
            connected: false,
        };
        let result = session(&mut attempt);
        if attempt.connected {
            backoff.reset();
        }
        match result {
            Ok(()) => return,
            Err(_) if stop.load(Ordering::SeqCst) => return,
            Err(e) => {
                let wait = backoff.next_wait();
                log.failed(&e, wait);
                on_error(&e, wait);
                sleep_unless_stopped(wait, stop);
            }
        }
    }
}

/// One session of [`run_sessions`], which tells it when it got through.
pub struct Attempt<'a, 'b> {
    log: &'a mut FailureLog<'b>,
    connected: bool,
}

impl Attempt<'_, '_> {
    /// The session reached its peer: the next failure starts the backoff
    /// afresh, and a recovery is logged now.
    pub fn connected(&mut self) {
        self.connected = true;
        self.log.connected();
    }
}

/// The log lines of a session loop (see [`run_sessions`]).
struct FailureLog<'a> {
    peer: &'a str,
    throttle: Throttle,
    failures: u64,
    last_logged: String,
}

impl<'a> FailureLog<'a> {
    fn new(peer: &'a str) -> Self {
        FailureLog {
            peer,
            throttle: Throttle::new(STILL_FAILING_INTERVAL),
            failures: 0,
            last_logged: String::new(),
        }
    }

    fn connected(&mut self) {
        if self.failures > 0 {
            tracing::info!(
                peer = self.peer,
                failed_attempts = self.failures,
                "connected again"
            );
        }
        self.failures = 0;
        self.throttle.reset();
        self.last_logged.clear();
    }

    fn failed(&mut self, error: &dyn Display, wait: Duration) {
        self.failures += 1;
        tracing::debug!(peer = self.peer, %error, ?wait, attempt = self.failures, "retrying");
        let message = error.to_string();
        if message != self.last_logged {
            self.throttle.reset();
        }
        if self.throttle.ready().is_some() {
            self.last_logged = message;
            if self.failures == 1 {
                tracing::warn!(peer = self.peer, %error, "session ended; reconnecting with backoff");
            } else {
                tracing::warn!(
                    peer = self.peer,
                    %error,
                    failed_attempts = self.failures,
                    "still cannot reach the peer; retrying with backoff up to 5 s"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_cap_and_resets() {
        let mut backoff = Backoff::default();
        let waits: Vec<u128> = (0..9).map(|_| backoff.next_wait().as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
        backoff.reset();
        assert_eq!(backoff.next_wait().as_millis(), 100);
    }

    #[test]
    fn sessions_are_retried_until_one_ends_cleanly() {
        let stop = AtomicBool::new(false);
        let mut attempts = 0;
        let mut waits = Vec::new();
        run_sessions(
            &stop,
            "test",
            |attempt| {
                attempts += 1;
                if attempts == 2 {
                    attempt.connected();
                }
                if attempts < 4 {
                    Err(format!("failure {attempts}"))
                } else {
                    Ok(())
                }
            },
            |_, wait| waits.push(wait.as_millis()),
        );
        assert_eq!(attempts, 4);
        // The second attempt connected, so the third wait starts short again.
        assert_eq!(waits, [100, 100, 200]);
    }

    #[test]
    fn a_set_stop_flag_cuts_the_wait_short() {
        let stop = AtomicBool::new(true);
        let start = std::time::Instant::now();
        sleep_unless_stopped(Duration::from_secs(30), &stop);
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}
