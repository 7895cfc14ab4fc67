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
use rnad_evaluator::tensorboard::is_our_event_file;
use rnad_testkit::scratch;

const EVALUATOR: &str = env!("CARGO_BIN_EXE_rnad-evaluator");

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

/// The one event file the converter keeps in `dir` (None if none yet).
fn event_file(dir: &Path) -> Option<PathBuf> {
    let ours: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .map(|e| e.unwrap())
        .filter(|e| is_our_event_file(e.file_name().to_str().unwrap()))
        .map(|e| e.path())
        .collect();
    assert!(ours.len() <= 1, "one event file at a time: {ours:?}");
    ours.into_iter().next()
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
    let best_response = |step: u64| {
        format!(
            "{{\"learner_step\":{step},\"wall_seconds\":1.0,\"decisions\":5,\"best_response\":\
             {{\"policy\":\"target_postprocessed\",\"unit\":\"payoff\",\"budget_steps\":9,\
             \"seconds\":2.0,\"gain\":0.5,\"ci95\":0.0,\"seats\":[]}}}}\n"
        )
    };
    std::fs::write(
        dir.join("best_response.jsonl"),
        best_response(0) + &best_response(100),
    )
    .unwrap();
    let output = Command::new(EVALUATOR)
        .arg("tensorboard")
        .arg(&dir)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(report.contains("3 events in"), "{report}");
    for part in ["training", "evaluation"] {
        let records = records(&event_file(&dir.join("tensorboard").join(part)).unwrap());
        assert_eq!(
            records.len(),
            4,
            "{part}: the version event and three lines"
        );
        assert!(records[0].ends_with(b"brain.Event:2"));
        assert!(records[3].windows(5).any(|w| w == b"alpha") || part == "evaluation");
    }
    let best_responses = records(&event_file(&dir.join("tensorboard/best_response")).unwrap());
    assert_eq!(
        best_responses.len(),
        3,
        "the version event and two best responses"
    );
    let tag = b"best_response/gain";
    assert!(best_responses[2].windows(tag.len()).any(|w| w == tag));

    // Converting again replaces the event file; a file of the user's in
    // the folder is left alone.
    let folder = dir.join("tensorboard/training");
    let first = event_file(&folder).unwrap();
    std::fs::write(folder.join("notes.txt"), "mine").unwrap();
    let again = Command::new(EVALUATOR)
        .arg("tensorboard")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    let second = event_file(&folder).unwrap();
    assert_ne!(first, second);
    assert!(
        second.file_name() > first.file_name(),
        "TensorBoard reads later names later"
    );
    assert_eq!(records(&second).len(), 4);
    assert_eq!(
        std::fs::read_to_string(folder.join("notes.txt")).unwrap(),
        "mine"
    );

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

/// Waits (bounded) until the event file in `dir` holds `count` records;
/// returns its path.
fn wait_for_records(dir: &Path, count: usize) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let file = event_file(dir);
        let now = file.as_deref().map_or(0, |f| records(f).len());
        if now == count {
            return file.unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "{} holds {now} records, not {count}",
            dir.display()
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
    let events = dir.join("tensorboard/evaluation");
    let first = wait_for_records(&events, 2);

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
    assert_eq!(records(&first).len(), 2, "half a line is no event");
    std::io::Write::write_all(&mut file, tail.as_bytes()).unwrap();
    wait_for_records(&events, 3);

    // A rewritten file, even one longer than what was read, is converted
    // again into a new event file.
    let rewritten: String = [5, 6, 7, 8].iter().map(|&s| history_line(s)).collect();
    let staged = dir.join("history.jsonl.new");
    std::fs::write(&staged, rewritten).unwrap();
    std::fs::rename(&staged, &history).unwrap();
    let second = wait_for_records(&events, 5);
    assert_ne!(first, second);

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
