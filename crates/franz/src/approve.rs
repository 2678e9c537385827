//! Approve mode without a panel (`franz run --approve` on a terminal): each turn's actions are
//! shown on stderr and wait for y (run them), n (reject, with a reason for the model) or
//! e (edit: type a replacement reply, read like the model's and shown again). `franz run`
//! asks on each `awaiting_approval` event and submits the answer as `Op::Approve`. The model's
//! questions (`ask_user`, the `awaiting_answer` event) are asked here too, and the answer goes
//! back as `Op::Answer`.

use crate::terminal::{errln, errs};
use franz_core::action::Action;
use franz_core::cancel::Cancel;
use franz_core::engine::Decision;
use std::io::{BufRead, Write};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

fn ask(prompt: &str) -> Option<String> {
    errs!("{prompt}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_string()),
    }
}

/// Shows the actions of turn `seq` and asks until the person decides.
pub fn decide(seq: u32, actions: &[Action]) -> Decision {
    errln!("turn {seq}: the model wants to");
    for (i, a) in actions.iter().enumerate() {
        errln!(
            "  {}. {}",
            i + 1,
            serde_json::to_string(a).unwrap_or_default()
        );
    }
    loop {
        // end of input rejects: nothing runs without a yes
        let Some(answer) = ask("run these? [y]es / [n]o / [e]dit: ") else {
            return Decision::Reject("no answer (end of input)".into());
        };
        match answer.to_lowercase().as_str() {
            "y" | "yes" => return Decision::Approve,
            "n" | "no" => {
                let reason = ask("why (told to the model)? ").unwrap_or_default();
                let reason = if reason.is_empty() {
                    "no reason given".into()
                } else {
                    reason
                };
                return Decision::Reject(reason);
            }
            "e" | "edit" => {
                let reply =
                    ask("replacement reply (the model's format, one line): ").unwrap_or_default();
                if !reply.is_empty() {
                    return Decision::Replace(reply);
                }
            }
            _ => errln!("answer y, n or e"),
        }
    }
}

/// What came of asking the model's question on the terminal.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    Answer(String),
    /// Nobody answered within the timeout (the `ask_timeout` setting).
    TimedOut,
    /// Ctrl+C, or the end of input.
    Gone,
}

/// Shows the model's question and reads one line for the answer, for at most `timeout`
/// (`None`: forever). Ctrl+C (`cancel`) ends the wait at once: the line is read on its own
/// thread, which is left to the process's exit.
pub fn answer(turn: u32, question: &str, timeout: Option<Duration>, cancel: &Cancel) -> Reply {
    errln!("turn {turn}: the model asks: {question}");
    match timeout {
        Some(t) => errs!("your answer (one line, within {} s): ", t.as_secs_f64()),
        None => errs!("your answer (one line): "),
    }
    let _ = std::io::stderr().flush();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let got = match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_string()),
        };
        let _gone = tx.send(got);
    });
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(Some(text)) => return Reply::Answer(text),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => return Reply::Gone,
            Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => return Reply::Gone,
            Err(RecvTimeoutError::Timeout) if deadline.is_some_and(|d| Instant::now() >= d) => {
                errln!("");
                return Reply::TimedOut;
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Asks on the terminal whether an action a `confirm` rule of the safety policy matched may run
/// (`franz act`, `franz replay --execute`): only `y` runs it; end of input refuses.
pub fn confirm(action: &Action, rule: &str) -> bool {
    errln!(
        "the safety policy asks first ({rule}): {}",
        serde_json::to_string(action).unwrap_or_default()
    );
    matches!(
        ask("run it? [y]es / [n]o: ")
            .map(|a| a.to_lowercase())
            .as_deref(),
        Some("y" | "yes")
    )
}
