//! Unit tests of the late-2026 families' dialects: Holo (`holo.rs`), UI-Venus (`venus.rs`),
//! Gemini computer use (`gemini.rs`), grounding answers (`point.rs`) and MAI-UI's grounding
//! `<answer>`; each as forced by its profile and, where it has a mark of its own, detected.

use super::tests_forms::{actions, parse_as};
use super::*;
use serde_json::json;

#[test]
fn holo3_steps_and_holo15_answers_read_in_auto_and_forced() {
    let step = r#"{"note": "id 42", "thought": "open it", "tool_call": {"tool_name": "click", "element": "OK", "x": 932, "y": 880}}"#;
    for forced in [None, Some(Dialect::Holo)] {
        let p = parse_as(step, forced);
        assert_eq!(p.dialect, Dialect::Holo, "{p:?}");
        assert!(p.errors.is_empty(), "{p:?}");
        assert_eq!(actions(&p), json!([{"type": "click", "x": 932, "y": 880}]));
        assert!(p.text.contains("id 42") && p.text.contains("open it"));
    }
    let write = r#"{"thought": "t", "tool_call": {"tool_name": "write", "content": "hi", "x": 10, "y": 20}}"#;
    assert_eq!(
        actions(&parse_as(write, None)),
        json!([{"type": "click", "x": 10, "y": 20}, {"type": "type", "text": "hi"}])
    );
    let answer = r#"{"thought": "t", "tool_call": {"tool_name": "answer", "content": "42"}}"#;
    assert_eq!(
        actions(&parse_as(answer, None)),
        json!([{"type": "done", "text": "42"}])
    );
    let p = parse_as(r#"{"action": "click_absolute", "x": 512, "y": 300}"#, None);
    assert_eq!(p.dialect, Dialect::Holo);
    assert_eq!(actions(&p), json!([{"type": "click", "x": 512, "y": 300}]));
    let p = parse_as(
        r#"{"tool_call": {"tool_name": "launch"}}"#,
        Some(Dialect::Holo),
    );
    assert!(
        p.actions.is_empty() && p.errors[0].contains("unknown tool_name"),
        "{p:?}"
    );
}

/// UI-Venus's `Wait()` waits 2 s (its executor's pause); a number it writes is the seconds,
/// in any form; anything else (a second argument, a negative) is refused, never a guessed wait.
#[test]
fn ui_venus_wait_reads_the_seconds_written_and_refuses_the_rest() {
    for (reply, seconds) in [
        ("<action>Wait()</action>", 2.0),
        ("<action>Wait(3)</action>", 3.0),
        ("<action>Wait(seconds=3)</action>", 3.0),
        ("<action>wait(seconds=1.5)</action>", 1.5),
    ] {
        let p = parse_as(reply, Some(Dialect::Venus));
        assert!(p.errors.is_empty(), "{reply}: {p:?}");
        assert_eq!(
            actions(&p),
            json!([{"type": "wait", "seconds": seconds}]),
            "{reply}"
        );
    }
    for reply in ["<action>Wait(-1)</action>", "<action>Wait(1, 2)</action>"] {
        let p = parse_as(reply, Some(Dialect::Venus));
        assert!(
            p.actions.is_empty() && !p.errors.is_empty(),
            "{reply}: {p:?}"
        );
    }
}

#[test]
fn ui_venus_actions_read_in_auto_and_forced() {
    let r =
        "<think>t</think>\n<action>Click(box=(868,487))</action>\n<conclusion>clicked</conclusion>";
    for forced in [None, Some(Dialect::Venus)] {
        let p = parse_as(r, forced);
        assert_eq!(p.dialect, Dialect::Venus, "{p:?}");
        assert!(p.errors.is_empty(), "{p:?}");
        assert_eq!(actions(&p), json!([{"type": "click", "x": 868, "y": 487}]));
        assert!(p.text.contains("clicked"), "{p:?}");
    }
    let many = "<action>Drag(start=(1,2), end=(3,4))</action> Type(content='a b') Hotkey(keys=['ctrl', 'c']) Scroll(direction='down') Finished(content='ok')";
    let p = parse_as(many, Some(Dialect::Venus));
    assert!(p.errors.is_empty(), "{p:?}");
    assert_eq!(
        actions(&p),
        json!([
            {"type": "drag", "x": 1, "y": 2, "x2": 3, "y2": 4},
            {"type": "type", "text": "a b"},
            {"type": "key", "keys": "ctrl+c"},
            {"type": "scroll", "direction": "down", "amount": 5},
            {"type": "done", "text": "ok"}
        ])
    );
    let p = parse_as("<action>PressHome()</action>", Some(Dialect::Venus));
    assert!(
        p.actions.is_empty() && p.errors[0].contains("no desktop meaning"),
        "{p:?}"
    );
    // its grounding answer, a bare point
    let p = parse_as("[500,250]", Some(Dialect::Venus));
    assert_eq!(actions(&p), json!([{"type": "click", "x": 500, "y": 250}]));
}

#[test]
fn gemini_calls_read_as_tool_calls_and_in_text() {
    let reply = Reply {
        tool_calls: vec![crate::model::types::ToolCall::new(
            "type_text_at",
            json!({"x": 100, "y": 200, "text": "hi", "press_enter": false}),
        )],
        ..Reply::text("")
    };
    let p = parse_reply(&reply, &ParseOptions::default());
    assert_eq!(p.dialect, Dialect::Gemini, "{p:?}");
    assert_eq!(
        actions(&p),
        json!([
            {"type": "click", "x": 100, "y": 200},
            {"type": "key", "keys": "ctrl+a"},
            {"type": "key", "keys": "delete"},
            {"type": "type", "text": "hi"}
        ])
    );
    let text =
        "<tool_call>\n{\"name\": \"click_at\", \"arguments\": {\"x\": 5, \"y\": 7}}\n</tool_call>";
    for forced in [None, Some(Dialect::Gemini)] {
        let p = parse_as(text, forced);
        assert!(p.errors.is_empty(), "{p:?}");
        assert_eq!(actions(&p), json!([{"type": "click", "x": 5, "y": 7}]));
    }
    let p = parse_as(
        "<tool_call>{\"name\": \"navigate\", \"arguments\": {\"url\": \"x\"}}</tool_call>",
        Some(Dialect::Gemini),
    );
    assert!(p.errors[0].contains("browser-only"), "{p:?}");
}

#[test]
fn grounding_answers_are_clicks_at_their_point() {
    for (reply, want) in [
        ("(512,300)", json!([{"type": "click", "x": 512, "y": 300}])),
        ("(512, 300)", json!([{"type": "click", "x": 512, "y": 300}])),
        (
            "<|object_ref_start|>switch<|object_ref_end|><|box_start|>(576,12),(592,42)<|box_end|><|im_end|>",
            json!([{"type": "click", "x": 584, "y": 27}]),
        ),
    ] {
        let p = parse_as(reply, Some(Dialect::Point));
        assert!(p.errors.is_empty(), "{reply}: {p:?}");
        assert_eq!(actions(&p), want, "{reply}");
    }
    let p = parse_as("I cannot find it", Some(Dialect::Point));
    assert!(
        p.actions.is_empty() && p.errors[0].contains("no point found"),
        "{p:?}"
    );
    let vision = r#"{"observation": "o", "bboxes": [[1, 2, 3, 4]], "actions": []}"#;
    assert!(parse_as(vision, Some(Dialect::Point)).errors[0].contains("no point found"));
    let p = parse_as("[-1,-1]", Some(Dialect::Point));
    assert!(p.actions.is_empty() && !p.errors.is_empty(), "{p:?}");
}

#[test]
fn mai_ui_grounding_answer_is_a_click_not_a_final_answer() {
    let r = "<grounding_think>the icon</grounding_think>\n<answer>\n{\"coordinate\": [499,499]}\n</answer>";
    let p = parse_as(r, Some(Dialect::Qwen));
    assert!(p.errors.is_empty(), "{p:?}");
    assert_eq!(actions(&p), json!([{"type": "click", "x": 499, "y": 499}]));
    // an answer with words stays a final answer
    let p = parse_as("<answer>the total is 42</answer>", Some(Dialect::Qwen));
    assert_eq!(
        actions(&p),
        json!([{"type": "done", "text": "the total is 42"}])
    );
}

#[test]
fn the_dialects_franz_writes_no_prompt_of_are_the_ones_without_a_grammar() {
    for d in Dialect::ALL {
        let own = matches!(d, Dialect::Json | Dialect::Calls | Dialect::Tools);
        assert_eq!(
            crate::strategy::grammar::of(Some(d)).is_none() && !own,
            fallback::prompts_in_franz_formats(d),
            "{d}"
        );
    }
}

#[test]
fn franz_formats_in_a_grounding_run_mean_its_space() {
    // gta1's run sends the narrative prompt worded in pixels of the image
    let opts = ParseOptions {
        dialect: Some(Dialect::Point),
        coords: CoordMode::Exact(crate::geometry::ImageSize::new(1288, 728)),
    };
    let p = parse_text("I click it.\nleft_click(644, 364)", &opts);
    assert!(p.errors.is_empty(), "{p:?}");
    assert_eq!(p.actions.len(), 1, "{p:?}");
    assert_eq!(p.actions[0].kind.point(), Some((500, 500)));
}
