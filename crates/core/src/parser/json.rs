//! docs/designs.md (vision loop) JSON: `{"observation": "...", "bboxes": [{"x1",...}], "actions":
//! [{"name": "click", "x1": .., "y1": ..}, {"name": "drag", "x1", "y1", "x2", "y2"}]}`.
//!
//! The object may sit in code fences or prose; the first one is used. Action names are
//! case-insensitive: move, click, right_click, double_click, drag (the design's five), plus the
//! rest of the canonical vocabulary (`middle_click`, `triple_click`, `type`, `key`, `scroll`,
//! `wait`, `done`, `fail`) so the vision strategy can do everything. Points may also be `x`/`y`.
//! The text that goes with the actions (the model's notes) is the `observation` field, else what
//! stands around the object. With no JSON at all, the whole text is the notes and there are no
//! actions.

use super::coords::{Ctx, click, drag, given, number, text};
use super::lenient;
use crate::action::ActionKind;
use serde_json::Value;

pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    let found = lenient::objects(content);
    let Some(first) = found.first() else {
        ctx.err("no JSON object in the reply: answer with {\"observation\": \"...\", \"actions\": [...]}");
        return content.trim().to_string();
    };
    let v = match &first.value {
        Ok(v) => v,
        Err(e) => {
            ctx.err(e.clone());
            return content.trim().to_string();
        }
    };
    let notes = v
        .get("observation")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            let mut rest = content.to_string();
            rest.replace_range(first.span.clone(), "");
            lenient::strip_fences(&rest)
        });
    if let Some(boxes) = v.get("bboxes").and_then(Value::as_array) {
        for b in boxes {
            let nums: Vec<f64> = ["x1", "y1", "x2", "y2"]
                .iter()
                .filter_map(|k| b.get(*k).and_then(number))
                .collect();
            if let Some(nb) = ctx.norm_box(&nums) {
                ctx.bboxes.push(nb);
            }
        }
    }
    match v.get("actions") {
        Some(Value::Array(actions)) => {
            if actions.is_empty() {
                ctx.explicit_none = true;
            }
            for (i, a) in actions.iter().enumerate() {
                action(i, a, ctx);
            }
        }
        Some(other) if other.is_object() => action(0, other, ctx),
        Some(Value::Null) | None => ctx
            .err("the JSON has no \"actions\" list: add \"actions\": [] (or the actions to take)"),
        Some(other) => ctx.err(format!("\"actions\" must be a list, not {other}")),
    }
    notes.trim().to_string()
}

/// One action object.
fn action(i: usize, a: &Value, ctx: &mut Ctx) {
    let Some(name) = given(a, &["name", "action", "type"]).and_then(Value::as_str) else {
        ctx.err(format!(
            "action {}: no \"name\" (move, click, right_click, double_click or drag)",
            i + 1
        ));
        return;
    };
    let what = name.trim().to_ascii_lowercase();
    let note = text(given(a, &["note", "label", "reason", "justification"]));
    if ctx.element(a.get("element")).is_err() || ctx.target(a.get("target")).is_err() {
        return;
    }
    if let Some(kind) = action_kind(i, &what, a, ctx) {
        ctx.push(kind, note);
    }
}

/// The action named `what` (the `i`th of the list); `None` when it cannot be read (the reason
/// is recorded).
fn action_kind(i: usize, what: &str, a: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    match what {
        "move" | "mouse_move" | "hover" if ctx.has_element() => {
            let (x, y) = ctx.position_or_pointer(what, a).ok()?;
            Some(ActionKind::Move { x, y })
        }
        "move" | "mouse_move" | "hover" => start(a, what, ctx).map(|(x, y)| ActionKind::Move {
            x: Some(x),
            y: Some(y),
        }),
        "click" | "left_click" | "right_click" | "middle_click" | "double_click"
        | "triple_click" | "double_left_click" => {
            let (x, y) = ctx.position_or_pointer(what, a).ok()?;
            Some(click(what, x, y))
        }
        "drag" => {
            let from = start(a, what, ctx);
            let to = ctx.point_xy("drag end", given(a, &["x2"]), given(a, &["y2"]));
            drag(from, to)
        }
        "type" | "type_text" | "write" => match text(given(a, &["text", "content", "value"])) {
            Some(text) => Some(ActionKind::Type { text }),
            None => ctx.fail("type: give the text to type in \"text\""),
        },
        "key" | "press_key" | "hotkey" | "keypress" => {
            let k = given(a, &["keys", "key", "text"])
                .cloned()
                .unwrap_or(Value::Null);
            ctx.keys(what, &k).map(|keys| ActionKind::Key { keys })
        }
        "scroll" | "scroll_down" | "scroll_up" => scroll(what, a, ctx),
        "wait" => ctx
            .seconds(what, given(a, &["seconds", "time", "duration"]), 1.0)
            .map(|seconds| ActionKind::Wait { seconds }),
        "done" | "finished" | "answer" => Some(ActionKind::Done {
            text: text(given(a, &["text", "answer", "content"])).unwrap_or_default(),
        }),
        "fail" => Some(ActionKind::Fail {
            text: text(given(a, &["text", "reason"])).unwrap_or_default(),
        }),
        "list_windows" => Some(ActionKind::ListWindows),
        "focus_window" => match text(given(a, &["window", "title", "id"])) {
            Some(window) => Some(ActionKind::FocusWindow { window }),
            None => ctx.fail("focus_window: give the window's title or id in \"window\""),
        },
        other => ctx.fail(format!(
            "action {}: unknown name {other:?}: use move, click, right_click, double_click or drag",
            i + 1
        )),
    }
}

/// A scroll: `direction` (or the name's), `amount` in notches (3 by default), at the start
/// point when one is given, else at the pointer.
fn scroll(what: &str, a: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let dir = match what {
        "scroll_down" => Some(Value::from("down")),
        "scroll_up" => Some(Value::from("up")),
        _ => given(a, &["direction"]).cloned(),
    };
    let direction = ctx.direction(what, dir.as_ref().or(Some(&Value::from("down"))));
    let amount = given(a, &["amount", "notches", "clicks"])
        .and_then(number)
        .unwrap_or(3.0);
    let amount = ctx.notches(what, amount);
    let (x, y) = ctx.position_or_pointer(what, a).ok()?;
    direction.map(|direction| ActionKind::Scroll {
        x,
        y,
        direction,
        amount,
    })
}

/// The start point: any common shape (`coords::POINT_KEYS`, x/y, x1/y1); `None` (with an
/// error) when missing or unreadable.
fn start(a: &Value, what: &str, ctx: &mut Ctx) -> Option<(i32, i32)> {
    match ctx.position(what, a) {
        Ok(Some(p)) => Some(p),
        Ok(None) => ctx.fail(format!(
            "{what}: give the point as \"x1\", \"y1\" in 0..1000"
        )),
        Err(()) => None,
    }
}
