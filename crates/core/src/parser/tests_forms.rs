//! Unit tests of the parser's other forms: UI-TARS-2 / Seed tool calls (point 2), `computer` tool
//! variants (point 3), repaired UI-TARS calls (point 4), `<answer>`, Doubao's compact form and a
//! click given only `end_box` (point 6).

use super::*;
use serde_json::json;

pub(super) fn parse_as(t: &str, dialect: Option<Dialect>) -> ParsedReply {
    parse_text(
        t,
        &ParseOptions {
            dialect,
            coords: CoordMode::Norm,
        },
    )
}

pub(super) fn actions(p: &ParsedReply) -> Value {
    serde_json::to_value(&p.actions).unwrap()
}

#[test]
fn seed_tool_calls_are_read_as_uitars_in_auto_and_forced() {
    let xml = "<seed:tool_call>\n<function=click>\n<parameter=point><point>17 58</point></parameter>\n</function>\n<function=drag>\n<parameter=start_point><point>1 2</point></parameter>\n<parameter=end_point><point>3 4</point></parameter>\n</function>\n<function=hotkey>\n<parameter=key>ctrl c</parameter>\n</function>\n<function=finished>\n<parameter=content>ok</parameter>\n</function>\n</seed:tool_call>";
    for forced in [None, Some(Dialect::Uitars)] {
        let p = parse_as(xml, forced);
        assert_eq!(p.dialect, Dialect::Uitars, "{p:?}");
        assert!(p.errors.is_empty(), "{p:?}");
        assert_eq!(
            actions(&p),
            json!([
                {"type": "click", "x": 17, "y": 58},
                {"type": "drag", "x": 1, "y": 2, "x2": 3, "y2": 4},
                {"type": "key", "keys": "ctrl+c"},
                {"type": "done", "text": "ok"}
            ])
        );
    }
    let json_call = r#"{"name": "hotkey", "arguments": "{\"key\": \"enter\"}"}"#;
    for forced in [None, Some(Dialect::Uitars)] {
        let p = parse_as(json_call, forced);
        assert_eq!(p.dialect, Dialect::Uitars, "{p:?}");
        assert_eq!(actions(&p), json!([{"type": "key", "keys": "enter"}]));
    }
    let scroll =
        r#"{"name": "scroll", "arguments": {"point": "<point>5 6</point>", "direction": "down"}}"#;
    let p = parse_as(scroll, None);
    assert_eq!(
        actions(&p),
        json!([{"type": "scroll", "x": 5, "y": 6, "direction": "down", "amount": 3}])
    );
    let right = "<seed:tool_call><function=right_single><parameter=point><point>7 8</point></parameter></function></seed:tool_call>";
    assert_eq!(
        actions(&parse_as(right, None)),
        json!([{"type": "right_click", "x": 7, "y": 8}])
    );
}

#[test]
fn computer_actions_as_function_name_in_type_and_in_batches() {
    let named = "<tool_call>\n<function=left_click>\n<parameter=coordinate>[10, 20]</parameter>\n</function>\n</tool_call>";
    let p = parse_as(named, None);
    assert_eq!(p.dialect, Dialect::Anthropic, "{p:?}");
    assert_eq!(actions(&p), json!([{"type": "click", "x": 10, "y": 20}]));
    let in_type =
        r#"{"name": "computer", "arguments": {"type": "left_click", "coordinate": [1, 2]}}"#;
    let p = parse_as(in_type, None);
    assert!(p.errors.is_empty(), "{p:?}");
    assert_eq!(actions(&p), json!([{"type": "click", "x": 1, "y": 2}]));
    let batch = r#"{"name": "computer", "arguments": {"actions": [{"action": "left_click", "coordinate": [1, 2]}, {"action": "type", "text": "hi"}]}}"#;
    let p = parse_as(batch, None);
    assert_eq!(
        actions(&p),
        json!([{"type": "click", "x": 1, "y": 2}, {"type": "type", "text": "hi"}])
    );
    let list =
        r#"[{"action": "key", "text": "ctrl+s"}, {"action": "left_click", "coordinate": [3, 4]}]"#;
    let p = parse_as(list, None);
    assert_eq!(p.dialect, Dialect::Anthropic, "{p:?}");
    assert_eq!(
        actions(&p),
        json!([{"type": "key", "keys": "ctrl+s"}, {"type": "click", "x": 3, "y": 4}])
    );
    let typed = "<function=type>\n<parameter=text>hello</parameter>\n</function>";
    let p = parse_as(typed, None);
    assert_eq!(
        actions(&p),
        json!([{"type": "type", "text": "hello"}]),
        "{p:?}"
    );
}

#[test]
fn computer_calls_that_disagree_are_refused_naming_the_shape() {
    let p = parse_as(
        "<function=left_click>\n<parameter=action>right_click</parameter>\n<parameter=coordinate>[1, 2]</parameter>\n</function>",
        None,
    );
    assert!(p.actions.is_empty(), "{p:?}");
    assert!(
        p.errors[0].contains("function name") && p.errors[0].contains("action"),
        "{p:?}"
    );
    let p = parse_as(
        r#"{"name": "computer", "arguments": {"actions": []}}"#,
        None,
    );
    assert!(p.errors[0].contains("empty \"actions\" batch"), "{p:?}");
}

#[test]
fn broken_uitars_calls_are_repaired_when_unambiguous() {
    for (reply, expected) in [
        (
            "Thought: t\nAction: click(point='<point>150 315</point>",
            json!([{"type": "click", "x": 150, "y": 315}]),
        ),
        (
            "Thought: t\nAction: key(key='Ctrl+C'",
            json!([{"type": "key", "keys": "ctrl+c"}]),
        ),
        (
            "Thought: t\nAction: drag(start_point='<point>1 2</point>' end_point='<point>3 4</point>')",
            json!([{"type": "drag", "x": 1, "y": 2, "x2": 3, "y2": 4}]),
        ),
    ] {
        let p = parse_as(reply, None);
        assert!(p.errors.is_empty(), "{reply}: {p:?}");
        assert_eq!(actions(&p), expected, "{reply}");
    }
    let p = parse_as("click(point='<point>150 315</point>", None);
    assert_eq!(p.dialect, Dialect::Calls, "{p:?}");
    assert_eq!(actions(&p), json!([{"type": "click", "x": 150, "y": 315}]));
    let p = parse_as(
        "Thought: t\nAction: click(point='<point>1 2</point>' 5)",
        None,
    );
    assert!(p.actions.is_empty(), "{p:?}");
    assert!(p.errors[0].contains("click"), "{p:?}");
}

#[test]
fn answer_block_compact_form_and_end_box() {
    let p = parse_as("<think>easy</think>\n<answer>\n2\n</answer>", None);
    assert_eq!(p.dialect, Dialect::Uitars);
    assert_eq!(actions(&p), json!([{"type": "done", "text": "2"}]));
    let p = parse_as("<answer>yes</answer>", Some(Dialect::Qwen));
    assert_eq!(p.dialect, Dialect::Qwen);
    assert_eq!(actions(&p), json!([{"type": "done", "text": "yes"}]));
    let p = parse_as("click>point>point>112 56", None);
    assert_eq!(p.dialect, Dialect::Uitars, "{p:?}");
    assert_eq!(actions(&p), json!([{"type": "click", "x": 112, "y": 56}]));
    let p = parse_as("Thought: t\nAction: click(end_box='[130,226]')", None);
    assert_eq!(actions(&p), json!([{"type": "click", "x": 130, "y": 226}]));
}

/// GLM-V's PC pointer verbs (zai-org/GLM-V examples/gui-agent/glm-45v/agent.md) read in 0..999.
#[test]
fn glm_pointer_verbs_read_as_their_actions() {
    let opts = ParseOptions {
        dialect: None,
        coords: CoordMode::Exact(ImageSize::new(999, 999)),
    };
    let p = parse_text(
        "The search box.\nleft_double_click(start_box='[376,465]', element_info='box')\nhover(start_box='[10,20]', element_info='')\nleft_drag(start_box='[1,2]', end_box='[998,999]', element_info='')",
        &opts,
    );
    assert_eq!(p.errors, Vec::<String>::new());
    let kinds: Vec<Value> = p
        .actions
        .iter()
        .map(|a| serde_json::to_value(a).unwrap())
        .map(|v| json!([v["type"], v["exact"]]))
        .collect();
    assert_eq!(
        kinds,
        vec![
            json!(["double_click", {"at": [376, 465], "of": [999, 999]}]),
            json!(["move", {"at": [10, 20], "of": [999, 999]}]),
            json!(["drag", {"at": [1, 2], "to": [998, 999], "of": [999, 999]}]),
        ]
    );
}
