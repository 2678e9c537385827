//! `franz export RUN_DIR --format osworld|jsonl --out DIR`: a run directory (crates/core/src/runlog/)
//! as other tools read trajectories.
//!
//! - `osworld`: `traj.jsonl`, one line per step with `step_num` (1-based), `action` (the
//!   step's canonical actions; one object when there is one), `action_timestamp` (the turn's
//!   time, `YYYYmmdd@HHMMSS`), `screenshot_file` (the screenshot the model saw, copied into
//!   DIR, relative to DIR), `response` (the model's story), plus `result.txt` (1 when the run
//!   ended done, else 0).
//! - `jsonl`: `steps.jsonl`, one flat record per step for fine-tuning: `screenshot` (copied
//!   into DIR, relative to DIR), `instruction` (the task), `reply` (the model's reply text),
//!   `actions` (canonical JSON), `step`.

use crate::cli::ExportArgs;
use crate::exit::usage;
use anyhow::Context;
use franz_core::event::{EventKind, Outcome};
use franz_core::runlog::read_run;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let log = read_run(&args.run_dir)
        .map_err(|e| usage(format!("{e}: give a run directory such as runs/run_0001")))?;
    if let Some(t) = log.turns.iter().find(|t| t.shown_png().is_none()) {
        return Err(usage(format!(
            "turn {} of {} kept no screenshot (the run was logged with log_images = none), and \
             every exported step needs one: export a run logged with --log-images annotated or all",
            t.raw.turn,
            args.run_dir.display()
        )));
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut task = String::new();
    let mut done = false;
    let mut replies: HashMap<u32, String> = HashMap::new();
    for e in &log.events {
        match &e.kind {
            EventKind::RunStarted { task: t, .. } => task = t.clone(),
            EventKind::ModelReply { text, .. } => {
                replies.insert(e.turn, text.clone());
            }
            EventKind::RunFinished { outcome, .. } => done = *outcome == Outcome::Done,
            _ => {}
        }
    }
    let (file, mut out) = match args.format.as_str() {
        "osworld" => ("traj.jsonl", Vec::new()),
        _ => ("steps.jsonl", Vec::new()),
    };
    for (i, turn) in log.turns.iter().enumerate() {
        let shot = turn.shown_png().unwrap_or_default().to_string();
        let src = log.dir.join(&shot);
        let name = format!("step_{}.png", i + 1);
        std::fs::copy(&src, args.out.join(&name))
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
        let line = match args.format.as_str() {
            "osworld" => json!({
                "step_num": i + 1,
                "action": if actions.len() == 1 { actions[0].clone() } else { Value::Array(actions) },
                "action_timestamp": timestamp(turn.raw.t_ms),
                "screenshot_file": name,
                "response": turn.raw.story,
                "reward": 0,
                "done": done && i + 1 == log.turns.len(),
            }),
            _ => json!({
                "step": i + 1,
                "screenshot": name,
                "instruction": task,
                "reply": reply,
                "actions": actions,
            }),
        };
        out.push(line.to_string());
    }
    let mut f = std::fs::File::create(args.out.join(file))
        .with_context(|| format!("cannot write {}", args.out.join(file).display()))?;
    for l in &out {
        writeln!(f, "{l}")?;
    }
    if args.format == "osworld" {
        std::fs::write(
            args.out.join("result.txt"),
            if done { "1\n" } else { "0\n" },
        )?;
    }
    println!(
        "{} steps written to {}",
        out.len(),
        args.out.join(file).display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Unix milliseconds as OSWorld's `YYYYmmdd@HHMMSS` (UTC).
fn timestamp(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil(days as i64);
    format!(
        "{y:04}{m:02}{d:02}@{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 as (year, month, day) (Howard Hinnant's civil_from_days).
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_utc_calendar_times() {
        assert_eq!(super::timestamp(0), "19700101@000000");
        assert_eq!(super::timestamp(1_700_000_000_000), "20231114@221320");
    }
}
