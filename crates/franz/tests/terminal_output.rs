//! What franz prints is safe to print: a model's reply carrying terminal escape sequences
//! (an OSC 52 clipboard write, an OSC 0 title change, C1 controls) reaches neither a pipe nor
//! a terminal as such, through `franz run` and `franz replay`; and a reader that goes away
//! (`franz config | head -1`) ends a command quietly with success, never a panic.

#![cfg(target_os = "linux")]

use crate::common;
use crate::common::terminal::Terminal;

use franz_core::model::{Script, ScriptedReply, ScriptedServer};
use std::path::Path;
use std::process::Stdio;

/// The escapes a hostile reply carries: clipboard write, title change, a C1 OSC, bell.
const OSC52: &str = "\x1b]52;c;cm0gLXJmIH4vKg==\x07";
const OSC0: &str = "\x1b]0;owned title\x1b\\";
const C1: &str = "\u{9d}0;c1 title\u{9c}";

/// Qwen3-VL's replies (the profile of the model id below): prose, then a tool call; the
/// escapes in the prose and in the answer.
fn hostile_server() -> ScriptedServer {
    let call = |args: serde_json::Value| {
        let call = serde_json::json!({"name": "computer_use", "arguments": args});
        format!("<tool_call>\n{call}\n</tool_call>")
    };
    ScriptedServer::start(Script::list([
        ScriptedReply::text(format!(
            "I see {OSC52} a window {OSC0} here {C1}.\n{}",
            call(serde_json::json!({"action": "left_click", "coordinate": [500, 500]}))
        )),
        ScriptedReply::text(format!(
            "Finished {OSC0}.\n{}",
            call(serde_json::json!({
                "action": "terminate",
                "status": "success",
                "text": format!("finished {OSC52} {C1} {OSC0}")
            }))
        )),
    ]))
    .unwrap()
}

fn run_args<'a>(url: &'a str, runs: &'a Path) -> Vec<&'a str> {
    [
        &["--sandbox=640x400"][..],
        &common::run_args(url, runs),
        &["--strategy", "narrative", "--model", "qwen3-vl-8b-instruct"],
        &["--motion", "fast", "--max-steps", "4", "Look around."],
    ]
    .concat()
}

/// Every byte that would act on a terminal: ESC, BEL and the C1 controls (as UTF-8).
fn acting_bytes(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    text.char_indices()
        .filter(|(_, c)| matches!(c, '\x1b' | '\x07' | '\u{80}'..='\u{9f}'))
        .map(|(i, c)| format!("{c:?} at {i}: {:?}", &text[i.saturating_sub(20)..i]))
        .collect()
}

#[test]
fn escape_sequences_in_a_reply_never_reach_a_pipe() {
    let server = hostile_server();
    let tmp = tempfile::tempdir().unwrap();
    let (url, runs) = (server.url(), tmp.path().join("runs"));
    let out = common::franz_command()
        .args(run_args(&url, &runs))
        .env_remove("DISPLAY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // the reply was shown, escaped
    assert!(err.contains("\\x1b]52;c;"), "the story is shown: {err}");
    for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let found = acting_bytes(bytes);
        assert!(found.is_empty(), "franz run's {name}: {found:?}");
    }
    // replay prints the stories again, from the run directory
    let dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let replay = common::franz_command()
        .arg("replay")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(replay.status.success());
    assert!(String::from_utf8_lossy(&replay.stdout).contains("I see"));
    for (name, bytes) in [("stdout", &replay.stdout), ("stderr", &replay.stderr)] {
        let found = acting_bytes(bytes);
        assert!(found.is_empty(), "franz replay's {name}: {found:?}");
    }
}

#[test]
fn on_a_terminal_only_franz_own_colours_arrive() {
    let server = hostile_server();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let line = common::shell_line(&run_args(&url, &runs));
    let mut terminal = Terminal::start(&format!("env -u FRANZ_LOG -u DISPLAY {line}"));
    terminal.close_input();
    let (code, shown) = terminal.finish();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("done after"), "{shown}");
    // colour codes (CSI ... m) and the updating line are franz's; no OSC, no bell, no C1
    for bad in ["\x1b]", "\x07", "\u{9d}", "\u{9c}", "\x1bP", "\x1b_"] {
        assert!(
            !shown.contains(bad),
            "{bad:?} reached the terminal: {shown:?}"
        );
    }
}

/// Runs franz with stdout a pipe whose reader is already gone: its first write fails.
fn with_no_reader(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = common::franz_command()
        .args(args)
        .env_remove("DISPLAY")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_reader_that_goes_away_ends_every_printing_command_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let (overlay, mut history) = common::overlay();
    let mut w = franz_core::runlog::RunWriter::create(tmp.path(), Default::default()).unwrap();
    for turn in 1..=3 {
        common::write_turn(&mut w, &overlay, &mut history, turn);
    }
    let dir = w.dir().display().to_string();
    w.close().unwrap();
    let scenarios = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let commands: [&[&str]; 5] = [
        &["config"],
        &["config", "--markdown"],
        &["replay", &dir],
        &["scenarios", scenarios],
        &["--help"],
    ];
    for args in commands {
        let out = with_no_reader(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "franz {args:?}: {err}");
        assert!(!err.contains("panicked"), "franz {args:?}: {err}");
    }
}
