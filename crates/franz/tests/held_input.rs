//! No held input after Ctrl+C: `franz run` (the real binary, tools strategy, scripted model)
//! is given a Qwen `long_press` of 60 s, gets SIGINT while the X server reports the button
//! down, and must exit 130 with no button and no key held on the display.
//! Synchronised on the server's held state and the process's exit, with deadlines.

#![cfg(target_os = "linux")]

use crate::common;
use franz_core::model::{Script, ScriptedReply, ScriptedServer};
use franz_desktop::held::held_state;
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Generous: the tests share a 2-core box with other test binaries.
const TIMEOUT: Duration = Duration::from_secs(120);

#[test]
fn sigint_during_a_long_press_exits_130_with_nothing_held() {
    let sb = common::xvfb(640, 400);
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("").tool_call(
        "computer_use",
        json!({"action": "long_press", "coordinate": [500, 500], "time": 60}),
    )))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let stderr_path = tmp.path().join("stderr.txt");
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    let url = server.url();
    let mut child = cmd
        .args(common::run_args(&url, &runs))
        .args([
            "--strategy",
            "tools",
            "--model",
            "scripted",
            "--motion",
            "fast",
        ])
        .args(["--max-steps", "10", "Hold the icon until its menu opens."])
        .env("DISPLAY", sb.display())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap();
    let stderr = || std::fs::read_to_string(&stderr_path).unwrap_or_default();

    // the press is held on the server: interrupt it there
    common::poll("the long press to hold the left button", TIMEOUT, || {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("franz exited early ({status}):\n{}", stderr());
        }
        let h = held_state(sb.display()).unwrap();
        (h.buttons == [1]).then_some(())
    });
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = common::poll("franz to exit after SIGINT", TIMEOUT, || {
        child.try_wait().unwrap()
    });
    let text = stderr();
    assert_eq!(status.code(), Some(130), "{text}");
    let held = held_state(sb.display()).unwrap();
    assert!(held.is_empty(), "still held after Ctrl+C: {held:?}\n{text}");

    // the log says what happened: one long_press, cut short by the interrupt
    let events = common::run_events(&runs);
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "action_result")
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["action"]["type"], "long_press", "{results:?}");
    let message = results[0]["result"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("interrupted"), "{results:?}");
    let last = events.last().unwrap();
    assert_eq!(last["event"], "run_finished", "{last}");
    assert_eq!(last["outcome"], "interrupted", "{last}");
}
