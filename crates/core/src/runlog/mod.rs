//! The run directory (docs/events.md), written by the engine turn by turn:
//!
//! ```text
//! runs/run_0001/
//!   turns.jsonl        two records per turn (record.rs), append-only
//!   turn_0001_raw.png  turn_0001_annotated.png ...   (flat layout)
//!   turn_0001/screenshot_raw.png ...                 (turn_dirs layout)
//!   exchange.jsonl     model requests and replies, already sanitized by the caller
//!   events.jsonl       the engine's events (crate::event)
//!   franz.log          the run's tracing output (trace.rs: the engine's run span)
//!   config.toml        the effective configuration, secrets as ***
//!   run.json           what else replaying needs: the screen size (RunMeta)
//!   run.lock           locked while the run lives (prune.rs: `keep_runs` never deletes it)
//!   checkers.json      a bench task's checkers' verdict, written after the run (verdict.rs)
//! ```
//!
//! Crash safety: every line is one `write` of a whole record; `finish_turn` returns only when
//! the turn's PNGs, its records, and the events and exchange so far are fsynced. A SIGKILL
//! leaves every finished turn readable and at most a torn last line, which `reader` skips.

mod images;
mod prune;
mod reader;
mod record;
pub mod trace;
mod verdict;

pub use images::{ImagePool, PooledImage, TurnImage};
pub use prune::{LOCK_FILE, RunLock, prune_runs};
pub use reader::{RunLog, TurnView, read_jsonl, read_run};
pub use record::{AnnotatedRecord, RawRecord, Record, TurnEntry, TurnTimings};
pub use verdict::{CheckerVerdict, VERDICT_FILE, read_verdict, write_verdict};

use crate::event::{Event, EventKind, unix_ms};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};

pub const TURNS_FILE: &str = "turns.jsonl";
pub const EVENTS_FILE: &str = "events.jsonl";
pub const EXCHANGE_FILE: &str = "exchange.jsonl";
pub const LOG_FILE: &str = "franz.log";
pub const CONFIG_FILE: &str = "config.toml";
pub const META_FILE: &str = "run.json";

/// Facts about a run that its configuration does not hold, for `franz replay --execute`.
/// Every field is optional, so older and newer run directories both read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// The monitor the run worked on, in pixels (its crop, in 0..1000 of this, is in
    /// `config.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<crate::geometry::ImageSize>,
}

/// Where screenshots go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// `turn_0001_raw.png` beside `turns.jsonl` (the vision loop's recommended layout,
    /// docs/designs.md).
    #[default]
    Flat,
    /// `turn_0001/screenshot_raw.png` (the vision loop's legacy layout, docs/designs.md).
    TurnDirs,
}

impl Layout {
    /// The raw and annotated PNG paths of a turn, relative to the run directory.
    pub fn image_names(self, turn: u32) -> (String, String) {
        match self {
            Layout::Flat => (
                format!("turn_{turn:04}_raw.png"),
                format!("turn_{turn:04}_annotated.png"),
            ),
            Layout::TurnDirs => (
                format!("turn_{turn:04}/screenshot_raw.png"),
                format!("turn_{turn:04}/screenshot_annotated.png"),
            ),
        }
    }
}

/// `name` (a `.png` path from [`Layout::image_names`]) with the extension `ext`.
fn with_extension(name: String, ext: &str) -> String {
    match name.strip_suffix(".png") {
        Some(stem) if ext != "png" => format!("{stem}.{ext}"),
        _ => name,
    }
}

/// Which screenshots a run directory keeps (`log_images`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogImages {
    /// No PNGs, and the records name none (long runs, `franz bench soak`).
    None,
    /// Only the image the model was sent (the annotated PNG; the raw one when feedback is
    /// off, which is then the same image).
    Annotated,
    /// The raw screenshot and the annotated one, every turn.
    #[default]
    All,
}

impl LogImages {
    /// Whether the raw screenshot is written, with feedback (the overlays) on or off.
    pub fn raw(self, feedback: bool) -> bool {
        match self {
            LogImages::None => false,
            LogImages::Annotated => !feedback,
            LogImages::All => true,
        }
    }

    /// Whether the annotated screenshot is written (when there is one).
    pub fn annotated(self) -> bool {
        self != LogImages::None
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RunLogError {
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("turn {0}: finish_turn without its screenshots (call submit_images first)")]
    NoImages(u32),
    #[error("cannot write the configuration snapshot: {0}")]
    Config(String),
    #[error("{} is not a run directory (no {TURNS_FILE})", .0.display())]
    NotARun(PathBuf),
    #[error("{} is in use by another franz run (its {LOCK_FILE} is locked)", .0.display())]
    InUse(PathBuf),
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> RunLogError + 'a {
    move |source| RunLogError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// Claims `root/run_NNNN`, one past the highest number there (creating `root` if needed).
pub fn create_next_run_dir(root: &Path) -> Result<PathBuf, RunLogError> {
    std::fs::create_dir_all(root).map_err(io_err("cannot create", root))?;
    loop {
        let highest = std::fs::read_dir(root)
            .map_err(io_err("cannot read", root))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_prefix("run_")?
                    .parse::<u32>()
                    .ok()
            })
            .max()
            .unwrap_or(0);
        let dir = root.join(format!("run_{:04}", highest + 1));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            // another franz claimed it between our scan and create: scan again
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_err("cannot create", &dir)(e)),
        }
    }
}

/// A turn's screenshots on their way to disk, and the names its records will give them.
struct Pending {
    done: Receiver<io::Result<()>>,
    /// The raw PNG, when written.
    raw: Option<String>,
    /// The image the model was sent: the annotated PNG, or the raw one without feedback.
    shown: Option<String>,
}

/// Writes one run directory.
pub struct RunWriter {
    dir: PathBuf,
    layout: Layout,
    turns: File,
    events: File,
    exchange: File,
    images: images::ImageWorker,
    pending: HashMap<u32, Pending>,
    /// The files whose write failure was already reported (see [`RunWriter::first_failure`]).
    failed: HashSet<String>,
    log_images: LogImages,
    /// The buffers raw screenshots are copied into for the writer thread.
    pool: ImagePool,
    /// Held while this writer lives: the run is alive (prune.rs).
    _lock: RunLock,
}

impl RunWriter {
    /// A new run under `root` (`runs/run_0001`, the next free number).
    pub fn create(root: &Path, layout: Layout) -> Result<Self, RunLogError> {
        let dir = create_next_run_dir(root)?;
        Self::open_dir(&dir, layout)
    }

    /// Writes into `dir` (created if missing), appending to any records already there.
    pub fn open_dir(dir: &Path, layout: Layout) -> Result<Self, RunLogError> {
        std::fs::create_dir_all(dir).map_err(io_err("cannot create", dir))?;
        let lock = RunLock::acquire(dir)?;
        let open = |name: &str| {
            let path = dir.join(name);
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(io_err("cannot open", &path))
        };
        let w = Self {
            dir: dir.to_path_buf(),
            layout,
            turns: open(TURNS_FILE)?,
            events: open(EVENTS_FILE)?,
            exchange: open(EXCHANGE_FILE)?,
            images: images::ImageWorker::start()
                .map_err(io_err("cannot start the PNG writer for", dir))?,
            pending: HashMap::new(),
            failed: HashSet::new(),
            log_images: LogImages::All,
            pool: ImagePool::default(),
            _lock: lock,
        };
        images::sync_dir(dir).map_err(io_err("cannot sync", dir))?;
        Ok(w)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// This writer keeping only the screenshots `log_images` says (all by default).
    pub fn with_log_images(mut self, log_images: LogImages) -> Self {
        self.log_images = log_images;
        self
    }

    /// This writer copying raw screenshots into a pool of `keep` spare buffers (default 4; 0:
    /// a fresh buffer each turn, for comparison in `franz bench turn --fresh-buffers`).
    pub fn with_image_pool(mut self, keep: usize) -> Self {
        self.pool = ImagePool::new(keep);
        self
    }

    pub fn log_images(&self) -> LogImages {
        self.log_images
    }

    /// The pool to copy a raw screenshot into, when this run keeps raw screenshots with
    /// feedback on or off.
    pub fn raw_pool(&self, feedback: bool) -> Option<ImagePool> {
        self.log_images.raw(feedback).then(|| self.pool.clone())
    }

    /// Writes `config.toml` from the effective configuration. Values under keys that name a
    /// secret (api_key, token, password, secret, authorization) are replaced by `***` here too,
    /// in case the caller missed one.
    pub fn write_config<T: Serialize>(&self, config: &T) -> Result<(), RunLogError> {
        let mut table =
            toml::Table::try_from(config).map_err(|e| RunLogError::Config(e.to_string()))?;
        mask_secrets(&mut table);
        let text = toml::to_string(&table).map_err(|e| RunLogError::Config(e.to_string()))?;
        let path = self.dir.join(CONFIG_FILE);
        images::write_durable(&path, text.as_bytes()).map_err(io_err("cannot write", &path))
    }

    /// Writes `run.json`.
    pub fn write_meta(&self, meta: &RunMeta) -> Result<(), RunLogError> {
        let text = json_line(meta)?;
        let path = self.dir.join(META_FILE);
        images::write_durable(&path, text.as_bytes()).map_err(io_err("cannot write", &path))
    }

    /// Hands a turn's screenshots to the writer thread and returns at once. `annotated: None`
    /// (feedback off) records the raw image as the annotated one.
    pub fn submit_images(
        &mut self,
        turn: u32,
        raw: TurnImage,
        annotated: Option<TurnImage>,
    ) -> Result<(), RunLogError> {
        self.submit(turn, Some(raw), annotated)
    }

    /// Hands a turn's screenshots to the writer thread, as far as `log_images` keeps them:
    /// nothing at all with `none`.
    pub fn submit(
        &mut self,
        turn: u32,
        raw: Option<TurnImage>,
        annotated: Option<TurnImage>,
    ) -> Result<(), RunLogError> {
        if self.log_images == LogImages::None {
            return Ok(());
        }
        let (raw_name, ann_name) = self.layout.image_names(turn);
        let mut dirs = vec![self.dir.clone()];
        if self.layout == Layout::TurnDirs {
            let td = self.dir.join(format!("turn_{turn:04}"));
            std::fs::create_dir_all(&td).map_err(io_err("cannot create", &td))?;
            dirs.insert(0, td);
        }
        let mut files = Vec::new();
        let raw = raw.map(|r| {
            files.push((self.dir.join(&raw_name), r));
            raw_name
        });
        // without an annotated image (feedback off) the model was sent the raw one
        let shown = match annotated {
            Some(a) => {
                let ann_name = with_extension(ann_name, a.extension());
                files.push((self.dir.join(&ann_name), a));
                Some(ann_name)
            }
            None => raw.clone(),
        };
        let done = self
            .images
            .submit(files, dirs)
            .map_err(io_err("cannot queue screenshots for", &self.dir))?;
        self.pending.insert(turn, Pending { done, raw, shown });
        Ok(())
    }

    /// Appends the turn's two records once its screenshots are durable, then fsyncs the
    /// records, events and exchange. When this returns, the turn survives a crash.
    pub fn finish_turn(&mut self, entry: TurnEntry) -> Result<(), RunLogError> {
        let turn = entry.turn;
        // the records name only the files the writer thread made durable
        let (raw_png, annotated_png) = match self.pending.remove(&turn) {
            Some(p) => {
                p.done
                    .recv()
                    .unwrap_or_else(|_| Err(io::Error::other("the PNG writer thread has died")))
                    .map_err(io_err("cannot write screenshots in", &self.dir))?;
                (p.raw, p.shown)
            }
            None if self.log_images == LogImages::None => (None, None),
            None => return Err(RunLogError::NoImages(turn)),
        };
        let raw = Record::Raw(Box::new(RawRecord {
            turn,
            t_ms: unix_ms(),
            story: entry.story,
            bboxes: entry.bboxes,
            actions: entry.actions,
            results: entry.results,
            timings: entry.timings,
            raw_png,
            error: entry.error,
        }));
        let ann = Record::Annotated(AnnotatedRecord {
            turn,
            annotated_png,
        });
        let mut lines = json_line(&raw)?;
        lines.push_str(&json_line(&ann)?);
        let path = self.dir.join(TURNS_FILE);
        self.turns
            .write_all(lines.as_bytes())
            .and_then(|()| self.turns.sync_data())
            .map_err(io_err("cannot append to", &path))?;
        self.sync_streams()
    }

    /// Both steps at once, for callers that have nothing to overlap with the PNG writing.
    pub fn write_turn(
        &mut self,
        entry: TurnEntry,
        raw: TurnImage,
        annotated: Option<TurnImage>,
    ) -> Result<(), RunLogError> {
        self.submit_images(entry.turn, raw, annotated)?;
        self.finish_turn(entry)
    }

    /// Appends an event. The run's end and fatal errors are fsynced at once; the rest with
    /// the next `finish_turn`.
    pub fn event(&mut self, event: &Event) -> Result<(), RunLogError> {
        let mut line = event.to_json_line();
        line.push('\n');
        let path = self.dir.join(EVENTS_FILE);
        self.events
            .write_all(line.as_bytes())
            .map_err(io_err("cannot append to", &path))?;
        if matches!(
            event.kind,
            EventKind::RunFinished { .. } | EventKind::Error { fatal: true, .. }
        ) {
            self.events
                .sync_data()
                .map_err(io_err("cannot sync", &path))?;
        }
        Ok(())
    }

    /// Appends one model exchange record. It must already be sanitized (images as sha256 and
    /// length, secrets masked): the engine runs `crate::model::sanitize` before this.
    pub fn exchange(&mut self, record: &serde_json::Value) -> Result<(), RunLogError> {
        let line = json_line(record)?;
        let path = self.dir.join(EXCHANGE_FILE);
        self.exchange
            .write_all(line.as_bytes())
            .map_err(io_err("cannot append to", &path))
    }

    /// True the first time it is called for `file` in this run, false after: so that a file
    /// that cannot be written is reported once per run, not once per record. From then on
    /// the file is known broken: `finish_turn` and `close` no longer sync it.
    pub fn first_failure(&mut self, file: &str) -> bool {
        self.failed.insert(file.to_string())
    }

    /// `franz.log`, as a cloneable writer for tracing:
    /// `tracing_subscriber::fmt().with_writer(move || log.clone())`.
    pub fn log_file(&self) -> Result<LogFile, RunLogError> {
        let path = self.dir.join(LOG_FILE);
        LogFile::open(&path).map_err(io_err("cannot open", &path))
    }

    /// Waits for queued screenshots and fsyncs everything.
    pub fn close(mut self) -> Result<(), RunLogError> {
        for (_, p) in self.pending.drain() {
            let _ = p.done.recv();
        }
        self.sync_streams()
    }

    /// Syncs the event and exchange logs, except one whose failure was already reported
    /// ([`RunWriter::first_failure`]): the run goes on without it.
    fn sync_streams(&mut self) -> Result<(), RunLogError> {
        for (f, name) in [(&self.events, EVENTS_FILE), (&self.exchange, EXCHANGE_FILE)] {
            if self.failed.contains(name) {
                continue;
            }
            f.sync_data()
                .map_err(io_err("cannot sync", &self.dir.join(name)))?;
        }
        Ok(())
    }
}

fn json_line<T: Serialize>(v: &T) -> Result<String, RunLogError> {
    let mut s = serde_json::to_string(v).map_err(|e| RunLogError::Config(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

/// Whether a configuration key names a secret.
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "api_key",
        "apikey",
        "token",
        "secret",
        "password",
        "authorization",
    ]
    .iter()
    .any(|s| k.contains(s))
}

fn mask_secrets(table: &mut toml::Table) {
    for (k, v) in table.iter_mut() {
        match v {
            toml::Value::String(s) if is_secret_key(k) && !s.is_empty() => *s = "***".into(),
            toml::Value::Table(t) => mask_secrets(t),
            toml::Value::Array(items) => {
                for item in items {
                    if let toml::Value::Table(t) = item {
                        mask_secrets(t);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `franz.log`, shared by every tracing writer. Each `write` goes straight to the file.
#[derive(Debug, Clone)]
pub struct LogFile(Arc<Mutex<File>>);

impl LogFile {
    /// Opens `path` for appending, creating it if missing.
    pub fn open(path: &Path) -> io::Result<Self> {
        let f = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(LogFile(Arc::new(Mutex::new(f))))
    }
}

impl Write for LogFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut f = self
            .0
            .lock()
            .map_err(|_| io::Error::other("log file lock poisoned"))?;
        f.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        let mut f = self
            .0
            .lock()
            .map_err(|_| io::Error::other("log file lock poisoned"))?;
        f.flush()
    }
}

#[cfg(test)]
mod tests;
