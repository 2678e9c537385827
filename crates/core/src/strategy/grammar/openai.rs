//! OpenAI's computer-use actions: `computer_call` action objects (`click`, `double_click`,
//! `drag`, `keypress`, `move`, `scroll`, `type`, `wait`, `screenshot`), relayed through an
//! OpenAI-compatible chat server as one function whose arguments are the action object, after
//! the family's published types (source: docs/actions.md, "Where each family grammar comes
//! from"). OpenAI's computer-use models answer in pixels of the image sent.

use super::{Grammar, Space};
use crate::model::Tool;
use crate::parser::Dialect;
use serde_json::json;

pub static GRAMMAR: Grammar = Grammar {
    dialect: Dialect::Openai,
    tool_name: Some("computer_use_preview"),
    tools,
    actions,
    tool_actions,
    text_where: "before the JSON action objects",
    finish: None,
    bare_finish: false,
};

const TYPES: [&str; 9] = [
    "click",
    "double_click",
    "drag",
    "keypress",
    "move",
    "scroll",
    "type",
    "wait",
    "screenshot",
];

/// The `computer_use_preview` function: its arguments are one action object.
pub fn tools(space: Space) -> Vec<Tool> {
    let (w, h) = space.resolution();
    let point = json!({
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
        "required": ["x", "y"],
    });
    let parameters = json!({
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": TYPES, "description": "The action."},
            "button": {"type": "string", "enum": ["left", "right", "wheel"], "description": "click: which button."},
            "x": {"type": "integer", "description": "click, double_click, move, scroll: x of the point."},
            "y": {"type": "integer", "description": "click, double_click, move, scroll: y of the point."},
            "path": {"type": "array", "items": point, "description": "drag: the points from start to end."},
            "keys": {"type": "array", "items": {"type": "string"}, "description": "keypress: the keys pressed together, e.g. [\"CTRL\", \"S\"]."},
            "text": {"type": "string", "description": "type: the text to type."},
            "scroll_x": {"type": "integer", "description": "scroll: horizontal pixels (positive: right)."},
            "scroll_y": {"type": "integer", "description": "scroll: vertical pixels (positive: down)."},
        },
        "required": ["type"],
    });
    vec![Tool::function(
        "computer_use_preview",
        &format!(
            "Perform one computer action on the {w}x{h} display (environment: linux); a screenshot follows every action."
        ),
        parameters,
    )]
}

/// The example action object: placeholders, never values (docs/actions.md, "Placeholders in
/// examples").
const EXAMPLE: &str = "{\"type\": \"click\", \"button\": \"left\", \"x\": x, \"y\": y}";

/// Action objects written as JSON in the reply.
pub fn actions(_space: Space) -> String {
    format!(
        "Write each action as one JSON action object on its own line, with values in place of the names:
{{\"type\": \"click\", \"button\": \"left\", \"x\": x, \"y\": y}}  (button: left, right or wheel)
{{\"type\": \"double_click\", \"x\": x, \"y\": y}}
{{\"type\": \"move\", \"x\": x, \"y\": y}}
{{\"type\": \"drag\", \"path\": [{{\"x\": x1, \"y\": y1}}, {{\"x\": x2, \"y\": y2}}]}}
{{\"type\": \"scroll\", \"x\": x, \"y\": y, \"scroll_x\": scroll_x, \"scroll_y\": scroll_y}}  (pixels; positive scroll_y is down)
{{\"type\": \"keypress\", \"keys\": [\"keys\"]}}  (the keys pressed together, such as CTRL and S)
{{\"type\": \"type\", \"text\": \"text\"}}
{{\"type\": \"wait\"}}
For example:
{EXAMPLE}"
    )
}

/// With the schema sent as a tool.
pub fn tool_actions(_space: Space) -> String {
    format!(
        "Act by calling the computer_use_preview function with one action object ({}). If you cannot call functions, write the action object in your reply instead, e.g.\n{EXAMPLE}",
        TYPES.join(", "),
    )
}
