//! The responder reads formats it was never told about: placeholders by shape, examples by
//! the action they show, schemas by their parameters.

use super::text::fill_text;
use super::*;
use serde_json::json;

fn request(system: &str, tools: Value, image: (u32, u32)) -> Value {
    use base64::Engine as _;
    let mut png = vec![0x89, b'P', b'N', b'G', 13, 10, 26, 10, 0, 0, 0, 13];
    png.extend_from_slice(b"IHDR");
    png.extend_from_slice(&image.0.to_be_bytes());
    png.extend_from_slice(&image.1.to_be_bytes());
    png.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0, 0]);
    let url = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    json!({"messages": [
        {"role": "system", "content": system},
        {"role": "user", "content": [{"type": "text", "text": "GOAL"},
                                      {"type": "image_url", "image_url": {"url": url}}]}],
        "tools": tools})
}

const CLICK: Intent = Intent::Click { fx: 0.25, fy: 0.5 };

#[test]
fn coordinate_placeholders_are_found_by_shape() {
    let cases = [
        ("left_click(x, y)", "left_click(7, 9)"),
        ("click(<x>, <y>)", "click(7, 9)"),
        ("click(start_box='(x1,y1)')", "click(start_box='(7,9)')"),
        ("click(start_box='(798,269)')", "click(start_box='(7,9)')"),
        ("pyautogui.click(x=X, y=Y)", "pyautogui.click(x=7, y=9)"),
        (
            r#"{"type": "click", "x": X, "y": Y}"#,
            r#"{"type": "click", "x": 7, "y": 9}"#,
        ),
        (
            r#"{"name": "click", "x1": 0, "y1": 0}"#,
            r#"{"name": "click", "x1": 7, "y1": 9}"#,
        ),
        (r#""coordinate": [500, 300]"#, r#""coordinate": [7, 9]"#),
    ];
    for (snippet, want) in cases {
        assert_eq!(
            text::calls_fill_point(snippet, (7.0, 9.0)).as_deref(),
            Some(want),
            "{snippet}"
        );
    }
    assert_eq!(text::calls_fill_point("wait(2)", (7.0, 9.0)), None);
}

#[test]
fn text_placeholders_are_the_text_argument() {
    let cases = [
        (r#"type("text to type")"#, r#"type("hi")"#),
        (r#"type("<text>")"#, r#"type("hi")"#),
        ("type(content='xxx')", "type(content='hi')"),
        ("pyautogui.write('text to type')", "pyautogui.write('hi')"),
        (
            r#"{"type": "type", "text": "text to type"}"#,
            r#"{"type": "type", "text": "hi"}"#,
        ),
    ];
    for (snippet, want) in cases {
        assert_eq!(fill_text(snippet, "hi").as_deref(), Some(want), "{snippet}");
    }
}

#[test]
fn a_call_grammar_is_answered_in_its_own_lines_and_space() {
    let prompt = "Coordinates are integers from 0 to 1000 on each axis.\n\
                  Answer with exactly ONE action:\n  left_click(x, y)   right_click(x, y)\n  \
                  type(\"text to type\")   press_key(\"keys\")   done(\"answer\")\nThen write the new story.";
    let req = request(prompt, json!(null), (1536, 864));
    assert_eq!(read_space(&req), Space::Norm1000);
    let click = answer(&req, &CLICK, Style::Asked).content;
    assert!(click.starts_with("left_click(250, 500)\n"), "{click}");
    let typed = answer(&req, &Intent::Type("hi".into()), Style::Asked).content;
    assert!(typed.starts_with("type(\"hi\")\n"), "{typed}");
    let done = answer(&req, &Intent::Finish("ok".into()), Style::Asked).content;
    assert!(done.starts_with("done(\"ok\")\n"), "{done}");
    let key = answer(&req, &Intent::Key("enter".into()), Style::Asked).content;
    assert!(key.starts_with("press_key(\"enter\")\n"), "{key}");
}

#[test]
fn a_pixel_example_is_filled_in_pixels_of_the_image_sent() {
    let prompt = "Coordinates are pixels of the screenshot, which is 1596x896 pixels.\n\
                  ## Output Format\nThought: ...\nAction: ...\n\
                  click(start_box='(x1,y1)')\ntype(content='xxx') # escape\n\
                  For example:\nThought: I click it.\nAction: click(start_box='(798,269)')\n\n\
                  When the goal is reached, write Action: finished(content='...') with the answer.";
    let req = request(prompt, json!(null), (1596, 896));
    assert_eq!(read_space(&req), Space::Pixels(1596, 896));
    let click = answer(&req, &CLICK, Style::Asked).content;
    assert!(
        click.ends_with("Action: click(start_box='(399,448)')"),
        "{click}"
    );
    assert!(click.starts_with("Thought: I see"), "{click}");
    let typed = answer(&req, &Intent::Type("hi".into()), Style::Asked).content;
    assert!(typed.ends_with("Action: type(content='hi')"), "{typed}");
    let done = answer(&req, &Intent::Finish("ok".into()), Style::Asked).content;
    assert!(done.ends_with("Action: finished(content='ok')"), "{done}");
}

#[test]
fn a_tool_schema_is_filled_from_its_parameters() {
    let computer = json!([{"type": "function", "function": {"name": "computer_use",
        "description": "The screen's resolution is 1000x1000.",
        "parameters": {"properties": {
            "action": {"enum": ["key", "type", "left_click", "terminate"], "type": "string"},
            "coordinate": {"type": "array"}, "text": {"type": "string"},
            "keys": {"type": "array"},
            "status": {"enum": ["success", "failure"], "type": "string"}},
            "required": ["action"], "type": "object"}}}]);
    let req = request("Act.", computer, (1600, 896));
    let click = answer(&req, &CLICK, Style::Asked);
    assert_eq!(
        click.tool_calls,
        [(
            "computer_use".to_string(),
            json!({"action": "left_click", "coordinate": [250, 500]})
        )]
    );
    let key = answer(&req, &Intent::Key("ctrl+s".into()), Style::Asked);
    assert_eq!(
        key.tool_calls,
        [(
            "computer_use".to_string(),
            json!({"action": "key", "keys": ["ctrl", "s"]})
        )]
    );
    let done = answer(&req, &Intent::Finish("ok".into()), Style::Asked);
    assert_eq!(
        done.tool_calls,
        [(
            "computer_use".to_string(),
            json!({"action": "terminate", "status": "success"})
        )]
    );
    // a function per action: the one that clicks at a point, its required text filled
    let franz = json!([
        {"type": "function", "function": {"name": "click_mouse", "parameters": {"properties": {}}}},
        {"type": "function", "function": {"name": "click_element", "parameters": {
            "properties": {"position": {"type": "array", "description": "[x, y] in 0..1000"},
                           "label": {"type": "string"}},
            "required": ["label"]}}}]);
    let req = request("Act.", franz, (1600, 896));
    let (name, args) = &answer(&req, &CLICK, Style::Asked).tool_calls[0];
    assert_eq!(name, "click_element");
    assert_eq!(args["position"], json!([250, 500]));
    assert!(args["label"].is_string());
}

/// A prompt in fractions (`--coords relative`, OpenCUA-A3B, ShowUI) is answered in decimals,
/// in its text grammar and in a tool schema alike.
#[test]
fn a_fractions_prompt_is_answered_in_decimals() {
    let prompt = "Coordinates are fractions from 0 to 1 on each axis of the screenshot, written as \
                  decimals.\n## Action space\n```python\npyautogui.click(x=0.5, y=0.5)\n```";
    let req = request(prompt, json!(null), (1288, 728));
    assert_eq!(read_space(&req), Space::Relative);
    let click = answer(
        &req,
        &Intent::Click {
            fx: 0.2531,
            fy: 0.5,
        },
        Style::Asked,
    )
    .content;
    assert!(
        click.contains("pyautogui.click(x=0.2531, y=0.5)"),
        "{click}"
    );
    let tool = json!([{"type": "function", "function": {"name": "click_element", "parameters": {
        "properties": {"position": {"type": "array",
            "description": "[x, y] in fractions 0..1 of the screen"}}}}}]);
    let req = request("Act.", tool, (1288, 728));
    let (_, args) = &answer(&req, &CLICK, Style::Asked).tool_calls[0];
    assert_eq!(args["position"], json!([0.25, 0.5]));
}

/// franz's tool schema in pixels (a grounding family's run with the tools strategy) also
/// says `list_windows`'s bounds are in 0..1000: the points are still pixels.
#[test]
fn a_pixel_tool_schema_is_answered_in_pixels_whatever_else_names_0_to_1000() {
    let tools = json!([
        {"type": "function", "function": {"name": "click_element", "parameters": {
            "properties": {"box": {"type": "array",
                "description": "where, in pixels of the 1932x1092 screenshot (x: 0 left, 1931 right; y: 0 top, 1091 bottom): a point [x, y]"}}}}},
        {"type": "function", "function": {"name": "list_windows",
            "description": "List the open windows: id, application, title, bounds [x1, y1, x2, y2] in 0..1000, and which one is focused.",
            "parameters": {"properties": {}}}}]);
    let req = request("Act.", tools, (1932, 1092));
    assert_eq!(read_space(&req), Space::Pixels(1932, 1092));
    let (_, args) = &answer(&req, &CLICK, Style::Asked).tool_calls[0];
    assert_eq!(args["box"], json!([483, 546]));
}
