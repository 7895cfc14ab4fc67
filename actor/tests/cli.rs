//! `rnad-actor` as a process: with no learner to talk to it keeps retrying
//! (it never exits on a network error, and says so once rather than at
//! every attempt) and SIGTERM ends it with status 0.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn retries_while_the_learner_is_away_and_exits_zero_on_sigterm() {
    let port = rnad_testkit::free_port();
    let log = rnad_testkit::scratch("actor-retry").join("actor.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rnad-actor"))
        .args(["--learner", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "rnad_process=debug,rnad_actor=info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(&log)
        .unwrap()
        .matches("retrying")
        .count()
        < 3
    {
        assert!(Instant::now() < deadline, "no retries logged");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the actor exited on a network error"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    rnad_testkit::send_signal(child.id(), libc::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the actor ignored SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("cannot connect"), "{text}");
    // Every attempt at debug level, but one warning for the whole outage.
    assert_eq!(text.matches("WARN").count(), 1, "{text}");
}
