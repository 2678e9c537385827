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

/// Pixels become 0..1000; a point just past the image is its edge (with a note for the
/// action's result), one far past it is refused with the likely cause: no action leaves the
/// model's space (docs/coordinates.md, "Out-of-range values").
#[test]
fn pixels_mode_converts_clamps_near_points_and_refuses_far_ones() {
    let opts = ParseOptions {
        dialect: None,
        coords: CoordMode::Pixels(ImageSize::new(1001, 501)),
    };
    let p = parse_text(
        "left_click(500, 250)\nleft_click(1010, 10)\nleft_click(2000, 10)",
        &opts,
    );
    assert_eq!(
        serde_json::to_value(&p.actions).unwrap(),
        json!([
            {"type":"click","x":500,"y":500},
            {"type":"click","x":1000,"y":20,
             "clamped":"left_click: (1010, 10) lies just past the edge of the 1001x501 image (x 0..1000, y 0..500) (within 2%): taken as (1000, 10)"}
        ])
    );
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    assert!(
        p.errors[0].starts_with("left_click: (2000, 10) is outside the 1001x501 image"),
        "{:?}",
        p.errors
    );
}

/// The model's own values are kept (`exact`), inside its space: a drag end far outside is
/// refused, never kept for the executor to refuse.
#[test]
fn exact_mode_keeps_the_models_values() {
    let opts = ParseOptions {
        dialect: None,
        coords: CoordMode::Exact(ImageSize::new(1288, 728)),
    };
    let p = parse_text(
        "Thought: t\nAction: click(start_box='<|box_start|>(641,361)<|box_end|>')\n\
         drag(start_box='(1,2,3,5)', end_box='(1300,-4)')\n\
         drag(start_box='(1,2,3,5)', end_box='(2000,-4)')",
        &opts,
    );
    assert_eq!(
        serde_json::to_value(&p.actions).unwrap(),
        json!([
            {"type":"click","x":498,"y":496,"exact":{"at":[641,361],"of":[1288,728]}},
            {"type":"drag","x":2,"y":5,"x2":1000,"y2":0,
             "exact":{"at":[2,3.5],"to":[1288,0],"of":[1288,728]},
             "clamped":"drag end: (1300, -4) lies just past the edge of the 1288x728 image (x 0..1288, y 0..728) (within 2%): taken as (1288, 0)"}
        ])
    );
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    assert!(
        p.errors[0].contains("(2000, -4) is outside"),
        "{:?}",
        p.errors
    );
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

/// The first action's point, or `None` when it has none (or there is no action).
fn first_point(p: &ParsedReply) -> Option<(i32, i32)> {
    p.actions.first().and_then(|a| a.kind.point())
}

/// A point in any common shape is read, in every JSON-argument dialect.
#[test]
fn points_in_every_common_shape_are_read() {
    let shapes = [
        json!({"coordinate": [12, 34]}),
        json!({"x": 12, "y": 34}),
        json!({"x": "12", "y": "34"}),
        json!({"point": [12, 34]}),
        json!({"position": [12, 34]}),
        json!({"start_box": "(12,34)"}),
        json!({"coordinate": "[12, 34]"}),
        json!({"point": "<point>12 34</point>"}),
        json!({"position": {"x": 12, "y": 34}}),
    ];
    for shape in shapes {
        for (name, action_key, action) in [
            ("computer", "action", "click"),
            ("computer", "action", "left_click"),
            ("computer_use", "action", "left_click"),
            ("computer_use", "action", "double_click"),
            ("computer_use_preview", "type", "click"),
        ] {
            let mut args = shape.clone();
            args[action_key] = json!(action);
            let reply = Reply {
                tool_calls: vec![crate::model::ToolCall::new(name, args.clone())],
                ..Reply::default()
            };
            let p = parse_reply(&reply, &ParseOptions::default());
            assert_eq!(first_point(&p), Some((12, 34)), "{name} {args}: {p:?}");
            assert!(p.errors.is_empty(), "{name} {args}: {p:?}");
        }
    }
}

/// The two replies that clicked at the pointer before.
#[test]
fn separate_x_and_y_are_not_a_click_at_the_pointer() {
    let p = parse(r#"{"name":"computer","arguments":{"action":"click","x":12,"y":34}}"#);
    assert_eq!(first_point(&p), Some((12, 34)), "{p:?}");
    let p = parse(
        r#"<tool_call>{"name":"computer_use","arguments":{"action":"left_click","x":12,"y":34}}</tool_call>"#,
    );
    assert_eq!(first_point(&p), Some((12, 34)), "{p:?}");
    let p = parse(
        "<tool_call>\n<function=computer_use>\n<parameter=action>left_click</parameter>\n<parameter=x>12</parameter>\n<parameter=y>34</parameter>\n</function>\n</tool_call>",
    );
    assert_eq!(first_point(&p), Some((12, 34)), "{p:?}");
}

/// Numbers no rule reads are an error, never a click at the pointer.
#[test]
fn unread_numbers_are_an_error_not_a_pointer_click() {
    for args in [
        json!({"action": "left_click", "target": [12, 34]}),
        json!({"action": "left_click", "loc": "12 34"}),
        json!({"action": "scroll", "pixels": -3, "where": [5, 6]}),
        json!({"action": "mouse_move", "at": {"px": 1, "py": 2}}),
    ] {
        for name in ["computer", "computer_use"] {
            let reply = Reply {
                tool_calls: vec![crate::model::ToolCall::new(name, args.clone())],
                ..Reply::default()
            };
            let p = parse_reply(&reply, &ParseOptions::default());
            assert!(p.actions.is_empty(), "{name} {args}: {p:?}");
            assert!(
                p.errors.iter().any(|e| e.contains("no position read")),
                "{name} {args}: {p:?}"
            );
        }
    }
    let p = parse(r#"{"actions":[{"name":"click","target":[12,34]}]}"#);
    assert!(p.actions.is_empty(), "{p:?}");
}

/// With no position at all, a click where the grammar says "here" stays one.
#[test]
fn a_click_without_any_position_is_at_the_pointer() {
    let p = parse(r#"{"action":"left_click"}"#);
    assert_eq!(p.actions.len(), 1, "{p:?}");
    assert_eq!(first_point(&p), None);
    assert!(p.errors.is_empty(), "{p:?}");
    let p = parse(
        r#"{"name":"computer","arguments":{"action":"scroll","scroll_direction":"down","scroll_amount":5}}"#,
    );
    assert_eq!(p.actions.len(), 1, "{p:?}");
    assert!(p.errors.is_empty(), "{p:?}");
}

/// In UI-TARS: `x`/`y` keywords are a point, and a scroll with numbers it
/// cannot read is an error, not a scroll at the pointer.
#[test]
fn uitars_reads_x_and_y_and_refuses_unread_numbers() {
    let p = parse("Thought: t\nAction: click(x='12', y='34')");
    assert_eq!(first_point(&p), Some((12, 34)), "{p:?}");
    let p = parse("Thought: t\nAction: scroll(x=12, y=34, direction='down')");
    assert_eq!(first_point(&p), Some((12, 34)), "{p:?}");
    let p = parse("Thought: t\nAction: scroll(target='(12,34)', direction='down')");
    assert!(p.actions.is_empty(), "{p:?}");
    assert!(
        p.errors.iter().any(|e| e.contains("no position read")),
        "{p:?}"
    );
    let p = parse("Thought: t\nAction: scroll(direction='down')");
    assert_eq!(p.actions.len(), 1, "{p:?}");
}

/// A call inside a sentence is prose under auto-detection; on its own line it
/// is an action; `--dialect calls` stays lenient.
#[test]
fn prose_is_not_an_action_under_auto() {
    let p = parse("I should wait() until the page is stable.");
    assert!(p.actions.is_empty(), "{p:?}");
    assert_ne!(p.dialect, Dialect::Calls);
    let p = parse(
        "The page is loading, so I click the button.\nleft_click(650, 420)\nThen I type type(\"x\") later.",
    );
    assert_eq!(p.dialect, Dialect::Calls);
    assert_eq!(p.actions.len(), 1, "{p:?}");
    assert_eq!(first_point(&p), Some((650, 420)));
    let p = parse("Saving now:\n- press_key(\"ctrl+s\");\n");
    assert_eq!(p.actions.len(), 1, "{p:?}");
    let forced = ParseOptions {
        dialect: Some(Dialect::Calls),
        ..ParseOptions::default()
    };
    let p = parse_text("I should wait() until the page is stable.", &forced);
    assert_eq!(p.actions.len(), 1, "{p:?}");
}

/// The text of the first action, which must be a `type`.
fn typed(p: &ParsedReply) -> String {
    match p.actions.first().map(|a| &a.kind) {
        Some(crate::action::ActionKind::Type { text }) => text.clone(),
        other => panic!("not a type action: {other:?} in {p:?}"),
    }
}

/// XML parameter values are typed exactly as written; only the formatting
/// newlines after the opening and before the closing tag are dropped.
#[test]
fn xml_parameter_text_keeps_its_whitespace_and_newline() {
    let xml = |value: &str| {
        format!(
            "<tool_call>\n<function=computer_use>\n<parameter=action>\ntype\n</parameter>\n<parameter=text>{value}</parameter>\n</function>\n</tool_call>"
        )
    };
    for (written, want) in [
        ("\nline\n\n", "line\n"),
        ("line\n\n", "line\n"),
        ("\n  two spaces  \n", "  two spaces  "),
        ("\nfirst\nsecond\n", "first\nsecond"),
        ("plain", "plain"),
        ("\r\nwin\r\n\r\n", "win\r\n"),
    ] {
        let p = parse(&xml(written));
        assert_eq!(typed(&p), want, "{written:?}: {p:?}");
    }
    // the other parameters still read through the trimmed value
    let p = parse(
        "<function=computer_use>\n<parameter=action> left_click </parameter>\n<parameter=coordinate>\n [12, 34] \n</parameter>\n</function>",
    );
    assert_eq!(first_point(&p), Some((12, 34)), "{p:?}");
}

#[test]
fn every_franz_dialect_and_qwen_read_an_element_reference() {
    for text in [
        "click(element=7)",
        r#"{"observation":"o","actions":[{"type":"click","element":7}]}"#,
        r#"{"name":"click_element","arguments":{"label":"OK","element":7}}"#,
        r#"<tool_call>{"name":"computer_use","arguments":{"action":"left_click","element":7}}</tool_call>"#,
        "Thought: the OK button is element 7\nAction: click(element=7)",
    ] {
        let p = parse(text);
        assert!(p.errors.is_empty(), "{text}: {:?}", p.errors);
        assert_eq!(p.actions.len(), 1, "{text}");
        assert_eq!(p.actions[0].element, Some(7), "{text}");
        assert!(
            matches!(p.actions[0].kind, crate::action::ActionKind::Click { .. }),
            "{text}"
        );
    }
    for text in [
        r#"type("Ada", element=2)"#,
        r#"{"observation":"o","actions":[{"type":"type","text":"Ada","element":2}]}"#,
        r#"{"name":"type_text","arguments":{"text":"Ada","element":2}}"#,
        "Thought: the name field\nAction: type(content='Ada', element=2)",
    ] {
        let p = parse(text);
        assert!(p.errors.is_empty(), "{text}: {:?}", p.errors);
        assert_eq!(p.actions[0].element, Some(2), "{text}");
    }
    for text in [
        "click(element=7)",
        r#"{"name":"click_element","arguments":{"label":"OK","element":7}}"#,
    ] {
        let canonical = serde_json::to_value(&parse(text).actions[0]).unwrap();
        assert_eq!(canonical["element"], 7, "{text}");
        assert!(canonical.get("x").is_none(), "{text}: {canonical}");
    }
    for bad in [
        "click(element=0)",
        r#"{"observation":"o","actions":[{"type":"click","element":"OK"}]}"#,
        r#"{"observation":"o","actions":[{"type":"key","keys":"enter","element":2}]}"#,
    ] {
        let p = parse(bad);
        assert!(p.actions.is_empty() && !p.errors.is_empty(), "{bad}: {p:?}");
    }
}

/// Element references are read wherever a point is: Anthropic's `computer` input and OpenAI's
/// computer-use actions too (clicks, a move and `type`), and a move or hover in every dialect.
#[test]
fn the_computer_readers_and_every_move_read_an_element_reference() {
    // (reply, its dialect, the action's kind), each naming element 7 and no point
    let cases = [
        (
            r#"{"action":"left_click","element":7}"#,
            Dialect::Anthropic,
            "click",
        ),
        (
            r#"{"action":"double_click","element":7}"#,
            Dialect::Anthropic,
            "double_click",
        ),
        (
            r#"{"action":"mouse_move","element":7}"#,
            Dialect::Anthropic,
            "move",
        ),
        (
            r#"{"action":"type","text":"Ada","element":7}"#,
            Dialect::Anthropic,
            "type",
        ),
        (
            r#"{"type":"click","button":"left","element":7}"#,
            Dialect::Openai,
            "click",
        ),
        (
            r#"{"type":"click","button":"right","element":7}"#,
            Dialect::Openai,
            "right_click",
        ),
        (
            r#"{"type":"computer_call","action":{"type":"double_click","element":7}}"#,
            Dialect::Openai,
            "double_click",
        ),
        (r#"{"type":"move","element":7}"#, Dialect::Openai, "move"),
        (
            r#"{"type":"type","text":"Ada","element":7}"#,
            Dialect::Openai,
            "type",
        ),
        ("move(element=7)", Dialect::Calls, "move"),
        (
            r#"{"observation":"o","actions":[{"type":"hover","element":7}]}"#,
            Dialect::Json,
            "move",
        ),
        (
            r#"{"name":"move_mouse","arguments":{"element":7}}"#,
            Dialect::Tools,
            "move",
        ),
        (
            r#"<tool_call>{"name":"computer_use","arguments":{"action":"mouse_move","element":7}}</tool_call>"#,
            Dialect::Qwen,
            "move",
        ),
        (
            "Thought: hover it\nAction: hover(element=7)",
            Dialect::Uitars,
            "move",
        ),
    ];
    for (text, dialect, kind) in cases {
        let p = parse(text);
        assert_eq!(p.dialect, dialect, "{text}: {p:?}");
        assert!(p.errors.is_empty(), "{text}: {:?}", p.errors);
        assert_eq!(p.actions.len(), 1, "{text}: {p:?}");
        let a = &p.actions[0];
        assert_eq!(a.element, Some(7), "{text}");
        assert_eq!(a.kind.name(), kind, "{text}");
        assert_eq!(a.kind.point(), None, "{text}: {a:?}");
    }
}

/// A move to an element has no point of its own; without an element it needs one, and a kind
/// that takes no element says so in the computer readers too.
#[test]
fn a_move_needs_a_point_or_an_element() {
    let m = crate::Action::from_json(r#"{"type":"move","element":3}"#).unwrap();
    assert_eq!(m.element, Some(3));
    assert!(crate::Action::from_json(r#"{"type":"move"}"#).is_err());
    for bad in [
        r#"{"action":"scroll","scroll_direction":"down","scroll_amount":2,"element":7}"#,
        r#"{"type":"keypress","keys":["ENTER"],"element":7}"#,
    ] {
        let p = parse(bad);
        assert!(p.actions.is_empty() && !p.errors.is_empty(), "{bad}: {p:?}");
    }
}

/// A point that is no target is reported as the model wrote it, not as `[-1, -1]`.
#[test]
fn a_negative_point_is_reported_as_written() {
    let p = parse("click(-5,-7)");
    assert!(p.actions.is_empty(), "{p:?}");
    assert!(
        p.errors[0].contains("no target: [-5, -7] is not a place to act"),
        "{p:?}"
    );
    let p = parse("click(-0.5, -2)");
    assert!(p.errors[0].contains("[-0.5, -2]"), "{p:?}");
}

/// Exponents are numbers: `1e-308` is not `"1e" is not a number`, in calls and in strings.
#[test]
fn numbers_with_an_exponent_read() {
    let click = |x, y| crate::action::ActionKind::Click {
        x: Some(x),
        y: Some(y),
    };
    for text in [
        "click(1e-308, 5e2)",
        "click(1E-308, 5E+2)",
        "{\"action\": \"left_click\", \"coordinate\": \"(1e-308, 5e2)\"}",
        "Action: click(start_box='(1e-308,5e2)')",
    ] {
        let p = parse(text);
        assert_eq!(
            p.actions.iter().map(|a| a.kind.clone()).collect::<Vec<_>>(),
            [click(0, 500)],
            "{text}: {p:?}"
        );
        assert!(p.errors.is_empty(), "{text}: {p:?}");
    }
    // the `e` of a tag is no exponent
    let p = parse("Action: click(start_box='<|box_start|>(235,512)<|box_end|>')");
    assert_eq!(p.actions[0].kind, click(235, 512), "{p:?}");
}

/// An unknown scroll direction is an error in the calls dialect, as in json and anthropic:
/// never a scroll down.
#[test]
fn an_unknown_scroll_direction_is_an_error_in_every_dialect() {
    for word in ["scroll up", "upward", "dwn", "sideways"] {
        for text in [
            format!("scroll(500, 500, \"{word}\", 3)"),
            format!("scroll(\"{word}\")"),
            format!("scroll(500, 500, direction=\"{word}\")"),
            format!(
                "{{\"actions\": [{{\"name\": \"scroll\", \"x1\": 5, \"y1\": 5, \"direction\": \"{word}\"}}]}}"
            ),
            format!(
                "{{\"action\": \"scroll\", \"coordinate\": [5, 5], \"scroll_direction\": \"{word}\", \"scroll_amount\": 3}}"
            ),
        ] {
            let p = parse(&text);
            assert!(p.actions.is_empty(), "{text}: {p:?}");
            assert!(
                p.errors
                    .iter()
                    .any(|e| e.contains("is not up, down, left or right")),
                "{text}: {p:?}"
            );
        }
    }
    let p = parse("scroll(500, 500, up, 2)");
    assert!(
        matches!(
            p.actions[0].kind,
            crate::action::ActionKind::Scroll {
                direction: franz_desktop::ScrollDirection::Up,
                amount: 2,
                ..
            }
        ),
        "{p:?}"
    );
}
