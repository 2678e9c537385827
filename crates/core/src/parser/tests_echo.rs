//! A reply that repeats a prompt's example (its placeholders, docs/actions.md "Placeholders in
//! examples") acts nowhere, in every dialect, forced or detected, and in the streaming reader:
//! the reply is told it repeated the example. Real model echoes: `left_click(x, y)` (echoed
//! from the narrative grammar, clicked at the pointer before), `left_click(x1, y1)` (clicked
//! at (1, 1)), UI-TARS's `start_box='(x1,y1)'` (clicked at (1, 1)).

use super::*;
use crate::action::ActionKind;
use crate::model::ToolCall;
use crate::placeholder::ECHO;
use serde_json::json;

/// `reply` read with `dialect` (None: detected): no action, and the echo named.
fn refused(reply: &Reply, dialect: Option<Dialect>) {
    let opts = ParseOptions {
        dialect,
        coords: CoordMode::Norm,
    };
    let p = parse_reply(reply, &opts);
    assert!(p.actions.is_empty(), "{dialect:?}: {reply:?} -> {p:?}");
    assert!(
        p.errors.iter().any(|e| e.contains(ECHO)),
        "{dialect:?}: {reply:?} -> {p:?}"
    );
}

/// Echoes as models write them, with the dialect each is written in.
const ECHOES: &[(&str, Dialect)] = &[
    ("left_click(x, y)", Dialect::Calls),
    ("left_click(x1, y1)", Dialect::Calls),
    ("click(<x>, <y>)", Dialect::Calls),
    ("I will click.\nright_click(X, Y)", Dialect::Calls),
    ("drag(x1, y1, x2, y2)", Dialect::Calls),
    ("scroll(x, y, \"down\", 3)", Dialect::Calls),
    ("scroll(x, y, \"direction\", amount)", Dialect::Calls),
    ("type(\"text to type\")", Dialect::Calls),
    ("type(\"text\")", Dialect::Calls),
    ("press_key(\"keys\")", Dialect::Calls),
    ("wait(seconds)", Dialect::Calls),
    ("done(\"answer\")", Dialect::Calls),
    ("done(\"result\")", Dialect::Calls),
    (
        "{\"observation\": \"o\", \"actions\": [{\"name\": \"click\", \"x1\": x1, \"y1\": y1}]}",
        Dialect::Json,
    ),
    (
        "{\"observation\": \"o\", \"actions\": [{\"name\": \"click\", \"x1\": \"x1\", \"y1\": \"y1\"}]}",
        Dialect::Json,
    ),
    (
        "{\"actions\": [{\"name\": \"type\", \"text\": \"text\"}]}",
        Dialect::Json,
    ),
    (
        "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [x, y]}}\n</tool_call>",
        Dialect::Qwen,
    ),
    (
        "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [\"x\", \"y\"]}}\n</tool_call>",
        Dialect::Qwen,
    ),
    (
        "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"type\", \"text\": \"text\"}}\n</tool_call>",
        Dialect::Qwen,
    ),
    (
        "<tool_call>\n{\"name\": \"click_element\", \"arguments\": {\"label\": \"OK\", \"box\": \"[x, y]\"}}\n</tool_call>",
        Dialect::Tools,
    ),
    (
        "Thought: I click it.\nAction: click(start_box='(x1,y1)')",
        Dialect::Uitars,
    ),
    (
        "Thought: drag.\nAction: drag(start_box='(x1,y1)', end_box='(x3,y3)')",
        Dialect::Uitars,
    ),
    ("Thought: t\nAction: type(content='xxx')", Dialect::Uitars),
    (
        "<seed:tool_call><function=click><parameter=point><point>x y</point></parameter></function></seed:tool_call>",
        Dialect::Uitars,
    ),
    (
        "{\"action\": \"left_click\", \"coordinate\": [\"x\", \"y\"]}",
        Dialect::Anthropic,
    ),
    (
        "{\"type\": \"click\", \"button\": \"left\", \"x\": x, \"y\": y}",
        Dialect::Openai,
    ),
    (
        "{\"type\": \"click\", \"button\": \"left\", \"x\": \"X\", \"y\": \"Y\"}",
        Dialect::Openai,
    ),
    (
        "```python\npyautogui.click(x=x, y=y)\n```",
        Dialect::Pyautogui,
    ),
    ("pyautogui.write('text')", Dialect::Pyautogui),
    ("<action>Wait(seconds)</action>", Dialect::Venus),
    ("<action>Wait(seconds=seconds)</action>", Dialect::Venus),
    ("<action>Type(content='text')</action>", Dialect::Venus),
    ("<action>Click(box=(x,y))</action>", Dialect::Venus),
];

#[test]
fn a_repeated_example_acts_nowhere_in_every_dialect() {
    for (text, d) in ECHOES {
        let reply = Reply::text(*text);
        refused(&reply, Some(*d));
        refused(&reply, None);
    }
}

#[test]
fn a_repeated_example_in_a_structured_tool_call_acts_nowhere() {
    for (name, args) in [
        (
            "computer_use",
            json!({"action": "left_click", "coordinate": ["x", "y"]}),
        ),
        (
            "computer",
            json!({"action": "left_click", "coordinate": "[x, y]"}),
        ),
        ("click_element", json!({"label": "OK", "box": ["x1", "y1"]})),
        ("move_mouse", json!({"x": "x", "y": "y"})),
        ("type_text", json!({"text": "text"})),
        (
            "computer_use_preview",
            json!({"type": "click", "x": "x", "y": "y"}),
        ),
    ] {
        let reply = Reply {
            tool_calls: vec![ToolCall::new(name, args)],
            ..Reply::default()
        };
        refused(&reply, None);
    }
}

/// A name where a value belongs is no value, placeholder or not: never a click at the pointer
/// (`click("OK")`) nor at the digits of a name.
#[test]
fn a_name_is_no_value() {
    for text in ["click(\"OK\")", "left_click(xpos, ypos)", "move(center)"] {
        let p = parse_text(text, &ParseOptions::default());
        assert!(p.actions.is_empty(), "{text}: {p:?}");
        assert!(
            p.errors
                .iter()
                .any(|e| e.contains("is a name, not a value")),
            "{text}: {p:?}"
        );
    }
    // a label beside the numbers stays allowed, and a click without arguments is the pointer
    let p = parse_text(
        "left_click(5, 7, \"OK\")\nclick()",
        &ParseOptions::default(),
    );
    assert_eq!(
        p.actions.iter().map(|a| a.kind.clone()).collect::<Vec<_>>(),
        [
            ActionKind::Click {
                x: Some(5),
                y: Some(7)
            },
            ActionKind::Click { x: None, y: None }
        ]
    );
}

/// The streaming reader reads with the dialect's own parser: an echoed example never runs
/// early.
#[test]
fn the_streaming_reader_never_runs_an_echo() {
    for (text, d) in ECHOES {
        let Some(mut r) = stream::StreamReader::new(ParseOptions {
            dialect: Some(*d),
            coords: CoordMode::Norm,
        }) else {
            continue;
        };
        for piece in [*text, "\n", "The story goes on.\n"] {
            assert_eq!(r.push(piece), None, "{d}: {text}");
        }
    }
}
