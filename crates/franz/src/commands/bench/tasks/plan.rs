//! One task run to do, as `mod.rs` plans them and `job.rs` runs them.

use franz_core::bench_task::Task;
use std::path::PathBuf;
use std::sync::Arc;

/// One task run to do.
#[derive(Debug, Clone)]
pub struct Job {
    pub task: Arc<Task>,
    pub model: String,
    pub strategy: String,
    pub profile: String,
    pub repeat: u32,
    /// The episode's seed (MiniWoB++ tasks).
    pub seed: Option<u64>,
    /// Chromium's device scale factor (MiniWoB++ tasks).
    pub scale: f64,
    /// The model server for a real model.
    pub api_url: Option<String>,
    /// `--config FILE`, passed on to each `franz run`.
    pub config: Option<PathBuf>,
    pub timeout_s: u64,
    /// `OUT/runs/<id>`, and the id as written in the results.
    pub dir: PathBuf,
    pub rel_dir: String,
}
