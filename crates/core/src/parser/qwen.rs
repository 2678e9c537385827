//! Qwen2.5-VL / Qwen3-VL: `<tool_call>{"name": "computer_use", "arguments": {"action":
//! "left_click", "coordinate": [x, y]}}</tool_call>`, and the XML form
//! `<function=computer_use><parameter=action>left_click</parameter>...</function>`.
//!
//! `computer_use` actions: key (keys array), type, mouse_move, left_click, left_click_drag (end
//! only: from the pointer), right_click, middle_click, double_click, triple_click, scroll /
//! hscroll (`pixels` are notches, positive = up / right), wait (time), terminate (status
//! success | failure), answer. `mobile_use`: click, long_press (`time` seconds; one
//! `long_press` action, never a mouse_down/wait/mouse_up sequence), swipe (coordinate2), type,
//! key, system_button (Enter), wait, terminate, answer. `hold_key` (keys, `time` or `duration`)
//! is read too: Anthropic's computer tool sends it through here.
//!
//! `tagged_calls` also serves any tool in `<tool_call>` blocks (Hermes style), e.g. the tools of
//! docs/seeds.md.

use super::coords::{Ctx, number, text};
use super::lenient;
use crate::action::ActionKind;
use franz_desktop::ScrollDirection;
use serde_json::{Map, Value};

type TaggedCall = Result<(String, Value), String>;

/// Tool calls in `<tool_call>` blocks or `<function=...>` XML; and the text around them.
pub(crate) fn tagged_calls(content: &str) -> (Vec<TaggedCall>, String) {
    let mut calls = Vec::new();
    let mut rest = String::new();
    let lower = content.to_ascii_lowercase();
    let mut i = 0;
    while i < content.len() && calls.len() < 32 {
        let open_tc = lower[i..]
            .find("<tool_call>")
            .map(|p| (p + i, "<tool_call>", "</tool_call>"));
        let open_fn = lower[i..]
            .find("<function=")
            .map(|p| (p + i, "", "</function>"));
        let Some((start, open, close)) =
            [open_tc, open_fn].into_iter().flatten().min_by_key(|o| o.0)
        else {
            break;
        };
        rest.push_str(&content[i..start]);
        let body_start = start + open.len();
        let (body_end, next) = match lower[body_start..].find(close) {
            Some(p) => (body_start + p, body_start + p + close.len()),
            None => (content.len(), content.len()),
        };
        let body = &content[body_start..body_end];
        if body
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("<function=")
        {
            calls.push(xml_call(body));
        } else {
            let objs = lenient::objects(body);
            if objs.is_empty() {
                calls.push(Err(format!(
                    "a tool call holds no JSON object: {}",
                    crate::model::snippet(body)
                )));
            }
            for o in objs {
                calls.push(o.value.and_then(|v| {
                    let name = v.get("name").and_then(Value::as_str).ok_or_else(|| {
                        format!(
                            "a tool call has no \"name\": {}",
                            crate::model::snippet(&v.to_string())
                        )
                    })?;
                    let args = v
                        .get("arguments")
                        .or_else(|| v.get("parameters"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    Ok((name.to_string(), args))
                }));
            }
        }
        i = next;
    }
    if i < content.len() {
        rest.push_str(&content[i..]);
    }
    (calls, super::calls::tidy(&rest))
}

/// `<function=NAME> <parameter=KEY>VALUE</parameter> ... </function>`.
fn xml_call(body: &str) -> TaggedCall {
    let lower = body.to_ascii_lowercase();
    let f = lower.find("<function=").ok_or("no <function=")?;
    let name_start = f + "<function=".len();
    let name_end = body[name_start..]
        .find('>')
        .map(|p| p + name_start)
        .ok_or("a <function= tag is not closed")?;
    let name = body[name_start..name_end].trim().to_string();
    let mut args = Map::new();
    let mut i = name_end;
    while let Some(p) = lower[i..].find("<parameter=") {
        let ks = i + p + "<parameter=".len();
        let Some(ke) = body[ks..].find('>').map(|q| q + ks) else {
            break;
        };
        let key = body[ks..ke].trim().to_string();
        let ve = lower[ke..]
            .find("</parameter>")
            .map_or(body.len(), |q| q + ke);
        let raw = body[ke + 1..ve].trim();
        let value = if raw.starts_with(['[', '{', '"']) || raw.parse::<f64>().is_ok() {
            lenient::parse(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
        } else {
            Value::String(raw.to_string())
        };
        args.insert(key, value);
        i = (ve + "</parameter>".len()).min(body.len());
    }
    Ok((name, Value::Object(args)))
}

/// A bare action object with Qwen-only fields.
pub(crate) fn looks_like_qwen(v: &Value) -> bool {
    ["keys", "pixels", "time", "status", "coordinate2"]
        .iter()
        .any(|k| v.get(*k).is_some())
        || matches!(
            v.get("action").and_then(Value::as_str),
            Some("terminate" | "answer" | "hscroll" | "swipe" | "long_press" | "system_button")
        )
}

fn opt_point(
    what: &str,
    args: &Value,
    key: &str,
    ctx: &mut Ctx,
) -> Result<(Option<i32>, Option<i32>), ()> {
    match args.get(key).filter(|v| !v.is_null()) {
        None => Ok((None, None)),
        Some(v) => ctx
            .point(what, v)
            .map(|(x, y)| (Some(x), Some(y)))
            .ok_or(()),
    }
}

/// How long a wait, long press or held key lasts: `time` (Qwen) or `duration` (Anthropic),
/// 1 s when absent.
fn seconds(args: &Value) -> f64 {
    args.get("time")
        .or_else(|| args.get("duration"))
        .and_then(number)
        .unwrap_or(1.0)
}

pub(crate) fn apply(args: &Value, mobile: bool, ctx: &mut Ctx) {
    let Some(action) = args.get("action").and_then(Value::as_str) else {
        return ctx.err(
            "computer_use: missing \"action\" (e.g. left_click, type, key, scroll, terminate)",
        );
    };
    let a = action.trim().to_ascii_lowercase();
    let what = a.as_str();
    let kind = match what {
        "key" | "hotkey" | "system_button" => {
            let k = args
                .get("keys")
                .or_else(|| args.get("key"))
                .or_else(|| args.get("text"))
                .or_else(|| args.get("button"))
                .cloned()
                .unwrap_or(Value::Null);
            let Some(keys) = ctx.keys(what, &k) else {
                return;
            };
            ActionKind::Key { keys }
        }
        "type" => match text(args.get("text")) {
            Some(text) => ActionKind::Type { text },
            None => return ctx.err("type: missing \"text\""),
        },
        "mouse_move" => match opt_point(what, args, "coordinate", ctx) {
            Ok((Some(x), Some(y))) => ActionKind::Move { x, y },
            Ok(_) => return ctx.err("mouse_move: missing \"coordinate\""),
            Err(()) => return,
        },
        "left_click" | "click" | "right_click" | "middle_click" | "double_click"
        | "triple_click" => {
            let Ok((x, y)) = opt_point(what, args, "coordinate", ctx) else {
                return;
            };
            match what {
                "right_click" => ActionKind::RightClick { x, y },
                "middle_click" => ActionKind::MiddleClick { x, y },
                "double_click" => ActionKind::DoubleClick { x, y },
                "triple_click" => ActionKind::TripleClick { x, y },
                _ => ActionKind::Click { x, y },
            }
        }
        "long_press" => {
            let Ok((x, y)) = opt_point(what, args, "coordinate", ctx) else {
                return;
            };
            ActionKind::LongPress {
                x,
                y,
                seconds: seconds(args),
            }
        }
        "hold_key" => {
            let k = args
                .get("keys")
                .or_else(|| args.get("key"))
                .or_else(|| args.get("text"))
                .cloned()
                .unwrap_or(Value::Null);
            let Some(keys) = ctx.keys(what, &k) else {
                return;
            };
            ActionKind::HoldKey {
                keys,
                seconds: seconds(args),
            }
        }
        "left_click_drag" | "swipe" => {
            let (start_key, end_key) = if what == "swipe" {
                ("coordinate", "coordinate2")
            } else if args.get("start_coordinate").is_some() {
                ("start_coordinate", "coordinate")
            } else {
                ("", "coordinate")
            };
            let Ok((x, y)) = opt_point(what, args, start_key, ctx) else {
                return;
            };
            match opt_point(&format!("{what} end"), args, end_key, ctx) {
                Ok((Some(x2), Some(y2))) => ActionKind::Drag { x, y, x2, y2 },
                Ok(_) => {
                    return ctx.err(format!("{what}: missing \"{end_key}\" (where to drag to)"));
                }
                Err(()) => return,
            }
        }
        "scroll" | "hscroll" => {
            let Some(pixels) = args
                .get("pixels")
                .or_else(|| args.get("amount"))
                .and_then(number)
            else {
                return ctx.err(format!(
                    "{what}: missing \"pixels\" (notches; positive = up or right)"
                ));
            };
            let direction = match (what, pixels >= 0.0) {
                ("hscroll", true) => ScrollDirection::Right,
                ("hscroll", false) => ScrollDirection::Left,
                (_, true) => ScrollDirection::Up,
                (_, false) => ScrollDirection::Down,
            };
            let Ok((x, y)) = opt_point(what, args, "coordinate", ctx) else {
                return;
            };
            let amount = ctx.notches(what, pixels);
            ActionKind::Scroll {
                x,
                y,
                direction,
                amount,
            }
        }
        "wait" => ActionKind::Wait {
            seconds: seconds(args),
        },
        "terminate" => {
            let status = text(args.get("status"))
                .unwrap_or_default()
                .to_ascii_lowercase();
            let note = text(args.get("text").or_else(|| args.get("answer"))).unwrap_or_default();
            match status.trim() {
                "success" | "succeeded" | "done" => ActionKind::Done { text: note },
                "failure" | "fail" | "failed" => ActionKind::Fail { text: note },
                other => {
                    return ctx.err(format!(
                        "terminate: status {other:?} is not success or failure"
                    ));
                }
            }
        }
        "answer" => ActionKind::Done {
            text: text(args.get("text").or_else(|| args.get("answer"))).unwrap_or_default(),
        },
        "screenshot" => ActionKind::Observe,
        other => {
            let tool = if mobile { "mobile_use" } else { "computer_use" };
            return ctx.err(format!("{tool}: unknown action {other:?}"));
        }
    };
    ctx.push(kind, None);
}
