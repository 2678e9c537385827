//! OpenAI computer-use action objects: `click{button,x,y}`, `double_click{x,y}`,
//! `drag{path}`, `keypress{keys}`, `move{x,y}`, `scroll{x,y,scroll_x,scroll_y}`, `type{text}`,
//! `wait`, `screenshot`. Clicks, `move` and `type` may name a grounding mark (`"element": 7`)
//! instead of a point.
//!
//! They arrive bare (`{"type": "click", ...}`), wrapped (`{"type": "computer_call", "action":
//! {...}}`), or as tool-call arguments. `scroll_x`/`scroll_y` are screen pixels: notches =
//! max(1, round(|v| / 100)); positive `scroll_y` is down, positive `scroll_x` is right.

use super::coords::{Ctx, at, drag, field, number, text};
use crate::action::ActionKind;
use franz_desktop::ScrollDirection;
use serde_json::Value;

const TYPES: &[&str] = &[
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

/// A bare OpenAI action object.
pub(crate) fn is_action(v: &Value) -> bool {
    v.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| TYPES.contains(&t) || t == "computer_call")
}

/// Pixels of scrolling to notches.
pub fn notches_from_pixels(v: f64) -> f64 {
    (v.abs() / 100.0).round().max(1.0)
}

pub(crate) fn apply(args: &Value, ctx: &mut Ctx) {
    let a = match args.get("action") {
        Some(inner @ Value::Object(_)) => inner,
        _ => args,
    };
    let Some(t) = a.get("type").and_then(Value::as_str) else {
        return ctx.err("computer action: missing \"type\" (click, double_click, drag, keypress, move, scroll, type, wait)");
    };
    let what = t.trim().to_ascii_lowercase();
    if ctx.element(a.get("element")).is_err() {
        return;
    }
    if what == "scroll" {
        return scroll(a, ctx);
    }
    if let Some(kind) = action_kind(&what, a, ctx) {
        ctx.push(kind, None);
    }
}

/// The action of type `what` (any but `scroll`); `None` when it cannot be read (the reason is
/// recorded).
fn action_kind(what: &str, a: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    match what {
        "click" => {
            let (x, y) = point_or_element(what, a, ctx)?;
            match a.get("button").and_then(Value::as_str).unwrap_or("left") {
                "left" => Some(ActionKind::Click { x, y }),
                "right" => Some(ActionKind::RightClick { x, y }),
                "wheel" | "middle" => Some(ActionKind::MiddleClick { x, y }),
                other => ctx.fail(format!(
                    "click: button {other:?} is not supported (left, right or wheel)"
                )),
            }
        }
        "double_click" => {
            let (x, y) = point_or_element(what, a, ctx)?;
            Some(ActionKind::DoubleClick { x, y })
        }
        "move" => point_or_element(what, a, ctx).map(|(x, y)| ActionKind::Move { x, y }),
        "drag" => drag_path(a, ctx),
        "keypress" => {
            let k = field(a, &["keys", "key"]);
            ctx.keys(what, &k).map(|keys| ActionKind::Key { keys })
        }
        "type" => match text(a.get("text")) {
            Some(text) => Some(ActionKind::Type { text }),
            None => ctx.fail("type: missing \"text\""),
        },
        "wait" => ctx
            .seconds("wait", a.get("seconds").or_else(|| a.get("duration")), 2.0)
            .map(|seconds| ActionKind::Wait { seconds }),
        "screenshot" => Some(ActionKind::Observe),
        other => ctx.fail(format!("computer action: unknown type {other:?}")),
    }
}

/// The point of `x` and `y` (or any other common shape); `None` (with an error) when missing or
/// unreadable.
fn xy(what: &str, a: &Value, ctx: &mut Ctx) -> Option<(i32, i32)> {
    match ctx.position(what, a) {
        Ok(Some(p)) => Some(p),
        Ok(None) => ctx.point_xy(what, a.get("x"), a.get("y")),
        Err(()) => None,
    }
}

/// The point of [`xy`], or none when the action names an element and gives no point.
fn point_or_element(what: &str, a: &Value, ctx: &mut Ctx) -> Option<(Option<i32>, Option<i32>)> {
    let no_point = ["x", "y", "coordinate", "position", "point"]
        .iter()
        .all(|k| a.get(k).is_none());
    if ctx.has_element() && no_point {
        return Some((None, None));
    }
    xy(what, a, ctx).map(at)
}

/// `drag{path}`: from the first point of the path to the last.
fn drag_path(a: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let path = a
        .get("path")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let (Some(first), Some(last)) = (path.first(), path.last()) else {
        return ctx.fail("drag: \"path\" needs at least two points [{x, y}, ...]");
    };
    if path.len() < 2 {
        return ctx.fail("drag: \"path\" needs at least two points [{x, y}, ...]");
    }
    let from = ctx.point("drag", first);
    drag(from, ctx.point("drag end", last))
}

/// `scroll{x, y, scroll_x, scroll_y}`: a vertical and/or a horizontal scroll, at `x`/`y` when
/// given, else at the pointer.
fn scroll(a: &Value, ctx: &mut Ctx) {
    let sx = a.get("scroll_x").and_then(number).unwrap_or(0.0);
    let sy = a.get("scroll_y").and_then(number).unwrap_or(0.0);
    if sx == 0.0 && sy == 0.0 {
        return ctx.err("scroll: scroll_x and scroll_y are both 0");
    }
    let Ok(point) = ctx.position("scroll", a) else {
        return;
    };
    let (x, y) = point.map_or((None, None), at);
    let axes = [
        (sy, ScrollDirection::Down, ScrollDirection::Up),
        (sx, ScrollDirection::Right, ScrollDirection::Left),
    ];
    for (pixels, positive, negative) in axes {
        if pixels == 0.0 {
            continue;
        }
        let direction = if pixels > 0.0 { positive } else { negative };
        let amount = ctx.notches("scroll", notches_from_pixels(pixels));
        let kind = ActionKind::Scroll {
            x,
            y,
            direction,
            amount,
        };
        ctx.push(kind, None);
    }
}
