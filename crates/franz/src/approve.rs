//! Approve mode without a panel (`franz run --approve` on a terminal): each turn's actions are
//! shown on stderr and wait for y (run them), n (reject, with a reason for the model) or
//! e (edit: type a replacement reply, read like the model's and shown again).

use franz_core::action::Action;
use franz_core::engine::{Controller, Decision};
use std::io::{BufRead, Write};
use std::time::Duration;

pub struct TtyApprover;

fn ask(prompt: &str) -> Option<String> {
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_string()),
    }
}

impl Controller for TtyApprover {
    fn approving(&self) -> bool {
        true
    }

    fn decision(&self, seq: u32, actions: &[Action], timeout: Duration) -> Option<Decision> {
        if timeout.is_zero() {
            // the engine's registering call, before it announces the wait
            return None;
        }
        eprintln!("turn {seq}: the model wants to");
        for (i, a) in actions.iter().enumerate() {
            eprintln!(
                "  {}. {}",
                i + 1,
                serde_json::to_string(a).unwrap_or_default()
            );
        }
        loop {
            // end of input rejects: nothing runs without a yes
            let Some(answer) = ask("run these? [y]es / [n]o / [e]dit: ") else {
                return Some(Decision::Reject("no answer (end of input)".into()));
            };
            match answer.to_lowercase().as_str() {
                "y" | "yes" => return Some(Decision::Approve),
                "n" | "no" => {
                    let reason = ask("why (told to the model)? ").unwrap_or_default();
                    let reason = if reason.is_empty() {
                        "no reason given".into()
                    } else {
                        reason
                    };
                    return Some(Decision::Reject(reason));
                }
                "e" | "edit" => {
                    let reply = ask("replacement reply (the model's format, one line): ")
                        .unwrap_or_default();
                    if !reply.is_empty() {
                        return Some(Decision::Replace(reply));
                    }
                }
                _ => eprintln!("answer y, n or e"),
            }
        }
    }
}
