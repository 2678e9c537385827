//! `franz mcp`: franz's eyes and hands, and whole tasks, served over the Model Context
//! Protocol (rmcp, the official Rust SDK) to any MCP client: stdio by default, streamable
//! HTTP with `--http ADDR`.
//!
//! - `tools.rs`: the server and its tools (screenshot, click, move, drag, scroll, type_text,
//!   press_key, wait, list_windows, focus_window, elements, cursor_position, run_task);
//! - `hands.rs`: the desktop, the observation pipeline and the executor the tools share;
//! - `shared.rs`: what the parts share;
//! - `task.rs`: `run_task` on the engine's session handle;
//! - `resources.rs`: the runs as resources;
//! - `transport.rs`: stdio and HTTP (token, Origin).

mod hands;
mod resources;
mod shared;
mod task;
mod tools;
mod transport;

use crate::cli::{GlobalArgs, McpArgs};
use crate::exit::usage;
use crate::flags::Given;
use crate::settings::resolve;
use hands::{Hands, Space};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// The tools' coordinate space from `--coords`.
fn space(a: &McpArgs) -> anyhow::Result<Space> {
    match a.settings.get("coords") {
        None | Some("norm1000") | Some("norm") => Ok(Space::Norm1000),
        Some("pixels") => Ok(Space::Pixels),
        Some(other) => Err(usage(format!(
            "--coords {other:?}: franz mcp's tools take norm1000 (0..1000 of the screenshot, the default) or pixels (of the screenshot, with its image_id)"
        ))),
    }
}

pub fn run(g: &GlobalArgs, a: &McpArgs) -> anyhow::Result<ExitCode> {
    let space = space(a)?;
    // --coords is the tools' space; the model of run_task reads its own from the config
    let given: Vec<Given> = (a.settings.given.iter())
        .filter(|x| x.key != "coords")
        .cloned()
        .collect();
    // the tools' screenshots are sized as the profile's model sees the screen (`--profile`,
    // or `auto` from the `model` setting), as a run's are
    let (settings, _) = crate::profiles::choose(resolve(g, &given, None)?.0, Vec::new())?;
    let c = settings.config();
    // the window tools are served: a sandbox gets a window manager unless --no-wm
    let g = &crate::setup::with_default_wm(g, Some("the MCP window tools"));
    let session = crate::setup::open_desktop(g)?;
    let display = session.display();
    let (desktop, _keep) = session.into_parts();
    // the pipeline, the executor and the profile's mapping of a point are a run's
    let parts = crate::input_commands::agent(&settings)
        .confirmer(Box::new(hands::nobody_to_ask))
        .desktop(desktop)
        .build_hands()
        .map_err(|e| usage(e.to_string()))?;
    let hands = Hands::new(parts, c.feedback);
    let shared = Arc::new(shared::Shared {
        hands: hands::Desk::start(hands)?,
        space,
        busy: Mutex::new(None),
        task: shared::TaskSetup {
            global: g.clone(),
            given,
            display,
        },
        runs_dir: c.runs_dir.clone(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match &a.http {
            Some(addr) => transport::http(shared, addr, a.allow_remote, a.read_only).await,
            None => transport::stdio(shared, a.read_only).await,
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
