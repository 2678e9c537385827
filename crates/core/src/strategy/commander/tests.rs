//! The commander's state machine without a screen or a server: a fake `ask` answers the
//! leader, replies are fed to `read` and results to `record`.

use super::*;
use crate::strategy::test_support::{click_at, finished, screenshot, stopped};
use serde_json::json;

fn call(text: &str, name: &str, args: Value) -> Reply {
    Reply {
        tool_calls: vec![ToolCall::new(name, args)],
        ..Reply::text(text)
    }
}

fn settings() -> ReadOptions {
    ReadOptions {
        commander: CommanderSettings {
            review_interval: 100,
            compression_threshold: 100,
            loop_recovery_cooldown: 4,
            ..CommanderSettings::default()
        },
        ..ReadOptions::default()
    }
}

/// One turn: consult (the leader answers `leader`), then the operator's `op` reply unless the
/// turn was a recovery. Returns the reading and how many leader calls were made.
fn turn(c: &mut Commander, n: u32, leader: &str, op: Reply) -> (Reading, usize) {
    let obs = screenshot();
    let ctx = TurnContext {
        task: "the task",
        turn: n,
        screenshot: &obs,
    };
    let mut calls = 0;
    let mut ask = |p: Prompt| {
        calls += 1;
        assert!(
            !serde_json::to_string(&p.messages)
                .unwrap()
                .contains("image_url")
        );
        Some(Reply::text(leader))
    };
    let reading = match c.consult(&ctx, &mut ask) {
        Some(r) => r,
        None => {
            let _ = c.prompt(&ctx);
            c.read(&op, &ctx)
        }
    };
    let results: Vec<ActionResult> = reading.actions.iter().map(|_| ActionResult::ok()).collect();
    c.record(&reading, &results);
    (reading, calls)
}

fn click() -> Reply {
    call(
        "OBS: same",
        "click_element",
        json!({"justification": "j", "label": "x", "position": [10, 10]}),
    )
}

#[test]
fn a_repeated_action_triggers_loop_recovery_with_a_cooldown() {
    let mut c = Commander::new(settings());
    // the leader answers without a tool call: its text becomes the brief
    let (_, calls) = turn(&mut c, 1, "click x until it works", click());
    assert_eq!(calls, 1);
    assert_eq!(c.brief.as_deref(), Some("click x until it works"));
    assert_eq!(c.mode, Mode::Execution);
    turn(&mut c, 2, "", click());
    turn(&mut c, 3, "", click());
    let (r, calls) = turn(&mut c, 4, "", click());
    assert_eq!(calls, 0);
    let kinds: Vec<&str> = r.actions.iter().map(|a| a.kind.name()).collect();
    assert_eq!(kinds, ["key", "move"]);
    // the recovery broke the repetition; three more identical clicks (5, 6, 7) make a loop
    // again, but the cooldown (4 turns) holds recovery back until turn 9
    for n in 5..=8 {
        let (r, _) = turn(&mut c, n, "", click());
        assert_eq!(r.actions[0].kind.name(), "click", "turn {n}");
    }
    let (r, _) = turn(&mut c, 9, "", click());
    assert_eq!(r.actions[0].kind.name(), "key");
    assert_eq!(c.memory.records.last().unwrap().tool, "loop_recovery");
}

#[test]
fn short_evidence_is_an_error_and_blocked_escalates() {
    let mut c = Commander::new(settings());
    let (r, _) = turn(
        &mut c,
        1,
        "brief",
        call("", "report_completion", json!({"evidence": "done"})),
    );
    assert!(r.actions.is_empty());
    assert!(r.errors[0].contains("at least 100"), "{:?}", r.errors);
    assert!(c.feedback[0].contains("at least 100"));
    let (r, _) = turn(
        &mut c,
        2,
        "",
        call(
            "",
            "report_progress",
            json!({"objective_id": "OBJ-1", "status": "BLOCKED", "evidence": "a dialog"}),
        ),
    );
    assert_eq!(r.actions.len(), 1);
    assert!(
        c.escalation
            .as_deref()
            .unwrap()
            .contains("BLOCKED on OBJ-1")
    );
    let (_, calls) = turn(&mut c, 3, "try the menu", click());
    assert_eq!(calls, 1);
    assert!(c.escalation.is_none());
    assert_eq!(c.brief.as_deref(), Some("try the menu"));
    let long = "x".repeat(100);
    let (r, _) = turn(
        &mut c,
        4,
        "",
        call("", "report_completion", json!({"evidence": long})),
    );
    assert_eq!(r.actions[0].kind.name(), "report_completion");
}

#[test]
fn without_compress_memory_the_history_is_compressed_mechanically() {
    let mut c = Commander::new(ReadOptions {
        commander: CommanderSettings {
            review_interval: 100,
            compression_threshold: 2,
            loop_recovery: false,
            ..CommanderSettings::default()
        },
        ..ReadOptions::default()
    });
    turn(&mut c, 1, "b", click());
    turn(&mut c, 2, "", click());
    let (_, calls) = turn(&mut c, 3, "b2", click());
    assert_eq!(calls, 1);
    assert_eq!(c.memory.snapshots.len(), 1);
    assert_eq!(c.memory.active_len(), 1);
    assert!(
        c.memory.snapshots[0]
            .summary
            .contains("T1 click_element ok")
    );
}

#[test]
fn an_action_written_in_the_operators_text_runs() {
    let mut c = Commander::new(settings());
    let (r, _) = turn(
        &mut c,
        1,
        "brief",
        stopped("OBS: a button\nclick(500, 300)"),
    );
    assert_eq!(r.actions, vec![click_at(500, 300).into()]);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(c.memory.records.last().unwrap().tool, "click");
    let block = "<tool_call>\n{\"name\": \"press_key\", \"arguments\": {\"justification\": \"j\", \"key\": \"enter\"}}\n</tool_call>";
    let (r, _) = turn(&mut c, 2, "", stopped(block));
    assert_eq!(r.actions[0].kind.name(), "key", "{r:?}");
}

#[test]
fn a_plain_answer_a_cut_reply_and_an_empty_one_are_errors_never_done() {
    let mut c = Commander::new(settings());
    let (r, _) = turn(&mut c, 1, "brief", stopped("The mission is complete."));
    assert!(r.actions.is_empty());
    assert!(r.errors[0].starts_with("no tool call"), "{:?}", r.errors);
    let (r, _) = turn(&mut c, 2, "", finished("OBS: I will cli", Some("length")));
    assert!(r.actions.is_empty());
    assert!(
        r.errors[0].contains("cut off at max_tokens"),
        "{:?}",
        r.errors
    );
    // a cut tool call runs nothing either
    let mut cut = click();
    cut.finish_reason = Some("length".into());
    let (r, _) = turn(&mut c, 3, "", cut);
    assert!(r.actions.is_empty(), "{r:?}");
    assert!(
        r.errors.iter().any(|e| e.contains("cut off")),
        "{:?}",
        r.errors
    );
    let (r, _) = turn(&mut c, 4, "", stopped(""));
    assert!(r.actions.is_empty());
    assert!(r.errors[0].contains("empty"), "{:?}", r.errors);
    assert!(c.feedback[0].contains("empty"));
    // done written as text needs the evidence report_completion needs
    let (r, _) = turn(&mut c, 5, "", stopped("done(\"it works\")"));
    assert!(r.actions.is_empty());
    assert!(r.errors[0].contains("at least 100"), "{:?}", r.errors);
}
