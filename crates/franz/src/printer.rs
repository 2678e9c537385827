//! The terminal subscriber: one line per turn and per action on a terminal, plain lines
//! otherwise (the same lines, so logs and terminals read alike).

use franz_core::action::ActionResult;
use franz_core::event::{Event, EventKind};
use std::io::Write;

/// Prints events to stderr, leaving stdout for the command's result.
pub fn subscriber() -> franz_core::engine::Subscriber {
    Box::new(|e: &Event| {
        if let Some(line) = line(e) {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{line}");
        }
    })
}

fn short(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= n {
        one_line
    } else {
        format!("{}…", one_line.chars().take(n).collect::<String>())
    }
}

fn line(e: &Event) -> Option<String> {
    let t = e.turn;
    Some(match &e.kind {
        EventKind::RunStarted {
            task,
            strategy,
            model,
            run_dir,
            dry_run,
        } => format!(
            "franz: {strategy} with {model}{}: {}{}",
            if *dry_run { " (dry run)" } else { "" },
            short(task, 100),
            run_dir
                .as_ref()
                .map(|d| format!("\\n  run directory: {d}"))
                .unwrap_or_default()
        )
        .replace("\\n", "\n"),
        EventKind::Observation {
            width,
            height,
            bytes,
            timings,
        } => {
            format!(
                "turn {t}: screenshot {width}x{height}, {bytes} bytes in {:.1} ms",
                timings.total
            )
        }
        EventKind::ModelReply {
            ms, story, actions, ..
        } => format!(
            "turn {t}: model answered in {:.1} s with {} action(s){}",
            ms / 1000.0,
            actions.len(),
            story
                .as_ref()
                .map(|s| format!(": {}", short(s, 80)))
                .unwrap_or_default()
        ),
        EventKind::ActionResult {
            index,
            action,
            result,
            ..
        } => {
            let a = serde_json::to_string(action).unwrap_or_default();
            match result {
                ActionResult::Ok { warnings } if warnings.is_empty() => {
                    format!("turn {t}:   [{index}] {a} ok")
                }
                ActionResult::Ok { warnings } => format!(
                    "turn {t}:   [{index}] {a} ok ({})",
                    warnings
                        .iter()
                        .map(|w| w.kind.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                ActionResult::Error(err) => format!("turn {t}:   [{index}] {a} ERROR {err}"),
            }
        }
        EventKind::Note { text } => format!("turn {t}: note: {text}"),
        EventKind::Error { message, fatal } => {
            format!(
                "turn {t}: {}{message}",
                if *fatal { "fatal: " } else { "problem: " }
            )
        }
        EventKind::RunFinished {
            outcome,
            exit_code,
            reason,
            turns,
        } => {
            format!(
                "franz: {} after {turns} turn(s) (exit {exit_code}): {reason}",
                outcome.as_str()
            )
        }
        EventKind::Paused { reason } => format!("turn {t}: paused {reason}"),
        EventKind::Resumed {} => format!("turn {t}: resumed"),
        EventKind::AwaitingApproval { actions } => format!(
            "turn {t}: waiting for approval of {} action(s)",
            actions.len()
        ),
        EventKind::AwaitingAnnotation { .. } => {
            format!("turn {t}: waiting for the panel's annotation")
        }
        EventKind::AwaitingAnswer { question } => {
            format!("turn {t}: the model asks: {}", short(question, 200))
        }
        EventKind::ModelRequest {
            attempt,
            reason: Some(reason),
            ..
        } => format!("turn {t}: model request, attempt {attempt}: {reason}"),
        EventKind::TurnStarted {} | EventKind::ModelRequest { .. } => return None,
    })
}
