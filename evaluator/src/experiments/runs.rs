//! A run directory as experiments read it: its recorded `config.toml`, its
//! `history.jsonl`, its `training.jsonl` and its `best_response.jsonl`,
//! every line checked. A log kept
//! gzipped (`history.jsonl.gz`, as `docs/results/` keeps them) reads the
//! same.

use std::path::{Path, PathBuf};

use rnad_run::config::Config;

use super::ExperimentError;
use rnad_run::history::HistoryEntry;

/// One finished or running training run.
#[derive(Clone, Debug)]
pub struct Run {
    /// Its directory.
    pub dir: PathBuf,
    /// The config it recorded.
    pub config: Config,
    /// Its evaluations, exact or head to head, in file order (at least
    /// one).
    pub history: Vec<HistoryEntry>,
    /// The lines of its `training.jsonl` (none if it has no such file).
    pub training: Vec<serde_json::Value>,
    /// The lines of its `best_response.jsonl` (none if it has no such
    /// file).
    pub best_responses: Vec<serde_json::Value>,
}

/// Reads a run directory and its evaluations (NashConv curves, or a
/// head-to-head run's results). A missing or empty history, or any line
/// that is not an evaluation, is an error naming the file (and line).
pub fn load_run(dir: &Path) -> Result<Run, ExperimentError> {
    let config_path = dir.join("config.toml");
    if !config_path.exists() {
        return Err(ExperimentError::Unusable {
            path: dir.to_path_buf(),
            message: "no config.toml: not a run directory".into(),
        });
    }
    let config = Config::load(&config_path).map_err(|source| ExperimentError::Config {
        path: config_path,
        source,
    })?;
    let path = dir.join("history.jsonl");
    let (path, text) = read_log(&path)?.ok_or_else(|| ExperimentError::Io {
        path: path.clone(),
        source: std::io::ErrorKind::NotFound.into(),
    })?;
    let history = parse_history(&path, &text)?;
    let training = read_object_log(&dir.join("training.jsonl"))?;
    let best_responses = read_object_log(&dir.join("best_response.jsonl"))?;
    Ok(Run {
        dir: dir.to_path_buf(),
        config,
        history,
        training,
        best_responses,
    })
}

/// The lines of a log as JSON objects (an absent file has none); a line
/// that is not a JSON object is an error naming the file and line.
fn read_object_log(path: &Path) -> Result<Vec<serde_json::Value>, ExperimentError> {
    let Some((path, text)) = read_log(path)? else {
        return Ok(Vec::new());
    };
    let path = path.as_path();
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .filter(serde_json::Value::is_object)
                .ok_or_else(|| ExperimentError::Malformed {
                    path: path.to_path_buf(),
                    line: index + 1,
                    message: "not a JSON object".into(),
                })
        })
        .collect()
}

/// The text of the log at `path`, or of `path.gz` where only that exists,
/// with the file it came from; none where neither exists.
pub fn read_log(path: &Path) -> Result<Option<(PathBuf, String)>, ExperimentError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExperimentError::Io { path, source }
    };
    match std::fs::read_to_string(path) {
        Ok(text) => return Ok(Some((path.to_path_buf(), text))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(io(path)(source)),
    }
    let mut zipped = path.as_os_str().to_owned();
    zipped.push(".gz");
    let zipped = PathBuf::from(zipped);
    let file = match std::fs::File::open(&zipped) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(io(&zipped)(source)),
    };
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text)
        .map_err(io(&zipped))?;
    Ok(Some((zipped, text)))
}

/// Parses history lines (blank lines are skipped); at least one entry.
///
/// A line whose learner step is at or below earlier lines' supersedes
/// them: the run went back to an older checkpoint, and they belong to the
/// steps it abandoned (or, at an equal step, evaluate the same step again).
/// The learner cuts its own history back when it resumes, but a separate
/// evaluator (compose) may finish an evaluation of the abandoned steps
/// after the cut and append it. An abandoned line below every later line's
/// step cannot be told apart from a real one and stays. Superseded lines
/// are logged with their count, so two runs' histories pasted together
/// do not pass unnoticed.
pub fn parse_history(path: &Path, text: &str) -> Result<Vec<HistoryEntry>, ExperimentError> {
    let mut history: Vec<HistoryEntry> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: HistoryEntry =
            serde_json::from_str(line).map_err(|e| ExperimentError::Malformed {
                path: path.to_path_buf(),
                line: index + 1,
                message: e.to_string(),
            })?;
        let before = history.len();
        history.retain(|earlier| earlier.learner_step < entry.learner_step);
        let superseded = before - history.len();
        if superseded > 0 {
            tracing::warn!(
                "{}:{}: learner_step {} supersedes {superseded} earlier line(s) at or after that step (the run resumed from an older checkpoint)",
                path.display(),
                index + 1,
                entry.learner_step
            );
        }
        history.push(entry);
    }
    if history.is_empty() {
        return Err(ExperimentError::Unusable {
            path: path.to_path_buf(),
            message: "no evaluations yet".into(),
        });
    }
    Ok(history)
}

/// The run directories named: each one itself if it holds a `config.toml`,
/// else every directory below it that does (a sweep's output stands for
/// all its runs). Sorted, so figures and summaries do not depend on the
/// order of the file system.
pub fn find_runs(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, ExperimentError> {
    let mut found = Vec::new();
    for dir in dirs {
        let before = found.len();
        collect(dir, &mut found)?;
        if found.len() == before {
            return Err(ExperimentError::Unusable {
                path: dir.clone(),
                message: "no run directory (one with a config.toml) here or below".into(),
            });
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn collect(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), ExperimentError> {
    if dir.join("config.toml").is_file() {
        found.push(dir.to_path_buf());
        return Ok(());
    }
    let io = |source| ExperimentError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            collect(&path, found)?;
        }
    }
    Ok(())
}

/// Loads every run found under `dirs`; all must be of one game.
pub fn load_runs(dirs: &[PathBuf]) -> Result<Vec<Run>, ExperimentError> {
    let runs = find_runs(dirs)?
        .iter()
        .map(|dir| load_run(dir))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(first) = runs.first() {
        if let Some(other) = runs.iter().find(|r| r.config.game != first.config.game) {
            return Err(ExperimentError::MixedGames {
                first: first.config.game.to_string(),
                other: other.config.game.to_string(),
                path: other.dir.clone(),
            });
        }
    }
    Ok(runs)
}
