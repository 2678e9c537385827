//! `--model scripted`: a scripted model server (crates/core/src/model/scripted_server.rs) per
//! task run that answers turn n with golden step n of the task, its locators resolved on the
//! run's display at the moment the request arrives (the window found by class and/or title,
//! waited for a few seconds when it is not there yet), rendered in the grammar and coordinate
//! space of the strategy and profile under test (crates/core/src/bench_task/render.rs). After the last
//! step it says done.

use super::plan::Job;
use anyhow::Context;
use franz_core::action::{Action, ActionKind};
use franz_core::bench_task::{GoldenStep, Locator, Renderer, renderer_for};
use franz_core::geometry::{ImageSize, axis_to_norm};
use franz_core::model::scripted_server::{RecordedRequest, Script, ScriptedServer, Step};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const MODEL: &str = "scripted";

/// How long a locator waits for its window to show.
const LOCATE_TIMEOUT: Duration = Duration::from_secs(8);

pub fn start(job: &Job, display: &str) -> anyhow::Result<ScriptedServer> {
    let profile = (!job.profile.is_empty()).then_some(job.profile.as_str());
    let renderer =
        renderer_for(&job.strategy, profile, job.task.screen).map_err(anyhow::Error::msg)?;
    let golden = job.task.golden.clone();
    let (display, screen) = (display.to_string(), job.task.screen);
    let next = Mutex::new(0usize);
    let script = Script::func(move |req: &RecordedRequest| {
        if !is_chat(req) {
            return Step::from(franz_core::model::ScriptedReply::text(
                "(not a chat request)",
            ));
        }
        let n = {
            let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            *n - 1
        };
        Step::from(reply(&golden, n, &renderer, &display, screen))
    });
    ScriptedServer::start(script).context("cannot start the scripted model server")
}

fn is_chat(req: &RecordedRequest) -> bool {
    req.method == "POST" && req.path.ends_with("/chat/completions")
}

/// The reply for turn `n` (0-based).
fn reply(
    golden: &[GoldenStep],
    n: usize,
    renderer: &Renderer,
    display: &str,
    screen: ImageSize,
) -> franz_core::model::ScriptedReply {
    let action = match golden.get(n) {
        None => ActionKind::Done {
            text: "the golden trajectory is complete".into(),
        }
        .into(),
        Some(step) => step
            .to_action(&mut |l: &Locator| locate(l, display, screen))
            .unwrap_or_else(|e| -> Action {
                ActionKind::Fail {
                    text: format!("golden step {n}: {e}"),
                }
                .into()
            }),
    };
    renderer.render(&action)
}

/// The locator's point in 0..1000 of the screen, from the topmost matching window.
fn locate(l: &Locator, display: &str, screen: ImageSize) -> Result<(i32, i32), String> {
    let deadline = Instant::now() + LOCATE_TIMEOUT;
    loop {
        let windows = franz_desktop::top_windows(display).map_err(|e| e.to_string())?;
        if let Some(w) = windows
            .iter()
            .rev()
            .find(|w| w.matches(l.class.as_deref(), l.title.as_deref()))
        {
            let (x, y) = l.point_in(w.x, w.y, w.width, w.height);
            return Ok((
                axis_to_norm(x, screen.width),
                axis_to_norm(y, screen.height),
            ));
        }
        if Instant::now() >= deadline {
            let seen: Vec<String> = windows
                .iter()
                .map(|w| format!("{}/{:?}", w.class, w.title))
                .collect();
            return Err(format!(
                "no window with {} (on screen: {})",
                l.describe(),
                seen.join(", ")
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
