//! The tool calls of docs/designs.md (tool calling, tool calling v4.2, commander).
//!
//! - `click_element{label, box}`, `double_click_element`, `right_click_element`: the box in any
//!   of the three forms (`[x,y]`, `[x1,y1,x2,y2]`, `[[x1,y1],[x2,y2]]`), or the commander's
//!   `position`; `drag_element{start, end}`
//! - `type_text{text}`, `press_key{key}`
//! - `scroll_at_position{box}` (down, optional `direction` and `amount`), `scroll_down`,
//!   `scroll_up` (at the pointer; 3 notches unless `amount` says otherwise)
//! - `observe_screen` / `take_screenshot`, `move_mouse{x,y}`, `click_mouse`
//! - `report_progress{objective_id,status,evidence}`, `report_completion{evidence}`
//!
//! `label` and `justification` are kept in the action's note.

use super::coords::{Ctx, at, click, drag, field, given, number, text};
use super::lenient;
use crate::action::{ActionKind, ProgressStatus};
use serde_json::Value;

const NAMES: &[&str] = &[
    "click_element",
    "double_click_element",
    "right_click_element",
    "drag_element",
    "type_text",
    "press_key",
    "scroll_at_position",
    "scroll_down",
    "scroll_up",
    "observe_screen",
    "take_screenshot",
    "move_mouse",
    "click_mouse",
    "report_progress",
    "report_completion",
    "list_windows",
    "focus_window",
];

pub(crate) fn is_tool_name(name: &str) -> bool {
    NAMES.iter().any(|n| n.eq_ignore_ascii_case(name.trim()))
}

/// Tool-call arguments as an object: a JSON string (repaired if need be, decoded twice if it
/// was encoded twice), an object, or nothing. `None` (with an error) if unreadable.
pub(crate) fn arguments(name: &str, raw: &Value, ctx: &mut Ctx) -> Option<Value> {
    let mut v = raw.clone();
    for _ in 0..3 {
        match v {
            Value::Object(_) => return Some(v),
            Value::Null => return Some(Value::Object(Default::default())),
            Value::String(s) if s.trim().is_empty() => {
                return Some(Value::Object(Default::default()));
            }
            Value::String(s) => match lenient::parse(s.trim()) {
                Ok(parsed) => v = parsed,
                Err(e) => {
                    ctx.err(format!(
                        "{name}: the arguments are not valid JSON ({e}; was the reply cut off?): {}",
                        crate::model::body::snippet(&s)
                    ));
                    return None;
                }
            },
            _ => break,
        }
    }
    ctx.err(format!(
        "{name}: the arguments must be a JSON object, not {}",
        crate::model::body::snippet(&v.to_string())
    ));
    None
}

/// The note from `label` and `justification`.
fn note(args: &Value) -> Option<String> {
    let label = text(args.get("label")).filter(|s| !s.trim().is_empty());
    let why = text(args.get("justification")).filter(|s| !s.trim().is_empty());
    match (label, why) {
        (Some(l), Some(j)) => Some(format!("{}: {}", l.trim(), j.trim())),
        (l, j) => l.or(j),
    }
}

/// The target of an element tool: `box`, `position`, `coordinate`, `point`, or `x`/`y`.
fn target(name: &str, args: &Value, keys: &[&str], ctx: &mut Ctx) -> Option<(i32, i32)> {
    if let Some(v) = given(args, keys) {
        return ctx.point(name, v);
    }
    if args.get("x").is_some() || args.get("y").is_some() {
        return ctx.point_xy(name, args.get("x"), args.get("y"));
    }
    ctx.err(format!(
        "{name}: missing \"box\": give [x, y], [x1, y1, x2, y2] or [[x1, y1], [x2, y2]] in 0..1000"
    ));
    None
}

const BOX_KEYS: &[&str] = &["box", "position", "coordinate", "point", "bbox"];

pub(crate) fn apply(name: &str, args: &Value, ctx: &mut Ctx) {
    let lname = name.trim().to_ascii_lowercase();
    let note = note(args);
    if ctx.element(args.get("element")).is_err() || ctx.target(args.get("target")).is_err() {
        return;
    }
    if let Some(kind) = tool_kind(name, &lname, args, ctx) {
        ctx.push(kind, note);
    }
}

/// The action of the tool `n` (`name` lowercased); `None` when it cannot be read (the reason is
/// recorded).
fn tool_kind(name: &str, n: &str, args: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    match n {
        "click_element" | "double_click_element" | "right_click_element" => {
            // with an element (or a target in words) and no box, the executor clicks the
            // element's centre (the grounder's point)
            let (x, y) = match ctx.has_element() {
                true if given(args, BOX_KEYS).is_none() => (None, None),
                _ => at(target(n, args, BOX_KEYS, ctx)?),
            };
            Some(click(n, x, y))
        }
        "drag_element" => {
            let from = target(n, args, &["start", "from", "start_box"], ctx);
            let to = target("drag_element end", args, &["end", "to", "end_box"], ctx);
            drag(from, to)
        }
        "type_text" => match text(args.get("text")) {
            Some(text) => Some(ActionKind::Type { text }),
            None => ctx.fail("type_text: missing \"text\""),
        },
        "press_key" => {
            let k = field(args, &["key", "keys"]);
            ctx.keys(n, &k).map(|keys| ActionKind::Key { keys })
        }
        "scroll_at_position" | "scroll_down" | "scroll_up" => scroll(n, args, ctx),
        "observe_screen" | "take_screenshot" => Some(ActionKind::Observe),
        "move_mouse" if ctx.has_element() => {
            let (x, y) = ctx.position_or_pointer(n, args).ok()?;
            Some(ActionKind::Move { x, y })
        }
        "move_mouse" => target(n, args, &["position", "coordinate", "point"], ctx).map(|(x, y)| {
            ActionKind::Move {
                x: Some(x),
                y: Some(y),
            }
        }),
        "click_mouse" => {
            let (x, y) = ctx.position_or_pointer(n, args).ok()?;
            Some(ActionKind::Click { x, y })
        }
        "report_progress" => report_progress(args, ctx),
        "report_completion" => Some(ActionKind::ReportCompletion {
            evidence: text(args.get("evidence")).unwrap_or_default(),
        }),
        "list_windows" => Some(ActionKind::ListWindows),
        "focus_window" => match text(given(args, &["window", "title", "id"])) {
            Some(window) => Some(ActionKind::FocusWindow { window }),
            None => ctx.fail("focus_window: give the window's title or id in \"window\""),
        },
        _ => ctx.fail(format!(
            "unknown tool {name:?}: use one of {}",
            NAMES.join(", ")
        )),
    }
}

/// `scroll_at_position{box}`, `scroll_down`, `scroll_up`: `direction` (down unless the name
/// says up), `amount` in notches (3 by default), at the box when one is given.
fn scroll(n: &str, args: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let default = if n == "scroll_up" { "up" } else { "down" };
    let dir = args
        .get("direction")
        .cloned()
        .unwrap_or(Value::from(default));
    let direction = ctx.direction(n, Some(&dir))?;
    let amount = args
        .get("amount")
        .or_else(|| args.get("notches"))
        .or_else(|| args.get("clicks"))
        .and_then(number)
        .unwrap_or(3.0);
    let amount = ctx.notches(n, amount);
    let (x, y) = match ctx.position(n, args).ok()? {
        Some(p) => at(p),
        None if n == "scroll_at_position" => at(target(n, args, BOX_KEYS, ctx)?),
        None => (None, None),
    };
    Some(ActionKind::Scroll {
        x,
        y,
        direction,
        amount,
    })
}

/// `report_progress{objective_id, status, evidence}` with status DONE, BLOCKED or IN_PROGRESS.
fn report_progress(args: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let raw = text(args.get("status")).unwrap_or_default();
    let status = match raw
        .trim()
        .to_ascii_uppercase()
        .replace([' ', '-'], "_")
        .as_str()
    {
        "DONE" => ProgressStatus::Done,
        "BLOCKED" => ProgressStatus::Blocked,
        "IN_PROGRESS" => ProgressStatus::InProgress,
        _ => {
            return ctx.fail(format!(
                "report_progress: status {raw:?} is not DONE, BLOCKED or IN_PROGRESS"
            ));
        }
    };
    Some(ActionKind::ReportProgress {
        objective_id: text(args.get("objective_id")).unwrap_or_default(),
        status,
        evidence: text(args.get("evidence")).unwrap_or_default(),
    })
}
