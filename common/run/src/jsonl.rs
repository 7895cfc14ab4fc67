//! Append-only JSON-lines files: a run's evaluation history, its training
//! log and its record of config changes.
//!
//! Each record is one line, written with a single `write` and flushed to
//! disk before the call returns. A crash or power loss in the middle of an
//! append can still leave a last line without its newline; the next
//! process to append must cut that tail off first ([`cut_torn_tail`]),
//! or its own first line would be glued onto the fragment and the file
//! would hold a line that is no record at all.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Appends `record` as one JSON line and flushes it to disk, creating the
/// file (and its directory) if needed.
pub fn append<T: Serialize>(path: &Path, record: &T) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(line.as_bytes())?;
    file.sync_data()
}

/// Cuts everything after the last newline of `path` (a line whose append
/// was interrupted) and returns the bytes cut; 0 when the file ends with a
/// newline, is empty or does not exist. Every complete line is kept as it
/// was.
pub fn cut_torn_tail(path: &Path) -> std::io::Result<u64> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let keep = end_of_last_line(&mut file, len)?;
    if keep < len {
        file.set_len(keep)?;
        file.sync_all()?;
    }
    Ok(len - keep)
}

/// The length of the file up to and including its last newline, reading
/// backwards in blocks (a torn line is short; the file may be long).
fn end_of_last_line(file: &mut File, len: u64) -> std::io::Result<u64> {
    const BLOCK: u64 = 64 * 1024;
    let mut end = len;
    let mut buffer = vec![0u8; BLOCK as usize];
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let chunk = &mut buffer[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// The part of a record every step-keyed log shares.
#[derive(Deserialize)]
struct StepOnly {
    learner_step: u64,
}

/// Drops the records whose `learner_step` is past `step`, or every record
/// with a `learner_step` when `step` is `None` (a run resumed from its
/// checkpoint at `step`, or started afresh, writes them again), rewriting
/// the file atomically. Lines without a `learner_step` are kept. Returns
/// how many records were dropped; a missing file has none.
pub fn drop_after_step(path: &Path, step: Option<u64>) -> std::io::Result<usize> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let after = |line: &str| {
        serde_json::from_str::<StepOnly>(line)
            .is_ok_and(|record| step.is_none_or(|step| record.learner_step > step))
    };
    let kept: Vec<&str> = text.lines().filter(|line| !after(line)).collect();
    let dropped = text.lines().count() - kept.len();
    if dropped > 0 {
        let rewritten: String = kept.iter().map(|line| format!("{line}\n")).collect();
        crate::files::write_atomically(path, rewritten.as_bytes())?;
    }
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnad_testkit::scratch;
    use serde_json::json;

    #[test]
    fn a_torn_last_line_is_cut_and_complete_lines_are_kept() {
        let dir = scratch("torn");
        let path = dir.join("history.jsonl");
        assert_eq!(cut_torn_tail(&path).unwrap(), 0, "no file, nothing to cut");
        append(&path, &json!({"learner_step": 0})).unwrap();
        append(&path, &json!({"learner_step": 10})).unwrap();
        assert_eq!(cut_torn_tail(&path).unwrap(), 0);
        let whole = std::fs::read_to_string(&path).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"learner_st").unwrap();
        assert_eq!(cut_torn_tail(&path).unwrap(), 12);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        append(&path, &json!({"learner_step": 20})).unwrap();
        let lines: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2], r#"{"learner_step":20}"#);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_without_any_newline_is_cut_to_nothing() {
        let dir = scratch("nothing");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.jsonl");
        std::fs::write(&path, vec![0u8; 100_000]).unwrap();
        assert_eq!(cut_torn_tail(&path).unwrap(), 100_000);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn records_past_the_step_are_dropped_and_other_lines_kept() {
        let dir = scratch("drop");
        let path = dir.join("history.jsonl");
        assert_eq!(drop_after_step(&path, Some(5)).unwrap(), 0);
        for step in [0, 100, 200, 300] {
            append(&path, &json!({"learner_step": step, "x": 1.5})).unwrap();
        }
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"not a record\n").unwrap();
        assert_eq!(drop_after_step(&path, Some(100)).unwrap(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "{\"learner_step\":0,\"x\":1.5}\n{\"learner_step\":100,\"x\":1.5}\nnot a record\n"
        );
        assert_eq!(drop_after_step(&path, Some(100)).unwrap(), 0);
        assert_eq!(drop_after_step(&path, None).unwrap(), 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not a record\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
