//! Anthropic's `computer` tool: one function with an `action` and its parameters, relayed
//! through an OpenAI-compatible chat server as a function, after the family's published tool
//! (source: docs/actions.md, "Where each family grammar comes from"). Anthropic's models
//! answer in pixels of the image sent.

use super::{Grammar, Space, tagged_tool_text};
use crate::model::Tool;
use crate::parser::Dialect;
use serde_json::json;

pub static GRAMMAR: Grammar = Grammar {
    dialect: Dialect::Anthropic,
    tool_name: Some("computer"),
    tools,
    actions,
    tool_actions,
    text_where: "before the <tool_call> block",
    finish: None,
    bare_finish: false,
};

const ACTIONS: [&str; 16] = [
    "key",
    "hold_key",
    "type",
    "cursor_position",
    "mouse_move",
    "left_mouse_down",
    "left_mouse_up",
    "left_click",
    "left_click_drag",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "scroll",
    "wait",
    "screenshot",
];

/// The `computer` function.
pub fn tools(space: Space) -> Vec<Tool> {
    let (w, h) = space.resolution();
    let parameters = json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ACTIONS, "description": "The action to perform."},
            "coordinate": {"type": "array", "items": {"type": "integer"}, "description": "[x, y]: where to click, move, scroll or end a drag."},
            "start_coordinate": {"type": "array", "items": {"type": "integer"}, "description": "[x, y]: where a left_click_drag starts."},
            "text": {"type": "string", "description": "The text to type, or the key combination for key and hold_key in xdotool style (e.g. \"ctrl+s\", \"Return\")."},
            "scroll_direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
            "scroll_amount": {"type": "integer", "description": "How many wheel notches to scroll."},
            "duration": {"type": "number", "description": "Seconds, for wait and hold_key."},
        },
        "required": ["action"],
    });
    vec![Tool::function(
        "computer",
        &format!(
            "Use a mouse and keyboard to interact with a computer, and take screenshots. The display is {w}x{h}."
        ),
        parameters,
    )]
}

/// The example call: placeholders, never values (docs/actions.md, "Placeholders in examples").
const EXAMPLE: &str = "<tool_call>\n{\"name\": \"computer\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [x, y]}}\n</tool_call>";

/// The tool's signature and the `<tool_call>` form.
pub fn actions(space: Space) -> String {
    let tool = tools(space).remove(0);
    format!(
        "Act with the computer tool (actions: {}).\n{}\n\nFor example (write numbers in place of x and y):\n{}",
        ACTIONS.join(", "),
        tagged_tool_text(&tool),
        EXAMPLE
    )
}

/// With the schema sent as a tool.
pub fn tool_actions(_space: Space) -> String {
    format!(
        "Act by calling the computer tool (actions: {}). If you cannot call functions, write the call in your reply instead, e.g.\n{EXAMPLE}",
        ACTIONS.join(", "),
    )
}
