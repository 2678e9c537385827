//! End to end through `franz run` on a sandbox with the scripted model: the boot reply
//! (docs/designs.md (vision loop): BOOT_VLM_OUTPUT) is every strategy's first turn, and a first
//! empty `done` goes back to the model while the final answer reaches `run_finished` and the
//! terminal (docs/designs.md (commander): completion needs evidence).

use crate::common;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use std::path::Path;
use std::process::Output;

fn run(strategy: &str, url: &str, runs: &Path, extra: &[&str]) -> Output {
    common::franz_command()
        .arg("--sandbox=640x480")
        .args(common::run_args(url, runs))
        .args(["--strategy", strategy, "--model", "scripted-model"])
        .args(["--motion", "fast", "--max-steps", "4"])
        .args(extra)
        .arg("the task")
        .output()
        .expect("run franz")
}

fn run_finished(runs: &Path) -> String {
    let dir = std::fs::read_dir(runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("events.jsonl").exists())
        .expect("a run directory");
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    events
        .lines()
        .find(|l| l.contains("\"run_finished\""))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_boot_reply_ends_a_run_in_every_strategy_without_asking_the_model() {
    for strategy in ["vision", "narrative", "tools", "commander"] {
        let server =
            ScriptedServer::start(Script::repeat(ScriptedReply::text("fail(\"asked\")"))).unwrap();
        let runs = tempfile::tempdir().unwrap();
        let boot = match strategy {
            "vision" => r#"{"actions": [{"name": "done", "text": "booted and finished"}]}"#,
            _ => "done(\"booted and finished\")",
        };
        let out = run(
            strategy,
            &server.url(),
            runs.path(),
            &["--boot-reply", boot, "--min-evidence", "0"],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{strategy}: {stderr}");
        assert_eq!(
            server
                .requests()
                .iter()
                .filter(|r| r.method == "POST")
                .count(),
            0,
            "{strategy}: {stderr}"
        );
        assert!(
            run_finished(runs.path()).contains("booted and finished"),
            "{strategy}"
        );
    }
}

#[test]
fn a_first_empty_done_goes_back_and_the_answer_reaches_the_terminal() {
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("done()"),
        ScriptedReply::text("done(\"the answer is 42\")"),
    ]))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = run("narrative", &server.url(), runs.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let posts: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.json.map(|j| j.to_string()).unwrap_or_default())
        .collect();
    assert_eq!(posts.len(), 2, "{stderr}");
    assert!(posts[1].contains("the answer is empty"), "{}", posts[1]);
    assert!(run_finished(runs.path()).contains("the answer is 42"));
    assert!(stderr.contains("the answer is 42"), "{stderr}");
}
