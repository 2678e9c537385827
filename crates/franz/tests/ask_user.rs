//! `ask_user` asks the user: with the panel open the question shows in `/state` and the answer
//! (`POST /answer`) goes to the model as the action's result; with nobody there the run ends
//! with exit 1 and the question in the reason. Synchronised on `/state` and the exit.

#[path = "common/panel.rs"]
mod panel;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use panel::PanelRun;
use serde_json::json;
use std::process::{Command, Stdio};

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
    let out = Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(["--sandbox=640x400", "run", "open the right file"])
        .args(["--api-url", &server.url(), "--dialect", "uitars"])
        .args(["--motion", "fast", "--step-delay", "0"])
        .args(["--runs-dir", runs.path().to_str().unwrap()])
        .env_remove("FRANZ_LOG")
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
