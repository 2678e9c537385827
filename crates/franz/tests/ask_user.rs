//! `ask_user` asks the user: with the panel open the question shows in `/state` and the answer
//! (`POST /answer`) goes to the model as the action's result; with nobody there the run ends
//! with exit 1 and the question in the reason. Synchronised on `/state` and the exit.

use crate::common::terminal::Terminal;
use crate::common::{self, panel};

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use panel::PanelRun;
use serde_json::json;
use std::process::Stdio;

const ASK: &str = "Thought: Which of the two files should I open?\nAction: call_user()";
const FINISH: &str = "Thought: I opened it.\nAction: finished(content='opened the blue one')";

#[test]
fn with_the_panel_open_the_answer_goes_to_the_model_and_the_run_goes_on() {
    let script = Script::list([ScriptedReply::text(ASK), ScriptedReply::text(FINISH)]);
    let mut run = PanelRun::start(script, &["--panel", "--dialect", "uitars"]);
    let s = run.wait_state("a question", |s| s["awaiting"] == "answer");
    assert_eq!(s["question"], "Which of the two files should I open?");
    assert_eq!(s["pending_seq"], 1);
    let (status, body) = run.post("/answer", json!({"text": "the blue one"}));
    assert_eq!(status, 200, "{body}");
    let code = run.wait_exit().code();
    assert_eq!(code, Some(0), "stderr: {}", run.stderr_text());
    let requests: Vec<String> = run
        .server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body)
        .collect();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].contains("the blue one"), "{}", requests[1]);
}

#[test]
fn with_nobody_there_the_run_ends_with_exit_1_and_the_question() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(ASK))).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = common::franz_run(&server.url(), runs.path())
        .args([
            "--sandbox=640x400",
            "open the right file",
            "--dialect",
            "uitars",
        ])
        .args(["--motion", "fast"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Which of the two files should I open?"),
        "{stderr}"
    );
    assert_eq!(server.request_count(), 1);
}

/// `franz run` on a pseudo-terminal whose scripted model asks a question, and the run
/// directory.
fn ask_on_a_terminal(server: &ScriptedServer, extra: &str) -> (Terminal, tempfile::TempDir) {
    let runs = tempfile::tempdir().unwrap();
    let franz = format!(
        "{} --sandbox=320x240 run x --api-url {} --runs-dir {} --dialect uitars --motion fast --step-delay 0 {extra}",
        env!("CARGO_BIN_EXE_franz"),
        server.url(),
        runs.path().display()
    );
    (Terminal::start(&franz), runs)
}

#[test]
fn on_a_terminal_an_unanswered_question_ends_the_run_after_ask_timeout() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(ASK))).unwrap();
    let (terminal, runs) = ask_on_a_terminal(&server, "--ask-timeout 1");
    // the terminal's input stays open and silent: only the timeout can end the wait
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("your answer (one line, within 1 s)"),
        "{text}"
    );
    let events = std::fs::read_to_string(runs.path().join("run_0001/events.jsonl")).unwrap();
    let finished = events.lines().last().unwrap();
    assert!(
        finished.contains("\"event\":\"run_finished\""),
        "{finished}"
    );
    assert!(
        finished.contains("Which of the two files should I open?"),
        "{finished}"
    );
    assert!(finished.contains("\"outcome\":\"failed\""), "{finished}");
    assert_eq!(server.request_count(), 1);
}

#[test]
fn on_a_terminal_ctrl_c_during_the_question_ends_the_run_with_130() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(ASK))).unwrap();
    let (mut terminal, runs) = ask_on_a_terminal(&server, "--ask-timeout 0");
    terminal.expect("your answer (one line): ");
    terminal.send("\x03");
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(130), "{text}");
    let events = std::fs::read_to_string(runs.path().join("run_0001/events.jsonl")).unwrap();
    let finished = events.lines().last().unwrap();
    assert!(
        finished.contains("\"outcome\":\"interrupted\""),
        "{finished}"
    );
}
