//! How long-running processes retry: capped exponential backoff with full
//! jitter, and a session loop that waits on the process's [`Shutdown`] and
//! logs its failures without flooding the log.

use std::fmt::Display;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::logging::Throttle;
use crate::shutdown::Shutdown;

/// The ceiling of the first wait after a failure.
const BACKOFF_START: Duration = Duration::from_millis(100);
/// The highest ceiling: no wait is longer.
pub const BACKOFF_CAP: Duration = Duration::from_secs(5);
/// How often a peer that stays away is reported again.
const STILL_FAILING_INTERVAL: Duration = Duration::from_secs(60);

/// Capped exponential backoff with full jitter: each wait is drawn
/// uniformly between zero and a ceiling that starts at 100 ms and doubles
/// up to 5 s. Without the jitter every actor that lost a restarting learner
/// would reconnect at the same instants; with it their attempts spread over
/// the whole ceiling.
#[derive(Clone, Debug)]
pub struct Backoff {
    ceiling: Duration,
    random: ChaCha8Rng,
}

impl Default for Backoff {
    /// A backoff whose jitter is seeded from the operating system, so that
    /// no two processes share it.
    fn default() -> Self {
        Backoff::seeded(rand::rng().random())
    }
}

impl Backoff {
    /// A backoff whose jitter is drawn from `seed`.
    pub fn seeded(seed: u64) -> Backoff {
        Backoff {
            ceiling: BACKOFF_START,
            random: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The wait before the next attempt; each call doubles the ceiling of
    /// the one after, up to the cap.
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.ceiling.mul_f64(self.random.random::<f64>());
        self.ceiling = (self.ceiling * 2).min(BACKOFF_CAP);
        wait
    }

    /// The ceiling of the next wait.
    pub fn ceiling(&self) -> Duration {
        self.ceiling
    }

    /// Back to the lowest ceiling (after a success).
    pub fn reset(&mut self) {
        self.ceiling = BACKOFF_START;
    }
}

/// Runs `session` until it returns `Ok` or `shutdown` is cancelled. After a
/// failed session, `on_error` hears the error and the wait before the next
/// try; the wait grows by [`Backoff`] and starts again short after a
/// session that got connected (it calls [`Attempt::connected`]), and a
/// cancel cuts it short.
///
/// Failures are logged here, naming `peer`: the first one after a
/// connected session, and any whose message differs from the last one
/// logged, as a warning; a repeated one once a minute with a count (each
/// at debug level); and a connection made after failures, as it is made,
/// as information.
pub fn run_sessions<E: Display>(
    shutdown: &Shutdown,
    peer: &str,
    mut session: impl FnMut(&mut Attempt) -> Result<(), E>,
    mut on_error: impl FnMut(&E, Duration),
) {
    let mut backoff = Backoff::default();
    let mut log = FailureLog::new(peer);
    while !shutdown.is_cancelled() {
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
            Err(_) if shutdown.is_cancelled() => return,
            Err(e) => {
                let wait = backoff.next_wait();
                log.failed(&e, wait);
                on_error(&e, wait);
                shutdown.sleep(wait);
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
    /// The session reached its peer and got work done (a batch accepted,
    /// an evaluation written): the next failure starts the backoff afresh,
    /// and a recovery is logged now. A peer that answers but refuses every
    /// request keeps the backoff growing.
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
    fn backoff_waits_stay_under_a_doubling_capped_ceiling_and_reset() {
        let mut backoff = Backoff::seeded(1);
        let ceilings: Vec<u128> = (0..9)
            .map(|_| {
                let ceiling = backoff.ceiling();
                let wait = backoff.next_wait();
                assert!(wait <= ceiling && wait <= BACKOFF_CAP, "{wait:?}");
                ceiling.as_millis()
            })
            .collect();
        assert_eq!(ceilings, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
        backoff.reset();
        assert_eq!(backoff.ceiling().as_millis(), 100);
    }

    #[test]
    fn two_clients_backing_off_together_do_not_wait_alike() {
        let schedule = |seed| {
            let mut backoff = Backoff::seeded(seed);
            (0..20).map(|_| backoff.next_wait()).collect::<Vec<_>>()
        };
        let (first, second) = (schedule(1), schedule(2));
        let same = first.iter().zip(&second).filter(|(a, b)| a == b).count();
        assert_eq!(same, 0, "{first:?}\n{second:?}");
        // The jitter spreads over the ceiling rather than clustering at it.
        let capped: Vec<f64> = first[10..].iter().map(Duration::as_secs_f64).collect();
        let spread = capped.iter().cloned().fold(f64::MIN, f64::max)
            - capped.iter().cloned().fold(f64::MAX, f64::min);
        assert!(spread > 1.0, "{capped:?}");
        // Unseeded backoffs draw their own jitter.
        let (mut a, mut b) = (Backoff::default(), Backoff::default());
        let draws = |x: &mut Backoff| (0..10).map(|_| x.next_wait()).collect::<Vec<_>>();
        assert_ne!(draws(&mut a), draws(&mut b));
    }

    #[test]
    fn sessions_are_retried_until_one_ends_cleanly() {
        let shutdown = Shutdown::new();
        let mut attempts = 0;
        let mut waits = Vec::new();
        run_sessions(
            &shutdown,
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
            |_, wait| waits.push(wait),
        );
        assert_eq!(attempts, 4);
        // The second attempt connected, so the third wait's ceiling starts
        // low again: 100, 100, then 200 ms.
        let ceilings = [100, 100, 200].map(Duration::from_millis);
        assert_eq!(waits.len(), 3);
        for (wait, ceiling) in waits.iter().zip(ceilings) {
            assert!(*wait <= ceiling, "{waits:?}");
        }
    }

    #[test]
    fn a_cancelled_shutdown_ends_the_sessions_before_the_first() {
        let shutdown = Shutdown::new();
        shutdown.cancel();
        let mut attempts = 0;
        run_sessions(
            &shutdown,
            "test",
            |_| {
                attempts += 1;
                Err("never")
            },
            |_, _| {},
        );
        assert_eq!(attempts, 0);
    }
}
