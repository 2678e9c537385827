//! End to end: the tools and commander strategies drive a real xterm in a sandbox with the
//! scripted model server; the recorded requests are checked for what each must (and must not)
//! hold. Synchronised on the process's end and the file the terminal writes, never on sleeps.

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{RecordedRequest, Script, ScriptedServer, Step};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn franz_env(args: &[String], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_franz"));
    cmd.args(args).env_remove("FRANZ_LOG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run franz")
}

fn run_args(strategy: &str, url: &str, runs: &Path, launch: &str, task: &str) -> Vec<String> {
    [
        &["--sandbox=1024x768", "--launch", launch][..],
        &common::run_args(url, runs),
        &["--strategy", strategy, "--model", "scripted-model"],
        &["--max-steps", "12", "--motion", "fast", task],
    ]
    .concat()
    .into_iter()
    .map(String::from)
    .collect()
}

/// The chat requests (POSTs) as JSON.
fn chats(server: &ScriptedServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.json.expect("a JSON body"))
        .collect()
}

fn images(req: &Value) -> usize {
    req.to_string().matches("\"image_url\":").count()
}

#[test]
fn tools_runs_a_command_in_bash_one_call_per_step() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hi.txt");
    let command = format!("echo hi > {}", file.display());
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("<think>first thought</think>I click into the terminal.")
            .tool_call(
                "click_element",
                json!({"label": "terminal", "box": [250, 150]}),
            )
            .tool_call("type_text", json!({"text": "SHOULD-NOT-BE-TYPED"})),
        ScriptedReply::text("<think>second</think>")
            .tool_call("type_text", json!({"text": command})),
        ScriptedReply::text("<think>enter now</think>")
            .tool_call("press_key", json!({"key": "enter"})),
        ScriptedReply::text("<think>it worked</think>The file was created."),
    ]))
    .unwrap();
    let launch = "xterm -geometry 80x20+0+0 -e bash --norc --noprofile";
    let out = franz_env(
        &run_args(
            "tools",
            &server.url(),
            &dir.path().join("runs"),
            launch,
            "create a file",
        ),
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(common::wait_for_file(&file, "hi\n"), "hi\n");

    let reqs = chats(&server);
    assert_eq!(reqs.len(), 4, "{stderr}");
    for (i, r) in reqs.iter().enumerate() {
        assert!(
            images(r) <= 2,
            "request {} holds {} images",
            i + 1,
            images(r)
        );
        // docs/designs.md's ten and the window tools (list_windows, focus_window)
        assert_eq!(r["tools"].as_array().unwrap().len(), 12);
    }
    assert_eq!(images(&reqs[0]), 1);
    assert_eq!(images(&reqs[3]), 2);
    assert!(reqs[3].to_string().contains("older screenshot removed"));
    // the second call of the first reply was answered, not executed
    let msgs = reqs[1]["messages"].as_array().unwrap();
    let tool_msgs: Vec<&Value> = msgs.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_msgs.len(), 2, "{msgs:?}");
    assert_eq!(tool_msgs[0]["tool_call_id"], "call_0");
    assert!(
        tool_msgs[0]["content"]
            .as_str()
            .unwrap()
            .contains("\"ok\":true")
    );
    assert_eq!(tool_msgs[1]["tool_call_id"], "call_1");
    assert_eq!(tool_msgs[1]["name"], "type_text");
    assert!(
        tool_msgs[1]["content"]
            .as_str()
            .unwrap()
            .contains("too_many_tool_calls")
    );
    // the tool results come before the next screenshot, which is a user message
    let last = msgs.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(images(last), 1);
    // think tags survive only in the last two assistant messages
    let text = reqs[3].to_string();
    assert!(!text.contains("first thought"));
    assert!(text.contains("<think>enter now</think>"));
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("SHOULD-NOT")
    );
    // the reply without tool calls ended the run with its answer
    let events = common::jsonl(&common::run_dir(&dir.path().join("runs")).join("events.jsonl"));
    let fin = events
        .iter()
        .find(|e| e["event"] == "run_finished")
        .unwrap();
    assert!(fin.to_string().contains("The file was created."), "{fin}");
    assert!(!fin.to_string().contains("it worked"));
}

fn is_leader(req: &Value) -> bool {
    req["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "spawn_operator"))
}

fn last_user_text(req: &Value) -> String {
    let m = req["messages"].as_array().unwrap().last().unwrap();
    match &m["content"] {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

const LONG_EVIDENCE: &str = "The terminal window shows the line 'commander was here' followed by a new empty line, \
which means the text was typed into the terminal and Enter submitted it to cat.";

fn commander_script() -> Script {
    let operator_turns = Arc::new(AtomicUsize::new(0));
    Script::func(move |r: &RecordedRequest| {
        let req = r.json.clone().unwrap_or(Value::Null);
        let user = last_user_text(&req);
        if is_leader(&req) {
            let spawn = |what: &str| json!({"operator_instructions": what, "rationale": "one objective at a time"});
            let reply = if user.contains("MEMORY:") {
                ScriptedReply::text("Compressing.")
                    .tool_call(
                        "compress_memory",
                        json!({"compression_summary": "SNAPSHOT-ALPHA: clicked the terminal, typed the line, pressed enter",
                               "loop_analysis": "none", "archived_turns": [1, 2, 3]}),
                    )
                    .tool_call("spawn_operator", spawn("OBJ-1: confirm the line is submitted, report_progress DONE"))
            } else if user.contains("ESCALATION:") {
                ScriptedReply::text("").tool_call(
                    "spawn_operator",
                    spawn("OBJ-2: report completion with evidence"),
                )
            } else if user.contains("REVIEW:") {
                ScriptedReply::text("").tool_call("spawn_operator", spawn("OBJ-1: now press enter"))
            } else {
                ScriptedReply::text("Plan: one objective.").tool_call(
                    "spawn_operator",
                    spawn("OBJ-1: click into the terminal, type 'commander was here', press enter"),
                )
            };
            return Step::from(reply);
        }
        let n = operator_turns.fetch_add(1, Ordering::SeqCst) + 1;
        let j = "as briefed";
        let reply = match n {
            1 => ScriptedReply::text("OBJ: OBJ-1\nOBS: sitrep-one a terminal\nACT: click").tool_call(
                "click_element",
                json!({"justification": j, "label": "terminal", "position": [250, 150]}),
            ),
            2 => ScriptedReply::text("OBS: sitrep-two focused").tool_call(
                "type_text",
                json!({"justification": j, "text": "commander was here"}),
            ),
            3 => ScriptedReply::text("OBS: sitrep-three typed")
                .tool_call("press_key", json!({"justification": j, "key": "enter"})),
            4 => ScriptedReply::text("OBS: sitrep-four submitted").tool_call(
                "report_progress",
                json!({"objective_id": "OBJ-1", "status": "DONE", "evidence": "the line is in the terminal"}),
            ),
            5 => ScriptedReply::text("OBS: sitrep-five")
                .tool_call("report_completion", json!({"evidence": "done"})),
            _ => ScriptedReply::text("OBS: sitrep-six")
                .tool_call("report_completion", json!({"evidence": LONG_EVIDENCE})),
        };
        Step::from(reply)
    })
}

#[test]
fn commander_leader_briefs_reviews_compresses_and_the_operator_completes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("note.txt");
    let server = ScriptedServer::start(commander_script()).unwrap();
    let launch = format!(
        "xterm -geometry 80x20+0+0 -e sh -c 'cat > {}'",
        file.display()
    );
    let runs = dir.path().join("runs");
    let out = franz_env(
        &run_args(
            "commander",
            &server.url(),
            &runs,
            &launch,
            "type 'commander was here' into the terminal",
        ),
        &[
            ("FRANZ_COMPRESSION_THRESHOLD", "3"),
            ("FRANZ_REVIEW_INTERVAL", "2"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        common::wait_for_file(&file, "commander was here\n"),
        "commander was here\n"
    );

    let reqs = chats(&server);
    let kinds: String = reqs
        .iter()
        .map(|r| if is_leader(r) { 'L' } else { 'O' })
        .collect();
    // start, operator x2, review, operator, compression, operator (DONE), escalation,
    // operator (short evidence), operator (completion)
    assert_eq!(kinds, "LOOLOLOLOO", "{stderr}");
    let leaders: Vec<&Value> = reqs.iter().filter(|r| is_leader(r)).collect();
    let operators: Vec<&Value> = reqs.iter().filter(|r| !is_leader(r)).collect();
    for (l, why) in leaders
        .iter()
        .zip(["MISSION START", "REVIEW:", "MEMORY:", "ESCALATION:"])
    {
        assert_eq!(images(l), 0, "a leader request holds an image");
        assert_eq!(l["temperature"], 0.35);
        assert_eq!(l["max_tokens"], 1200);
        assert!(
            last_user_text(l).contains(why),
            "{why}: {}",
            last_user_text(l)
        );
    }
    for o in &operators {
        assert_eq!(images(o), 1);
        assert_eq!(o["temperature"], 0.5);
        assert_eq!(o["max_tokens"], 1024);
        let system = o["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("SITREP FORMAT") && system.contains("OBJ:"));
        assert_eq!(o["tools"].as_array().unwrap().len(), 10);
    }
    assert!(leaders[3].to_string().contains("reported DONE on OBJ-1"));
    // before compression the turns are in the context; after it, only the snapshot
    assert!(last_user_text(operators[2]).contains("sitrep-two"));
    assert!(last_user_text(leaders[2]).contains("sitrep-three"));
    for r in operators[3..].iter().chain([&leaders[3]]) {
        let t = last_user_text(r);
        assert!(t.contains("SNAPSHOT 1 (turns 1-3)"), "{t}");
        assert!(t.contains("SNAPSHOT-ALPHA"), "{t}");
        for gone in ["sitrep-one", "sitrep-two", "sitrep-three"] {
            assert!(!t.contains(gone), "{gone} still in {t}");
        }
    }
    let brief = |o: &Value| o["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(brief(operators[0]).contains("CURRENT BRIEF: OBJ-1: click"));
    assert!(brief(operators[3]).contains("CURRENT BRIEF: OBJ-1: confirm"));
    assert!(brief(operators[4]).contains("CURRENT BRIEF: OBJ-2"));
    // short evidence went back to the operator as an error
    assert!(last_user_text(operators[5]).contains("at least 100"));

    // the leader's calls are logged and evented like the operator's
    let run = common::run_dir(&runs);
    let exchange = common::jsonl(&run.join("exchange.jsonl"));
    let logged = exchange
        .iter()
        .filter(|e| e.get("request").is_some())
        .count();
    assert_eq!(logged, 10);
    let events = common::jsonl(&run.join("events.jsonl"));
    let count = |k: &str| events.iter().filter(|e| e["event"] == k).count();
    assert_eq!(count("model_request"), 10);
    assert_eq!(count("model_reply"), 10);
}
