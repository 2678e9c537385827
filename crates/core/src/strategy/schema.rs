//! The function-calling tool schemas of docs/designs.md: tool calling (the tools strategy) and
//! commander (the commander's leader and operator), and the JSON payloads tool results are answered
//! with.

use super::grammar::Space;
use crate::action::{ActionError, ActionResult, ErrorKind};
use crate::model::Tool;
use serde_json::{Value, json};

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn box_param(space: Space) -> Value {
    json!({
        "type": "array",
        "items": {},
        "description": format!(
            "where, in {}: a point [x, y] (preferred for small targets), a box [x1, y1, x2, y2] or [[x1, y1], [x2, y2]]",
            space.range()
        )
    })
}

fn element_param() -> Value {
    json!({
        "type": "integer",
        "description": "instead of box: the number of an element in this turn's ELEMENTS list (when the request has one)"
    })
}

fn element(name: &str, what: &str, space: Space) -> Tool {
    Tool::function(
        name,
        &format!("{what} the UI element at the box's centre (or the listed element's)."),
        object(
            json!({
                "label": {"type": "string", "description": "what the element is, e.g. 'OK button'"},
                "box": box_param(space),
                "element": element_param(),
            }),
            &["label"],
        ),
    )
}

/// docs/designs.md (tool calling): observe_screen, click_element, type_text, press_key,
/// scroll_at_position, move_mouse, click_mouse, double/right click and drag; positions in
/// `space`, the space the run's replies are read in.
pub fn tools_strategy(space: Space) -> Vec<Tool> {
    vec![
        Tool::function(
            "observe_screen",
            "Take a new screenshot of the screen (one also comes after every action).",
            object(json!({}), &[]),
        ),
        element("click_element", "Left-click", space),
        element("double_click_element", "Double-click", space),
        element("right_click_element", "Right-click", space),
        Tool::function(
            "drag_element",
            "Press the left button at start, move to end and release.",
            object(
                json!({"label": {"type": "string"}, "start": box_param(space), "end": box_param(space)}),
                &["start", "end"],
            ),
        ),
        Tool::function(
            "type_text",
            "Type text into the focused input field (click it first), or into the listed element given.",
            object(
                json!({"text": {"type": "string"}, "element": element_param()}),
                &["text"],
            ),
        ),
        Tool::function(
            "press_key",
            "Press a key or a combination: enter, tab, escape, backspace, ctrl+c, alt+f4, ...",
            object(json!({"key": {"type": "string"}}), &["key"]),
        ),
        Tool::function(
            "scroll_at_position",
            "Move the pointer to the box and scroll down there.",
            object(json!({"box": box_param(space)}), &["box"]),
        ),
        Tool::function(
            "move_mouse",
            &format!("Move the pointer to x, y in {}.", space.range()),
            object(
                json!({"x": {"type": "number"}, "y": {"type": "number"}}),
                &["x", "y"],
            ),
        ),
        Tool::function(
            "click_mouse",
            "Left-click at the pointer's position.",
            object(json!({}), &[]),
        ),
        Tool::function(
            "list_windows",
            "List the open windows: id, application, title, bounds [x1, y1, x2, y2] in 0..1000, and which one is focused.",
            object(json!({}), &[]),
        ),
        Tool::function(
            "focus_window",
            "Bring a window to the front and give it the keyboard focus.",
            object(
                json!({"window": {"type": "string", "description": "part of the window's title or application, or its id from list_windows"}}),
                &["window"],
            ),
        ),
    ]
}

/// The tools whose calls may name a target in words in place of their point (the element
/// clicks and `move_mouse`; `parser/tools.rs` reads the argument).
pub const TARGET_TOOLS: [&str; 4] = [
    "click_element",
    "double_click_element",
    "right_click_element",
    "move_mouse",
];

/// `tools` with a `target` argument declared on each of [`TARGET_TOOLS`], when a grounding
/// model is configured (`targets`, docs/grounding.md), so that a model that follows the schema
/// (or is constrained to it, `reply_format::of_tools`) can write it; unchanged without one.
pub fn with_targets(mut tools: Vec<Tool>, targets: bool) -> Vec<Tool> {
    if !targets {
        return tools;
    }
    for tool in &mut tools {
        if !TARGET_TOOLS.contains(&tool.function.name.as_str()) {
            continue;
        }
        let properties = tool.function.parameters.get_mut("properties");
        if let Some(p) = properties.and_then(Value::as_object_mut) {
            p.insert(
                "target".into(),
                json!({
                    "type": "string",
                    "description": "the element in your own words, in place of its position: a grounding model finds it"
                }),
            );
        }
    }
    tools
}

fn justified(name: &str, description: &str, mut props: Value, required: &[&str]) -> Tool {
    if let Some(map) = props.as_object_mut() {
        map.insert(
            "justification".into(),
            json!({"type": "string", "description": "why this action, in one sentence"}),
        );
    }
    let mut req = vec!["justification"];
    req.extend_from_slice(required);
    Tool::function(name, description, object(props, &req))
}

fn position(space: Space) -> Value {
    json!({"type": "array", "items": {"type": "number"}, "description": format!("[x, y] in {}", space.range())})
}

/// docs/designs.md (commander): the operator, one of these per turn, each with a justification;
/// positions in `space`.
pub fn operator(space: Space) -> Vec<Tool> {
    let click = |name: &str, what: &str| {
        justified(
            name,
            &format!("{what} the element at position (or the listed element's centre)."),
            json!({"label": {"type": "string"}, "position": position(space), "element": element_param()}),
            &["label"],
        )
    };
    vec![
        click("click_element", "Left-click"),
        click("double_click_element", "Double-click"),
        click("right_click_element", "Right-click"),
        justified(
            "drag_element",
            "Drag from start to end.",
            json!({"label": {"type": "string"}, "start": position(space), "end": position(space)}),
            &["start", "end"],
        ),
        justified(
            "type_text",
            "Type text into the focused field, or into the listed element given.",
            json!({"text": {"type": "string"}, "element": element_param()}),
            &["text"],
        ),
        justified(
            "press_key",
            "Press a key or combination (enter, escape, ctrl+s, ...).",
            json!({"key": {"type": "string"}}),
            &["key"],
        ),
        justified("scroll_down", "Scroll down at the pointer.", json!({}), &[]),
        justified("scroll_up", "Scroll up at the pointer.", json!({}), &[]),
        Tool::function(
            "report_progress",
            "Report an objective's status: DONE or BLOCKED hands control back to the leader.",
            object(
                json!({
                    "objective_id": {"type": "string"},
                    "status": {"type": "string", "enum": ["DONE", "BLOCKED", "IN_PROGRESS"]},
                    "evidence": {"type": "string", "description": "what on the screen shows it"},
                }),
                &["objective_id", "status", "evidence"],
            ),
        ),
        Tool::function(
            "report_completion",
            "The whole mission is complete. Evidence must describe in detail (at least 100 characters) what on the screen proves it.",
            object(json!({"evidence": {"type": "string"}}), &["evidence"]),
        ),
    ]
}

/// docs/designs.md (commander): the leader, spawn_operator and compress_memory.
pub fn leader() -> Vec<Tool> {
    vec![
        Tool::function(
            "spawn_operator",
            "Give the operator its instructions (switches to EXECUTION).",
            object(
                json!({
                    "operator_instructions": {"type": "string", "description": "the concrete next objective and how to reach it"},
                    "rationale": {"type": "string", "description": "the plan behind it"},
                }),
                &["operator_instructions"],
            ),
        ),
        Tool::function(
            "compress_memory",
            "Compress the active history into a snapshot; the archived turns leave the context.",
            object(
                json!({
                    "compression_summary": {"type": "string", "description": "what was achieved so far"},
                    "loop_analysis": {"type": "string", "description": "a repeating pattern of failed actions, or 'none'"},
                    "archived_turns": {"type": "array", "items": {"type": "integer"}},
                }),
                &["compression_summary", "loop_analysis"],
            ),
        ),
    ]
}

/// `{"ok": true, ...}` with the action's warnings.
pub fn ok_payload(extra: Value) -> String {
    let mut v = json!({"ok": true});
    if let (Some(map), Value::Object(e)) = (v.as_object_mut(), extra) {
        map.extend(e);
    }
    v.to_string()
}

/// `{"ok": false, "error": {"type": ..., "message": ...}}`.
pub fn err_payload(kind: &str, message: &str) -> String {
    json!({"ok": false, "error": {"type": kind, "message": message}}).to_string()
}

/// The payload of an action's result.
pub fn result_payload(result: &ActionResult) -> String {
    match result {
        ActionResult::Ok { warnings } if warnings.is_empty() => ok_payload(json!({})),
        ActionResult::Ok { warnings } => ok_payload(json!({"warnings": warnings})),
        ActionResult::Error(ActionError { kind, message }) => err_payload(kind.as_str(), message),
    }
}

/// The error answered to a tool call beyond the first of a reply.
pub fn too_many_tool_calls() -> String {
    err_payload(
        ErrorKind::TooManyToolCalls.as_str(),
        "only one tool call is executed per step; this one was not: call it again next step",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operator_action_tool_requires_a_justification() {
        let tools = operator(Space::Norm1000);
        assert_eq!(tools.len(), 10);
        for t in tools.iter().take(8) {
            let v = serde_json::to_value(t).unwrap();
            let req = v["function"]["parameters"]["required"].as_array().unwrap();
            assert!(req.iter().any(|r| r == "justification"), "{v}");
        }
    }

    #[test]
    fn payloads_are_json() {
        let v: Value = serde_json::from_str(&too_many_tool_calls()).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["type"], "too_many_tool_calls");
        let v: Value = serde_json::from_str(&result_payload(&ActionResult::ok())).unwrap();
        assert_eq!(v, json!({"ok": true}));
    }
}
