//! Log lines carry colour codes only on a terminal, and never with `NO_COLOR` set: piped
//! stderr (a program or a file reading it) gets plain text. The warning comes from reading a
//! run directory with a bad line, which logs through tracing; util-linux `script` gives franz
//! a real pseudo-terminal.

use crate::common;
use crate::common::terminal::Terminal;
use std::process::{Command, Output, Stdio};

const ESC: &str = "\x1b[";

/// A run directory whose second `turns.jsonl` line is not a record: reading it logs a WARN.
fn run_with_a_bad_line() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("turns.jsonl"),
        "{\"stage\":\"raw\",\"turn\":1,\"raw_png\":\"turn_0001_raw.png\"}\nnot a record\n",
    )
    .unwrap();
    dir
}

fn replay(dir: &std::path::Path, no_color: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_franz"));
    cmd.arg("replay").arg(dir).env_remove("FRANZ_LOG");
    match no_color {
        Some(v) => cmd.env("NO_COLOR", v),
        None => cmd.env_remove("NO_COLOR"),
    };
    cmd.stdin(Stdio::null()).output().unwrap()
}

/// The same under a pseudo-terminal: stdout and stderr both reach the terminal.
fn replay_on_a_terminal(dir: &std::path::Path, no_color: Option<&str>) -> String {
    let colour = match no_color {
        Some(v) => format!("NO_COLOR={v}"),
        None => "-u NO_COLOR".into(),
    };
    let line = common::shell_line(&["replay", dir.to_str().unwrap()]);
    let mut terminal = Terminal::start(&format!("env -u FRANZ_LOG {colour} {line}"));
    terminal.close_input();
    let (code, shown) = terminal.finish();
    assert_eq!(code, Some(0), "{shown}");
    shown
}

#[test]
fn piped_log_lines_are_plain_text() {
    let dir = run_with_a_bad_line();
    let out = replay(dir.path(), None);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("WARN") && err.contains("line 2"), "{err}");
    assert!(!err.contains(ESC), "colour codes in a pipe: {err:?}");
}

#[test]
fn a_terminal_gets_colour_unless_no_color_is_set() {
    let dir = run_with_a_bad_line();
    let coloured = replay_on_a_terminal(dir.path(), None);
    assert!(coloured.contains("WARN"), "{coloured:?}");
    assert!(
        coloured.contains(ESC),
        "no colour on a terminal: {coloured:?}"
    );
    let plain = replay_on_a_terminal(dir.path(), Some("1"));
    assert!(plain.contains("WARN"), "{plain:?}");
    assert!(!plain.contains(ESC), "colour despite NO_COLOR: {plain:?}");
}
