//! `checkers.json`: what a bench task's checkers said about a run (`franz bench tasks` writes it
//! into the run directory after the run). Only such a run has a verdict: a run's own `done` is
//! the model's word, not a check, so `franz export --format osworld` writes `result.txt` from
//! this file and from nothing else.

use super::{RunLogError, images, io_err};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in the run directory.
pub const VERDICT_FILE: &str = "checkers.json";

/// The checkers' verdict on a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckerVerdict {
    /// The task the checkers belong to.
    pub task: String,
    /// 1 when every checker held, else 0 (OSWorld's result).
    pub score: f64,
    /// The checkers that did not hold (and a time limit reached), one line each.
    #[serde(default)]
    pub failures: Vec<String>,
}

/// Writes `dir/checkers.json`.
pub fn write_verdict(dir: &Path, verdict: &CheckerVerdict) -> Result<(), RunLogError> {
    let text =
        serde_json::to_string_pretty(verdict).map_err(|e| RunLogError::Config(e.to_string()))?;
    let path = dir.join(VERDICT_FILE);
    images::write_durable(&path, text.as_bytes()).map_err(io_err("cannot write", &path))
}

/// The verdict in `dir`, if the run has one; an unreadable file is an error.
pub fn read_verdict(dir: &Path) -> Result<Option<CheckerVerdict>, RunLogError> {
    let path = dir.join(VERDICT_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("cannot read", &path)(e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| RunLogError::Config(format!("{}: {e}", path.display())))
}
