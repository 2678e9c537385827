//! UI-TARS-1.5: `Thought: ...` then `Action: ...` lines, text only (no tool schema), after the
//! family's published COMPUTER_USE prompt with the `start_box='(x,y)'` points UI-TARS-1.5
//! answers with (source: docs/actions.md, "Where each family grammar comes from"). UI-TARS-1.5
//! answers in pixels of the image sent.

use super::{Grammar, Space};
use crate::model::Tool;
use crate::parser::Dialect;

pub static GRAMMAR: Grammar = Grammar {
    dialect: Dialect::Uitars,
    tool_name: None,
    tools,
    actions,
    tool_actions: actions,
    text_where: "in the Thought part",
    finish: Some(
        "write Action: finished(content='...') with what on the screen shows it (or the answer the task asks for)",
    ),
    bare_finish: false,
};

/// No tool schema: UI-TARS acts in its text.
pub fn tools(_space: Space) -> Vec<Tool> {
    Vec::new()
}

/// The output format and the action space, after the family's prompt; its examples hold
/// placeholders, never values (docs/actions.md, "Placeholders in examples").
pub fn actions(_space: Space) -> String {
    "## Output Format
```
Thought: ...
Action: ...
```

## Action Space
click(start_box='(x1,y1)')
left_double(start_box='(x1,y1)')
right_single(start_box='(x1,y1)')
drag(start_box='(x1,y1)', end_box='(x3,y3)')
hotkey(key='keys') # keys: split keys with a space and use lowercase, such as ctrl c. Also, do not use more than 3 keys in one hotkey action.
type(content='xxx') # Use escape characters \\', \\\", and \\n in content part to ensure we can parse the content in normal python string format. If you want to submit your input, use \\n at the end of content.
scroll(start_box='(x1,y1)', direction='direction') # direction: down, up, right or left. Show more information on the `direction` side.
wait() #Sleep for 5s and take a screenshot to check for any changes.
finished(content='xxx') # Use escape characters \\', \\\", and \\n in content part to ensure we can parse the content in normal python string format.
call_user() # Submit the task and call the user when the task is unsolvable, or when you need the user's help.

## Note
- Write a small plan and finally summarize your next action (with its target element) in one sentence in `Thought` part.
- Write numbers in place of x1, y1 (and x3, y3) and your text in place of xxx.

For example:
Thought: The Save button is in the dialog's lower half; I click it.
Action: click(start_box='(x1,y1)')"
        .to_string()
}
