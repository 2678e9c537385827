//! `ask_user` asks the user: with the panel open the question shows in `/state` and the answer
//! (`POST /answer`) goes to the model as the action's result; with nobody there the run ends
//! with exit 1 and the question in the reason. Synchronised on `/state` and the exit.

use crate::common::{self, panel};

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use panel::PanelRun;
use serde_json::json;
use std::io::Write;
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

/// How long a wait on the terminal may take before it counts as a hang: far above a run of one
/// turn, so that a slow machine is not mistaken for a wait that never ends.
const HANG: std::time::Duration = std::time::Duration::from_secs(300);

/// `franz run` on a pseudo-terminal ([`common::on_a_terminal`]) whose scripted model asks a
/// question; returns the child with its terminal input open, and the run directory.
fn ask_on_a_terminal(
    server: &ScriptedServer,
    extra: &str,
) -> (std::process::Child, tempfile::TempDir) {
    let runs = tempfile::tempdir().unwrap();
    let franz = format!(
        "{} --sandbox=320x240 run x --api-url {} --runs-dir {} --dialect uitars --motion fast --step-delay 0 {extra}",
        env!("CARGO_BIN_EXE_franz"),
        server.url(),
        runs.path().display()
    );
    (common::on_a_terminal(&franz), runs)
}

/// The child's terminal output, read on a thread of its own.
fn output(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<Vec<u8>> {
    use std::io::Read;
    let mut out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = out.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    rx
}

/// Collects the output until it contains `what`, it ends (`None` for `what`: until it ends),
/// or [`HANG`] passes; then the child is killed, so a wait that never ends fails the test
/// instead of hanging it.
fn read_until(
    rx: &std::sync::mpsc::Receiver<Vec<u8>>,
    child: &mut std::process::Child,
    what: Option<&str>,
) -> String {
    let deadline = std::time::Instant::now() + HANG;
    let mut seen = Vec::new();
    loop {
        let text = String::from_utf8_lossy(&seen).into_owned();
        if what.is_some_and(|w| text.contains(w)) {
            return text;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(bytes) => seen.extend_from_slice(&bytes),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return text,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let waited = what.map_or("the end of the output".into(), |w| format!("{w:?}"));
                panic!("no {waited} within {HANG:?} (franz killed): {text}");
            }
        }
    }
}

#[test]
fn on_a_terminal_an_unanswered_question_ends_the_run_after_ask_timeout() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(ASK))).unwrap();
    let (mut child, runs) = ask_on_a_terminal(&server, "--ask-timeout 1");
    // the terminal stays open and silent: only the timeout can end the wait
    let _input = child.stdin.take().unwrap();
    let out = output(&mut child);
    let text = read_until(&out, &mut child, None);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{text}");
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
    let (mut child, runs) = ask_on_a_terminal(&server, "--ask-timeout 0");
    let mut input = child.stdin.take().unwrap();
    let out = output(&mut child);
    let mut text = read_until(&out, &mut child, Some("your answer (one line): "));
    assert!(text.contains("your answer (one line): "), "{text}");
    input.write_all(b"\x03").unwrap();
    input.flush().unwrap();
    text += &read_until(&out, &mut child, None);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{text}");
    let events = std::fs::read_to_string(runs.path().join("run_0001/events.jsonl")).unwrap();
    let finished = events.lines().last().unwrap();
    assert!(
        finished.contains("\"outcome\":\"interrupted\""),
        "{finished}"
    );
}
