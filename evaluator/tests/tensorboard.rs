//! `rnad-evaluator tensorboard` through the binary: a run directory's
//! JSON lines become event files whose records carry correct CRCs and one
//! event per line, `--follow` adds lines as they are completed and stops
//! on SIGTERM, and (set apart: it needs the tensorboard package, which
//! `docker/install-check-tools.sh` installs into
//! `target/check-tools/tensorboard`) TensorBoard's own reader finds every
//! column's value at every step.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rnad_evaluator::tensorboard::event_file::masked_crc;
use rnad_evaluator::tensorboard::EVENT_FILE;

const EVALUATOR: &str = env!("CARGO_BIN_EXE_rnad-evaluator");

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("tensorboard")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn training_line(step: u64) -> String {
    format!(
        "{{\"learner_step\":{step},\"wall_seconds\":{},\"decisions\":{},\"loss_neurd\":{},\"alpha\":0.5}}\n",
        step as f64 / 10.0,
        step * 300,
        -1.0 / (step as f64 + 1.0)
    )
}

fn history_line(step: u64) -> String {
    format!(
        "{{\"learner_step\":{step},\"wall_seconds\":{},\"decisions\":{},\"nash_conv\":{{\"target\":{},\"reg\":0.75}},\
         \"head_to_head\":[{{\"opponent\":\"heuristic\",\"mean\":{},\"ci95\":0.5,\"deals\":100}}]}}\n",
        step as f64 / 10.0,
        step * 300,
        1.0 / (step as f64 + 2.0),
        step as f64 / 100.0
    )
}

/// The data of every record of an event file, each CRC checked.
fn records(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    let mut at = 0;
    let mut out = Vec::new();
    while at < bytes.len() {
        let length = &bytes[at..at + 8];
        let crc = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap());
        assert_eq!(crc, masked_crc(length), "length CRC at byte {at}");
        let n = u64::from_le_bytes(length.try_into().unwrap()) as usize;
        let data = bytes[at + 12..at + 12 + n].to_vec();
        let crc = u32::from_le_bytes(bytes[at + 12 + n..at + 16 + n].try_into().unwrap());
        assert_eq!(crc, masked_crc(&data), "data CRC at byte {at}");
        out.push(data);
        at += 16 + n;
    }
    out
}

fn run_dir(name: &str, steps: &[u64]) -> PathBuf {
    let dir = scratch(name);
    let training: String = steps.iter().map(|&s| training_line(s)).collect();
    let history: String = steps.iter().map(|&s| history_line(s)).collect();
    std::fs::write(dir.join("training.jsonl"), training).unwrap();
    std::fs::write(dir.join("history.jsonl"), history).unwrap();
    dir
}

#[test]
fn a_run_becomes_one_event_per_line_with_correct_crcs() {
    let dir = run_dir("once", &[0, 100, 200]);
    let output = Command::new(EVALUATOR)
        .arg("tensorboard")
        .arg(&dir)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(report.contains("3 events in"), "{report}");
    for part in ["training", "evaluation"] {
        let records = records(&dir.join("tensorboard").join(part).join(EVENT_FILE));
        assert_eq!(
            records.len(),
            4,
            "{part}: the version event and three lines"
        );
        assert!(records[0].ends_with(b"brain.Event:2"));
        assert!(records[3].windows(5).any(|w| w == b"alpha") || part == "evaluation");
    }

    // Converting again rewrites the event files, not appends to them.
    let again = Command::new(EVALUATOR)
        .arg("tensorboard")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    let path = dir.join("tensorboard/training").join(EVENT_FILE);
    assert_eq!(records(&path).len(), 4);

    let empty = scratch("empty");
    let refused = Command::new(EVALUATOR)
        .arg("tensorboard")
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("neither training.jsonl nor history.jsonl"));
}

/// Waits (bounded) until `path` holds `count` records.
fn wait_for_records(path: &Path, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = if path.exists() {
            records(path).len()
        } else {
            0
        };
        if now == count {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} holds {now} records, not {count}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn follow_adds_completed_lines_and_stops_on_sigterm() {
    let dir = run_dir("follow", &[0]);
    let mut child = Command::new(EVALUATOR)
        .arg("tensorboard")
        .arg(&dir)
        .args(["--follow", "--interval", "0.1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let events = dir.join("tensorboard/evaluation").join(EVENT_FILE);
    wait_for_records(&events, 2);

    // A line being written is left until it is whole.
    let line = history_line(100);
    let (head, tail) = line.split_at(30);
    let history = dir.join("history.jsonl");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&history)
        .unwrap();
    std::io::Write::write_all(&mut file, head.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(records(&events).len(), 2, "half a line is no event");
    std::io::Write::write_all(&mut file, tail.as_bytes()).unwrap();
    wait_for_records(&events, 3);

    // A rewritten (shorter) file is converted again from its start.
    std::fs::write(&history, history_line(5)).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    wait_for_records(&events, 2);

    // SAFETY: kill(2) on our own child's pid has no memory effects.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still following after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
}

/// TensorBoard's reader sees every column at every step, values equal as
/// 32-bit floats.
#[test]
#[ignore = "needs the tensorboard package: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn tensorboard_reads_back_every_value() {
    let steps = [0, 100, 200, 300];
    let dir = run_dir("tensorboard-reader", &steps);
    let output = Command::new(EVALUATOR)
        .arg("tensorboard")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = workspace.join("target/check-tools/tensorboard/bin/python");
    let read = |part: &str| -> serde_json::Value {
        let output = Command::new(&python)
            .arg(workspace.join("scripts/read-tensorboard.py"))
            .arg(dir.join("tensorboard").join(part))
            .output()
            .unwrap_or_else(|e| panic!("{python:?}: {e} (run docker/install-check-tools.sh)"));
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let expect = |scalars: &serde_json::Value, tag: &str, value: &dyn Fn(u64) -> f64| {
        let points = scalars[tag]
            .as_array()
            .unwrap_or_else(|| panic!("{tag} missing: {scalars}"));
        let read: Vec<(u64, f64)> = points
            .iter()
            .map(|p| (p[0].as_u64().unwrap(), p[1].as_f64().unwrap()))
            .collect();
        let wanted: Vec<(u64, f64)> = steps
            .iter()
            .map(|&s| (s, f64::from(value(s) as f32)))
            .collect();
        assert_eq!(read, wanted, "{tag}");
    };
    let training = read("training");
    assert_eq!(training.as_object().unwrap().len(), 3, "{training}");
    expect(&training, "decisions", &|s| (s * 300) as f64);
    expect(&training, "loss_neurd", &|s| -1.0 / (s as f64 + 1.0));
    expect(&training, "alpha", &|_| 0.5);
    let evaluation = read("evaluation");
    assert_eq!(evaluation.as_object().unwrap().len(), 6, "{evaluation}");
    expect(&evaluation, "nash_conv/target", &|s| 1.0 / (s as f64 + 2.0));
    expect(&evaluation, "nash_conv/reg", &|_| 0.75);
    expect(&evaluation, "head_to_head/heuristic/mean", &|s| {
        s as f64 / 100.0
    });
    expect(&evaluation, "head_to_head/heuristic/ci95", &|_| 0.5);
    expect(&evaluation, "head_to_head/heuristic/deals", &|_| 100.0);
    expect(&evaluation, "decisions", &|s| (s * 300) as f64);
}
