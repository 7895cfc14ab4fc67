//! The evaluator's files: written atomically (a reader sees the old file or
//! the new one, never half of one), with the file named in errors.

use std::path::Path;

use serde_json::Value;

use crate::error::EvaluatorError;

/// [`rnad_run::files::write_atomically`], naming the file in errors.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), EvaluatorError> {
    rnad_run::files::write_atomically(path, contents).map_err(|source| EvaluatorError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a JSON document (a policy file, a report) atomically, indented.
pub fn write_json(path: &Path, value: &Value) -> Result<(), EvaluatorError> {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialise");
    write_atomically(path, text.as_bytes())
}
