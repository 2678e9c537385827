//! What the server's parts share: the desktop's thread, the tools' coordinate space, the busy
//! mark of a running task and what `run_task` builds its sessions from.

use super::hands::{Desk, Space};
use crate::cli::GlobalArgs;
use crate::flags::Given;
use rmcp::schemars;
use serde::Deserialize;
use std::sync::Mutex;

/// What every copy of the server shares (HTTP makes one per session).
pub struct Shared {
    pub hands: Desk,
    pub space: Space,
    /// The id of the task `run_task` runs, if any.
    pub busy: Mutex<Option<String>>,
    pub task: TaskSetup,
    pub runs_dir: std::path::PathBuf,
}

/// What `run_task` needs to build a session: the command line's configuration and display.
pub struct TaskSetup {
    pub global: GlobalArgs,
    /// `franz mcp`'s setting flags, without `--coords` (the tools' space, not the model's).
    pub given: Vec<Given>,
    pub display: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskArgs {
    /// What franz should do, in plain words, e.g. "open the settings and turn on dark mode".
    pub task: String,
    /// The strategy: narrative, vision, tools or commander (default: the configured one).
    #[serde(default)]
    pub strategy: Option<String>,
    /// The most turns the task may take (default: the configured max_steps).
    #[serde(default)]
    pub max_steps: Option<u32>,
}
