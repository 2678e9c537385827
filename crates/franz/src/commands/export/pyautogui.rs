//! A canonical action as the pyautogui code OSWorld's trajectories hold: screen pixels, one
//! call a line (`pyautogui.click(640, 400)`), `time.sleep(S)` for a wait, and OSWorld's
//! special `DONE` and `FAIL`. franz's own pyautogui reader (crates/core/src/parser/pyautogui.rs)
//! reads every line back to the same pixels. An action with no pyautogui form (`observe`,
//! `focus_window`, an element the run did not record the point of) is a comment, which runs
//! nothing.

use franz_core::action::{Action, ActionKind};
use franz_core::geometry::WorkArea;
use franz_core::keys;
use franz_desktop::{Button, Key, NamedKey, PixelPoint, ScrollDirection};

/// `action` as pyautogui code on `area` (the run's working area, in screen pixels).
pub fn code(action: &Action, area: WorkArea) -> String {
    let points = franz_core::policy::points(&action.kind, action.exact, area, None);
    let at = points.first().map(|p| format!("{}, {}", p.x, p.y));
    let call = |verb: &str| match &at {
        Some(at) => format!("pyautogui.{verb}({at})"),
        None if action.element.is_some() => comment(action),
        None => format!("pyautogui.{verb}()"),
    };
    match &action.kind {
        ActionKind::Move { .. } => call("moveTo"),
        ActionKind::Click { .. } => call("click"),
        ActionKind::RightClick { .. } => call("rightClick"),
        ActionKind::MiddleClick { .. } => call("middleClick"),
        ActionKind::DoubleClick { .. } => call("doubleClick"),
        ActionKind::TripleClick { .. } => call("tripleClick"),
        ActionKind::MouseDown { button, .. } => with_button(call("mouseDown"), *button),
        ActionKind::MouseUp { button, .. } => with_button(call("mouseUp"), *button),
        ActionKind::LongPress { seconds, .. } => format!(
            "{}\ntime.sleep({seconds})\n{}",
            call("mouseDown"),
            call("mouseUp")
        ),
        ActionKind::Drag { .. } => drag(&points),
        ActionKind::Scroll {
            direction, amount, ..
        } => scroll(*direction, *amount, points.first()),
        ActionKind::Type { text } if action.element.is_some() => {
            format!("{}\npyautogui.write({})", call("click"), python_str(text))
        }
        ActionKind::Type { text } => format!("pyautogui.write({})", python_str(text)),
        ActionKind::Key { keys } => press(keys).unwrap_or_else(|| comment(action)),
        ActionKind::HoldKey { keys, seconds } => {
            hold(keys, *seconds).unwrap_or_else(|| comment(action))
        }
        ActionKind::Wait { seconds } => format!("time.sleep({seconds})"),
        ActionKind::Done { .. } => "DONE".into(),
        ActionKind::Fail { .. } => "FAIL".into(),
        _ => comment(action),
    }
}

/// The action as a comment: code that does nothing, and says what franz did.
fn comment(action: &Action) -> String {
    let json = serde_json::to_string(action).unwrap_or_default();
    format!("# franz: {}", json.replace('\n', "\\n"))
}

fn with_button(call: String, button: Button) -> String {
    let name = match button {
        Button::Left => return call,
        Button::Right => "right",
        Button::Middle => "middle",
    };
    match call.strip_suffix(')') {
        Some(open) if open.ends_with('(') => format!("{open}button='{name}')"),
        Some(open) => format!("{open}, button='{name}')"),
        None => call,
    }
}

/// A drag: to its start, then `dragTo` its end (pyautogui drags from the pointer).
fn drag(points: &[PixelPoint]) -> String {
    match points {
        [to] => format!("pyautogui.dragTo({}, {}, button='left')", to.x, to.y),
        [from, to, ..] => format!(
            "pyautogui.moveTo({}, {})\npyautogui.dragTo({}, {}, button='left')",
            from.x, from.y, to.x, to.y
        ),
        [] => "# franz: a drag without points".into(),
    }
}

/// `scroll` (positive is up) or `hscroll` (positive is right), at the point if there is one.
fn scroll(direction: ScrollDirection, amount: u32, at: Option<&PixelPoint>) -> String {
    let (verb, clicks) = match direction {
        ScrollDirection::Up => ("scroll", i64::from(amount)),
        ScrollDirection::Down => ("scroll", -i64::from(amount)),
        ScrollDirection::Right => ("hscroll", i64::from(amount)),
        ScrollDirection::Left => ("hscroll", -i64::from(amount)),
    };
    match at {
        Some(p) => format!("pyautogui.{verb}({clicks}, x={}, y={})", p.x, p.y),
        None => format!("pyautogui.{verb}({clicks})"),
    }
}

/// A key's pyautogui name (`pyautogui.KEY_NAMES`).
fn key_name(key: Key) -> String {
    match key {
        Key::Named(NamedKey::Menu) => "apps".into(),
        k => keys::key_name(k),
    }
}

/// `press` for one key, `hotkey` for a combo.
fn press(combo: &str) -> Option<String> {
    let keys = keys::parse_combo(combo).ok()?.keys;
    let names: Vec<String> = keys.iter().map(|k| python_str(&key_name(*k))).collect();
    Some(match names.as_slice() {
        [one] => format!("pyautogui.press({one})"),
        all => format!("pyautogui.hotkey({})", all.join(", ")),
    })
}

/// `keyDown` each key, sleep, `keyUp` in reverse.
fn hold(combo: &str, seconds: f64) -> Option<String> {
    let keys = keys::parse_combo(combo).ok()?.keys;
    let names: Vec<String> = keys.iter().map(|k| python_str(&key_name(*k))).collect();
    let down = names.iter().map(|n| format!("pyautogui.keyDown({n})"));
    let up = names.iter().rev().map(|n| format!("pyautogui.keyUp({n})"));
    let lines: Vec<String> = down
        .chain([format!("time.sleep({seconds})")])
        .chain(up)
        .collect();
    Some(lines.join("\n"))
}

/// `s` as a Python string literal in single quotes.
fn python_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use franz_core::geometry::Crop;
    use franz_desktop::PixelRect;

    fn act(v: serde_json::Value) -> Action {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn actions_become_pyautogui_calls_in_screen_pixels() {
        let area = Crop::FULL
            .work_area(PixelRect::new(0, 0, 1280, 800))
            .unwrap();
        let code = |v| code(&act(v), area);
        use serde_json::json;
        assert_eq!(
            code(json!({"type": "click", "x": 500, "y": 500})),
            "pyautogui.click(640, 400)"
        );
        assert_eq!(code(json!({"type": "click"})), "pyautogui.click()");
        assert_eq!(
            code(json!({"type": "mouse_down", "x": 0, "y": 0, "button": "right"})),
            "pyautogui.mouseDown(0, 0, button='right')"
        );
        assert_eq!(
            code(json!({"type": "scroll", "direction": "down", "amount": 3})),
            "pyautogui.scroll(-3)"
        );
        assert_eq!(
            code(json!({"type": "type", "text": "it's\n"})),
            "pyautogui.write('it\\'s\\n')"
        );
        assert_eq!(
            code(json!({"type": "key", "keys": "ctrl+shift+t"})),
            "pyautogui.hotkey('ctrl', 'shift', 't')"
        );
        assert_eq!(
            code(json!({"type": "key", "keys": "Return"})),
            "pyautogui.press('enter')"
        );
        assert_eq!(code(json!({"type": "done", "text": "ok"})), "DONE");
        assert!(code(json!({"type": "click", "element": 3})).starts_with("# franz: "));
    }
}
