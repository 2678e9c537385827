//! The terminal subscriber: one line per turn and per action on a terminal, plain lines
//! otherwise (the same lines, so logs and terminals read alike). On a terminal, a streamed
//! reply shows as it comes on one line that updates in place (`model_delta`), cleared before
//! the next line; elsewhere deltas print nothing. What the model, the server or the task said
//! is shown cleaned (`terminal::clean`): franz's own codes are the only ones that reach the
//! terminal. A model's reply line carries the call's tokens (`franz_core::turn_tokens`): the
//! image's and the request's as franz estimated them, and the server's count where it reported
//! one.
//!
//! The run's progress (crate::progress): on a terminal a bar at the bottom, turn n of the step
//! limit and the time elapsed, with the lines printed above it and a streamed reply shown in
//! it; elsewhere a plain line as each turn starts (`turn 3 of 200, 1m05s elapsed`).

use franz_core::action::ActionResult;
use franz_core::event::{Event, EventKind};
use indicatif::{ProgressBar, ProgressDrawTarget};
use std::io::Write;
use std::time::Instant;

/// Prints events to stderr, leaving stdout for the command's result, with the run's progress
/// against `max_steps` (0: no limit).
pub fn subscriber(max_steps: u64) -> franz_core::engine::Subscriber {
    let terminal = crate::progress::stderr_redraws();
    printing(Live::new(terminal).with_progress(max_steps))
}

/// Prints each event with `live` to stderr, never holding stderr's lock across a call: the
/// bar's ticker thread (indicatif) holds the bar's lock while it writes to stderr, so a printer
/// that held stderr's lock while it waited for the bar's would freeze the run. Each write takes
/// the lock on its own (`writeln!` on `Stderr` writes its line under one lock).
fn printing(mut live: Live) -> franz_core::engine::Subscriber {
    Box::new(move |e: &Event| {
        let _ = live.print(e, &mut std::io::stderr());
    })
}

/// The one updating line of a streamed reply, and the run's progress.
pub struct Live {
    terminal: bool,
    /// The reply streamed so far in this model call; `None` while nothing streams.
    text: Option<String>,
    /// Pairs each reply with its request, for the reply line's token figures.
    tokens: franz_core::turn_tokens::Tally,
    progress: Option<RunProgress>,
}

/// Where the run is: the step limit, when it started, and the bar on a terminal.
struct RunProgress {
    max_steps: u64,
    start: Instant,
    bar: Option<ProgressBar>,
    /// The bar is hidden while a person is asked.
    held: bool,
}

impl Live {
    pub fn new(terminal: bool) -> Self {
        Self {
            terminal,
            text: None,
            tokens: Default::default(),
            progress: None,
        }
    }

    /// Shows the run's progress against `max_steps` (0: no limit): a bar on a terminal,
    /// a line per turn elsewhere.
    pub fn with_progress(mut self, max_steps: u64) -> Self {
        let bar = self.terminal.then(|| {
            let template = if max_steps > 0 {
                "{bar} turn {pos} of {len}, {elapsed} elapsed  {wide_msg}"
            } else {
                "turn {pos}, {elapsed} elapsed  {wide_msg}"
            };
            crate::progress::bar(max_steps, template, "")
        });
        self.progress = Some(RunProgress {
            max_steps,
            start: Instant::now(),
            bar,
            held: false,
        });
        self
    }

    fn bar(&self) -> Option<&ProgressBar> {
        self.progress.as_ref().and_then(|p| p.bar.as_ref())
    }

    /// Writes what `e` shows: a line, or (on a terminal) the updated stream line or bar.
    pub fn print(&mut self, e: &Event, out: &mut impl Write) -> std::io::Result<()> {
        if let EventKind::ModelDelta { text } = &e.kind {
            return self.stream(e.turn, text, out);
        }
        if self.text.take().is_some() {
            match self.bar() {
                Some(bar) => bar.set_message(""),
                None => write!(out, "\r\x1b[K")?,
            }
        }
        let call = self.tokens.push(e);
        let ask = matches!(
            e.kind,
            EventKind::AwaitingApproval { .. } | EventKind::AwaitingAnswer { .. }
        );
        self.hold_bar(ask, out)?;
        if let EventKind::TurnStarted {} = e.kind {
            return self.turn_started(e.turn, out);
        }
        if let (EventKind::RunFinished { .. }, Some(bar)) = (&e.kind, self.bar()) {
            bar.finish_and_clear();
        }
        let Some(line) = line(e, call.as_ref()) else {
            return Ok(());
        };
        let line = crate::terminal::clean(&line);
        match self.bar() {
            Some(bar) => bar.suspend(|| writeln!(out, "{line}")),
            None => writeln!(out, "{line}"),
        }
    }

    /// A piece of a streamed reply: on a terminal, the reply's last 100 characters on the one
    /// updating line (the bar's message where there is a bar); elsewhere nothing.
    fn stream(&mut self, turn: u32, text: &str, out: &mut impl Write) -> std::io::Result<()> {
        if !self.terminal {
            return Ok(());
        }
        let so_far = self.text.get_or_insert_with(String::new);
        so_far.push_str(text);
        let one_line = one_line(so_far);
        let n = one_line.chars().count();
        let tail: String = one_line.chars().skip(n.saturating_sub(100)).collect();
        let tail = crate::terminal::clean(&tail);
        if let Some(bar) = self.bar() {
            bar.set_message(format!("model: {tail}"));
            return Ok(());
        }
        write!(out, "\r\x1b[Kturn {turn}: model: {tail}")?;
        out.flush()
    }

    /// While the terminal asks a person (approval, the model's question), the bar is hidden,
    /// so that its redraw never erases the prompt; it is back with the next event.
    fn hold_bar(&mut self, hold: bool, out: &mut impl Write) -> std::io::Result<()> {
        let Some(p) = self.progress.as_mut() else {
            return Ok(());
        };
        let Some(bar) = &p.bar else {
            return Ok(());
        };
        let was = std::mem::replace(&mut p.held, hold);
        if hold && !was {
            // hidden, it is not drawn again; its one line is cleared here
            bar.set_draw_target(ProgressDrawTarget::hidden());
            write!(out, "\r\x1b[2K")?;
        } else if !hold && was {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        Ok(())
    }

    /// Turn `turn` began: the bar moves to it, or a plain line says where the run is.
    fn turn_started(&mut self, turn: u32, out: &mut impl Write) -> std::io::Result<()> {
        let Some(p) = &self.progress else {
            return Ok(());
        };
        if let Some(bar) = &p.bar {
            bar.set_position(u64::from(turn));
            return Ok(());
        }
        let of = if p.max_steps > 0 {
            format!(" of {}", p.max_steps)
        } else {
            String::new()
        };
        let elapsed = crate::progress::clock(p.start.elapsed());
        writeln!(out, "turn {turn}{of}, {elapsed} elapsed")
    }
}

impl Drop for Live {
    /// A run that ends without `run_finished` (an error) leaves no bar behind its message.
    fn drop(&mut self) {
        if let Some(bar) = self.bar() {
            bar.finish_and_clear();
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

/// The line of `e`; a reply's carries `call`'s tokens.
fn line(e: &Event, call: Option<&franz_core::turn_tokens::CallTokens>) -> Option<String> {
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
            "turn {t}: model answered in {:.1} s with {} action(s) ({}){}",
            ms / 1000.0,
            actions.len(),
            call.map(|c| c.line()).unwrap_or_default(),
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
        } => action_line(t, *index, action, result),
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
        _ => return state_line(t, &e.kind),
    })
}

/// The line of an action's result.
fn action_line(t: u32, index: usize, action: &franz_core::Action, result: &ActionResult) -> String {
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

/// A coordinate as a model wrote it: whole numbers without a fraction.
fn num(v: f64) -> String {
    franz_core::exact_target::Num(v).to_string()
}

/// The line of a note, a problem, a pause, a loop, a wait or a fitted context; `None` for the
/// events the printer leaves to the live line.
fn state_line(t: u32, kind: &EventKind) -> Option<String> {
    Some(match kind {
        EventKind::Note { text } => format!("turn {t}: note: {text}"),
        EventKind::Error { message, fatal } => {
            format!(
                "turn {t}: {}{message}",
                if *fatal { "fatal: " } else { "problem: " }
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
        EventKind::Refined { .. } => format!("turn {t}: {}", kind.refined_line()?),
        EventKind::Grounded {
            target,
            model,
            point,
            screen,
            ms,
            prompt_tokens,
            completion_tokens,
            ..
        } => format!(
            "turn {t}: grounded {:?} with {model}: ({}, {}) in its space, screen ({}, {}), {ms:.0} ms, tokens {}+{}",
            short(target, 120),
            num(point[0]),
            num(point[1]),
            screen[0],
            screen[1],
            prompt_tokens.map_or("?".into(), |n| n.to_string()),
            completion_tokens.map_or("?".into(), |n| n.to_string()),
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
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the thread named `name` in this process sleeps (blocked on a lock), read from
    /// /proc; `None` where there is no /proc to read (the wait below then cannot tell, and the
    /// check is weaker there).
    fn sleeping(name: &str) -> Option<bool> {
        let tasks = std::fs::read_dir("/proc/self/task").ok()?;
        Some(tasks.flatten().any(|t| {
            let read = |f: &str| std::fs::read_to_string(t.path().join(f)).unwrap_or_default();
            read("comm").trim() == name
                && read("stat")
                    .rsplit(") ")
                    .next()
                    .unwrap_or("")
                    .starts_with('S')
        }))
    }

    /// The deadlock a run on a terminal met: the printer held stderr's lock while it waited
    /// for the bar's, which indicatif's ticker held while it waited for stderr's. Here the
    /// ticker is played by a thread holding the bar's lock; once the printer is blocked on it,
    /// stderr's lock must still be free.
    #[test]
    fn the_printer_never_holds_stderr_while_it_waits_for_the_bar() {
        use std::sync::mpsc;
        use std::time::Duration;
        let bar = ProgressBar::hidden();
        let mut live = Live::new(true);
        live.progress = Some(RunProgress {
            max_steps: 3,
            start: Instant::now(),
            bar: Some(bar.clone()),
            held: false,
        });
        let mut print = printing(live);
        let (stderr_free_tx, stderr_free) = mpsc::channel();
        let ticker = std::thread::spawn(move || {
            bar.suspend(|| {
                let printer = std::thread::Builder::new()
                    .name("franz-printer".into())
                    .spawn(move || print(&Event::now(1, EventKind::Note { text: "n".into() })))
                    .unwrap();
                let deadline = Instant::now() + Duration::from_secs(60);
                while sleeping("franz-printer") == Some(false) && Instant::now() < deadline {
                    std::thread::yield_now();
                }
                std::thread::spawn(move || {
                    let _held = std::io::stderr().lock();
                    let _ = stderr_free_tx.send(());
                });
                let free = stderr_free.recv_timeout(Duration::from_secs(10)).is_ok();
                (printer, free)
            })
        });
        let (printer, free) = ticker.join().unwrap();
        printer.join().unwrap();
        assert!(
            free,
            "the printer held stderr's lock while it waited for the bar's"
        );
    }

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
    fn a_reply_line_carries_its_requests_tokens_and_the_servers_count() {
        let mut live = Live::new(false);
        let mut out = Vec::new();
        let request = EventKind::ModelRequest {
            model: "qwen3-vl-8b-instruct".into(),
            attempt: 1,
            messages: 2,
            images: 1,
            bytes: 9000,
            reason: None,
            image: None,
            image_tokens: 1196,
            estimated_tokens: 1530,
            context_tokens: None,
        };
        let reply = EventKind::ModelReply {
            ms: 1200.0,
            text: "click".into(),
            story: Some("I click OK.".into()),
            actions: vec![],
            bboxes: vec![],
            prompt_tokens: Some(1604),
            completion_tokens: Some(31),
        };
        for kind in [request, reply] {
            live.print(&Event::now(3, kind), &mut out).unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "turn 3: model answered in 1.2 s with 0 action(s) (image 1,196 tokens, request ~1,530 \
             (franz's estimate), server: 1,604 prompt + 31 completion): I click OK.\n"
        );
    }

    #[test]
    fn off_a_terminal_each_turn_says_where_the_run_is() {
        let mut live = Live::new(false).with_progress(200);
        let mut out = Vec::new();
        for turn in [1, 2] {
            live.print(&Event::now(turn, EventKind::TurnStarted {}), &mut out)
                .unwrap();
        }
        let mut unlimited = Live::new(false).with_progress(0);
        unlimited
            .print(&Event::now(7, EventKind::TurnStarted {}), &mut out)
            .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "turn 1 of 200, 0s elapsed\nturn 2 of 200, 0s elapsed\nturn 7, 0s elapsed\n"
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
