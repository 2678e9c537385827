//! Anthropic's `computer` tool input: `{"action": "left_click", "coordinate": [x, y]}`, with
//! `text` (key combos in xdotool style, or text to type), `scroll_direction` +
//! `scroll_amount` (notches), `start_coordinate` for drags, `duration` for waits and for
//! `hold_key` (one `hold_key` action, read by Qwen's code).
//!
//! Arrives as a tool call named `computer` or as JSON text. The action may also be given in
//! `type` instead of `action`, or as the function's own name (`<function=left_click>`), and a
//! call may carry a batch (`"actions": [...]`); see [`apply_call`]. Actions Qwen shares (clicks,
//! mouse_move, type, wait, ...) are read by the same code as Qwen's, an element reference
//! (`"element": 7` instead of `coordinate`, on clicks, `mouse_move` and `type`) included.

use super::coords::{Ctx, number, text};
use crate::action::ActionKind;
use franz_desktop::Button;
use serde_json::Value;

/// Reads one call of the `computer` tool or of one of its actions named as a function: the
/// action from the function's name, `action`, or `type`; a batch in `actions` action by action.
/// Refuses, naming the shape, a call whose name, `action` and `type` disagree.
pub(crate) fn apply_call(name: &str, args: &Value, ctx: &mut Ctx) {
    let fname = name.trim().to_ascii_lowercase();
    if let Some(batch) = args.get("actions").and_then(Value::as_array) {
        if batch.is_empty() {
            return ctx.err(format!(
                "{name}: an empty \"actions\" batch: give at least one action"
            ));
        }
        return batch.iter().for_each(|a| apply_call(name, a, ctx));
    }
    let named = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .map(|s| s.trim().to_ascii_lowercase())
    };
    let mut given: Vec<(&str, String)> = Vec::new();
    if fname != "computer" {
        given.push(("the function name", fname.clone()));
    }
    for k in ["action", "type"] {
        if let Some(v) = named(k) {
            given.push((k, v));
        }
    }
    let Some((_, action)) = given.first().cloned() else {
        return apply(args, ctx);
    };
    if let Some((what, other)) = given.iter().find(|(_, v)| *v != action) {
        return ctx.err(format!(
            "{name}: a computer call whose {} says {action:?} but whose {what} says {other:?}: give the action once, in \"action\"",
            given[0].0
        ));
    }
    let mut one = args.clone();
    if let Some(m) = one.as_object_mut() {
        m.remove("type");
        m.insert("action".into(), Value::String(action));
    } else {
        return ctx.err(format!(
            "{name}: the arguments must be a JSON object, not {}",
            crate::model::body::snippet(&args.to_string())
        ));
    }
    apply(&one, ctx)
}

pub(crate) fn apply(args: &Value, ctx: &mut Ctx) {
    let action = args
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let what = action.as_str();
    // read here too, so that an action of this reader's own that takes no element says so
    if ctx.element(args.get("element")).is_err() {
        return;
    }
    let kind = match what {
        "scroll" if args.get("scroll_direction").is_some() => {
            let Some(direction) = ctx.direction(what, args.get("scroll_direction")) else {
                return;
            };
            let amount = args.get("scroll_amount").and_then(number).unwrap_or(3.0);
            let amount = ctx.notches(what, amount);
            let Ok((x, y)) = ctx.position_or_pointer(what, args) else {
                return;
            };
            ActionKind::Scroll {
                x,
                y,
                direction,
                amount,
            }
        }
        "left_mouse_down" | "left_mouse_up" => {
            let Ok((x, y)) = ctx.position_or_pointer(what, args) else {
                return;
            };
            let button = Button::Left;
            if what == "left_mouse_down" {
                ActionKind::MouseDown { x, y, button }
            } else {
                ActionKind::MouseUp { x, y, button }
            }
        }
        "cursor_position" | "screenshot" => ActionKind::Observe,
        "wait" if args.get("duration").is_some() => {
            match ctx.seconds("wait", args.get("duration"), 1.0) {
                Some(seconds) => ActionKind::Wait { seconds },
                None => return,
            }
        }
        "left_click" | "right_click" | "middle_click" | "double_click" | "triple_click"
            if text(args.get("text")).is_some_and(|t| !t.trim().is_empty()) =>
        {
            ctx.err(format!(
                "{what}: holding keys while clicking is not supported; clicked without them"
            ));
            let mut plain = args.clone();
            if let Some(m) = plain.as_object_mut() {
                m.remove("text");
            }
            return super::qwen::apply(&plain, false, ctx);
        }
        "" => return ctx.err("computer: missing \"action\" (e.g. left_click, type, key, scroll)"),
        _ => return super::qwen::apply(args, false, ctx),
    };
    ctx.push(kind, None);
}
