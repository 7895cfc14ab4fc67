//! How the binaries end when they cannot do what they were asked: a usage
//! error (a bad flag or value on the command line) exits 2 and a failure of
//! the work itself exits 1, both with the reason on stderr whatever
//! `RUST_LOG` says, so that scripts and schedulers can tell the two apart
//! and a user with logging switched off still learns why.

use std::process::{Command, Output};

use rnad_testkit::bin_dir;

fn run(binary: &str, args: &[&str], rust_log: Option<&str>) -> Output {
    let mut command = Command::new(bin_dir().join(binary));
    command.args(args).env_remove("RUST_LOG");
    if let Some(filter) = rust_log {
        command.env("RUST_LOG", filter);
    }
    command.output().unwrap()
}

/// `binary args` exits `code` with `needle` on stderr, with the default
/// filter, with logging off and with errors only.
fn exits(binary: &str, args: &[&str], code: i32, needle: &str) {
    for rust_log in [None, Some("off"), Some("error")] {
        let output = run(binary, args, rust_log);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{binary} {args:?} with RUST_LOG={rust_log:?}: {stderr}"
        );
        assert!(
            stderr.contains(needle),
            "{binary} {args:?} with RUST_LOG={rust_log:?}: {needle:?} not in {stderr:?}"
        );
        assert_eq!(
            stderr.matches(needle).count(),
            1,
            "the reason is given once: {stderr}"
        );
    }
}

#[test]
fn usage_errors_exit_2_with_the_reason_on_stderr() {
    exits("rnad-learner", &["config", "--set", "foo=1"], 2, "foo");
    exits(
        "rnad-learner",
        &["config", "--frobnicate"],
        2,
        "--frobnicate",
    );
    exits(
        "rnad-learner",
        &["serve", "--listen", "127.0.0.1:0", "--max-connections", "0"],
        2,
        "--max-connections 0",
    );
    exits(
        "rnad-evaluator",
        &["match", "--game", "kuhn_poker", "--players", "uniform"],
        2,
        "has 2 seats",
    );
    exits(
        "rnad-evaluator",
        &["eval", "--game", "kuhn_poker"],
        2,
        "required arguments",
    );
    exits(
        "rnad-evaluator",
        &[
            "watch",
            "--learner",
            "127.0.0.1:1",
            "--history",
            "/tmp/h.jsonl",
            "--interval",
            "0",
        ],
        2,
        "--interval 0",
    );
    exits(
        "rnad-actor",
        &[
            "--learner",
            "127.0.0.1:1",
            "--token-file",
            "/nonexistent/token",
        ],
        2,
        "/nonexistent/token",
    );
}

#[test]
fn failures_of_the_work_exit_1_with_the_reason_on_stderr() {
    exits(
        "rnad-learner",
        &["config", "--config", "/nonexistent/leduc.toml"],
        1,
        "cannot read config /nonexistent/leduc.toml",
    );
    exits(
        "rnad-evaluator",
        &[
            "eval",
            "--game",
            "kuhn_poker",
            "--policy",
            "/nonexistent/policy.json",
        ],
        1,
        "cannot read /nonexistent/policy.json",
    );
}
