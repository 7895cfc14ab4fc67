//! How a process stops: one [`Shutdown`] token that every task and thread
//! holds and waits on wherever it could block, the way mini-redis's
//! `shutdown.rs` does. An async task `select!`s on [`Shutdown::cancelled`];
//! a thread sleeps with [`Shutdown::sleep`], which wakes at once when the
//! token is cancelled. SIGINT and SIGTERM cancel the process's root token
//! ([`Shutdown::on_signals`]); a child token (the local run's actor
//! threads, the learner's service) is cancelled with its parent or on its
//! own.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// A cancellation token; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Shutdown {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Whether the token is cancelled, and the tokens cancelled with it.
    state: Mutex<State>,
    /// Wakes threads in [`Shutdown::sleep`].
    woken: Condvar,
    /// Wakes tasks in [`Shutdown::cancelled`].
    notify: Notify,
}

#[derive(Debug, Default)]
struct State {
    cancelled: bool,
    children: Vec<Weak<Inner>>,
}

impl Shutdown {
    /// A token nobody has cancelled.
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    /// The process's root token, cancelled by SIGINT or SIGTERM (install
    /// once per process).
    pub fn on_signals() -> Shutdown {
        let shutdown = Shutdown::new();
        let handler = shutdown.clone();
        if let Err(e) = ctrlc::set_handler(move || handler.cancel()) {
            tracing::warn!(error = %e, "cannot install the SIGINT/SIGTERM handler");
        }
        shutdown
    }

    /// A token cancelled together with this one, or alone.
    pub fn child(&self) -> Shutdown {
        let child = Shutdown::new();
        let mut state = self.inner.state();
        if state.cancelled {
            drop(state);
            child.cancel();
        } else {
            state.children.retain(|c| c.strong_count() > 0);
            state.children.push(Arc::downgrade(&child.inner));
        }
        child
    }

    /// Cancels this token and its children; every waiter wakes.
    pub fn cancel(&self) {
        let children = {
            let mut state = self.inner.state();
            if state.cancelled {
                return;
            }
            state.cancelled = true;
            std::mem::take(&mut state.children)
        };
        self.inner.woken.notify_all();
        self.inner.notify.notify_waiters();
        for child in children.iter().filter_map(Weak::upgrade) {
            Shutdown { inner: child }.cancel();
        }
    }

    /// Whether the token is cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.state().cancelled
    }

    /// Completes once the token is cancelled.
    pub async fn cancelled(&self) {
        loop {
            // Registered before the check, so a cancel in between still
            // wakes this future.
            let notified = self.inner.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }

    /// Blocks the thread for `duration` or until the token is cancelled,
    /// whichever comes first; returns whether it is cancelled.
    pub fn sleep(&self, duration: Duration) -> bool {
        let deadline = Instant::now().checked_add(duration);
        let mut state = self.inner.state();
        while !state.cancelled {
            // A duration past what the clock can hold waits for the cancel.
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            if left.is_zero() {
                break;
            }
            state = self
                .inner
                .woken
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        state.cancelled
    }
}

impl Inner {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the flag half set.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_ends_early_when_another_thread_cancels() {
        let shutdown = Shutdown::new();
        assert!(!shutdown.sleep(Duration::from_millis(10)));
        let canceller = {
            let shutdown = shutdown.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                shutdown.cancel();
            })
        };
        let start = Instant::now();
        assert!(shutdown.sleep(Duration::from_secs(30)));
        assert!(start.elapsed() < Duration::from_secs(10));
        canceller.join().unwrap();
        // Once cancelled, a sleep returns at once.
        let start = Instant::now();
        assert!(shutdown.sleep(Duration::from_secs(30)));
        assert!(start.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn children_are_cancelled_with_their_parent_but_not_the_other_way() {
        let parent = Shutdown::new();
        let (first, second) = (parent.child(), parent.child());
        first.cancel();
        assert!(first.is_cancelled());
        assert!(!parent.is_cancelled() && !second.is_cancelled());
        let grandchild = second.child();
        parent.cancel();
        assert!(second.is_cancelled() && grandchild.is_cancelled());
        // A child of a cancelled token starts cancelled.
        assert!(parent.child().is_cancelled());
    }

    #[test]
    fn a_task_waiting_for_the_token_wakes_when_it_is_cancelled() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let shutdown = Shutdown::new();
        let waiter = {
            let shutdown = shutdown.clone();
            std::thread::spawn(move || {
                runtime.block_on(async {
                    tokio::time::timeout(Duration::from_secs(30), shutdown.cancelled()).await
                })
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        shutdown.cancel();
        assert!(waiter.join().unwrap().is_ok(), "the wait timed out");
    }
}
