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

/// Turns `from..=to` of clicks judged by the loop breaker before each, the screen changing
/// around the target after each click when `changes`. Returns each turn's first action kind.
fn judged(
    c: &mut Commander,
    d: &mut crate::loop_breaker::LoopDetector,
    last: &mut Option<(u32, Reading)>,
    turns: std::ops::RangeInclusive<u32>,
    changes: bool,
) -> Vec<&'static str> {
    use crate::observe::FrameChange;
    let around = crate::geometry::NormBox::from_corners(0, 0, 50, 50);
    let change = FrameChange {
        changed: changes,
        boxes: if changes { vec![around] } else { Vec::new() },
        ..FrameChange::default()
    };
    let mut kinds = Vec::new();
    for n in turns {
        if let Some((t, r)) = last.take() {
            let ok: Vec<ActionResult> = r.actions.iter().map(|_| ActionResult::ok()).collect();
            let v = d.judge(t, &r.actions, &ok, &change);
            let note = match &v {
                crate::loop_breaker::Verdict::Warn(r) => Some(r.note()),
                _ => None,
            };
            c.loop_status(v.repeats(), note.as_deref());
        }
        let (r, _) = turn(c, n, "click x until it works", click());
        kinds.push(r.actions.first().map_or("none", |a| a.kind.name()));
        *last = Some((n, r));
    }
    kinds
}

#[test]
fn the_loop_breakers_repeats_trigger_recovery_with_a_cooldown() {
    let mut c = Commander::new(settings());
    let settings = crate::loop_breaker::LoopSettings { warn: 2, stop: 0 };
    let mut d = crate::loop_breaker::LoopDetector::new(settings);
    let mut last = None;
    // the leader answers without a tool call: its text becomes the brief
    let kinds = judged(&mut c, &mut d, &mut last, 1..=4, false);
    assert_eq!(c.brief.as_deref(), Some("click x until it works"));
    // clicks on turns 1, 2, 3 changed nothing: turn 4 recovers
    assert_eq!(kinds, ["click", "click", "click", "key"]);
    // the recovery broke the repetition; three more identical clicks (5, 6, 7) make a loop
    // again, but the cooldown (4 turns) holds recovery back until turn 9
    let kinds = judged(&mut c, &mut d, &mut last, 5..=9, false);
    assert_eq!(kinds, ["click", "click", "click", "click", "key"]);
    assert_eq!(c.memory.records.last().unwrap().tool, "loop_recovery");
}

#[test]
fn the_same_action_that_changes_the_screen_is_no_loop() {
    // the old action-only comparison recovered on turn 4 here
    let mut c = Commander::new(settings());
    let mut d =
        crate::loop_breaker::LoopDetector::new(crate::loop_breaker::LoopSettings::default());
    let mut last = None;
    let kinds = judged(&mut c, &mut d, &mut last, 1..=8, true);
    assert!(kinds.iter().all(|k| *k == "click"), "{kinds:?}");
}

#[test]
fn the_loop_warning_reaches_the_operator() {
    let mut c = Commander::new(settings());
    let mut d =
        crate::loop_breaker::LoopDetector::new(crate::loop_breaker::LoopSettings::default());
    let mut last = None;
    judged(&mut c, &mut d, &mut last, 1..=2, false);
    c.loop_status(2, Some("LOOP: your last 2 actions changed nothing"));
    let obs = screenshot();
    let ctx = TurnContext {
        task: "the task",
        turn: 3,
        screenshot: &obs,
    };
    let text = serde_json::to_string(&c.prompt(&ctx).messages).unwrap();
    assert!(
        text.contains("LOOP: your last 2 actions changed nothing"),
        "{text}"
    );
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

/// A leader reply cut off at max_tokens is not applied: the operator works on the mission,
/// and the leader is asked again next turn, told why.
#[test]
fn a_cut_off_leader_reply_is_not_applied_and_the_leader_is_asked_again() {
    let mut c = Commander::new(settings());
    let obs = screenshot();
    let ctx = |turn| TurnContext {
        task: "the task",
        turn,
        screenshot: &obs,
    };
    let mut prompts = Vec::new();
    let mut ask = |p: Prompt| {
        prompts.push(serde_json::to_string(&p.messages).unwrap());
        Some(Reply {
            finish_reason: Some("length".into()),
            ..call(
                "Plan: first",
                "spawn_operator",
                json!({"operator_instructions": "OBJ-1: do a thing that was cu"}),
            )
        })
    };
    assert!(c.consult(&ctx(1), &mut ask).is_none());
    assert_eq!(
        c.brief.as_deref(),
        Some("the task"),
        "the cut brief was not applied"
    );
    assert_eq!(c.mode, Mode::Execution);
    assert!(c.consult(&ctx(2), &mut ask).is_none());
    assert_eq!(prompts.len(), 2, "the leader is asked again");
    assert!(
        prompts[1].contains("cut off at max_tokens"),
        "{}",
        prompts[1]
    );
}

#[test]
fn the_leader_is_told_of_targets_in_words_only_with_a_grounder() {
    let obs = screenshot();
    let ctx = TurnContext {
        task: "the task",
        turn: 1,
        screenshot: &obs,
    };
    for grounder in [false, true] {
        let mut c = Commander::new(ReadOptions {
            targets_in_words: grounder,
            ..settings()
        });
        let mut asked = Vec::new();
        let mut ask = |p: Prompt| {
            asked.push(p.messages);
            None
        };
        let _ = c.consult(&ctx, &mut ask);
        let system = match asked.first().and_then(|m| m.first()).map(|m| &m.content) {
            Some(crate::model::Content::Text(t)) => t.clone(),
            other => panic!("the leader's system text: {other:?}"),
        };
        let said = format!("grounder {grounder}: {system}");
        assert_eq!(
            system.ends_with(prompts::TARGETS_LEADER),
            grounder,
            "{said}"
        );
    }
}
