//! The tools strategy's history budget through the real binary: 200 turns on a sandbox with the
//! scripted model, `FRANZ_HISTORY_MAX_CHARS` small enough to matter. The requests stop growing
//! once the budget is reached, and stay valid for the OpenAI API (no tool answer without its
//! call).

use crate::common;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use serde_json::{Value, json};

/// The messages of a request, as sent.
fn messages(req: &Value) -> &Vec<Value> {
    req["messages"].as_array().unwrap()
}

fn assert_valid(msgs: &[Value]) {
    let mut open: Vec<String> = Vec::new();
    for m in msgs {
        if m["role"] == "tool" {
            let id = m["tool_call_id"].as_str().unwrap_or_default().to_string();
            assert!(open.contains(&id), "a tool answer without its call: {m}");
            open.retain(|x| x != &id);
            continue;
        }
        assert!(open.is_empty(), "calls {open:?} unanswered before {m}");
        if let Some(calls) = m["tool_calls"].as_array() {
            open = calls
                .iter()
                .filter_map(|c| c["id"].as_str().map(str::to_string))
                .collect();
        }
    }
}

#[test]
fn the_request_stays_bounded_over_200_turns() {
    let reply = ScriptedReply::text(format!("<think>{}</think>I press shift.", "t".repeat(300)))
        .tool_call("press_key", json!({"key": "shift"}));
    let server = ScriptedServer::start(Script::repeat(reply)).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = common::franz_run(&server.url(), runs.path())
        .args(["--sandbox=160x120", "press shift", "--strategy", "tools"])
        .args(["--max-steps", "200", "--motion", "fast"])
        .env("FRANZ_HISTORY_MAX_CHARS", "8000")
        // 200 turns of one key on a still screen, on purpose: no loop breaker
        .env("FRANZ_LOOP_WARN", "0")
        .env("FRANZ_LOOP_STOP", "0")
        .env_remove("FRANZ_LOG")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("max-steps 200"), "{err}");
    let asked: Vec<Value> = server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .collect();
    assert_eq!(asked.len(), 200);
    let text_len = |req: &Value| -> usize {
        // the images' base64 aside (two are kept), the text the history carries
        let mut v = req["messages"].clone();
        for m in v.as_array_mut().unwrap() {
            if let Some(parts) = m["content"].as_array_mut() {
                parts.retain(|p| p["type"] != "image_url");
            }
        }
        v.to_string().len()
    };
    let sizes: Vec<usize> = asked.iter().map(text_len).collect();
    // past the budget the oldest turns go down to 75% of it at once, then the history grows
    // again (docs/context.md): the plateau is the most of turns 41 to 61, a cycle or more
    let plateau = sizes[40..=60].iter().copied().max().unwrap_or(0);
    for (i, s) in sizes.iter().enumerate().skip(60) {
        assert!(
            *s <= plateau + 500,
            "request {} grew to {s} (turns 41 to 61: at most {plateau})",
            i + 1
        );
    }
    // without the budget each turn adds about the same: where turn 200 would be
    let growth = (sizes[20] - sizes[10]) / 10;
    assert!(
        growth > 200,
        "the history grows before the budget: {sizes:?}"
    );
    let unbounded = sizes[10] + growth * 189;
    assert!(
        sizes[199] * 3 < unbounded,
        "turn 200: {} bytes, {unbounded} without the budget",
        sizes[199]
    );
    for req in &asked {
        assert_valid(messages(req));
    }
    let last = messages(&asked[199]);
    assert_eq!(last[0]["role"], "system");
    assert!(
        last[1]["content"]
            .as_str()
            .unwrap()
            .starts_with("TASK: press shift")
    );
    assert!(
        last[2]["content"]
            .as_str()
            .unwrap()
            .contains("older turns were removed"),
        "{}",
        last[2]
    );
}
