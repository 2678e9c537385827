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
//! docs/designs.md.

use super::coords::{Ctx, at, click, field, given, number, text};
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
    super::work::charge(content.len());
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
                    crate::model::body::snippet(body)
                )));
            }
            for o in objs {
                calls.push(o.value.and_then(|v| {
                    let name = v.get("name").and_then(Value::as_str).ok_or_else(|| {
                        format!(
                            "a tool call has no \"name\": {}",
                            crate::model::body::snippet(&v.to_string())
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
        let written = xml_value(&body[ke + 1..ve]);
        let raw = written.trim();
        let value = if raw.starts_with(['[', '{', '"']) || raw.parse::<f64>().is_ok() {
            lenient::parse(raw).unwrap_or_else(|_| Value::String(written.to_string()))
        } else {
            Value::String(written.to_string())
        };
        args.insert(key, value);
        i = (ve + "</parameter>".len()).min(body.len());
    }
    Ok((name, Value::Object(args)))
}

/// A parameter's value as the model wrote it: only the formatting newline right after the
/// opening tag and the one right before the closing tag are dropped (as Qwen3's XML tool format
/// defines them), so typed text keeps its spaces and a `line\n` still ends with Enter.
fn xml_value(v: &str) -> &str {
    let v = v
        .strip_prefix("\r\n")
        .or_else(|| v.strip_prefix('\n'))
        .unwrap_or(v);
    v.strip_suffix("\r\n")
        .or_else(|| v.strip_suffix('\n'))
        .unwrap_or(v)
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
    match given(args, &[key]) {
        None => Ok((None, None)),
        Some(v) => ctx.point(what, v).map(at).ok_or(()),
    }
}

/// How long a wait, long press or held key lasts: `time` (Qwen) or `duration` (Anthropic),
/// 1 s when absent; `None` (an error) when it is not a number.
fn seconds(what: &str, args: &Value, ctx: &mut Ctx) -> Option<f64> {
    ctx.seconds(what, args.get("time").or_else(|| args.get("duration")), 1.0)
}

pub(crate) fn apply(args: &Value, mobile: bool, ctx: &mut Ctx) {
    let Some(action) = args.get("action").and_then(Value::as_str) else {
        return ctx.err(
            "computer_use: missing \"action\" (e.g. left_click, type, key, scroll, terminate)",
        );
    };
    let what = action.trim().to_ascii_lowercase();
    if ctx.element(args.get("element")).is_err() {
        return;
    }
    if let Some(kind) = action_kind(&what, args, mobile, ctx) {
        ctx.push(kind, None);
    }
}

/// The action `what` with its arguments; `None` when it cannot be read (the reason is recorded).
fn action_kind(what: &str, args: &Value, mobile: bool, ctx: &mut Ctx) -> Option<ActionKind> {
    match what {
        "key" | "hotkey" | "system_button" => {
            let k = field(args, &["keys", "key", "text", "button"]);
            ctx.keys(what, &k).map(|keys| ActionKind::Key { keys })
        }
        "type" => match text(args.get("text")) {
            Some(text) => Some(ActionKind::Type { text }),
            None => ctx.fail("type: missing \"text\""),
        },
        "mouse_move" => match ctx.position_or_pointer(what, args) {
            Ok((Some(x), Some(y))) => Some(ActionKind::Move {
                x: Some(x),
                y: Some(y),
            }),
            Ok((x, y)) if ctx.has_element() => Some(ActionKind::Move { x, y }),
            Ok(_) => ctx.fail("mouse_move: missing \"coordinate\""),
            Err(()) => None,
        },
        "left_click" | "click" | "right_click" | "middle_click" | "double_click"
        | "triple_click" => {
            let (x, y) = ctx.position_or_pointer(what, args).ok()?;
            Some(click(what, x, y))
        }
        "long_press" => {
            let (x, y) = ctx.position_or_pointer(what, args).ok()?;
            let seconds = seconds(what, args, ctx)?;
            Some(ActionKind::LongPress { x, y, seconds })
        }
        "hold_key" => {
            let keys = ctx.keys(what, &field(args, &["keys", "key", "text"]))?;
            let seconds = seconds(what, args, ctx)?;
            Some(ActionKind::HoldKey { keys, seconds })
        }
        "left_click_drag" | "swipe" => drag_or_swipe(what, args, ctx),
        "scroll" | "hscroll" => scroll(what, args, ctx),
        "wait" => seconds(what, args, ctx).map(|seconds| ActionKind::Wait { seconds }),
        "terminate" => terminate(args, ctx),
        "answer" => Some(ActionKind::Done { text: answer(args) }),
        "screenshot" => Some(ActionKind::Observe),
        other => {
            let tool = if mobile { "mobile_use" } else { "computer_use" };
            ctx.fail(format!("{tool}: unknown action {other:?}"))
        }
    }
}

/// `left_click_drag` (from `start_coordinate`, else from the pointer, to `coordinate`) or
/// `swipe` (from `coordinate` to `coordinate2`).
fn drag_or_swipe(what: &str, args: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let (start_key, end_key) = if what == "swipe" {
        ("coordinate", "coordinate2")
    } else if args.get("start_coordinate").is_some() {
        ("start_coordinate", "coordinate")
    } else {
        ("", "coordinate")
    };
    let (x, y) = opt_point(what, args, start_key, ctx).ok()?;
    match opt_point(&format!("{what} end"), args, end_key, ctx) {
        Ok((Some(x2), Some(y2))) => Some(ActionKind::Drag { x, y, x2, y2 }),
        Ok(_) => ctx.fail(format!("{what}: missing \"{end_key}\" (where to drag to)")),
        Err(()) => None,
    }
}

/// `scroll` / `hscroll`: `pixels` are notches, positive = up or right.
fn scroll(what: &str, args: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let Some(pixels) = args
        .get("pixels")
        .or_else(|| args.get("amount"))
        .and_then(number)
    else {
        return ctx.fail(format!(
            "{what}: missing \"pixels\" (notches; positive = up or right)"
        ));
    };
    let direction = match (what, pixels >= 0.0) {
        ("hscroll", true) => ScrollDirection::Right,
        ("hscroll", false) => ScrollDirection::Left,
        (_, true) => ScrollDirection::Up,
        (_, false) => ScrollDirection::Down,
    };
    let (x, y) = ctx.position_or_pointer(what, args).ok()?;
    let amount = ctx.notches(what, pixels);
    Some(ActionKind::Scroll {
        x,
        y,
        direction,
        amount,
    })
}

/// `terminate`: done or failed by `status`, with the answer as its text.
fn terminate(args: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let status = text(args.get("status"))
        .unwrap_or_default()
        .to_ascii_lowercase();
    let note = answer(args);
    match status.trim() {
        "success" | "succeeded" | "done" => Some(ActionKind::Done { text: note }),
        "failure" | "fail" | "failed" => Some(ActionKind::Fail { text: note }),
        other => ctx.fail(format!(
            "terminate: status {other:?} is not success or failure"
        )),
    }
}

/// The answer of `terminate` / `answer`: `text` or `answer`, empty when absent.
fn answer(args: &Value) -> String {
    text(args.get("text").or_else(|| args.get("answer"))).unwrap_or_default()
}
