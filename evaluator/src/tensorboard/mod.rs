//! A run directory's JSON lines as TensorBoard event files: every line of
//! `training.jsonl` and `history.jsonl` one event at its learner step, one
//! scalar tag per numeric column (in the columns' alphabetical order). Nested columns are joined with `/`
//! (`nash_conv/target`); a list of objects names each by its first text
//! field (`head_to_head/heuristic/mean`). Text and non-finite values are
//! left out.
//!
//! [`EventStream`] follows a file as it grows: only whole lines are read
//! (a line being written is left for the next look), and a file that was
//! rewritten is converted again, from its start, into a new event file.
//!
//! Wall times are the line's `wall_seconds` from the source writer's start,
//! anchored at the file's last change when first read: right for one
//! process's run; a resumed run's seconds start again from its restart.

pub mod event_file;

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::error::EvaluatorError;

/// The column holding the learner step, which is the event's step.
pub const STEP_COLUMN: &str = "learner_step";
/// The column of seconds since the writer started.
pub const WALL_COLUMN: &str = "wall_seconds";
/// How this converter's event files are named: `events.out.tfevents.`,
/// the seconds since the epoch when it was begun (TensorBoard reads a
/// folder's files in name order), then this suffix.
pub const EVENT_FILE_SUFFIX: &str = ".rnad";

/// Whether `name` is an event file this converter wrote.
pub fn is_our_event_file(name: &str) -> bool {
    name.strip_prefix("events.out.tfevents.")
        .and_then(|rest| rest.strip_suffix(EVENT_FILE_SUFFIX))
        .is_some_and(|stamp| {
            !stamp.is_empty() && stamp.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        })
}

/// The scalars of one JSON line, tag and value, in the columns'
/// alphabetical order; the
/// step and wall-clock columns are the event's own, not scalars.
pub fn scalars(line: &Value) -> Vec<(String, f32)> {
    let mut out = Vec::new();
    if let Value::Object(columns) = line {
        for (key, value) in columns {
            if key != STEP_COLUMN && key != WALL_COLUMN {
                flatten(key, value, &mut out);
            }
        }
    }
    out
}

fn flatten(tag: &str, value: &Value, out: &mut Vec<(String, f32)>) {
    match value {
        Value::Number(number) => {
            let value = number.as_f64().unwrap_or(f64::NAN) as f32;
            if value.is_finite() {
                out.push((tag.to_string(), value));
            }
        }
        Value::Object(fields) => {
            for (key, value) in fields {
                flatten(&format!("{tag}/{key}"), value, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let name = item
                    .as_object()
                    .and_then(|o| o.values().find_map(Value::as_str))
                    .map_or_else(|| index.to_string(), str::to_string);
                match item {
                    // The text field that names the entry is not a scalar.
                    Value::Object(fields) => {
                        for (key, value) in fields {
                            flatten(&format!("{tag}/{name}/{key}"), value, out);
                        }
                    }
                    other => flatten(&format!("{tag}/{name}"), other, out),
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

/// One JSON-lines file followed into one event file.
pub struct EventStream {
    source: PathBuf,
    dir: PathBuf,
    /// The event file being written, once begun.
    target: Option<PathBuf>,
    writer: Option<BufWriter<File>>,
    /// Bytes of the source already converted (whole lines).
    offset: u64,
    /// What identifies the source's version: its inode and first line.
    identity: Option<(u64, String)>,
    /// Seconds since the epoch at the source's `wall_seconds` 0.
    epoch_of_zero: Option<f64>,
    events: u64,
}

fn since_epoch() -> std::time::Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

fn now() -> f64 {
    since_epoch().as_secs_f64()
}

impl EventStream {
    /// `source` converted into an event file in `dir`.
    pub fn new(source: PathBuf, dir: &Path) -> EventStream {
        EventStream {
            source,
            dir: dir.to_path_buf(),
            target: None,
            writer: None,
            offset: 0,
            identity: None,
            epoch_of_zero: None,
            events: 0,
        }
    }

    /// Events in the current event file (the version event not counted).
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The event file being written (None before the source exists).
    pub fn target(&self) -> Option<&Path> {
        self.target.as_deref()
    }

    /// Converts the whole lines added to the source since the last call;
    /// returns how many became events. A missing source is no error (it
    /// may not be written yet). A source that was rewritten (another
    /// inode, another first line, or shorter) is converted again into a
    /// new event file, and the old one removed: TensorBoard follows a
    /// folder's files forward and would misread one truncated under it.
    pub fn convert_new_lines(&mut self) -> Result<u64, EvaluatorError> {
        let source_path = self.source.clone();
        let read_error = |source| EvaluatorError::Read {
            path: source_path.clone(),
            source,
        };
        let mut file = match File::open(&self.source) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(read_error(e)),
        };
        let metadata = file.metadata().map_err(read_error)?;
        let mut first_line = String::new();
        BufReader::new(&mut file)
            .take(4096)
            .read_line(&mut first_line)
            .map_err(read_error)?;
        let identity = (metadata.ino(), first_line);
        if self.writer.is_none()
            || metadata.len() < self.offset
            || self.identity.as_ref() != Some(&identity)
        {
            self.start_over()?;
            self.identity = Some(identity);
        }
        file.seek(SeekFrom::Start(self.offset))
            .map_err(read_error)?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(read_error)?;
        let whole = text.rfind('\n').map_or(0, |end| end + 1);
        let lines: Vec<Value> = text[..whole]
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .filter_map(|(number, line)| match serde_json::from_str(line) {
                Ok(value) => Some(value),
                Err(error) => {
                    tracing::warn!(
                        "{}: line {} of those from byte {} is no JSON ({error}); left out",
                        self.source.display(),
                        number + 1,
                        self.offset
                    );
                    None
                }
            })
            .collect();
        if self.epoch_of_zero.is_none() {
            // The writer's start, from the file's last change and the last
            // line's seconds since that start.
            let modified = metadata
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or_else(now, |d| d.as_secs_f64());
            let last = lines.last().and_then(|l| l[WALL_COLUMN].as_f64());
            self.epoch_of_zero = Some(modified - last.unwrap_or(0.0));
        }
        let mut written = 0;
        for line in &lines {
            let Some(step) = line[STEP_COLUMN].as_u64() else {
                continue;
            };
            let wall = line[WALL_COLUMN]
                .as_f64()
                .map_or_else(now, |s| self.epoch_of_zero.unwrap_or(0.0) + s);
            let data = event_file::scalars_event(wall, step, &scalars(line));
            self.write(&data)?;
            written += 1;
        }
        self.offset += whole as u64;
        if let Some(writer) = &mut self.writer {
            writer.flush().map_err(|source| self.write_error(source))?;
        }
        self.events += written;
        Ok(written)
    }

    fn write_error(&self, source: std::io::Error) -> EvaluatorError {
        EvaluatorError::Write {
            path: self.target.clone().unwrap_or_else(|| self.dir.clone()),
            source,
        }
    }

    /// Begins a new event file (named by the time to the nanosecond, so
    /// later than any before) with its version event, and removes the event files this converter
    /// wrote before in the folder.
    fn start_over(&mut self) -> Result<(), EvaluatorError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| self.write_error(e))?;
        let stale: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map_err(|e| self.write_error(e))?
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.file_name().to_str().is_some_and(is_our_event_file))
            .map(|entry| entry.path())
            .collect();
        let started = since_epoch();
        let stamp = format!("{:010}_{:09}", started.as_secs(), started.subsec_nanos());
        let target = self
            .dir
            .join(format!("events.out.tfevents.{stamp}{EVENT_FILE_SUFFIX}"));
        let file = File::create(&target).map_err(|e| self.write_error(e))?;
        self.target = Some(target);
        self.writer = Some(BufWriter::new(file));
        self.offset = 0;
        self.events = 0;
        self.epoch_of_zero = None;
        self.write(&event_file::version_event(now()))?;
        for old in stale
            .iter()
            .filter(|old| Some(*old) != self.target.as_ref())
        {
            std::fs::remove_file(old).map_err(|e| self.write_error(e))?;
        }
        Ok(())
    }

    fn write(&mut self, data: &[u8]) -> Result<(), EvaluatorError> {
        let writer = self.writer.as_mut().expect("opened by start_over");
        let written = event_file::write_record(writer, data);
        written.map_err(|source| self.write_error(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_become_tags_and_text_is_left_out() {
        let line: Value = serde_json::from_str(
            r#"{"learner_step": 7, "wall_seconds": 1.5, "decisions": 900,
                "nash_conv": {"target": 0.25, "reg": 0.5},
                "head_to_head": [{"opponent": "heuristic", "mean": -1.0, "deals": 10}],
                "lbr": {"bets": "fcpa", "mbb_per_hand": 120.0},
                "note": "text", "big": 1e300}"#,
        )
        .unwrap();
        let tags: Vec<(String, f32)> = scalars(&line);
        assert_eq!(
            tags,
            [
                ("decisions".to_string(), 900.0),
                ("head_to_head/heuristic/deals".to_string(), 10.0),
                ("head_to_head/heuristic/mean".to_string(), -1.0),
                ("lbr/mbb_per_hand".to_string(), 120.0),
                ("nash_conv/reg".to_string(), 0.5),
                ("nash_conv/target".to_string(), 0.25),
            ]
        );
    }
}
