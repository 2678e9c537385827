//! The tools strategy without a screen or a server: replies are fed to `read`, results to
//! `record`, and the history and requests are checked.

use super::*;

fn images(h: &[Message]) -> usize {
    h.iter()
        .map(|m| match &m.content {
            Content::Parts(p) => p.iter().filter(|p| is_image(p)).count(),
            Content::Text(_) => 0,
        })
        .sum()
}

#[test]
fn pruning_keeps_the_last_k_screenshots_and_thinks() {
    // keep 5: at most 5 images; a pruning leaves the last 2 (5 + 1 - PRUNE_STEP)
    let mut h = vec![Message::system("s")];
    for i in 0..6 {
        h.push(Message::user_with_image(
            format!("s{i}"),
            "data:image/png;base64,AA",
        ));
        h.push(Message::assistant(format!("<think>t{i}</think>a{i}")));
    }
    prune_screenshots(&mut h, 5);
    prune_thinks(&mut h, 2);
    assert_eq!(images(&h), 2);
    assert!(matches!(&h[9].content, Content::Parts(_)));
    assert!(matches!(&h[11].content, Content::Parts(p) if is_image(&p[1])));
    let Content::Parts(p) = &h[1].content else {
        panic!()
    };
    assert_eq!(
        p[1],
        ContentPart::Text {
            text: PRUNED_SCREENSHOT.into()
        }
    );
    assert_eq!(h[2].content, Content::Text("a0".into()));
    assert_eq!(h[12].content, Content::Text("<think>t5</think>a5".into()));
    assert_eq!(h[10].content, Content::Text("<think>t4</think>a4".into()));
    assert_eq!(h[8].content, Content::Text("a3".into()));
}

/// Over many turns the history's messages are rewritten (images pruned) only once every
/// `min(keep, PRUNE_STEP)` turns, and never hold more than `keep` images: the other requests
/// begin with the whole previous request, byte for byte, which a server's prompt cache reuses
/// (docs/context.md).
#[test]
fn old_screenshots_are_pruned_in_steps_that_keep_the_prefix() {
    let mut t = keeping(2);
    let mut last: Option<String> = None;
    let mut rewritten = Vec::new();
    for n in 1..=24 {
        let (prompt, _) = turn(&mut t, n, &call("press_key", json!({"key": "enter"})));
        let images = images(&prompt.messages);
        assert!((1..=2).contains(&images), "turn {n}: {images}");
        let body = serde_json::to_string(&prompt.messages).unwrap();
        // the previous request's messages, less the closing bracket, begin this one's
        if let Some(prev) = last.replace(body.clone())
            && !body.starts_with(&prev[..prev.len() - 1])
        {
            rewritten.push(n);
        }
    }
    // before pruning in steps: every turn from the third (22 of 24)
    assert!(
        !rewritten.is_empty() && rewritten.len() <= 24 / 2,
        "rewritten at turns {rewritten:?}"
    );
}

/// A tools strategy that keeps `keep` screenshots and any length of history.
fn keeping(keep: usize) -> Tools {
    Tools::new(ReadOptions {
        keep_last_screenshots: keep,
        history_max_chars: usize::MAX,
        ..ReadOptions::default()
    })
}

use crate::model::{ChatRequest, ToolCall};
use crate::strategy::test_support::{click_at, screenshot, stopped};
use serde_json::json;

fn call(name: &str, args: serde_json::Value) -> Reply {
    Reply {
        tool_calls: vec![ToolCall::new(name, args)],
        finish_reason: Some("tool_calls".into()),
        ..Reply::text("I act.")
    }
}

/// One turn: the prompt, the reading of `reply`, every action ok.
fn turn(t: &mut Tools, n: u32, reply: &Reply) -> (Prompt, Reading) {
    let obs = screenshot();
    let ctx = TurnContext {
        task: "the task",
        turn: n,
        screenshot: &obs,
    };
    let prompt = t.prompt(&ctx);
    let reading = t.read(reply, &ctx);
    let results: Vec<ActionResult> = reading.actions.iter().map(|_| ActionResult::ok()).collect();
    t.record(&reading, &results);
    (prompt, reading)
}

/// The OpenAI API's rule: each role=tool message answers a call of the assistant message
/// before it, and every call is answered before anything else follows.
fn assert_valid(h: &[Message]) {
    let mut open: Vec<String> = Vec::new();
    for m in h {
        if m.role == Role::Tool {
            let id = m.tool_call_id.clone().unwrap_or_default();
            assert!(
                open.contains(&id),
                "a tool message without its call: {m:?}\n{h:#?}"
            );
            open.retain(|x| x != &id);
            continue;
        }
        assert!(open.is_empty(), "calls {open:?} unanswered before {m:?}");
        if m.role == Role::Assistant {
            open = m.tool_calls.iter().filter_map(|c| c.id.clone()).collect();
        }
    }
}

fn last_text(t: &Tools) -> String {
    match &t.history().last().unwrap().content {
        Content::Text(s) => s.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_plain_answer_with_stop_is_done_with_that_text() {
    let mut t = Tools::new(ReadOptions::default());
    turn(&mut t, 1, &call("click_element", json!({"box": [5, 5]})));
    let (_, r) = turn(
        &mut t,
        2,
        &stopped("<think>ok</think>The file was created."),
    );
    assert_eq!(
        r.actions,
        vec![
            ActionKind::Done {
                text: "The file was created.".into()
            }
            .into()
        ]
    );
    assert!(r.errors.is_empty());
    assert_valid(t.history());
}

#[test]
fn a_truncated_reply_is_an_error_not_done() {
    let mut t = Tools::new(ReadOptions::default());
    let cut = Reply {
        finish_reason: Some("length".into()),
        ..Reply::text("The file was crea")
    };
    let (_, r) = turn(&mut t, 1, &cut);
    assert!(r.actions.is_empty(), "{r:?}");
    assert!(r.errors[0].contains("cut off at max_tokens"), "{r:?}");
    assert!(last_text(&t).starts_with("PROBLEM: your reply was cut off"));
    // a cut tool call is not run either
    let cut_call = Reply {
        finish_reason: Some("length".into()),
        ..Reply::text("<tool_call>{\"name\": \"type_text\", \"arguments\": {\"text\": \"rm -rf")
    };
    let (p, r) = turn(&mut t, 2, &cut_call);
    assert!(r.actions.is_empty(), "{r:?}");
    assert!(
        serde_json::to_string(&p.messages)
            .unwrap()
            .contains("PROBLEM: your reply was cut off")
    );
    assert_valid(t.history());
}

#[test]
fn an_empty_reply_is_an_error_and_adds_no_empty_assistant_message() {
    let mut t = Tools::new(ReadOptions::default());
    let (_, r) = turn(&mut t, 1, &stopped("  <think>hmm</think>  "));
    assert!(r.actions.is_empty());
    assert!(r.errors[0].contains("empty"), "{r:?}");
    assert!(t.history().iter().all(|m| m.role != Role::Assistant));
    assert!(last_text(&t).contains("call exactly one tool"));
}

#[test]
fn a_tool_call_block_in_the_content_runs_and_its_result_goes_back_as_a_user_message() {
    let mut t = Tools::new(ReadOptions::default());
    let block = "I press enter.\n<tool_call>\n{\"name\": \"press_key\", \"arguments\": {\"key\": \"enter\"}}\n</tool_call>";
    let (_, r) = turn(&mut t, 1, &stopped(block));
    assert_eq!(
        r.actions,
        vec![
            ActionKind::Key {
                keys: "enter".into()
            }
            .into()
        ]
    );
    assert!(t.history().iter().all(|m| m.role != Role::Tool));
    assert!(
        last_text(&t).starts_with("Result of key (written in the text"),
        "{}",
        last_text(&t)
    );
    assert_valid(t.history());
}

#[test]
fn a_function_call_line_in_the_content_runs() {
    let mut t = Tools::new(ReadOptions::default());
    let (_, r) = turn(&mut t, 1, &stopped("Clicking OK.\nclick(500, 300)"));
    assert_eq!(r.actions, vec![click_at(500, 300).into()]);
    assert_eq!(r.text, "Clicking OK.");
    assert_valid(t.history());
}

#[test]
fn a_reply_read_again_before_its_results_replaces_the_first() {
    // the approver's edit: read, read again, then record
    let mut t = Tools::new(ReadOptions::default());
    let obs = screenshot();
    let ctx = TurnContext {
        task: "t",
        turn: 1,
        screenshot: &obs,
    };
    t.prompt(&ctx);
    t.read(&call("press_key", json!({"key": "a"})), &ctx);
    let r = t.read(&stopped("click(10, 20)"), &ctx);
    t.record(&r, &[ActionResult::ok()]);
    let assistants = t
        .history()
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count();
    assert_eq!(assistants, 1);
    assert_valid(t.history());
}

/// 200 turns of calls, actions in text, problems and long results: the request stays bounded
/// with the budget, and grows without it.
#[test]
fn the_request_stays_bounded_over_200_turns() {
    let script = |n: u32| match n % 4 {
        0 => call("type_text", json!({"text": "x".repeat(400)})),
        1 => stopped(&format!(
            "<think>{}</think>click({n}, 300)",
            "t".repeat(300)
        )),
        2 => Reply {
            finish_reason: Some("length".into()),
            ..Reply::text("y".repeat(500))
        },
        _ => call("press_key", json!({"key": "enter"})),
    };
    let size = |options: ReadOptions| {
        let mut t = Tools::new(options);
        let mut sizes = Vec::new();
        for n in 1..=200 {
            let (prompt, _) = turn(&mut t, n, &script(n));
            let body = ChatRequest::new("m", prompt.messages).to_body().to_string();
            sizes.push(body.len());
            assert_valid(t.history());
        }
        sizes
    };
    let budget = 30_000;
    let bounded = size(ReadOptions {
        history_max_chars: budget,
        ..ReadOptions::default()
    });
    let unbounded = size(ReadOptions {
        history_max_chars: usize::MAX,
        ..ReadOptions::default()
    });
    let worst = *bounded.iter().max().unwrap();
    // the estimate counts the 2 kept images as 1,500 tokens each; the JSON adds its syntax
    assert!(worst < 2 * budget, "the request grew to {worst} bytes");
    assert!(
        bounded[199] <= bounded[50] + 1_000,
        "{} vs {}",
        bounded[199],
        bounded[50]
    );
    assert!(
        unbounded[199] > 3 * worst,
        "without a budget it grows: {}",
        unbounded[199]
    );
}

/// `observe_area`: each screenshot's message ends with what it shows and keeps it in the
/// history, so the next request still begins with the whole previous one (docs/context.md);
/// the whole working area (`screen`) adds nothing.
#[test]
fn the_area_line_stays_with_its_screenshot_and_keeps_the_prefix() {
    use crate::observe::{ObservedArea, ShownWindow};
    // no pruning in these few turns: what could break the prefix is the line alone
    let mut t = keeping(8);
    let mut last: Option<String> = None;
    for n in 1..=3 {
        let mut obs = screenshot();
        obs.area = ObservedArea {
            window: Some(ShownWindow {
                id: u64::from(n),
                title: format!("notes {n}"),
                application: "Gedit".into(),
            }),
            ..obs.area
        };
        let ctx = TurnContext {
            task: "the task",
            turn: n,
            screenshot: &obs,
        };
        let prompt = t.prompt(&ctx);
        let reading = t.read(&call("press_key", json!({"key": "enter"})), &ctx);
        t.record(&reading, &[ActionResult::ok()]);
        let body = serde_json::to_string(&prompt.messages).unwrap();
        let line = format!(
            "You see the window \\\"notes {n}\\\" (application Gedit), not the whole screen."
        );
        assert!(body.contains(&line), "turn {n}: {body}");
        if let Some(prev) = last.replace(body.clone()) {
            assert!(body.starts_with(&prev[..prev.len() - 1]), "turn {n}");
        }
    }
    let mut plain = Tools::new(ReadOptions::default());
    let (prompt, _) = turn(&mut plain, 1, &call("press_key", json!({"key": "enter"})));
    let body = serde_json::to_string(&prompt.messages).unwrap();
    assert!(
        !body.contains("You see the window") && !body.contains("You see the whole screen"),
        "{body}"
    );
}

/// A call whose action the engine did not perform after reading it (its target in words found
/// no point: docs/grounding.md) is answered with why, not only that it was not performed.
#[test]
fn a_call_the_engine_dropped_is_answered_with_its_reason() {
    let mut t = Tools::new(ReadOptions {
        targets_in_words: true,
        ..ReadOptions::default()
    });
    let obs = screenshot();
    let ctx = TurnContext {
        task: "the task",
        turn: 1,
        screenshot: &obs,
    };
    let _ = t.prompt(&ctx);
    let reply = call("click_element", json!({"target": "the Save button"}));
    let mut reading = t.read(&reply, &ctx);
    assert_eq!(reading.actions.len(), 1, "{:?}", reading.errors);
    let why = "click(target=\"the Save button\"): the grounding model gave no point";
    reading.actions.clear();
    reading.errors.push(why.to_string());
    t.record(&reading, &[]);
    let answered = t
        .history()
        .iter()
        .rev()
        .find(|m| m.role == Role::Tool)
        .map(|m| serde_json::to_string(&m.content).unwrap_or_default())
        .unwrap_or_default();
    assert!(
        answered.contains("the action was not performed"),
        "{answered}"
    );
    assert!(
        answered.contains("the grounding model gave no point"),
        "{answered}"
    );
    assert_valid(t.history());
}
