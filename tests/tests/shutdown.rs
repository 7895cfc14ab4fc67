//! SIGTERM stops every process within [`STOP_BOUND`] (the bound
//! `docs/operations.md` states), whatever it is waiting on: an actor and a
//! watcher whose learner hangs mid-request, a watcher in the middle of a
//! long head-to-head evaluation, a served learner, and the all-in-one
//! local run with its actor threads.

use std::time::{Duration, Instant};

use rnad_testkit::{free_port, history, local, scratch, wait_for, Process};
use rnad_tests::cluster::{
    start_actor, start_evaluator, start_evaluator_with, start_learner, wait_for_submits, LONG,
    SHORT,
};

/// How long a process may take from SIGTERM to its exit.
const STOP_BOUND: Duration = Duration::from_secs(5);

/// Sends SIGTERM and checks the process exits 0 within the bound.
fn terminate_within_bound(process: &mut Process, what: &str) {
    let start = Instant::now();
    process.signal(libc::SIGTERM);
    let status = process.wait(SHORT);
    let took = start.elapsed();
    assert!(status.success(), "{what}: {status:?}\n{}", process.stderr());
    assert!(
        took < STOP_BOUND,
        "{what} took {took:?} to stop (bound {STOP_BOUND:?}):\n{}",
        process.stderr()
    );
}

#[test]
fn sigterm_stops_actor_and_watcher_at_once_even_while_their_learner_hangs() {
    let dir = scratch("shutdown-hung-learner");
    let port = free_port();
    let mut learner = start_learner(&dir, port, free_port(), "learner.log");
    let (mut actor, actor_metrics) = start_actor(&dir, port, 1);
    wait_for_submits(actor_metrics, &actor);
    let (mut watcher, _, history_path) = start_evaluator(&dir, port);
    wait_for(
        "the watcher's first evaluation",
        LONG,
        || (!history(&history_path).is_empty()).then_some(()),
        || watcher.stderr(),
    );
    // A learner that stops answering (frozen, not gone: its connections
    // stay open) leaves the actor waiting in a submit or a fetch and the
    // watcher in a fetch, each with a request deadline of 10 s.
    learner.process.signal(libc::SIGSTOP);
    std::thread::sleep(Duration::from_secs(1));
    terminate_within_bound(&mut actor, "the actor");
    terminate_within_bound(&mut watcher, "the watcher");
    learner.process.signal(libc::SIGCONT);
    terminate_within_bound(&mut learner.process, "the served learner");
    assert!(
        learner.process.stderr().contains("stopped at step"),
        "{}",
        learner.process.stderr()
    );
}

/// Hold'em's panel plays its deals one by one against a network, each
/// evaluation minutes long (hours with LBR); the watcher gives up between
/// two games, writes no history line for the version, and exits 0.
#[test]
fn sigterm_stops_a_watcher_in_the_middle_of_a_long_head_to_head_evaluation() {
    let dir = scratch("shutdown-watcher-panel");
    let (port, metrics) = (free_port(), free_port());
    let config = rnad_testkit::workspace().join("configs/holdem.toml");
    let run_dir = dir.join("run");
    let mut learner = Process::start(
        "rnad-learner",
        &[
            "serve",
            "--config",
            config.to_str().unwrap(),
            // Ten million deals against each opponent: days.
            "--set",
            "evaluation.deals=10000000",
            "--set",
            "network.hidden=[16]",
            "--listen",
            &local(port),
            "--metrics",
            &local(metrics),
            "--run-dir",
            run_dir.to_str().unwrap(),
        ],
        &dir.join("learner.log"),
    );
    wait_for(
        "the learner's metrics",
        LONG,
        || rnad_testkit::scrape(metrics),
        || learner.stderr(),
    );
    let (mut watcher, _, history_path) = start_evaluator_with(&dir, port, "evaluator", &[]);
    // The first version is evaluated as soon as the watcher joins, which
    // it does at once once started; a few seconds on, some of its games
    // are played.
    wait_for(
        "the watcher's start",
        SHORT,
        || {
            watcher
                .stderr()
                .contains("watching the learner")
                .then_some(())
        },
        || watcher.stderr(),
    );
    std::thread::sleep(Duration::from_secs(3));
    assert!(watcher.running(), "{}", watcher.stderr());
    terminate_within_bound(&mut watcher, "the watcher");
    let log = watcher.stderr();
    let finished = rnad_testkit::games_before_stop(&log)
        .unwrap_or_else(|| panic!("no stopped evaluation logged:\n{log}"));
    assert!(finished > 0, "stopped before its first game:\n{log}");
    assert!(history(&history_path).is_empty(), "{log}");
    terminate_within_bound(&mut learner, "the served learner");
}

#[test]
fn sigterm_stops_the_local_run_and_its_actor_threads_within_the_bound() {
    let dir = scratch("shutdown-local");
    let metrics = free_port();
    let config = rnad_testkit::workspace().join("configs/kuhn.toml");
    let run_dir = dir.join("run");
    let mut process = Process::start(
        "rnad-learner",
        &[
            "local",
            "--config",
            config.to_str().unwrap(),
            "--run-dir",
            run_dir.to_str().unwrap(),
            "--metrics",
            &local(metrics),
        ],
        &dir.join("local.log"),
    );
    wait_for(
        "the local run's first steps",
        LONG,
        || {
            rnad_testkit::scrape(metrics)
                .and_then(|t| rnad_testkit::sample(&t, "rnad_learner_step"))
                .filter(|step| *step >= 20.0)
        },
        || process.stderr(),
    );
    terminate_within_bound(&mut process, "the local run");
}
