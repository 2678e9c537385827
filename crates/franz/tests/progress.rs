//! Progress for long work (docs/architecture.md, the terminal): `franz run` says turn n of
//! `--max-steps` and the time elapsed, `franz bench tasks` task n of N, the successes so far
//! and the time left. In a pipe these are plain lines with no escape code; on a terminal (a
//! pseudo-terminal from util-linux `script`) a bar is drawn.

#![cfg(target_os = "linux")]

use crate::common;
use crate::common::terminal::Terminal;

use franz_core::model::{Script, ScriptedReply, ScriptedServer};
use std::path::Path;
use std::process::{Command, Stdio};

/// Qwen3-VL's replies (the profile of the model id the runs use): two clicks, then done.
fn three_turns() -> ScriptedServer {
    let call = |args: serde_json::Value| {
        let call = serde_json::json!({"name": "computer_use", "arguments": args});
        ScriptedReply::text(format!("I look.\n<tool_call>\n{call}\n</tool_call>"))
    };
    let click = serde_json::json!({"action": "left_click", "coordinate": [500, 500]});
    ScriptedServer::start(Script::list([
        call(click.clone()),
        call(click),
        call(serde_json::json!({"action": "terminate", "status": "success"})),
    ]))
    .unwrap()
}

fn run_args<'a>(url: &'a str, runs: &'a Path) -> Vec<&'a str> {
    [
        &["--sandbox=320x200"][..],
        &common::run_args(url, runs),
        &["--strategy", "narrative", "--model", "qwen3-vl-8b-instruct"],
        &["--motion", "fast", "--max-steps", "200", "Click twice."],
    ]
    .concat()
}

#[test]
fn in_a_pipe_a_long_run_prints_turn_n_of_max_as_plain_lines() {
    let server = three_turns();
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(run_args(&server.url(), &tmp.path().join("runs")))
        .env_remove("FRANZ_LOG")
        .env_remove("DISPLAY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let progress: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(" of 200, ") && l.ends_with(" elapsed"))
        .collect();
    assert_eq!(progress.len(), 3, "one line per turn: {err}");
    for (i, line) in progress.iter().enumerate() {
        assert!(
            line.starts_with(&format!("turn {} of 200, ", i + 1)),
            "{line}"
        );
    }
    assert!(err.contains("done after 3 turn(s)"), "{err}");
    assert!(!err.contains('\x1b') && !err.contains('\r'), "{err:?}");
}

#[test]
fn on_a_terminal_a_run_draws_a_bar_of_turns() {
    let server = three_turns();
    let tmp = tempfile::tempdir().unwrap();
    let (url, runs) = (server.url(), tmp.path().join("runs"));
    let line = common::shell_line(&run_args(&url, &runs));
    let mut terminal = Terminal::start(&format!("env -u FRANZ_LOG -u DISPLAY {line}"));
    terminal.close_input();
    let (code, shown) = terminal.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("done after 3 turn(s)"), "{shown:?}");
    // the bar: drawn in place (a carriage return, no new line), its bar before the turn
    let drawn = shown
        .split(['\r', '\n'])
        .filter(|l| l.contains(" turn 1 of 200, ") && l.contains(" elapsed"))
        .count();
    assert!(drawn >= 1, "no bar drawn: {shown:?}");
    assert!(
        !shown.lines().any(|l| l.starts_with("turn 1 of 200, ")),
        "the pipe's plain line on a terminal: {shown:?}"
    );
}

#[test]
fn on_a_terminal_bench_tasks_draws_a_bar_with_the_tally() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench-wrong");
    let line = common::shell_line(&[
        "bench",
        "tasks",
        "--model",
        "scripted",
        "--tasks-dir",
        tasks.to_str().unwrap(),
        "--out",
        tmp.path().join("bench").to_str().unwrap(),
    ]);
    // NO_COLOR keeps the bar (it is no colour) and drops its colours
    let mut terminal = Terminal::start(&format!("env -u FRANZ_LOG NO_COLOR=1 {line}"));
    terminal.close_input();
    let (code, shown) = terminal.finish();
    assert_ne!(code, Some(0), "the task fails its checker: {shown}");
    // the bar before any result, then the task's line above it with the tally
    assert!(
        shown.contains("task 0 of 1, ") && shown.contains("no result yet"),
        "no bar drawn: {shown:?}"
    );
    assert!(
        shown.contains("task 1 of 1: xmessage-wrong scripted ")
            && shown.contains("FAIL (")
            && shown.contains("0 of 1 passed so far, nothing left"),
        "{shown:?}"
    );
    // colour is SGR (`ESC [ ... m`): none with NO_COLOR
    let sgr = shown.match_indices("\x1b[").any(|(i, _)| {
        shown[i + 2..]
            .chars()
            .find(|c| !c.is_ascii_digit() && *c != ';')
            == Some('m')
    });
    assert!(!sgr, "colours despite NO_COLOR: {shown:?}");
}
