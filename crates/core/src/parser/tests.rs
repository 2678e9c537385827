//! Unit tests of dispatch, detection and think stripping; the fixture corpus covers the rest.

use super::*;
use serde_json::json;

fn parse(t: &str) -> ParsedReply {
    parse_text(t, &ParseOptions::default())
}

#[test]
fn think_tags() {
    assert_eq!(strip_think("<think>a</think>b"), "b");
    assert_eq!(strip_think("a</think>b"), "b");
    assert_eq!(strip_think("<think>cut"), "cut");
    assert_eq!(strip_think("x<THINK>y</THINK>z<think>w</think>"), "xz");
}

#[test]
fn detects_each_dialect() {
    for (t, d) in [
        (r#"{"observation":"o","actions":[]}"#, Dialect::Json),
        ("left_click(1, 2)", Dialect::Calls),
        (
            r#"{"name":"click_element","arguments":{"box":[1,2]}}"#,
            Dialect::Tools,
        ),
        (
            r#"<tool_call>{"name":"computer_use","arguments":{"action":"left_click","coordinate":[1,2]}}</tool_call>"#,
            Dialect::Qwen,
        ),
        (
            "Thought: x\nAction: click(start_box='(1,2)')",
            Dialect::Uitars,
        ),
        (
            r#"{"action":"left_click","coordinate":[1,2]}"#,
            Dialect::Anthropic,
        ),
        (
            r#"{"type":"click","button":"left","x":1,"y":2}"#,
            Dialect::Openai,
        ),
        ("just words", Dialect::None),
    ] {
        let p = parse(t);
        assert_eq!(p.dialect, d, "{t}: {p:?}");
        if d != Dialect::None {
            assert!(
                p.errors.is_empty() && !p.actions.is_empty() || d == Dialect::Json,
                "{t}: {p:?}"
            );
        }
    }
}

#[test]
fn pixels_mode_converts_and_clamps() {
    let opts = ParseOptions {
        dialect: None,
        coords: CoordMode::Pixels(ImageSize::new(1001, 501)),
    };
    let p = parse_text("left_click(500, 250) left_click(2000, 10)", &opts);
    assert_eq!(
        serde_json::to_value(&p.actions).unwrap(),
        json!([
            {"type":"click","x":500,"y":500},
            {"type":"click","x":1000,"y":20}
        ])
    );
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
}

#[test]
fn tool_calls_with_string_or_object_arguments() {
    use crate::model::types::ToolCall;
    let r = Reply {
        tool_calls: vec![
            ToolCall::new("click_element", json!({"label":"OK","box":[10,20,30,40]})),
            ToolCall::new("type_text", json!("{\"text\":\"hi\"}")),
            ToolCall::new("computer_use", json!({"action":"key","keys":["ctrl","s"]})),
        ],
        ..Reply::default()
    };
    let p = parse_reply(&r, &ParseOptions::default());
    assert_eq!(p.dialect, Dialect::Tools);
    assert_eq!(
        serde_json::to_value(&p.actions).unwrap(),
        json!([
            {"type":"click","x":20,"y":30,"note":"OK"},
            {"type":"type","text":"hi"},
            {"type":"key","keys":"ctrl+s"}
        ])
    );
    assert!(p.errors.is_empty());
}
