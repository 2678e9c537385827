//! H Company's Holo family, as its own sources write it (docs/coordinates.md, "Where each
//! family's convention comes from"):
//!
//! - Holo3 / Holo3.1 structured output: one JSON object a step, `{"note": ..., "thought":
//!   ..., "tool_call": {"tool_name": "click", "element": "...", "x": 932, "y": 880}}`; the
//!   tool call is flat (its arguments sit beside `tool_name`). Points are 0..1000 of the
//!   image sent.
//! - Holo1.5 grounding: `{"action": "click_absolute", "x": 512, "y": 300}`, pixels of the
//!   image sent; and the element-localization answer `{"x": ..., "y": ...}`.
//!
//! The tools read: click, double_click, right_click, hover / move, write / type (its
//! `content` or `text`, after a click at its point when it gives one), press / key / hotkey,
//! scroll (direction, at its point when it gives one), wait, answer / done / finish.

use super::coords::{Ctx, at, click, field, given, text};
use super::lenient;
use crate::action::ActionKind;
use serde_json::Value;

/// Whether `v` is a Holo object: a Holo3 step (a `tool_call` object with a `tool_name`) or a
/// Holo1.5 `click_absolute`.
pub(crate) fn is_holo(v: &Value) -> bool {
    v.get("tool_call")
        .is_some_and(|t| t.get("tool_name").is_some())
        || v.get("action")
            .and_then(Value::as_str)
            .is_some_and(|a| a.eq_ignore_ascii_case("click_absolute"))
}

/// Reads every Holo object of `content`; returns the step's words (note and thought).
pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    let objects = lenient::objects(content);
    let mut words = Vec::new();
    let mut read = false;
    for obj in &objects {
        let v = match &obj.value {
            Ok(v) => v,
            Err(e) => {
                ctx.err(e.clone());
                continue;
            }
        };
        for key in ["note", "thought"] {
            if let Some(t) = v.get(key).and_then(Value::as_str).filter(|t| !t.is_empty()) {
                words.push(t.to_string());
            }
        }
        if let Some(call) = v.get("tool_call") {
            tool_call(call, ctx);
            read = true;
        } else if is_holo(v) || (v.get("x").is_some() && v.get("y").is_some()) {
            point_click("click_absolute", v, ctx);
            read = true;
        }
    }
    if !read {
        ctx.err(
            "no Holo action found: answer with {\"thought\": ..., \"tool_call\": {\"tool_name\": \"click\", \"x\": X, \"y\": Y}}",
        );
    }
    words.join("\n")
}

/// A click at the object's `x`, `y` (or any common point field).
fn point_click(what: &str, v: &Value, ctx: &mut Ctx) {
    if let Some(p) = required_point(what, v, ctx) {
        let (x, y) = at(p);
        ctx.push(ActionKind::Click { x, y }, None);
    }
}

/// The point an action must have; `None` with the reason recorded.
fn required_point(what: &str, v: &Value, ctx: &mut Ctx) -> Option<(i32, i32)> {
    match ctx.position(what, v) {
        Ok(Some(p)) => Some(p),
        Ok(None) => ctx.fail(format!("{what}: give the point as \"x\" and \"y\"")),
        Err(()) => None,
    }
}

/// One flat Holo3 tool call.
fn tool_call(call: &Value, ctx: &mut Ctx) {
    let Some(name) = call.get("tool_name").and_then(Value::as_str) else {
        return ctx.err("tool_call: missing \"tool_name\" (click, write, scroll, press, answer)");
    };
    let what = name.trim().to_ascii_lowercase();
    match what.as_str() {
        "click" | "left_click" | "double_click" | "right_click" | "triple_click" => {
            if let Some(p) = required_point(&what, call, ctx) {
                let (x, y) = at(p);
                ctx.push(click(&what, x, y), None);
            }
        }
        "hover" | "move" | "move_to" | "mouse_move" => {
            if let Some(p) = required_point(&what, call, ctx) {
                let (x, y) = at(p);
                ctx.push(ActionKind::Move { x, y }, None);
            }
        }
        "write" | "type" | "type_text" => write(&what, call, ctx),
        "press" | "key" | "press_key" | "hotkey" | "key_press" => {
            let keys = field(call, &["keys", "key", "content", "text"]);
            if let Some(keys) = ctx.keys(&what, &keys) {
                ctx.push(ActionKind::Key { keys }, None);
            }
        }
        "scroll" => scroll(call, ctx),
        "wait" => {
            let s = given(call, &["seconds", "duration", "time"]);
            if let Some(seconds) = ctx.seconds("wait", s, 2.0) {
                ctx.push(ActionKind::Wait { seconds }, None);
            }
        }
        "answer" | "done" | "finish" | "finished" | "stop" => {
            let t = text(given(call, &["content", "answer", "text"])).unwrap_or_default();
            ctx.push(ActionKind::Done { text: t }, None);
        }
        other => ctx.err(format!(
            "tool_call: unknown tool_name {other:?} (click, double_click, right_click, hover, write, press, scroll, wait, answer)"
        )),
    }
}

/// `write`: the text, typed after a click at the tool's point when it gives one.
fn write(what: &str, call: &Value, ctx: &mut Ctx) {
    let Some(t) = text(given(call, &["content", "text", "value"])) else {
        return ctx.err(format!("{what}: missing \"content\""));
    };
    if ctx.refuse_text(what, &t) {
        return;
    }
    match ctx.position(what, call) {
        Ok(Some(p)) => {
            let (x, y) = at(p);
            ctx.push(ActionKind::Click { x, y }, None);
        }
        Ok(None) => {}
        Err(()) => return,
    }
    ctx.push(ActionKind::Type { text: t }, None);
}

/// `scroll`: a direction and an amount, at the tool's point or the pointer.
fn scroll(call: &Value, ctx: &mut Ctx) {
    let Some(direction) = ctx.direction("scroll", given(call, &["direction"])) else {
        return;
    };
    let Ok((x, y)) = ctx.position_or_pointer("scroll", call) else {
        return;
    };
    let n = given(call, &["amount", "clicks"])
        .and_then(super::coords::number)
        .unwrap_or(3.0);
    let amount = ctx.notches("scroll", n);
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
