//! pyautogui code as OSWorld-style agents write it, after OSWorld's published action space
//! (source: docs/actions.md, "Where each family grammar comes from").
//! Text only (no tool schema); the parser reads it as `Dialect::Pyautogui`. pyautogui clicks
//! are in pixels of the image sent.

use super::{Grammar, Space};
use crate::model::Tool;
use crate::parser::Dialect;

pub static GRAMMAR: Grammar = Grammar {
    dialect: Dialect::Pyautogui,
    tool_name: None,
    tools,
    actions,
    tool_actions: actions,
    text_where: "in a comment before the code block",
    finish: Some("say in the comment what on the screen shows it, then return ```DONE```"),
    bare_finish: true,
};

/// No tool schema: pyautogui code is written in the text.
pub fn tools(_space: Space) -> Vec<Tool> {
    Vec::new()
}

/// The action section, with the coordinate sentence and an example point in `space`.
pub fn actions(space: Space) -> String {
    let (x, y) = space.point(0.5, 0.3);
    ACTIONS
        .replace("{coords}", &space.wording())
        .replace("x=512, y=300", &format!("x={x}, y={y}"))
}

/// The action section; `{coords}` is the coordinate sentence (`Space::wording`).
pub const ACTIONS: &str = r#"Act with python code that uses `pyautogui`, grounded on the screenshot. {coords}
Return one line or several lines of code in one code block (example at the end).
The functions you may use:
pyautogui.click(x=X, y=Y)               pyautogui.doubleClick(x=X, y=Y)      pyautogui.rightClick(x=X, y=Y)
pyautogui.moveTo(x=X, y=Y)              pyautogui.dragTo(x=X, y=Y, button='left')  (drags from the pointer)
pyautogui.scroll(-3, x=X, y=Y)          (notches; negative scrolls down)   pyautogui.hscroll(3, x=X, y=Y)
pyautogui.write('text to type')         pyautogui.press('enter')             pyautogui.hotkey('ctrl', 's')
pyautogui.keyDown('shift')              pyautogui.keyUp('shift')
Do not use pyautogui.locateCenterOnScreen or pyautogui.screenshot, and import nothing.
Instead of code you may return one of these special codes:
```WAIT``` when you have to wait for some time;
```FAIL``` when the task cannot be done (try your best before saying so);
```DONE``` when the task is done.
For example:
```python
pyautogui.click(x=512, y=300)
```"#;
