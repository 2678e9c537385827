//! The terminal subscriber: one line per turn and per action on a terminal, plain lines
//! otherwise (the same lines, so logs and terminals read alike). On a terminal, a streamed
//! reply shows as it comes on one line that updates in place (`model_delta`), cleared before
//! the next line; elsewhere deltas print nothing. What the model, the server or the task said
//! is shown cleaned (`terminal::clean`): franz's own codes are the only ones that reach the
//! terminal.

use franz_core::action::ActionResult;
use franz_core::event::{Event, EventKind};
use std::io::Write;

/// Prints events to stderr, leaving stdout for the command's result.
pub fn subscriber() -> franz_core::engine::Subscriber {
    use std::io::IsTerminal;
    let mut live = Live::new(std::io::stderr().is_terminal());
    Box::new(move |e: &Event| {
        let mut err = std::io::stderr().lock();
        let _ = live.print(e, &mut err);
    })
}

/// The one updating line of a streamed reply.
pub struct Live {
    terminal: bool,
    /// The reply streamed so far in this model call; `None` while nothing streams.
    text: Option<String>,
}

impl Live {
    pub fn new(terminal: bool) -> Self {
        Self {
            terminal,
            text: None,
        }
    }

    /// Writes what `e` shows: a line, or (on a terminal) the updated stream line.
    pub fn print(&mut self, e: &Event, out: &mut impl Write) -> std::io::Result<()> {
        if let EventKind::ModelDelta { text } = &e.kind {
            if !self.terminal {
                return Ok(());
            }
            let so_far = self.text.get_or_insert_with(String::new);
            so_far.push_str(text);
            let one_line = one_line(so_far);
            let n = one_line.chars().count();
            let tail: String = one_line.chars().skip(n.saturating_sub(100)).collect();
            let tail = crate::terminal::clean(&tail);
            write!(out, "\r\x1b[Kturn {}: model: {tail}", e.turn)?;
            return out.flush();
        }
        if self.text.take().is_some() {
            write!(out, "\r\x1b[K")?;
        }
        match line(e) {
            Some(line) => writeln!(out, "{}", crate::terminal::clean(&line)),
            None => Ok(()),
        }
    }
}

/// `s` on one line: its whitespace runs as single spaces.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn short(s: &str, n: usize) -> String {
    let one_line = one_line(s);
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
            ..
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
        EventKind::LoopDetected {
            action,
            turns,
            stop,
            ..
        } => format!(
            "turn {t}: loop{}: {action} on turns {turns:?} changed nothing around its target",
            if *stop { " (stopping)" } else { "" }
        ),
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
        EventKind::ContextFitted {
            step,
            tokens_before,
            tokens_after,
            budget,
            images,
            width,
            height,
        } => format!(
            "turn {t}: context: {step}: about {tokens_before} -> {tokens_after} tokens (budget {budget}), {images} image(s), the newest {width}x{height}"
        ),
        EventKind::TurnStarted {}
        | EventKind::ModelRequest { .. }
        | EventKind::ModelDelta { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(text: &str) -> Event {
        Event::now(2, EventKind::ModelDelta { text: text.into() })
    }

    #[test]
    fn on_a_terminal_a_stream_updates_one_line_that_is_cleared_before_the_next() {
        let mut live = Live::new(true);
        let mut out = Vec::new();
        for e in [delta("I see "), delta("a button")] {
            live.print(&e, &mut out).unwrap();
        }
        let note = Event::now(2, EventKind::Note { text: "n".into() });
        live.print(&note, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "\r\x1b[Kturn 2: model: I see\r\x1b[Kturn 2: model: I see a button\r\x1b[Kturn 2: note: n\n"
        );
    }

    #[test]
    fn off_a_terminal_deltas_print_nothing() {
        let mut live = Live::new(false);
        let mut out = Vec::new();
        live.print(&delta("I see"), &mut out).unwrap();
        assert!(out.is_empty());
    }
}
