//! `franz export RUN_DIR --format osworld|jsonl|gif|mp4 [--out PATH]`: a run directory
//! (crates/core/src/runlog/) as other tools read trajectories, or as an animation to share.
//!
//! - `osworld`: OSWorld's trajectory (export/osworld.rs): `traj.jsonl` with pyautogui code in
//!   screen pixels, the screenshots, and `result.txt` only from a checker's verdict.
//! - `jsonl`: `steps.jsonl`, one flat record per step for fine-tuning: `screenshot` (copied
//!   into DIR, relative to DIR), `instruction` (the task), `reply` (the model's reply text),
//!   `actions` (canonical JSON), `step`.
//! - `gif`, `mp4`: the run as an animation, one frame per turn (export/animation.rs).

mod animation;
mod lines;
mod osworld;
mod pyautogui;

use crate::cli::ExportArgs;
use crate::exit::usage;
use crate::terminal::outln;
use anyhow::Context;
use franz_core::event::EventKind;
use franz_core::runlog::{RunLog, read_run};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let log = read_run(&args.run_dir)
        .map_err(|e| usage(format!("{e}: give a run directory such as runs/run_0001")))?;
    if matches!(args.format.as_str(), "gif" | "mp4") {
        return animation::write(&log, args);
    }
    let out = args.out.as_deref().ok_or_else(|| {
        usage(format!(
            "--format {} writes a folder: give it with --out DIR",
            args.format
        ))
    })?;
    if let Some(t) = log.turns.iter().find(|t| t.shown_png().is_none()) {
        return Err(usage(format!(
            "turn {} of {} kept no screenshot (the run was logged with log_images = none), and \
             every exported step needs one: export a run logged with --log-images annotated or all",
            t.raw.turn,
            args.run_dir.display()
        )));
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    if args.format == "osworld" {
        let written = osworld::write(&log, out)?;
        let result = match written.result {
            Some(score) => format!("result.txt {score:?} (the checkers' verdict)"),
            None => "no result.txt: the run has no checker's verdict".into(),
        };
        outln!(
            "{} actions written to {}; {result}",
            written.lines,
            out.join("traj.jsonl").display()
        )?;
    } else {
        let steps = flat(&log, out)?;
        outln!(
            "{} steps written to {}",
            steps,
            out.join("steps.jsonl").display()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `steps.jsonl` and the screenshot each step was decided on; returns the lines written.
fn flat(log: &RunLog, out: &Path) -> anyhow::Result<usize> {
    let mut task = String::new();
    let mut replies: HashMap<u32, String> = HashMap::new();
    for e in &log.events {
        match &e.kind {
            EventKind::RunStarted { task: t, .. } => task = t.clone(),
            EventKind::ModelReply { text, .. } => {
                replies.insert(e.turn, text.clone());
            }
            _ => {}
        }
    }
    let mut records = Vec::new();
    for (i, turn) in log.turns.iter().enumerate() {
        let shot = turn.shown_png().unwrap_or_default().to_string();
        let src = log.dir.join(&shot);
        let name = format!("step_{}.png", i + 1);
        std::fs::copy(&src, out.join(&name))
            .with_context(|| format!("cannot copy the screenshot {}", src.display()))?;
        let actions: Vec<Value> = turn
            .raw
            .actions
            .iter()
            .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
            .collect();
        let reply = replies
            .get(&turn.raw.turn)
            .cloned()
            .unwrap_or_else(|| turn.raw.story.clone());
        records.push(json!({
            "step": i + 1,
            "screenshot": name,
            "instruction": task,
            "reply": reply,
            "actions": actions,
        }));
    }
    lines::write(&out.join("steps.jsonl"), &records)?;
    Ok(records.len())
}
