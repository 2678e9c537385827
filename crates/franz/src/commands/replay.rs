//! `franz replay RUN_DIR [--execute] [--from N] [--to M]`: prints a run's turns and what
//! replaying them would do. `--execute` will perform them again on the current desktop once the
//! executor is wired in (TODO(lead): call the executor from the acting branch here).

use super::{Exit, exit};
use crate::cli::ReplayArgs;
use franz_core::action::ActionKind;
use franz_core::runlog::{self, RunLogError};
use std::process::ExitCode;

pub fn run(args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    if let (Some(from), Some(to)) = (args.from, args.to)
        && from > to
    {
        return Err(Exit(
            exit::USAGE,
            format!("--from {from} is after --to {to}: give a range with N <= M"),
        )
        .into());
    }
    let log = runlog::read_run(&args.run_dir).map_err(|e| match e {
        RunLogError::NotARun(_) => anyhow::Error::new(Exit(exit::USAGE, e.to_string())),
        e => anyhow::Error::new(e),
    })?;
    for w in &log.warnings {
        eprintln!("franz: warning: {w}");
    }
    if args.execute {
        // TODO(lead): perform the selected actions with the executor once it is merged.
        return Err(Exit(
            exit::FAILED,
            "replay --execute is not yet available in this build: the executor is not wired in; \
             run without --execute to see what it would do"
                .into(),
        )
        .into());
    }
    let from = args.from.unwrap_or(1);
    let to = args.to.unwrap_or(u32::MAX);
    let mut shown = 0;
    for t in log
        .turns
        .iter()
        .filter(|t| (from..=to).contains(&t.raw.turn))
    {
        shown += 1;
        let r = &t.raw;
        println!("turn {}: {}", r.turn, one_line(&r.observation));
        if r.actions.is_empty() {
            println!("  (no actions)");
        }
        for (i, a) in r.actions.iter().enumerate() {
            let json = serde_json::to_string(a).unwrap_or_default();
            let was = match r.results.get(i) {
                Some(res) if res.is_ok() => "ok".to_string(),
                Some(res) => serde_json::to_value(res)
                    .ok()
                    .and_then(|v| {
                        v.get("message")
                            .and_then(|m| m.as_str())
                            .map(str::to_string)
                    })
                    .map(|m| format!("failed: {m}"))
                    .unwrap_or_else(|| "failed".into()),
                None => "not performed".into(),
            };
            println!(
                "  {}. {json} (was {was}) -> would {}",
                i + 1,
                would(&a.kind)
            );
        }
    }
    if shown == 0 {
        println!(
            "no turns in {from}..{} of {} recorded",
            fmt_to(to),
            log.turns.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn fmt_to(to: u32) -> String {
    if to == u32::MAX {
        "end".into()
    } else {
        to.to_string()
    }
}

fn one_line(s: &str) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > 160 {
        s.chars().take(159).chain(std::iter::once('…')).collect()
    } else {
        s
    }
}

/// What performing the action again would do, in words.
fn would(k: &ActionKind) -> String {
    let at = k
        .point()
        .map(|(x, y)| format!(" at ({x}, {y})"))
        .unwrap_or_else(|| " at the pointer".into());
    match k {
        ActionKind::Drag { x2, y2, .. } => format!("drag{at} to ({x2}, {y2})"),
        ActionKind::Type { text } => format!("type {text:?}"),
        ActionKind::Key { keys } => format!("press {keys}"),
        ActionKind::Wait { seconds } => format!("wait {seconds} s"),
        ActionKind::Scroll {
            direction, amount, ..
        } => format!("scroll {direction:?} {amount} notches{at}").to_lowercase(),
        k if k.is_terminal() => format!("end the run ({})", k.name()),
        ActionKind::Observe | ActionKind::ReportProgress { .. } => {
            format!("nothing on screen ({})", k.name())
        }
        k => format!("{}{at}", k.name().replace('_', " ")),
    }
}
