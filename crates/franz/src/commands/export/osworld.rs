//! `franz export --format osworld`: a run as OSWorld's own runner writes one
//! (`lib_run_single.py`'s `run_single_example`):
//!
//! - `traj.jsonl`, one line per action: `step_num` (the turn, 1-based), `action_timestamp`
//!   (`YYYYmmdd@HHMMSS`, UTC), `action` (pyautogui code in screen pixels, or `DONE` / `FAIL`;
//!   pyautogui.rs), `response` (the model's reply), `reward` (0, as `env.step` gives),
//!   `done` (true after `DONE` or `FAIL`), `info` (the action's error, when it failed or was
//!   refused) and `screenshot_file`: the screen after the step (the next turn's screenshot,
//!   copied as `step_N_TIMESTAMP.png`; `null` after the last turn, which no screenshot followed);
//! - `result.txt`, the score, only when the run has a checker's verdict (`checkers.json`, from
//!   `franz bench tasks`): a run's own `done` is the model's word, not a result.

use super::pyautogui;
use anyhow::Context;
use franz_core::action::{ActionKind, ActionResult};
use franz_core::event::EventKind;
use franz_core::geometry::{Crop, WorkArea};
use franz_core::runlog::{RunLog, TurnView, read_verdict};
use franz_desktop::PixelRect;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

/// What was written: lines, and the result when the run had a verdict.
pub struct Written {
    pub lines: usize,
    pub result: Option<f64>,
}

/// Writes `traj.jsonl`, the screenshots and (with a verdict) `result.txt` into `out`.
pub fn write(log: &RunLog, out: &Path) -> anyhow::Result<Written> {
    let area = work_area(log)?;
    let replies: HashMap<u32, String> = log
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ModelReply { text, .. } => Some((e.turn, text.clone())),
            _ => None,
        })
        .collect();
    let mut lines = Vec::new();
    for (i, turn) in log.turns.iter().enumerate() {
        let step = i + 1;
        let stamp = super::lines::timestamp(turn.raw.t_ms);
        let shot = match log.turns.get(i + 1) {
            Some(next) => Some(copy_after(
                log,
                next,
                out,
                &format!("step_{step}_{stamp}.png"),
            )?),
            None => None,
        };
        let response = replies
            .get(&turn.raw.turn)
            .cloned()
            .unwrap_or_else(|| turn.raw.story.clone());
        for (k, action) in turn.raw.actions.iter().enumerate() {
            let info = match turn.raw.results.get(k) {
                Some(ActionResult::Error(e)) => json!({ "franz_error": e.to_string() }),
                None => json!({ "franz_error": "not performed" }),
                Some(_) => json!({}),
            };
            let done = matches!(
                action.kind,
                ActionKind::Done { .. } | ActionKind::Fail { .. }
            );
            lines.push(json!({
                "step_num": step,
                "action_timestamp": stamp,
                "action": pyautogui::code(action, area),
                "response": response,
                "reward": 0,
                "done": done,
                "info": info,
                "screenshot_file": shot,
            }));
        }
    }
    super::lines::write(&out.join("traj.jsonl"), &lines)?;
    let result = read_verdict(&log.dir)?.map(|v| v.score);
    let result_file = out.join("result.txt");
    match result {
        Some(score) => std::fs::write(&result_file, format!("{score:?}\n"))
            .with_context(|| format!("cannot write {}", result_file.display()))?,
        // an older export in the same folder must not speak for this run
        None if result_file.exists() => std::fs::remove_file(&result_file)
            .with_context(|| format!("cannot remove {}", result_file.display()))?,
        None => {}
    }
    Ok(Written {
        lines: lines.len(),
        result,
    })
}

/// The run's working area in screen pixels: its crop (`config.toml`) on its screen
/// (`run.json`).
fn work_area(log: &RunLog) -> anyhow::Result<WorkArea> {
    let Some(screen) = log.meta.as_ref().and_then(|m| m.screen) else {
        return Err(crate::exit::usage(format!(
            "{} does not record its screen size (run.json, written by franz since it records it): OSWorld's actions are in screen pixels, so this run cannot be exported as osworld; --format jsonl keeps franz's own coordinates",
            log.dir.display()
        )));
    };
    let table: toml::Table = log
        .config
        .as_deref()
        .and_then(|c| c.parse().ok())
        .unwrap_or_default();
    let crop: Crop = match table.get("crop").and_then(|v| v.as_str()) {
        Some(text) => text
            .parse()
            .map_err(|e| anyhow::anyhow!("the run's crop {text:?}: {e}"))?,
        None => Crop::FULL,
    };
    Ok(crop.work_area(PixelRect::new(0, 0, screen.width, screen.height))?)
}

/// Copies the screenshot taken at the start of `next` (the screen after the step before it):
/// the raw one when kept, else the one the model was sent. Returns its name in `out`.
fn copy_after(log: &RunLog, next: &TurnView, out: &Path, name: &str) -> anyhow::Result<Value> {
    let Some(rel) = next.raw.raw_png.as_deref().or(next.shown_png()) else {
        return Ok(Value::Null);
    };
    let src = log.dir.join(rel);
    std::fs::copy(&src, out.join(name))
        .with_context(|| format!("cannot copy the screenshot {}", src.display()))?;
    Ok(Value::from(name))
}
