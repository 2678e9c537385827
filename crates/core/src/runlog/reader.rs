//! Reading a run directory back, for `franz report` and `franz replay`, while the run is still
//! going or after it crashed.
//!
//! A torn last line (the writer was killed mid-`write`) is skipped with a warning; so is any
//! other line that is not a record (with a different warning, since that is not a crash).

use super::{
    CONFIG_FILE, EVENTS_FILE, META_FILE, RawRecord, Record, RunLogError, RunMeta, TURNS_FILE,
};
use crate::event::Event;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One turn: its raw record and, when written, the annotated screenshot.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnView {
    pub raw: RawRecord,
    pub annotated_png: Option<String>,
}

impl TurnView {
    /// The screenshot the model saw: annotated if recorded, else raw; `None` when the run kept
    /// neither (`log_images`).
    pub fn shown_png(&self) -> Option<&str> {
        self.annotated_png
            .as_deref()
            .or(self.raw.raw_png.as_deref())
    }
}

/// A run directory as read.
#[derive(Debug, Clone, Default)]
pub struct RunLog {
    pub dir: PathBuf,
    /// By turn number.
    pub turns: Vec<TurnView>,
    pub events: Vec<Event>,
    /// `config.toml` as written, if any.
    pub config: Option<String>,
    /// `run.json`, if written (run directories before it have none).
    pub meta: Option<RunMeta>,
    /// What was skipped and why.
    pub warnings: Vec<String>,
}

impl RunLog {
    /// What turn `turn`'s observation showed (its `observation` event's `area`); `None` for
    /// runs older than the field, whose turns all showed the working area.
    pub fn observed_area(&self, turn: u32) -> Option<&crate::observe::ObservedArea> {
        self.events.iter().rev().find_map(|e| match &e.kind {
            crate::event::EventKind::Observation { area, .. } if e.turn == turn => area.as_ref(),
            _ => None,
        })
    }
}

/// Reads `dir`. Errors only if it has no `turns.jsonl` or a file cannot be read.
pub fn read_run(dir: &Path) -> Result<RunLog, RunLogError> {
    let turns_path = dir.join(TURNS_FILE);
    if !turns_path.is_file() {
        return Err(RunLogError::NotARun(dir.to_path_buf()));
    }
    let (records, mut warnings) = read_jsonl::<Record>(&turns_path)?;
    let mut by_turn: BTreeMap<u32, TurnView> = BTreeMap::new();
    let mut annotated: BTreeMap<u32, Option<String>> = BTreeMap::new();
    for r in records {
        match r {
            Record::Raw(raw) => {
                by_turn.insert(
                    raw.turn,
                    TurnView {
                        raw: *raw,
                        annotated_png: None,
                    },
                );
            }
            Record::Annotated(a) => {
                annotated.insert(a.turn, a.annotated_png);
            }
        }
    }
    for (turn, png) in annotated {
        match by_turn.get_mut(&turn) {
            Some(t) => t.annotated_png = png,
            None => warnings.push(format!(
                "{TURNS_FILE}: turn {turn} has an annotated record but no raw record"
            )),
        }
    }
    let events_path = dir.join(EVENTS_FILE);
    let events = if events_path.is_file() {
        let (events, w) = read_jsonl::<Event>(&events_path)?;
        warnings.extend(w);
        events
    } else {
        Vec::new()
    };
    let config = crate::files::read_settings(&dir.join(CONFIG_FILE)).ok();
    let meta = read_meta(dir, &mut warnings);
    Ok(RunLog {
        dir: dir.to_path_buf(),
        turns: by_turn.into_values().collect(),
        events,
        config,
        meta,
        warnings,
    })
}

/// `run.json`: `None` when absent; unreadable is a warning, not an error.
fn read_meta(dir: &Path, warnings: &mut Vec<String>) -> Option<RunMeta> {
    let text = crate::files::read_settings(&dir.join(META_FILE)).ok()?;
    match serde_json::from_str(&text) {
        Ok(meta) => Some(meta),
        Err(e) => {
            warnings.push(format!("{META_FILE} is not valid ({e}); ignored"));
            None
        }
    }
}

/// Reads a JSON-lines file: the records, and a warning for each line skipped.
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<(Vec<T>, Vec<String>), RunLogError> {
    let bytes = crate::files::read(
        path,
        "one file of a run directory",
        crate::files::RUN_FILE_CAP,
    )
    .map_err(|e| RunLogError::Io {
        what: "cannot read",
        path: path.to_path_buf(),
        source: std::io::Error::other(e.problem()),
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let complete = bytes.ends_with(b"\n");
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut warnings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_slice::<T>(line) {
            Ok(v) => out.push(v),
            Err(e) => {
                let last = i + 1 == lines.len();
                let w = if last && !complete {
                    format!(
                        "{name}: the last line is torn (the run was cut off while writing it); skipped"
                    )
                } else {
                    format!(
                        "{name}: line {} is not a valid record ({e}); skipped",
                        i + 1
                    )
                };
                tracing::warn!("{w}");
                warnings.push(w);
            }
        }
    }
    Ok((out, warnings))
}
