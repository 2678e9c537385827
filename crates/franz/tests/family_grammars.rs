//! End to end: `franz run --dialect D` on a real xterm in a sandbox with the scripted model
//! server asks in family D's grammar (prompt or tool schema, strategy/grammar) and performs the
//! replies written in it: the typed command writes its file. Synchronised on the process's end
//! and the file the terminal writes, never on sleeps.

use crate::common;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;

/// `franz run` in a 1024x768 sandbox with an xterm at the top left.
fn run(strategy: &str, dialect: &str, coords: &str, url: &str, runs: &Path) -> Output {
    let xterm = "xterm -geometry 80x20+0+0 -e bash --norc --noprofile";
    common::franz_command()
        .args(["--sandbox=1024x768", "--launch", xterm])
        .args(common::run_args(url, runs))
        .args([
            "--strategy",
            strategy,
            "--dialect",
            dialect,
            "--coords",
            coords,
        ])
        .args([
            "--model",
            "scripted-model",
            "--max-steps",
            "6",
            "--motion",
            "fast",
        ])
        .arg("create a file")
        .output()
        .expect("run franz")
}

fn chats(server: &ScriptedServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.json)
        .collect()
}

#[test]
fn tools_in_qwens_grammar_sends_computer_use_and_performs_its_calls() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("qwen.txt");
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("I click into the terminal.").tool_call(
            "computer_use",
            json!({"action": "left_click", "coordinate": [250, 150]}),
        ),
        ScriptedReply::text("I type the command.").tool_call(
            "computer_use",
            json!({"action": "type", "text": format!("echo qwen > {}\n", file.display())}),
        ),
        ScriptedReply::text("The file was created."),
    ]))
    .unwrap();
    let out = run(
        "tools",
        "qwen",
        "norm",
        &server.url(),
        &dir.path().join("runs"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(common::wait_for_file(&file, "qwen\n"), "qwen\n", "{stderr}");
    let reqs = chats(&server);
    assert_eq!(reqs.len(), 3, "{stderr}");
    for r in &reqs {
        let names: Vec<&str> = r["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["function"]["name"].as_str())
            .collect();
        assert_eq!(names, ["computer_use"], "{r}");
    }
    let system = reqs[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("from 0 to 1000"), "{system}");
    assert!(reqs[0].to_string().contains("resolution is 1000x1000"));
}

#[test]
fn narrative_in_ui_tars_grammar_asks_for_thought_and_action_lines_and_performs_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("uitars.txt");
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text(
            "Thought: The terminal is at the top left; I click into it.\nAction: click(start_box='(256,115)')",
        ),
        ScriptedReply::text(format!(
            "Thought: I clicked the terminal; now I type the command.\nAction: type(content='echo uitars > {}\\n')",
            file.display()
        )),
        ScriptedReply::text(
            "Thought: The command ran.\nAction: finished(content='the file was created')",
        ),
    ]))
    .unwrap();
    let out = run(
        "narrative",
        "uitars",
        "pixels",
        &server.url(),
        &dir.path().join("runs"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        common::wait_for_file(&file, "uitars\n"),
        "uitars\n",
        "{stderr}"
    );
    let reqs = chats(&server);
    assert_eq!(reqs.len(), 3, "{stderr}");
    let system = reqs[0]["messages"][0]["content"].as_str().unwrap();
    for mark in [
        "## Action Space",
        "click(start_box='(x1,y1)')",
        "1024x768 pixels",
    ] {
        assert!(system.contains(mark), "{mark} not in {system}");
    }
    assert!(!system.contains("double_left_click"), "{system}");
    // the story is the Thought
    let user = reqs[1]["messages"][1].to_string();
    assert!(user.contains("The terminal is at the top left"), "{user}");
}
