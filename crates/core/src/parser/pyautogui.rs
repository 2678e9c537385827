//! pyautogui code as OSWorld-style agents write it, in ```python fences or bare:
//! `pyautogui.click(x=512, y=300)`, `pyautogui.write('text')`, `pyautogui.hotkey('ctrl', 's')`,
//! `time.sleep(1)`, and OSWorld's special `DONE` / `FAIL` / `WAIT` lines.
//!
//! Read, never run: only a plain sequence of these calls, one per line, is accepted (imports of
//! `pyautogui` and `time` and comments allowed). A loop, an assignment, another module, an
//! unknown function or any other statement refuses the whole code with an error naming the line.
//!
//! Verbs (OSWorld's action space): click (x, y, clicks, button), doubleClick, tripleClick,
//! rightClick, middleClick, moveTo, dragTo (from the pointer), mouseDown / mouseUp, scroll
//! (clicks, positive = up; x / y optional) and hscroll (positive = right), write / typewrite (a
//! string is typed, a list is pressed key by key), press (a key or a list, `presses`), hotkey,
//! keyDown / keyUp (keys held over a press become its modifiers; held over a sleep, one
//! `hold_key`). Coordinates are read by `coords` in the parser's coordinate mode (pyautogui
//! profiles send pixels of the image). `WAIT` waits 2 s, the pause of OSWorld's `DesktopEnv.step`.

use super::coords::{Ctx, number, text};
use super::syntax::{self, Arg};
use crate::action::ActionKind;
use franz_desktop::{Button, ScrollDirection};
use serde_json::{Value, json};

const VERBS: &[&str] = &[
    "click",
    "doubleClick",
    "tripleClick",
    "rightClick",
    "middleClick",
    "moveTo",
    "dragTo",
    "mouseDown",
    "mouseUp",
    "scroll",
    "hscroll",
    "write",
    "typewrite",
    "press",
    "hotkey",
    "keyDown",
    "keyUp",
];

/// The most times one `press` repeats its key.
const MAX_PRESSES: usize = 50;

/// Whether `content` is pyautogui code: a line that starts with `pyautogui.` or imports
/// pyautogui, or a reply that is
/// only `DONE`, `FAIL` or `WAIT`.
pub(crate) fn detect(content: &str) -> bool {
    content.lines().any(|l| {
        let l = l.trim_start();
        // code that imports pyautogui is pyautogui code, whatever its calls look like
        l.starts_with("pyautogui.")
            || l.starts_with("import pyautogui")
            || l.starts_with("from pyautogui")
    }) || matches!(
        super::lenient::strip_fences(content).as_str(),
        "DONE" | "FAIL" | "WAIT"
    )
}

/// One statement of the code.
enum Stmt {
    Call(String, Vec<Arg>),
    Sleep(f64),
    Done,
    Fail,
    Wait,
    Nothing,
}

pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    let (code, text) = code_and_text(content);
    let mut stmts = Vec::new();
    for line in &code {
        match statement(line) {
            Ok(s) => stmts.push(s),
            Err(e) => {
                ctx.err(format!(
                    "pyautogui: {e}; franz reads only a plain sequence of pyautogui calls, time.sleep and DONE / FAIL / WAIT, one per line, and runs no code: nothing was done"
                ));
                return text;
            }
        }
    }
    if code.is_empty() {
        ctx.err("no pyautogui code found: write calls such as pyautogui.click(x=x, y=y), with numbers in place of x and y");
    }
    let mut held = Held::default();
    for s in stmts {
        run(s, &mut held, ctx);
    }
    if !held.keys.is_empty() {
        ctx.err(format!(
            "pyautogui: keyDown({}) without keyUp: the key was not held",
            held.keys.join(", ")
        ));
    }
    text
}

/// The code lines (those in code fences, or without fences the lines that look like code) and
/// the prose around them.
fn code_and_text(content: &str) -> (Vec<String>, String) {
    let fenced = content.contains("```");
    let (mut code, mut text) = (Vec::new(), Vec::new());
    let mut inside = false;
    for line in content.lines() {
        let t = line.trim();
        // OSWorld also writes ```DONE``` on one line, and closes a fence at a line's end
        let one_line = t.len() > 6 && t.starts_with("```") && t.ends_with("```");
        if one_line {
            code.push(t[3..t.len() - 3].trim().to_string());
        } else if t.starts_with("```") {
            inside = !inside;
        } else if inside && t.ends_with("```") {
            let body = t.trim_end_matches('`').trim_end();
            if !body.is_empty() {
                code.push(body.to_string());
            }
            inside = false;
        } else if let Some((before, lang)) = t.split_once("```").filter(|_| !inside) {
            // a fence opened after prose on the same line
            text.push(before);
            if lang.chars().any(|c| !c.is_ascii_alphanumeric()) {
                code.push(lang.trim().to_string());
            }
            inside = true;
        } else if (fenced && inside) || (!fenced && looks_like_code(t)) {
            if !t.is_empty() && !t.starts_with('#') {
                code.push(line.trim_end().to_string());
            }
        } else {
            text.push(line);
        }
    }
    (code, super::calls::tidy(&text.join("\n")))
}

/// Whether a bare line is code: a keyword statement, `name(`, `name =`, `name.`, or a special.
fn looks_like_code(t: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "import ", "from ", "for ", "while ", "if ", "def ", "with ", "try:", "class ",
    ];
    if matches!(t, "DONE" | "FAIL" | "WAIT") || KEYWORDS.iter().any(|k| t.starts_with(k)) {
        return true;
    }
    let ident = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(t.len());
    let after = t[ident..].trim_start();
    ident > 0 && (after.starts_with('(') || (after.starts_with('=') && !after.starts_with("==")))
}

/// Reads one line as a statement, or says why it is refused.
fn statement(line: &str) -> Result<Stmt, String> {
    let t = line.trim_end();
    if t.starts_with([' ', '\t']) {
        return Err(format!("an indented line (a block of code): {t:?}"));
    }
    match t {
        "DONE" => return Ok(Stmt::Done),
        "FAIL" => return Ok(Stmt::Fail),
        "WAIT" => return Ok(Stmt::Wait),
        _ => {}
    }
    if let Some(modules) = t.strip_prefix("import ") {
        return match modules
            .split(',')
            .map(str::trim)
            .find(|m| !matches!(*m, "pyautogui" | "time"))
        {
            None => Ok(Stmt::Nothing),
            Some(m) => Err(format!("import of {m:?} (only pyautogui and time)")),
        };
    }
    if let Some(rest) = t.strip_prefix("time.") {
        let (name, args) = one_call(rest, &["sleep"], t)?;
        let secs = args
            .first()
            .filter(|a| a.key.is_none() || a.key.as_deref() == Some("secs"));
        return match (name.as_str(), secs.and_then(|a| number(&a.value))) {
            ("sleep", Some(s)) => Ok(Stmt::Sleep(s)),
            _ => Err(format!("time.sleep needs a number of seconds: {t:?}")),
        };
    }
    match t.strip_prefix("pyautogui.") {
        Some(rest) if rest.starts_with("sleep(") => statement(&format!("time.{rest}")),
        Some(rest) => one_call(rest, VERBS, t).map(|(n, a)| Stmt::Call(n, a)),
        None => Err(format!("not a pyautogui call: {t:?}")),
    }
}

/// The one call `rest` holds, of one of `names`, with nothing after it but `;` or a comment.
fn one_call(rest: &str, names: &[&str], line: &str) -> Result<(String, Vec<Arg>), String> {
    let mut calls = syntax::find_calls(rest, names);
    let after_ok = |end: usize| {
        let a = rest[end..].trim();
        a.is_empty() || a == ";" || a.starts_with('#')
    };
    match calls.first() {
        Some(c) if c.span.start == 0 && after_ok(c.span.end) => {}
        _ => {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            return Err(if names.iter().any(|n| *n == name) {
                format!("more than one plain call on the line: {line:?}")
            } else {
                format!("unknown function {name:?} in {line:?}")
            });
        }
    }
    let c = calls.swap_remove(0);
    let name = names
        .iter()
        .find(|n| n.eq_ignore_ascii_case(&c.name))
        .map_or(c.name.clone(), |n| n.to_string());
    c.args
        .map(|a| (name, a))
        .map_err(|e| format!("{e} in {line:?}"))
}

/// Keys held by `keyDown` and not yet released.
#[derive(Default)]
struct Held {
    keys: Vec<String>,
    /// Something was pressed while they were held.
    used: bool,
    /// Seconds slept while they were held and nothing was pressed.
    seconds: f64,
}

fn run(s: Stmt, held: &mut Held, ctx: &mut Ctx) {
    let kind = match s {
        Stmt::Nothing => return,
        Stmt::Done => ActionKind::Done {
            text: String::new(),
        },
        Stmt::Fail => ActionKind::Fail {
            text: String::new(),
        },
        Stmt::Wait => ActionKind::Wait { seconds: 2.0 },
        Stmt::Sleep(seconds) if !held.keys.is_empty() && !held.used => {
            held.seconds += seconds;
            return;
        }
        Stmt::Sleep(seconds) => ActionKind::Wait { seconds },
        Stmt::Call(name, args) => return call(&name, &Args(&args), held, ctx),
    };
    ctx.push(kind, None);
}

/// The arguments of one call, by keyword or by position.
struct Args<'a>(&'a [Arg]);

impl Args<'_> {
    fn get(&self, key: &str, pos: usize) -> Option<&Value> {
        self.0
            .iter()
            .find(|a| a.key.as_deref() == Some(key))
            .or_else(|| self.0.iter().filter(|a| a.key.is_none()).nth(pos))
            .map(|a| &a.value)
    }

    fn positional(&self) -> Vec<Value> {
        self.0
            .iter()
            .filter(|a| a.key.is_none())
            .map(|a| a.value.clone())
            .collect()
    }
}

/// The point of a call whose `x` and `y` are its arguments `at` and `at + 1` (or `x=`, `y=`, or a
/// pair as `x`), read by the shared position reader; `Ok(None)` when none is given.
fn point(what: &str, args: &Args, at: usize, ctx: &mut Ctx) -> Result<Option<(i32, i32)>, ()> {
    let x = args.get("x", at).cloned();
    let y = args.get("y", at + 1).cloned();
    if let Some(Value::String(s)) = &x
        && y.is_none()
    {
        ctx.err(format!(
            "{what}: locating {s:?} on the screen is not supported: give x and y"
        ));
        return Err(());
    }
    let given = match (x, y) {
        (Some(pair @ Value::Array(_)), None) => json!({ "coordinate": pair }),
        (None, None) => json!({}),
        (x, y) => json!({ "x": x, "y": y }),
    };
    ctx.position(what, &given)
}

/// The mouse button of a call (`button=`), left by default.
fn button(what: &str, args: &Args, pos: usize, ctx: &mut Ctx) -> Option<Button> {
    let b = args.get("button", pos).and_then(|v| text(Some(v)));
    match b.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("left" | "primary") => Some(Button::Left),
        Some("right" | "secondary") => Some(Button::Right),
        Some("middle") => Some(Button::Middle),
        Some(other) => ctx.fail(format!(
            "{what}: button {other:?} is not left, right or middle"
        )),
    }
}

/// The keyword arguments pyautogui's verbs take (those franz reads, and timing and logging ones
/// it may ignore).
const KEYWORDS: &[&str] = &[
    "x",
    "y",
    "clicks",
    "button",
    "keys",
    "key",
    "message",
    "presses",
    "interval",
    "duration",
    "tween",
    "logScreenshot",
    "_pause",
];

fn call(name: &str, args: &Args, held: &mut Held, ctx: &mut Ctx) {
    let unknown = args.0.iter().filter_map(|a| a.key.as_deref());
    if let Some(k) = unknown.into_iter().find(|k| !KEYWORDS.contains(k)) {
        return ctx.err(format!(
            "pyautogui.{name}: unknown argument {k:?} (give the point as x=..., y=...): nothing was done"
        ));
    }
    match name {
        "keyDown" | "keyUp" => return key_up_down(name, args, held, ctx),
        "press" | "hotkey" | "write" | "typewrite" => return keys(name, args, held, ctx),
        _ => {}
    }
    if !held.keys.is_empty() {
        ctx.err(format!(
            "pyautogui.{name}: holding {} while using the mouse is not supported; done without it",
            held.keys.join("+")
        ));
    }
    if let Some(kind) = mouse(name, args, ctx) {
        ctx.push(kind, None);
    }
}

/// The mouse verbs.
fn mouse(name: &str, args: &Args, ctx: &mut Ctx) -> Option<ActionKind> {
    let what = format!("pyautogui.{name}");
    match name {
        "click" => {
            let (x, y) = point(&what, args, 0, ctx).ok()?.unzip();
            let clicks = args.get("clicks", 2).and_then(number).unwrap_or(1.0);
            match (button(&what, args, 4, ctx)?, clicks as i64) {
                (Button::Left, 1) => Some(ActionKind::Click { x, y }),
                (Button::Left, 2) => Some(ActionKind::DoubleClick { x, y }),
                (Button::Left, 3) => Some(ActionKind::TripleClick { x, y }),
                (Button::Right, 1) => Some(ActionKind::RightClick { x, y }),
                (Button::Middle, 1) => Some(ActionKind::MiddleClick { x, y }),
                (b, n) => ctx.fail(format!("{what}: {n} clicks of the {b:?} button is not supported: give 1 to 3 left clicks or one right or middle click")),
            }
        }
        "doubleClick" | "tripleClick" | "rightClick" | "middleClick" => {
            let (x, y) = point(&what, args, 0, ctx).ok()?.unzip();
            Some(match name {
                "doubleClick" => ActionKind::DoubleClick { x, y },
                "tripleClick" => ActionKind::TripleClick { x, y },
                "rightClick" => ActionKind::RightClick { x, y },
                _ => ActionKind::MiddleClick { x, y },
            })
        }
        "moveTo" | "dragTo" => {
            let Some((x, y)) = point(&what, args, 0, ctx).ok()? else {
                return ctx.fail(format!("{what}: give x and y"));
            };
            if name == "moveTo" {
                return Some(ActionKind::Move {
                    x: Some(x),
                    y: Some(y),
                });
            }
            match button(&what, args, 3, ctx)? {
                Button::Left => Some(ActionKind::Drag {
                    x: None,
                    y: None,
                    x2: x,
                    y2: y,
                }),
                b => ctx.fail(format!(
                    "{what}: dragging with the {b:?} button is not supported"
                )),
            }
        }
        "mouseDown" | "mouseUp" => {
            let (x, y) = point(&what, args, 0, ctx).ok()?.unzip();
            let button = button(&what, args, 2, ctx)?;
            Some(if name == "mouseDown" {
                ActionKind::MouseDown { x, y, button }
            } else {
                ActionKind::MouseUp { x, y, button }
            })
        }
        _ => scroll(name, &what, args, ctx),
    }
}

/// `scroll(clicks, x, y)` (positive = up) and `hscroll(clicks, x, y)` (positive = right).
fn scroll(name: &str, what: &str, args: &Args, ctx: &mut Ctx) -> Option<ActionKind> {
    let Some(clicks) = args.get("clicks", 0).and_then(number) else {
        return ctx.fail(format!(
            "{what}: give the number of clicks (positive = up or right)"
        ));
    };
    let direction = match (name, clicks >= 0.0) {
        ("hscroll", true) => ScrollDirection::Right,
        ("hscroll", false) => ScrollDirection::Left,
        (_, true) => ScrollDirection::Up,
        (_, false) => ScrollDirection::Down,
    };
    let (x, y) = point(what, args, 1, ctx).ok()?.unzip();
    let amount = ctx.notches(what, clicks);
    Some(ActionKind::Scroll {
        x,
        y,
        direction,
        amount,
    })
}

/// `keyDown(key)` holds a key, `keyUp(key)` releases it: a key held over nothing but sleeps is
/// one `hold_key` of that long (or one press, without sleeps).
fn key_up_down(name: &str, args: &Args, held: &mut Held, ctx: &mut Ctx) {
    let what = format!("pyautogui.{name}");
    let Some(key) = args.get("key", 0).and_then(|v| text(Some(v))) else {
        return ctx.err(format!("{what}: give the key"));
    };
    if name == "keyDown" {
        if held.keys.is_empty() {
            *held = Held::default();
        }
        return held.keys.push(key);
    }
    let Some(i) = held.keys.iter().position(|k| k.eq_ignore_ascii_case(&key)) else {
        return ctx.err(format!("{what}({key:?}) without keyDown: ignored"));
    };
    if !held.used {
        let combo = ctx.keys(&what, &json!(held.keys));
        let seconds = held.seconds;
        if let Some(keys) = combo {
            ctx.push(
                if seconds > 0.0 {
                    ActionKind::HoldKey { keys, seconds }
                } else {
                    ActionKind::Key { keys }
                },
                None,
            );
        }
        held.used = true;
    }
    held.keys.remove(i);
}

/// `press`, `hotkey`, `write` and `typewrite`, with any held keys as modifiers.
fn keys(name: &str, args: &Args, held: &mut Held, ctx: &mut Ctx) {
    let what = format!("pyautogui.{name}");
    let with_held = |k: Vec<Value>| {
        let mut all: Vec<Value> = held.keys.iter().map(|h| Value::from(h.as_str())).collect();
        all.extend(k);
        Value::Array(all)
    };
    let combos: Vec<Value> = match name {
        "hotkey" => match args.get("keys", usize::MAX) {
            Some(Value::Array(items)) => vec![with_held(items.clone())],
            _ => vec![with_held(args.positional())],
        },
        _ => match args.get(if name == "press" { "keys" } else { "message" }, 0) {
            Some(Value::Array(items)) => items.iter().map(|k| with_held(vec![k.clone()])).collect(),
            Some(Value::String(s)) if name == "press" => {
                let presses = args.get("presses", 1).and_then(number).unwrap_or(1.0);
                let n = (presses.max(1.0) as usize).min(MAX_PRESSES);
                if presses > MAX_PRESSES as f64 {
                    ctx.err(format!(
                        "{what}: {presses} presses is too many; pressed {MAX_PRESSES}"
                    ));
                }
                vec![with_held(vec![Value::from(s.as_str())]); n]
            }
            Some(Value::String(s)) if held.keys.is_empty() => {
                return ctx.push(ActionKind::Type { text: s.clone() }, None);
            }
            Some(Value::String(_)) => {
                return ctx.err(format!(
                    "{what}: typing text while holding {} is not supported",
                    held.keys.join("+")
                ));
            }
            _ => return ctx.err(format!("{what}: give a string or a list of keys")),
        },
    };
    held.used = true;
    for combo in combos {
        if let Some(keys) = ctx.keys(&what, &combo) {
            ctx.push(ActionKind::Key { keys }, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CoordMode, Dialect, ParseOptions, ParsedReply, parse_text};
    use crate::ImageSize;
    use serde_json::{Value, json};

    fn parse(code: &str) -> ParsedReply {
        parse_text(code, &ParseOptions::default())
    }

    fn forced(code: &str) -> ParsedReply {
        let opts = ParseOptions {
            dialect: Some(Dialect::Pyautogui),
            coords: CoordMode::Norm,
        };
        parse_text(code, &opts)
    }

    fn actions(p: &ParsedReply) -> Value {
        serde_json::to_value(&p.actions).unwrap()
    }

    #[test]
    fn every_verb_of_the_osworld_action_space() {
        let code = "```python\nimport pyautogui, time\npyautogui.click(x=100, y=200)\npyautogui.click(300, 400, clicks=2)\npyautogui.click(button='right')\npyautogui.doubleClick(1, 2)\npyautogui.tripleClick(x=3, y=4)\npyautogui.rightClick(5, 6)\npyautogui.middleClick()\npyautogui.moveTo(7, 8, duration=0.5)\npyautogui.dragTo(9, 10, duration=1)\npyautogui.mouseDown(11, 12)\npyautogui.mouseUp(button='left')\npyautogui.scroll(5)\npyautogui.scroll(-3, x=13, y=14)\npyautogui.hscroll(2)\npyautogui.write('hi there\\n')\npyautogui.typewrite(['a', 'enter'])\npyautogui.press('tab', presses=2)\npyautogui.hotkey('ctrl', 's')\ntime.sleep(1.5)\nDONE\n```";
        let p = parse(code);
        assert_eq!(p.dialect, Dialect::Pyautogui);
        assert!(p.errors.is_empty(), "{p:?}");
        assert_eq!(
            actions(&p),
            json!([
                {"type": "click", "x": 100, "y": 200},
                {"type": "double_click", "x": 300, "y": 400},
                {"type": "right_click"},
                {"type": "double_click", "x": 1, "y": 2},
                {"type": "triple_click", "x": 3, "y": 4},
                {"type": "right_click", "x": 5, "y": 6},
                {"type": "middle_click"},
                {"type": "move", "x": 7, "y": 8},
                {"type": "drag", "x2": 9, "y2": 10},
                {"type": "mouse_down", "x": 11, "y": 12, "button": "left"},
                {"type": "mouse_up", "button": "left"},
                {"type": "scroll", "direction": "up", "amount": 5},
                {"type": "scroll", "x": 13, "y": 14, "direction": "down", "amount": 3},
                {"type": "scroll", "direction": "right", "amount": 2},
                {"type": "type", "text": "hi there\n"},
                {"type": "key", "keys": "a"},
                {"type": "key", "keys": "enter"},
                {"type": "key", "keys": "tab"},
                {"type": "key", "keys": "tab"},
                {"type": "key", "keys": "ctrl+s"},
                {"type": "wait", "seconds": 1.5},
                {"type": "done", "text": ""}
            ])
        );
    }

    #[test]
    fn held_keys_are_modifiers_or_one_hold() {
        let p = parse("pyautogui.keyDown('ctrl')\npyautogui.press('c')\npyautogui.keyUp('ctrl')");
        assert_eq!(
            actions(&p),
            json!([{"type": "key", "keys": "ctrl+c"}]),
            "{p:?}"
        );
        let p = parse("pyautogui.keyDown('shift')\ntime.sleep(2)\npyautogui.keyUp('shift')");
        assert_eq!(
            actions(&p),
            json!([{"type": "hold_key", "keys": "shift", "seconds": 2.0}]),
            "{p:?}"
        );
        let p = parse("pyautogui.sleep(0.5)\npyautogui.press('a', presses=99)");
        assert_eq!(p.actions.len(), 1 + super::MAX_PRESSES, "{p:?}");
        assert!(p.errors[0].contains("too many"), "{p:?}");
        let p = parse("pyautogui.keyDown('alt')");
        assert!(p.errors[0].contains("without keyUp"), "{p:?}");
    }

    #[test]
    fn specials_bare_code_and_pixels() {
        assert_eq!(parse("WAIT").dialect, Dialect::Pyautogui);
        let p = parse("```python\npyautogui.click(10, 20)\n```\n```DONE```");
        assert_eq!(
            actions(&p),
            json!([{"type": "click", "x": 10, "y": 20}, {"type": "done", "text": ""}])
        );
        let p = forced("Here is some text; ```python\npyautogui.press('a')\nWAIT```");
        assert_eq!(
            actions(&p),
            json!([{"type": "key", "keys": "a"}, {"type": "wait", "seconds": 2.0}]),
            "{p:?}"
        );
        assert_eq!(
            actions(&parse("FAIL")),
            json!([{"type": "fail", "text": ""}])
        );
        let p = parse("I will click the button.\npyautogui.click(10, 20)");
        assert_eq!(p.text, "I will click the button.");
        assert_eq!(actions(&p), json!([{"type": "click", "x": 10, "y": 20}]));
        let opts = ParseOptions {
            dialect: None,
            coords: CoordMode::Pixels(ImageSize::new(1001, 501)),
        };
        let p = parse_text("pyautogui.click(x=500, y=250)", &opts);
        assert_eq!(actions(&p), json!([{"type": "click", "x": 500, "y": 500}]));
    }

    #[test]
    fn anything_but_plain_calls_is_refused_and_nothing_is_done() {
        for (code, says) in [
            (
                "```python\nfor i in range(3):\n    pyautogui.click(1, 2)\n```",
                "not a pyautogui call",
            ),
            ("import os\npyautogui.click(1, 2)", "import of \"os\""),
            ("x = 5\npyautogui.click(x, 2)", "not a pyautogui call"),
            (
                "pyautogui.click(1, 2)\nos.system('rm -rf /')",
                "not a pyautogui call",
            ),
            (
                "pyautogui.locateOnScreen('a.png')",
                "unknown function \"locateOnScreen\"",
            ),
            ("pyautogui.click('button.png')", "locating"),
            (
                "pyautogui.click(target=[1, 2])",
                "unknown argument \"target\"",
            ),
            (
                "pyautogui.click(1, 2); pyautogui.click(3, 4)",
                "more than one",
            ),
            (
                "from pyautogui import click\nclick(1, 2)",
                "not a pyautogui call",
            ),
        ] {
            let p = forced(code);
            assert!(p.actions.is_empty(), "{code}: {p:?}");
            assert!(
                p.errors.iter().any(|e| e.contains(says)),
                "{code}: {:?}",
                p.errors
            );
        }
    }
}
