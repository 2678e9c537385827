//! Gemini computer use: function calls `click_at{x, y}`, `hover_at{x, y}`, `type_text_at{x, y,
//! text, press_enter, clear_before_typing}`, `key_combination{keys}`, `scroll_at{x, y,
//! direction, magnitude}`, `scroll_document{direction}`, `drag_and_drop{x, y, destination_x,
//! destination_y}`, `wait_5_seconds`; points in 0..1000 of the screenshot (docs/coordinates.md).
//! The browser-only calls (`navigate`, `go_back`, `search`, `open_web_browser`) are refused
//! with that said.

use super::coords::{Ctx, at, given, number, text};
use crate::action::ActionKind;
use serde_json::Value;

/// The functions of Gemini's computer-use tool franz reads.
pub(crate) const NAMES: &[&str] = &[
    "click_at",
    "hover_at",
    "type_text_at",
    "key_combination",
    "scroll_at",
    "scroll_document",
    "drag_and_drop",
    "wait_5_seconds",
    "navigate",
    "go_back",
    "go_forward",
    "search",
    "open_web_browser",
];

/// Whether `name` is one of Gemini's computer-use functions.
pub(crate) fn is_call(name: &str) -> bool {
    NAMES.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// The point of `x`, `y` (or `kx`, `ky`); `None` with the reason recorded.
fn xy(what: &str, a: &Value, kx: &str, ky: &str, ctx: &mut Ctx) -> Option<(i32, i32)> {
    ctx.point_xy(what, a.get(kx), a.get(ky))
}

/// One function call.
pub(crate) fn apply(name: &str, a: &Value, ctx: &mut Ctx) {
    let what = name.trim().to_ascii_lowercase();
    match what.as_str() {
        "click_at" | "hover_at" => {
            let Some(p) = xy(&what, a, "x", "y", ctx) else {
                return;
            };
            let (x, y) = at(p);
            let kind = if what == "click_at" {
                ActionKind::Click { x, y }
            } else {
                ActionKind::Move { x, y }
            };
            ctx.push(kind, None);
        }
        "type_text_at" => type_text_at(a, ctx),
        "key_combination" => {
            let keys = given(a, &["keys"]).cloned().unwrap_or(Value::Null);
            if let Some(keys) = ctx.keys(&what, &keys) {
                ctx.push(ActionKind::Key { keys }, None);
            }
        }
        "scroll_at" | "scroll_document" => scroll(&what, a, ctx),
        "drag_and_drop" => {
            let from = xy(&what, a, "x", "y", ctx);
            let to = xy(&what, a, "destination_x", "destination_y", ctx);
            if let Some(kind) = super::coords::drag(from, to) {
                ctx.push(kind, None);
            }
        }
        "wait_5_seconds" => ctx.push(ActionKind::Wait { seconds: 5.0 }, None),
        other => ctx.err(format!(
            "{other}: a browser-only function of Gemini's tool; nothing was performed (click_at, type_text_at, key_combination, scroll_at, drag_and_drop)"
        )),
    }
}

/// `type_text_at`: a click at the point, select-all and delete when `clear_before_typing`
/// (Gemini's default: true), the text, then Enter when `press_enter` (default: true).
fn type_text_at(a: &Value, ctx: &mut Ctx) {
    let Some(t) = text(given(a, &["text"])) else {
        return ctx.err("type_text_at: missing \"text\"");
    };
    let Some(p) = xy("type_text_at", a, "x", "y", ctx) else {
        return;
    };
    let flag = |k: &str| a.get(k).and_then(Value::as_bool).unwrap_or(true);
    let (x, y) = at(p);
    ctx.push(ActionKind::Click { x, y }, None);
    let key = |ctx: &mut Ctx, k: &str| {
        if let Some(keys) = ctx.keys("type_text_at", &Value::String(k.into())) {
            ctx.push(ActionKind::Key { keys }, None);
        }
    };
    if flag("clear_before_typing") {
        key(ctx, "ctrl+a");
        key(ctx, "delete");
    }
    ctx.push(ActionKind::Type { text: t }, None);
    if flag("press_enter") {
        key(ctx, "enter");
    }
}

/// `scroll_at` (at its point) or `scroll_document` (at the pointer); `magnitude` is in the
/// 0..1000 space (Gemini's default 800): a notch per 100.
fn scroll(what: &str, a: &Value, ctx: &mut Ctx) {
    let Some(direction) = ctx.direction(what, given(a, &["direction"])) else {
        return;
    };
    let (x, y) = if what == "scroll_at" {
        match xy(what, a, "x", "y", ctx) {
            Some(p) => at(p),
            None => return,
        }
    } else {
        (None, None)
    };
    let m = given(a, &["magnitude"]).and_then(number).unwrap_or(800.0);
    let amount = ctx.notches(what, (m / 100.0).round().max(1.0));
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
