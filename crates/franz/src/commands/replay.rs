//! `franz replay RUN_DIR [--execute] [--from N] [--to M]`: prints a run's turns and what
//! replaying them would do. `--execute` performs the recorded actions again on the current
//! desktop (honouring the global flags: --sandbox, --crop, --dry-run, ...), one JSON result
//! line per action, as `franz act` prints them.

use super::{Exit, exit};
use crate::cli::{GlobalArgs, ReplayArgs};
use crate::setup;
use franz_core::action::ActionKind;
use franz_core::executor::ExecConfig;
use franz_core::runlog::{self, RunLogError};
use std::process::ExitCode;

pub fn run(g: &GlobalArgs, args: &ReplayArgs) -> anyhow::Result<ExitCode> {
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
    let from = args.from.unwrap_or(1);
    let to = args.to.unwrap_or(u32::MAX);
    if args.execute {
        return execute(g, &log, from, to);
    }
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

/// Performs the recorded actions of turns `from..=to` again, in order.
fn execute(g: &GlobalArgs, log: &runlog::RunLog, from: u32, to: u32) -> anyhow::Result<ExitCode> {
    use std::io::Write;
    let mut session = setup::open_session(g)?;
    let config = ExecConfig {
        max_actions_per_turn: usize::MAX,
        ..ExecConfig::default()
    };
    let mut ex = super::act::executor(g, session.desktop.monitor().rect, config)?;
    let mut all_ok = true;
    for t in log
        .turns
        .iter()
        .filter(|t| (from..=to).contains(&t.raw.turn))
    {
        let actions = &t.raw.actions;
        let turn = t.raw.turn;
        let results = ex
            .execute_with(session.desktop.as_mut(), actions, |i, result| {
                let line = serde_json::json!({ "turn": turn, "index": i, "action": &actions[i], "result": result });
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}").and_then(|()| out.flush());
            })
            .map_err(super::act::fatal)?;
        all_ok &= results.iter().all(|r| r.is_ok());
        if setup::interrupted() {
            return Err(setup::interrupted_error());
        }
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(exit::FAILED)
    })
}
