//! `rnad-learner local` as a user runs it: SIGINT or SIGTERM saves a
//! checkpoint and exits 0, and the next start on the run directory resumes.

use rnad_testkit::scratch;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn start(run_dir: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_rnad-learner"))
        .args([
            "local",
            "--config",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/kuhn.toml"),
        ])
        .arg("--run-dir")
        .arg(run_dir)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rnad-learner starts")
}

/// Waits (at most 60 s) until the run has written its first evaluation.
fn wait_for_history(run_dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let history = run_dir.join("history.jsonl");
    while std::fs::metadata(&history).map(|m| m.len()).unwrap_or(0) == 0 {
        assert!(
            Instant::now() < deadline,
            "no evaluation written within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits (at most 60 s) for the child to exit.
fn wait(mut child: Child) -> (std::process::ExitStatus, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            return (status, String::from_utf8_lossy(&output.stderr).into_owned());
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("rnad-learner did not exit within 60 s of the signal");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stopped_at(stderr: &str) -> u64 {
    rnad_testkit::stopped_at(stderr).unwrap_or_else(|| panic!("no final line:\n{stderr}"))
}

#[test]
fn sigint_and_sigterm_checkpoint_exit_zero_and_resume() {
    let dir = scratch("signals");
    for (name, signal) in [("INT", libc::SIGINT), ("TERM", libc::SIGTERM)] {
        let child = start(&dir, &[]);
        wait_for_history(&dir);
        std::thread::sleep(Duration::from_millis(300));
        rnad_testkit::send_signal(child.id(), signal);
        let (status, stderr) = wait(child);
        assert!(status.success(), "SIG{name}: {status:?}\n{stderr}");
        let step = stopped_at(&stderr);
        assert!(step > 0, "{stderr}");
        let checkpoint = dir.join(format!("checkpoints/checkpoint-{step:012}.safetensors"));
        assert!(
            checkpoint.exists(),
            "SIG{name}: {} missing",
            checkpoint.display()
        );
        std::fs::remove_file(dir.join("history.jsonl")).unwrap();
    }

    let steps: Vec<u64> = std::fs::read_dir(dir.join("checkpoints"))
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name["checkpoint-".len()..name.len() - ".safetensors".len()]
                .parse()
                .unwrap()
        })
        .collect();
    let last = *steps.iter().max().unwrap();
    let child = start(&dir, &["--max-steps", &(last + 5).to_string()]);
    let (status, stderr) = wait(child);
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("resuming from") && stderr.contains(&format!("(step {last})")),
        "{stderr}"
    );
    assert_eq!(stopped_at(&stderr), last + 5);
}

/// A head-to-head evaluation of hold'em plays its panel game by game
/// against a network (minutes for a few thousand deals, hours with LBR):
/// a signal in the middle of one stops it between games, and the run
/// writes no history line for it, saves its checkpoint and exits 0.
#[test]
fn sigterm_stops_a_long_head_to_head_evaluation() {
    let dir = scratch("signals-panel");
    let child = Command::new(env!("CARGO_BIN_EXE_rnad-learner"))
        .args([
            "local",
            "--config",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/holdem.toml"),
            // The first evaluation, at step 0, would play ten million
            // deals against each opponent: days.
            "--set",
            "evaluation.deals=10000000",
            "--set",
            "network.hidden=[16]",
        ])
        .arg("--run-dir")
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rnad-learner starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dir.join("config.toml").exists() {
        assert!(Instant::now() < deadline, "no run directory within 60 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    rnad_testkit::send_signal(child.id(), libc::SIGTERM);
    let (status, stderr) = wait(child);
    assert!(status.success(), "{status:?}\n{stderr}");
    assert_eq!(stopped_at(&stderr), 0, "{stderr}");
    let finished = rnad_testkit::games_before_stop(&stderr)
        .unwrap_or_else(|| panic!("no stopped evaluation logged:\n{stderr}"));
    assert!(finished > 0, "stopped before its first game:\n{stderr}");
    assert!(dir
        .join("checkpoints/checkpoint-000000000000.safetensors")
        .exists());
    let history = std::fs::read_to_string(dir.join("history.jsonl")).unwrap_or_default();
    assert!(history.trim().is_empty(), "{history}");
}
