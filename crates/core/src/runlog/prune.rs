//! `keep_runs`: deleting the oldest run directories, never one whose run still lives.
//!
//! A run holds an advisory lock on `run.lock` in its directory for as long as its writer lives
//! ([`RunLock`]; the OS releases it when the process dies, however it dies). [`prune_runs`]
//! never deletes a directory whose lock is held, nor one without `run_finished` that changed
//! more recently than `unfinished_grace` ago (a run that has not taken its lock yet, or one on
//! a file system where locks do not reach across machines).

use super::{EVENTS_FILE, RunLogError, io_err};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The file a live run keeps locked.
pub const LOCK_FILE: &str = "run.lock";

/// How much of the end of `events.jsonl` is read for `run_finished` (the last event).
const TAIL: u64 = 64 * 1024;

/// The lock a live run holds on its directory; released when dropped.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Locks `dir/run.lock` (creating it); an error if another process holds it.
    pub fn acquire(dir: &Path) -> Result<Self, RunLogError> {
        let path = dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_err("cannot open", &path))?;
        match file.try_lock() {
            Ok(()) => Ok(RunLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(RunLogError::InUse(dir.to_path_buf())),
            Err(TryLockError::Error(e)) => Err(io_err("cannot lock", &path)(e)),
        }
    }
}

/// Whether a run holds `dir`'s lock now. A lock file that cannot be tried counts as held.
fn is_locked(dir: &Path) -> bool {
    let Ok(file) = File::open(dir.join(LOCK_FILE)) else {
        return false;
    };
    match file.try_lock_shared() {
        Ok(()) => false,
        Err(TryLockError::WouldBlock) => true,
        Err(TryLockError::Error(e)) => {
            tracing::warn!("cannot try the lock of {}: {e}", dir.display());
            true
        }
    }
}

/// Whether `dir`'s events end with `run_finished`.
fn is_finished(dir: &Path) -> bool {
    let tail = || -> std::io::Result<Vec<u8>> {
        let mut f = File::open(dir.join(EVENTS_FILE))?;
        let len = f.metadata()?.len();
        f.seek(SeekFrom::Start(len.saturating_sub(TAIL)))?;
        let mut buf = Vec::new();
        f.take(TAIL).read_to_end(&mut buf)?;
        Ok(buf)
    };
    let needle = br#""event":"run_finished""#;
    tail().is_ok_and(|t| t.windows(needle.len()).any(|w| w == needle))
}

/// How long ago `dir` or its events last changed (zero when that cannot be read).
fn age(dir: &Path) -> Duration {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let newest = [modified(dir), modified(&dir.join(EVENTS_FILE))]
        .into_iter()
        .flatten()
        .max();
    newest
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .unwrap_or(Duration::ZERO)
}

/// Why `dir` must not be deleted, if it must not.
fn kept_because(dir: &Path, unfinished_grace: Option<Duration>) -> Option<String> {
    if is_locked(dir) {
        return Some("its run is still going (run.lock is held)".into());
    }
    if is_finished(dir) {
        return None;
    }
    match unfinished_grace {
        None => Some("it has no run_finished, and max_time is not set".into()),
        Some(grace) if age(dir) < grace => Some(format!(
            "it has no run_finished and changed less than max_time ({} s) ago",
            grace.as_secs_f64()
        )),
        Some(_) => None,
    }
}

/// Deletes the oldest `root/run_NNNN` directories beyond the newest `keep` (`keep_runs`),
/// except those a live run holds and those without `run_finished` that changed less than
/// `unfinished_grace` ago (`None`: no unfinished run is deleted); returns those deleted.
pub fn prune_runs(
    root: &Path,
    keep: u64,
    unfinished_grace: Option<Duration>,
) -> Result<Vec<PathBuf>, RunLogError> {
    let mut runs: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .map_err(io_err("cannot read", root))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let n = e
                .file_name()
                .to_str()?
                .strip_prefix("run_")?
                .parse::<u32>()
                .ok()?;
            Some((n, e.path()))
        })
        .collect();
    runs.sort();
    let excess = runs
        .len()
        .saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX));
    let mut deleted = Vec::new();
    for (_, dir) in runs.into_iter().take(excess) {
        if let Some(why) = kept_because(&dir, unfinished_grace) {
            tracing::info!("keep_runs: kept {}: {why}", dir.display());
            continue;
        }
        std::fs::remove_dir_all(&dir).map_err(io_err("cannot delete", &dir))?;
        deleted.push(dir);
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_dir(root: &Path, n: u32, finished: bool) -> PathBuf {
        let dir = root.join(format!("run_{n:04}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut events = r#"{"event":"run_started"}"#.to_string() + "\n";
        if finished {
            events += r#"{"event":"run_finished","outcome":"done"}"#;
            events += "\n";
        }
        std::fs::write(dir.join(EVENTS_FILE), events).unwrap();
        dir
    }

    fn names(root: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_locked_run_is_kept_and_a_finished_one_deleted() {
        let root = tempfile::tempdir().unwrap();
        let live = run_dir(root.path(), 1, false);
        let lock = RunLock::acquire(&live).unwrap();
        assert!(matches!(
            RunLock::acquire(&live),
            Err(RunLogError::InUse(_))
        ));
        run_dir(root.path(), 2, true);
        run_dir(root.path(), 3, true);
        let deleted = prune_runs(root.path(), 1, Some(Duration::ZERO)).unwrap();
        assert_eq!(deleted, [root.path().join("run_0002")]);
        assert_eq!(names(root.path()), ["run_0001", "run_0003"]);
        // once the run ends (its lock released) it may go
        drop(lock);
        run_dir(root.path(), 1, true);
        prune_runs(root.path(), 1, Some(Duration::ZERO)).unwrap();
        assert_eq!(names(root.path()), ["run_0003"]);
    }

    #[test]
    fn an_unfinished_run_is_kept_while_younger_than_the_grace() {
        let root = tempfile::tempdir().unwrap();
        run_dir(root.path(), 1, false);
        run_dir(root.path(), 2, true);
        assert!(prune_runs(root.path(), 1, None).unwrap().is_empty());
        let hour = Some(Duration::from_secs(3600));
        assert!(prune_runs(root.path(), 1, hour).unwrap().is_empty());
        // a crashed run, older than max_time, goes
        let deleted = prune_runs(root.path(), 1, Some(Duration::ZERO)).unwrap();
        assert_eq!(deleted, [root.path().join("run_0001")]);
    }
}
