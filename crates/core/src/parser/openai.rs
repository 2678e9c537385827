//! OpenAI computer-use action objects: `click{button,x,y}`, `double_click{x,y}`,
//! `drag{path}`, `keypress{keys}`, `move{x,y}`, `scroll{x,y,scroll_x,scroll_y}`, `type{text}`,
//! `wait`, `screenshot`.
//!
//! They arrive bare (`{"type": "click", ...}`), wrapped (`{"type": "computer_call", "action":
//! {...}}`), or as tool-call arguments. `scroll_x`/`scroll_y` are screen pixels: notches =
//! max(1, round(|v| / 100)); positive `scroll_y` is down, positive `scroll_x` is right.

use super::coords::{Ctx, drag, number, text};
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
    let t = t.trim().to_ascii_lowercase();
    let what = t.as_str();
    let xy = |ctx: &mut Ctx| ctx.point_xy(what, a.get("x"), a.get("y"));
    let kind = match what {
        "click" => {
            let Some((x, y)) = xy(ctx) else { return };
            let (x, y) = (Some(x), Some(y));
            match a.get("button").and_then(Value::as_str).unwrap_or("left") {
                "left" => ActionKind::Click { x, y },
                "right" => ActionKind::RightClick { x, y },
                "wheel" | "middle" => ActionKind::MiddleClick { x, y },
                other => {
                    return ctx.err(format!(
                        "click: button {other:?} is not supported (left, right or wheel)"
                    ));
                }
            }
        }
        "double_click" => {
            let Some((x, y)) = xy(ctx) else { return };
            ActionKind::DoubleClick {
                x: Some(x),
                y: Some(y),
            }
        }
        "move" => {
            let Some((x, y)) = xy(ctx) else { return };
            ActionKind::Move { x, y }
        }
        "drag" => {
            let path = a
                .get("path")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let (Some(first), Some(last)) = (path.first(), path.last()) else {
                return ctx.err("drag: \"path\" needs at least two points [{x, y}, ...]");
            };
            if path.len() < 2 {
                return ctx.err("drag: \"path\" needs at least two points [{x, y}, ...]");
            }
            let from = ctx.point("drag", first);
            let Some(kind) = drag(from, ctx.point("drag end", last)) else {
                return;
            };
            kind
        }
        "keypress" => {
            let k = a
                .get("keys")
                .or_else(|| a.get("key"))
                .cloned()
                .unwrap_or(Value::Null);
            let Some(keys) = ctx.keys(what, &k) else {
                return;
            };
            ActionKind::Key { keys }
        }
        "type" => match text(a.get("text")) {
            Some(text) => ActionKind::Type { text },
            None => return ctx.err("type: missing \"text\""),
        },
        "wait" => ActionKind::Wait {
            seconds: a
                .get("seconds")
                .or_else(|| a.get("duration"))
                .and_then(number)
                .unwrap_or(2.0),
        },
        "screenshot" => ActionKind::Observe,
        "scroll" => {
            let sx = a.get("scroll_x").and_then(number).unwrap_or(0.0);
            let sy = a.get("scroll_y").and_then(number).unwrap_or(0.0);
            if sx == 0.0 && sy == 0.0 {
                return ctx.err("scroll: scroll_x and scroll_y are both 0");
            }
            let (x, y) = if a.get("x").is_some() || a.get("y").is_some() {
                let Some((x, y)) = xy(ctx) else { return };
                (Some(x), Some(y))
            } else {
                (None, None)
            };
            if sy != 0.0 {
                let direction = if sy > 0.0 {
                    ScrollDirection::Down
                } else {
                    ScrollDirection::Up
                };
                let amount = ctx.notches(what, notches_from_pixels(sy));
                ctx.push(
                    ActionKind::Scroll {
                        x,
                        y,
                        direction,
                        amount,
                    },
                    None,
                );
            }
            if sx != 0.0 {
                let direction = if sx > 0.0 {
                    ScrollDirection::Right
                } else {
                    ScrollDirection::Left
                };
                let amount = ctx.notches(what, notches_from_pixels(sx));
                ctx.push(
                    ActionKind::Scroll {
                        x,
                        y,
                        direction,
                        amount,
                    },
                    None,
                );
            }
            return;
        }
        other => return ctx.err(format!("computer action: unknown type {other:?}")),
    };
    ctx.push(kind, None);
}
