//! How a turn ends a run, end to end, as users run franz: the real binary with the model id
//! they type (`qwen3-vl-8b-instruct`, no `--profile`), the scripted model server over HTTP and a
//! private Xvfb (docs/actions.md, "How a run finishes").
//!
//! - Qwen's finish, `terminate` with status `success` as the prompt asks, ends the run in the
//!   turn it comes, in every strategy, as a structured tool call and as `<tool_call>` text.
//! - Garbage, broken calls and an echo of the task never end a tools run as done.
//! - A reply cut off at max_tokens performs nothing; with `--stream`, an action performed
//!   before the cut was known stands (the witness window saw it) and the model is told.
//! - `--max-tokens` bounds the commander's leader and operator requests.
//!
//! Synchronised on the process's end, the run's events, the server's requests and the
//! witness's events, never on sleeps.

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use franz_desktop::witness::WitnessKind;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

/// The model id users type; `--profile auto` picks `qwen3-vl` for it.
const QWEN3_VL: &str = "qwen3-vl-8b-instruct";

/// What shows the goal is reached, written before the finish as the prompt asks (a SITREP long
/// enough for the commander's 100 characters of evidence).
const EVIDENCE: &str = "The dialog is gone and the main window shows the saved file report.txt in its title bar, so the task is done.";

/// `franz [display] run TASK` against `url` with `args`, keeping its run in `runs`.
fn franz(display: Option<&str>, task: &str, url: &str, runs: &Path, args: &[&str]) -> Output {
    let mut cmd = common::franz_run(url, runs);
    common::no_franz_env(&mut cmd);
    match display {
        Some(d) => cmd.env("DISPLAY", d),
        None => cmd.arg("--sandbox=640x480"),
    };
    cmd.arg(task)
        .args(["--motion", "fast", "--max-steps", "4"])
        .args(args)
        .output()
        .expect("run franz")
}

/// The chat requests the server got, as JSON.
fn chats(server: &ScriptedServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.json)
        .collect()
}

/// Qwen's `computer_use` call in reply `text`: structured, or as a `<tool_call>` block.
fn qwen(text: &str, args: Value, structured: bool) -> ScriptedReply {
    if structured {
        return ScriptedReply::text(text).tool_call("computer_use", args);
    }
    let call = json!({"name": "computer_use", "arguments": args});
    ScriptedReply::text(format!("{text}\n<tool_call>\n{call}\n</tool_call>"))
}

/// The leader's brief, the commander's first request.
fn brief() -> ScriptedReply {
    ScriptedReply::text("Plan.").tool_call(
        "spawn_operator",
        json!({"operator_instructions": "OBJ-1: save the file", "rationale": "one step"}),
    )
}

#[test]
fn qwen3_vls_terminate_ends_the_run_in_the_turn_it_comes_in_every_strategy() {
    let click = json!({"action": "left_click", "coordinate": [500, 500]});
    let end = json!({"action": "terminate", "status": "success"});
    for strategy in ["narrative", "vision", "tools", "commander"] {
        for structured in [true, false] {
            let mut replies = Vec::new();
            if strategy == "commander" {
                replies.push(brief());
            }
            replies.push(qwen("I click Save.", click.clone(), structured));
            replies.push(qwen(EVIDENCE, end.clone(), structured));
            let server = ScriptedServer::start(Script::list(replies)).unwrap();
            let runs = tempfile::tempdir().unwrap();
            let args = ["--strategy", strategy, "--model", QWEN3_VL];
            let out = franz(None, "save the file", &server.url(), runs.path(), &args);
            let what = format!("{strategy}, structured {structured}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{what}: {err}");
            let end = common::run_events(runs.path()).pop().unwrap();
            assert_eq!(
                (&end["outcome"], &end["turns"]),
                (&json!("done"), &json!(2)),
                "{what}: {end}"
            );
            assert!(
                end["reason"].as_str().unwrap().contains("report.txt"),
                "{what}: {end}"
            );
            let asked = chats(&server);
            assert_eq!(
                asked.len(),
                2 + usize::from(strategy == "commander"),
                "{what}"
            );
            // the prompt asked for the finish this way: the terminate action, and what shows it
            let prompt = asked.last().unwrap().to_string();
            assert!(prompt.contains("terminate"), "{what}: {prompt}");
            assert!(
                prompt.contains("what on the screen shows it"),
                "{what}: {prompt}"
            );
        }
    }
}

#[test]
fn garbage_broken_calls_and_echoes_never_end_a_tools_run_as_done() {
    let garbage = [
        r#"{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [500, 300"#,
        "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>",
        "TASK: Click the OK button",
        "```json\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_cl\n```",
    ];
    let server = ScriptedServer::start(Script::list(garbage.map(ScriptedReply::text))).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let args = [
        "--strategy",
        "tools",
        "--model",
        QWEN3_VL,
        "--max-empty-turns",
        "4",
    ];
    let out = franz(
        None,
        "Click the OK button",
        &server.url(),
        runs.path(),
        &args,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let ev = common::run_events(runs.path());
    let end = ev.last().unwrap();
    assert_eq!(
        (&end["outcome"], &end["turns"]),
        (&json!("failed"), &json!(4)),
        "{end}"
    );
    assert!(
        ev.iter().all(|e| e["event"] != "action_result"),
        "nothing ran"
    );
    // each went back to the model as a problem
    let asked = chats(&server);
    for (i, says) in [(1, "tool call"), (2, "markup"), (3, "repeats the task")] {
        let text = asked[i].to_string();
        assert!(
            text.contains(says),
            "request {i} does not say {says:?}: {text}"
        );
    }
}

/// The reply that is cut off: two clicks (each a `<tool_call>` block), then the story, cut.
fn cut_reply() -> ScriptedReply {
    let at = |x: u32, y: u32| json!({"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}});
    ScriptedReply::text(format!(
        "I click twice.\n<tool_call>\n{}\n</tool_call>\n<tool_call>\n{}\n</tool_call>\nThe first click opens the menu and the second one",
        at(500, 500),
        at(100, 100)
    ))
    .finish_reason("length")
}

#[test]
fn a_cut_off_reply_performs_nothing_but_an_action_performed_early_stands() {
    let (sandbox, witness) = common::sandbox(320, 240);
    let display = sandbox.display().to_string();
    for stream in [false, true] {
        let finish = qwen(
            EVIDENCE,
            json!({"action": "terminate", "status": "success"}),
            false,
        );
        let server = ScriptedServer::start(Script::list([cut_reply(), finish])).unwrap();
        let runs = tempfile::tempdir().unwrap();
        let mut args = vec!["--model", QWEN3_VL];
        if stream {
            args.push("--stream");
        }
        let out = franz(
            Some(&display),
            "open the menu",
            &server.url(),
            runs.path(),
            &args,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "stream {stream}: {err}");
        let ev = common::run_events(runs.path());
        let ran: Vec<&Value> = ev
            .iter()
            .filter(|e| e["event"] == "action_result" && e["turn"] == 1)
            .collect();
        let told = chats(&server)[1].to_string();
        assert!(
            told.contains("cut off at max_tokens"),
            "stream {stream}: {told}"
        );
        if !stream {
            assert!(ran.is_empty(), "a cut reply performed {ran:?}");
            assert!(told.contains("nothing in it was performed"), "{told}");
            continue;
        }
        // the first click ran while the reply streamed: it stands, recorded and told
        assert_eq!(ran.len(), 1, "{ran:?}");
        assert_eq!(ran[0]["action"]["type"], "click", "{ran:?}");
        assert!(ran[0]["early_exec_ms_saved"].is_number(), "{ran:?}");
        assert!(told.contains("already been performed"), "{told}");
        let press = |e: &franz_desktop::witness::WitnessEvent| e.is(WitnessKind::ButtonPress);
        let (seen, events) = witness.wait_for(|ev| ev.iter().any(press), Duration::from_secs(30));
        assert!(seen, "the witness saw no click");
        assert_eq!(events.iter().filter(|e| press(e)).count(), 1, "{events:?}");
    }
}

#[test]
fn max_tokens_bounds_the_commanders_leader_and_operator() {
    let server = ScriptedServer::start(Script::list([
        brief(),
        qwen(
            "OBS: a dialog.",
            json!({"action": "left_click", "coordinate": [500, 500]}),
            true,
        ),
        ScriptedReply::text("OBS: saved.")
            .tool_call("report_completion", json!({"evidence": EVIDENCE})),
    ]))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let args = [
        "--strategy",
        "commander",
        "--model",
        QWEN3_VL,
        "--max-tokens",
        "64",
    ];
    let out = franz(None, "save the file", &server.url(), runs.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let asked = chats(&server);
    assert_eq!(asked.len(), 3);
    for r in &asked {
        assert_eq!(r["max_tokens"], 64, "{r}");
    }
    let shown = Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(["config", "--max-tokens", "64"])
        .env_remove("FRANZ_LEADER_MAX_TOKENS")
        .env_remove("FRANZ_OPERATOR_MAX_TOKENS")
        .env_remove("FRANZ_MAX_TOKENS")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    for key in ["leader_max_tokens", "operator_max_tokens"] {
        let line = format!("{key} = 64  # max_tokens's value (flag --max-tokens)");
        assert!(shown.contains(&line), "{line} not in:\n{shown}");
    }
}
