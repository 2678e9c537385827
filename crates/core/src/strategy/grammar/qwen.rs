//! Qwen2.5-VL and Qwen3-VL: one `computer_use` function with an `action` enum, called in
//! `<tool_call>` blocks, after the family's published schema (source: docs/actions.md, "Where
//! each family grammar comes from"; Qwen2.5-VL's function lacks triple_click, hscroll and
//! answer). Qwen3-VL answers in 0..1000 with the resolution given as 1000x1000; Qwen2.5-VL in
//! pixels of the image sent.

use super::{Grammar, Space, tagged_tool_text};
use crate::model::Tool;
use crate::parser::Dialect;
use serde_json::json;

pub static GRAMMAR: Grammar = Grammar {
    dialect: Dialect::Qwen,
    tool_name: Some("computer_use"),
    tools,
    actions,
    tool_actions,
    text_where: "before the <tool_call> block",
    finish: Some(
        "say in one sentence what on the screen shows it, then call computer_use with action \"terminate\" and status \"success\" (or, when the task asks a question, action \"answer\" with the answer's text)",
    ),
    bare_finish: true,
};

const ACTIONS: &str = "The action to perform. The available actions are:
* `key`: Performs key down presses on the arguments passed in order, then performs key releases in reverse order.
* `type`: Type a string of text on the keyboard.
* `mouse_move`: Move the cursor to a specified (x, y) pixel coordinate on the screen.
* `left_click`: Click the left mouse button at a specified (x, y) pixel coordinate on the screen.
* `left_click_drag`: Click and drag the cursor to a specified (x, y) pixel coordinate on the screen.
* `right_click`: Click the right mouse button at a specified (x, y) pixel coordinate on the screen.
* `middle_click`: Click the middle mouse button at a specified (x, y) pixel coordinate on the screen.
* `double_click`: Double-click the left mouse button at a specified (x, y) pixel coordinate on the screen.
* `triple_click`: Triple-click the left mouse button at a specified (x, y) pixel coordinate on the screen.
* `scroll`: Performs a scroll of the mouse scroll wheel.
* `hscroll`: Performs a horizontal scroll.
* `wait`: Wait specified seconds for the change to happen.
* `terminate`: Terminate the current task and report its completion status.
* `answer`: Answer a question.";

fn description(space: Space) -> String {
    let (w, h) = space.resolution();
    format!(
        "Use a mouse and keyboard to interact with a computer, and take screenshots.
* This is an interface to a desktop GUI. You do not have access to a terminal or applications menu. You must click on desktop icons to start applications.
* Some applications may take time to start or process actions, so you may need to wait and take successive screenshots to see the results of your actions. E.g. if you click on Firefox and a window doesn't open, try wait and taking another screenshot.
* The screen's resolution is {w}x{h}.
* Whenever you intend to move the cursor to click on an element like an icon, you should consult a screenshot to determine the coordinates of the element before moving the cursor.
* If you tried clicking on a program or link but it failed to load, even after waiting, try adjusting your cursor position so that the tip of the cursor visually falls on the element that you want to click.
* Make sure to click any buttons, links, icons, etc with the cursor tip in the center of the element. Don't click boxes on their edges."
    )
}

/// The `computer_use` function.
pub fn tools(space: Space) -> Vec<Tool> {
    let parameters = json!({
        "properties": {
            "action": {
                "description": ACTIONS,
                "enum": ["key", "type", "mouse_move", "left_click", "left_click_drag",
                         "right_click", "middle_click", "double_click", "triple_click",
                         "scroll", "hscroll", "wait", "terminate", "answer"],
                "type": "string",
            },
            "keys": {"description": "Required only by `action=key`.", "type": "array"},
            "text": {"description": "Required only by `action=type` and `action=answer`.", "type": "string"},
            "coordinate": {
                "description": "(x, y): The x (pixels from the left edge) and y (pixels from the top edge) coordinates to move the mouse to.",
                "type": "array",
            },
            "pixels": {
                "description": "The amount of scrolling to perform. Positive values scroll up, negative values scroll down. Required only by `action=scroll` and `action=hscroll`.",
                "type": "number",
            },
            "time": {"description": "The seconds to wait. Required only by `action=wait`.", "type": "number"},
            "status": {
                "description": "The status of the task. Required only by `action=terminate`.",
                "type": "string",
                "enum": ["success", "failure"],
            },
        },
        "required": ["action"],
        "type": "object",
    });
    vec![Tool::function(
        "computer_use",
        &description(space),
        parameters,
    )]
}

/// The example call: placeholders, never values (docs/actions.md, "Placeholders in examples").
const EXAMPLE: &str = "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [x, y]}}\n</tool_call>";

/// The function's signature and the `<tool_call>` form, as Qwen's chat template writes them.
pub fn actions(space: Space) -> String {
    let tool = tools(space).remove(0);
    format!(
        "# Tools\n\n{}\n\nFor example (write numbers in place of x and y):\n{}",
        tagged_tool_text(&tool),
        EXAMPLE
    )
}

/// With the schema sent as a tool.
pub fn tool_actions(_space: Space) -> String {
    format!(
        "Act by calling the computer_use function (its actions: key, type, mouse_move, left_click, left_click_drag, right_click, middle_click, double_click, triple_click, scroll, hscroll, wait, terminate, answer). If you cannot call functions, write the call in your reply instead, e.g.\n{EXAMPLE}"
    )
}
