use super::*;
use serde_json::json;

#[test]
fn names_are_placeholders_in_any_case_and_text_in_brackets() {
    for n in [
        "x", "Y", "x1", "y3", "amount", "seconds", "text", "keys", "xxx",
    ] {
        assert!(is_name(n), "{n}");
    }
    for n in ["left", "down", "click", "x4", "ok"] {
        assert!(!is_name(n), "{n}");
    }
    for t in [
        "text",
        "<text>",
        "{result}",
        "answer",
        "text to type",
        "XXX",
        "...",
    ] {
        assert!(is_text(t), "{t}");
    }
    for t in ["x", "hello", "text me", "ctrl+s"] {
        assert!(!is_text(t), "{t}");
    }
}

#[test]
fn names_in_a_position_are_found_and_numbers_are_not() {
    assert_eq!(names_in(&json!("x1")), vec!["x1"]);
    assert_eq!(names_in(&json!("(x1,y1)")), vec!["x1", "y1"]);
    assert_eq!(names_in(&json!(["x", "y"])), vec!["x", "y"]);
    assert_eq!(names_in(&json!("<point>x y</point>")), vec!["x", "y"]);
    assert_eq!(names_in(&json!({"x": "x", "y": 5})), vec!["x"]);
    assert!(names_in(&json!("<point>5 7</point>")).is_empty());
    assert!(names_in(&json!("<|box_start|>(5,7)<|box_end|>")).is_empty());
    assert!(names_in(&json!([1e-308, "5e2", -5])).is_empty());
    assert_eq!(names_in(&json!("OK button")), vec!["OK", "button"]);
}

#[test]
fn the_examples_of_a_text_are_its_calls_and_objects_with_placeholders() {
    let prompt = "Answer with one call:\n  left_click(x, y)   drag(x1, y1, x2, y2)\n  type(\"text\")  wait()\nThe point (0,0) is the top-left pixel; it's fine.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [x, y]}}\n</tool_call>\nAction: click(start_box='(x1,y1)')\npyautogui.click(x=x, y=y)\nFor example: left_click(500, 300)";
    let found = examples(prompt);
    let texts: Vec<&str> = found.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "left_click(x, y)",
            "drag(x1, y1, x2, y2)",
            "type(\"text\")",
            "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [x, y]}}\n</tool_call>",
            "click(start_box='(x1,y1)')",
            "pyautogui.click(x=x, y=y)",
            "left_click(500, 300)",
        ]
    );
    assert_eq!(found[3].placeholders, ["x", "y"]);
    assert_eq!(found[4].placeholders, ["(x1,y1)"]);
    assert_eq!(found[5].placeholders, ["x", "y"]);
    assert!(found[6].placeholders.is_empty());
    assert_eq!(found[6].numbers, ["500", "300"]);
    for e in &found {
        assert_eq!(&prompt[e.span.clone()], e.text);
    }
}

#[test]
fn fill_replaces_values_never_keys_or_names() {
    let v = |n: &str| match n {
        "x" | "x1" => Some("5".to_string()),
        "y" | "y1" => Some("7".to_string()),
        "text" => Some("hi".to_string()),
        "direction" => Some("down".to_string()),
        "amount" => Some("3".to_string()),
        _ => None,
    };
    assert_eq!(fill("left_click(x, y)", v), "left_click(5, 7)");
    assert_eq!(
        fill("{\"name\": \"click\", \"x1\": x1, \"y1\": y1}", v),
        "{\"name\": \"click\", \"x1\": 5, \"y1\": 7}"
    );
    assert_eq!(
        fill("click(start_box='(x1,y1)')", v),
        "click(start_box='(5,7)')"
    );
    assert_eq!(
        fill("pyautogui.click(x=x, y=y)", v),
        "pyautogui.click(x=5, y=7)"
    );
    assert_eq!(
        fill("scroll(x, y, \"direction\", amount)", v),
        "scroll(5, 7, \"down\", 3)"
    );
    assert_eq!(
        fill("{\"type\": \"type\", \"text\": \"text\"}", v),
        "{\"type\": \"type\", \"text\": \"hi\"}"
    );
}

#[test]
fn a_refusal_says_the_reply_repeated_the_example_or_gave_a_name() {
    let r = refusal("left_click", &["x".into(), "y".into()]);
    assert!(r.contains(ECHO) && r.contains("(x, y)"), "{r}");
    let r = refusal("click", &["OK".into()]);
    assert!(r.contains("OK is a name, not a value"), "{r}");
    assert_eq!(echoed("left_click(x, y)"), ["x", "y"]);
    assert!(echoed("left_click(5, 7) and a note (x, y)").is_empty());
}

/// The scanner is one pass: a megabyte of open brackets, quotes and names is read in one go.
#[test]
fn adversarial_text_is_scanned_once() {
    let mut s = String::new();
    for _ in 0..100_000 {
        s.push_str("a({[\"x");
    }
    assert!(examples(&s).is_empty());
    let s = "left_click(x, y) ".repeat(50_000);
    assert_eq!(examples(&s).len(), 50_000);
}

/// A call whose values are names the parser does not know as placeholders is found too, so
/// that a prompt showing one fails the round-trip test; a chat template's `<slot>` is no name.
#[test]
fn other_names_in_an_example_are_reported() {
    let found = examples("left_click(px, py) and {\"name\": <function-name>}");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].names, ["px", "py"]);
    assert!(examples("{\"a\": true, \"b\": None}").is_empty());
}
