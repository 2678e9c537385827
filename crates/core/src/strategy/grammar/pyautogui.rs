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

/// The action section, with the coordinate sentence of `space`.
pub fn actions(space: Space) -> String {
    ACTIONS.replace("{coords}", &space.wording())
}

/// The action section; `{coords}` is the coordinate sentence (`Space::wording`). Its examples
/// hold placeholders, never values (docs/actions.md, "Placeholders in examples").
pub const ACTIONS: &str = r#"Act with python code that uses `pyautogui`, grounded on the screenshot. {coords}
Return one line or several lines of code in one code block (example at the end).
The functions you may use, with values in place of the names:
pyautogui.click(x=x, y=y)               pyautogui.doubleClick(x=x, y=y)      pyautogui.rightClick(x=x, y=y)
pyautogui.moveTo(x=x, y=y)              pyautogui.dragTo(x=x, y=y, button='left')  (drags from the pointer)
pyautogui.scroll(amount, x=x, y=y)      (notches; negative scrolls down)   pyautogui.hscroll(amount, x=x, y=y)
pyautogui.write('text')                 pyautogui.press('keys')              pyautogui.hotkey('keys')
(press: one key such as enter; hotkey: the keys of a combination as separate arguments, such as ctrl and s)
Hold a key over other calls with keyDown and keyUp, such as shift.
Do not use pyautogui.locateCenterOnScreen or pyautogui.screenshot, and import nothing.
Instead of code you may return one of these special codes:
```WAIT``` when you have to wait for some time;
```FAIL``` when the task cannot be done (try your best before saying so);
```DONE``` when the task is done.
For example:
```python
pyautogui.click(x=x, y=y)
```"#;
