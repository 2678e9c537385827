//! A reply in another dialect than the one the run asks for (`parser/fallback.rs`): read when
//! its numbers mean the same under the run's space, refused with both readings where they
//! disagree, with the replies real models write under the profiles users get by default.

use super::*;
use crate::action::ActionKind;
use crate::model::ToolCall;
use serde_json::json;

/// qwen3-vl: the Qwen dialect, 0..1000 read exactly.
const QWEN3: ParseOptions = ParseOptions {
    dialect: Some(Dialect::Qwen),
    coords: CoordMode::Exact(ImageSize::new(1000, 1000)),
};
/// qwen2.5-vl on a 1920x1080 screen: pixels of the 1288x728 image... as its profile sends.
const QWEN25: ParseOptions = ParseOptions {
    dialect: Some(Dialect::Qwen),
    coords: CoordMode::Exact(ImageSize::new(1288, 728)),
};
/// ui-tars-1.5, pixels of the image.
const UITARS: ParseOptions = ParseOptions {
    dialect: Some(Dialect::Uitars),
    coords: CoordMode::Exact(ImageSize::new(1288, 728)),
};
/// The franz profile's narrative: function-call lines in 0..1000.
const NARRATIVE: ParseOptions = ParseOptions {
    dialect: Some(Dialect::Calls),
    coords: CoordMode::Norm,
};
/// The franz profile's vision loop.
const VISION: ParseOptions = ParseOptions {
    dialect: Some(Dialect::Json),
    coords: CoordMode::Norm,
};

const CALLS_LINE: &str = "The OK button is in the middle.\nleft_click(499, 494)";
const VISION_JSON: &str = "{\"observation\": \"a dialog\", \"bboxes\": [], \"actions\": [{\"name\": \"click\", \"x1\": 499, \"y1\": 494}]}";
const UITARS_LINE: &str = "Thought: I click OK.\nAction: click(start_box='(499,494)')";
const QWEN_CALL: &str = "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [499, 494]}}\n</tool_call>";
const ANTHROPIC_JSON: &str = "{\"action\": \"left_click\", \"coordinate\": [499, 494]}";
const PYAUTOGUI: &str = "```python\npyautogui.click(x=499, y=494)\n```";

/// The reply read under `opts`: read in `d`, at the model's (499, 494), with the reminder.
fn read_in(text: &str, opts: &ParseOptions, d: Dialect) -> ParsedReply {
    let p = parse_text(text, opts);
    assert_eq!(p.dialect, d, "{text}: {p:?}");
    assert_eq!(p.actions.len(), 1, "{text}: {p:?}");
    let a = &p.actions[0];
    assert_eq!(a.read_in.as_deref(), Some(d.as_str()), "{p:?}");
    assert!(matches!(a.kind, ActionKind::Click { .. }), "{p:?}");
    assert_eq!(
        p.errors.len(),
        1,
        "only the reminder of the asked format: {p:?}"
    );
    assert!(p.errors[0].contains("answer in the asked format"), "{p:?}");
    p
}

/// The reply refused under `opts`: both readings and the settings that decide.
fn refused(text: &str, opts: &ParseOptions) -> String {
    let p = parse_text(text, opts);
    assert!(p.actions.is_empty(), "{text}: {p:?}");
    let e = p
        .errors
        .iter()
        .find(|e| e.contains(fallback::DISAGREE))
        .unwrap_or_else(|| panic!("{text}: {p:?}"))
        .clone();
    assert!(
        e.contains("--profile") && e.contains("--coords") && e.contains("read as 0..1000"),
        "{e}"
    );
    e
}

/// The issue's cases: under qwen3-vl (the default model id's profile) the designs' call lines
/// and vision JSON and UI-TARS's lines mean 0..1000 too, so they run, exactly.
#[test]
fn under_qwen3_the_designs_formats_run_exactly() {
    for (text, d) in [
        (CALLS_LINE, Dialect::Calls),
        (VISION_JSON, Dialect::Json),
        (UITARS_LINE, Dialect::Uitars),
    ] {
        let p = read_in(text, &QWEN3, d);
        let e = p.actions[0].exact.expect("the model's values are kept");
        assert_eq!(e.at.map(|v| [v[0].0, v[1].0]), Some([499.0, 494.0]));
    }
    let p = read_in(CALLS_LINE, &QWEN3, Dialect::Calls);
    assert_eq!(p.text, "The OK button is in the middle.");
}

/// Under qwen2.5-vl (pixels), the designs' 0..1000 formats disagree: nothing runs; UI-TARS's
/// and Anthropic's pixels agree.
#[test]
fn under_qwen25_pixels_the_designs_formats_disagree() {
    let e = refused(CALLS_LINE, &QWEN25);
    assert!(
        e.contains("read as 0..1000, (499, 494) is 50% across and 49% down the screen; read as pixels of the image, it is 39% across and 68% down"),
        "{e}"
    );
    refused(VISION_JSON, &QWEN25);
    read_in(UITARS_LINE, &QWEN25, Dialect::Uitars);
    read_in(PYAUTOGUI, &QWEN25, Dialect::Pyautogui);
    // Anthropic's action object is the shape of Qwen's arguments: Qwen reads it itself
    let p = parse_text(ANTHROPIC_JSON, &QWEN25);
    assert_eq!(
        (p.dialect, p.actions[0].read_in.clone()),
        (Dialect::Qwen, None)
    );
    // the vision JSON under UI-TARS, as a UI-TARS model id gets it
    refused(VISION_JSON, &UITARS);
}

/// Under franz's own narrative (0..1000), Qwen's and UI-TARS's calls mean the prompt's space;
/// Anthropic's and pyautogui's pixels disagree.
#[test]
fn under_the_franz_narrative_qwen_runs_and_pixels_disagree() {
    read_in(QWEN_CALL, &NARRATIVE, Dialect::Qwen);
    read_in(UITARS_LINE, &VISION, Dialect::Uitars);
    read_in(VISION_JSON, &NARRATIVE, Dialect::Json);
    // UI-TARS's click(...) is one of the calls the narrative reads itself
    let p = parse_text(UITARS_LINE, &NARRATIVE);
    assert_eq!(
        (p.dialect, p.actions[0].read_in.clone()),
        (Dialect::Calls, None)
    );
    read_in(CALLS_LINE, &VISION, Dialect::Calls);
    let e = refused(ANTHROPIC_JSON, &NARRATIVE);
    assert!(e.contains("whose size is not known here"), "{e}");
    refused(PYAUTOGUI, &NARRATIVE);
}

/// Structured tool calls of another dialect: a server turned text into a call of any name.
#[test]
fn tool_calls_of_another_dialect_are_checked_the_same_way() {
    let call = |name: &str, args: serde_json::Value| Reply {
        tool_calls: vec![ToolCall::new(name, args)],
        ..Reply::default()
    };
    let click_element = call("click_element", json!({"label": "OK", "box": [499, 494]}));
    let p = parse_reply(&click_element, &QWEN3);
    assert_eq!(p.actions[0].read_in.as_deref(), Some("tools"), "{p:?}");
    for opts in [QWEN25, UITARS] {
        let p = parse_reply(&click_element, &opts);
        assert!(p.actions.is_empty(), "{p:?}");
        assert!(p.errors[0].contains(fallback::DISAGREE), "{p:?}");
    }
    let qwen = call(
        "computer_use",
        json!({"action": "left_click", "coordinate": [499, 494]}),
    );
    let p = parse_reply(&qwen, &NARRATIVE);
    assert_eq!(p.actions[0].read_in.as_deref(), Some("qwen"), "{p:?}");
    // the asked dialect's own calls carry nothing
    let p = parse_reply(&qwen, &QWEN3);
    assert_eq!(p.actions[0].read_in, None, "{p:?}");
    assert!(p.errors.is_empty(), "{p:?}");
}

/// An action without coordinates means the same in every space; the reminder is given once
/// per reply, whatever the number of actions.
#[test]
fn actions_without_coordinates_run_and_the_reminder_comes_once() {
    let p = parse_text("type(\"hello\")\npress_key(\"enter\")", &UITARS);
    assert_eq!(p.actions.len(), 2, "{p:?}");
    assert!(
        p.actions
            .iter()
            .all(|a| a.read_in.as_deref() == Some("calls"))
    );
    assert_eq!(p.errors.len(), 1, "{p:?}");
}

/// What the asked dialect read stands: its refusals are not read again in another dialect,
/// nor is a reply under detection (which reads every dialect as its own).
#[test]
fn the_asked_dialects_own_reading_stands() {
    let far = "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [1500, 800]}}\n</tool_call>";
    let p = parse_text(far, &QWEN3);
    assert!(p.actions.is_empty(), "{p:?}");
    assert!(p.errors[0].contains("is outside 0..1000"), "{p:?}");
    let pyautogui = ParseOptions {
        dialect: Some(Dialect::Pyautogui),
        coords: CoordMode::Norm,
    };
    let p = parse_text("from pyautogui import click\nclick(1, 2)", &pyautogui);
    assert!(p.actions.is_empty(), "{p:?}");
    let auto = ParseOptions::default();
    let p = parse_text(ANTHROPIC_JSON, &auto);
    assert_eq!(p.actions[0].read_in, None, "{p:?}");
    assert!(p.errors.is_empty(), "{p:?}");
}

/// The streaming reader reads the asked dialect only: an action in another is performed once
/// the whole reply is read, never early (a later line in the asked dialect would win).
#[test]
fn the_streaming_reader_leaves_another_dialect_to_the_whole_reply() {
    let mut r = stream::StreamReader::new(NARRATIVE).unwrap();
    for piece in [QWEN_CALL, "\n", "The story.\n"] {
        assert_eq!(r.push(piece), None);
    }
    let whole = parse_text(&format!("{QWEN_CALL}\nThe story.\n"), &NARRATIVE);
    assert_eq!(whole.actions.len(), 1, "{whole:?}");
}
