//! Bounded waiting: every loop a test runs ends.

use std::time::{Duration, Instant};

/// Polls `check` every 100 ms for at most `timeout`; panics with `what`
/// (and `context()`) if it never returns `Some`.
pub fn wait_for<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Option<T>,
    context: impl Fn() -> String,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}\n{}",
            context()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
