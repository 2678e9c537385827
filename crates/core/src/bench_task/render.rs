//! Rendering a golden action into the reply a model would give under a strategy: the scripted
//! model of `franz bench tasks --model scripted` answers with these, so the parser, the
//! executor and the checkers are tested from intent to screen.
//!
//! A [`Renderer`] is a grammar (`calls` for narrative, `json` for vision, tool calls for tools)
//! and a coordinate space (0..1000, or pixels of the image the model saw). Profiles with their
//! own grammars add a variant to [`Grammar`] and a match arm to [`renderer_for`]: Qwen's
//! `computer_use` calls and UI-TARS's `Action:` lines, in pixels of the image the profile sends.

use crate::action::Action;
use crate::geometry::{ImageSize, axis_to_norm, norm_to_axis};
use crate::model::ScriptedReply;
use serde_json::{Map, Value, json};

/// How a reply is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grammar {
    /// `left_click(x, y)` calls in text (the narrative strategy, `parser/calls.rs`).
    Calls,
    /// `{"observation", "actions": [...]}` (the vision strategy, `parser/json.rs`).
    Json,
    /// Structured function calls (the tools strategy, `parser/tools.rs`).
    Tools,
    /// Qwen's `computer_use` function in `<tool_call>` blocks (`parser/qwen.rs`).
    Qwen,
    /// UI-TARS's `Thought:` / `Action: click(start_box='(x,y)')` (`parser/uitars.rs`).
    Uitars,
}

/// Where coordinates are given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Norm,
    /// Pixels of an image of this size (what the model was shown).
    Pixels(ImageSize),
}

/// A grammar and a coordinate space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Renderer {
    pub grammar: Grammar,
    pub space: Space,
}

/// The profiles whose own grammar the scripted model writes (with the narrative strategy).
pub const PROFILE_GRAMMARS: &[&str] = &["qwen2.5-vl", "ui-tars-1.5"];

/// The renderer for a strategy under a profile (`None` or `franz`: the strategy's own grammar
/// in 0..1000), for a task on a `screen` of that size; an error when none is known, naming
/// those that are. A profile with its own grammar ([`PROFILE_GRAMMARS`]) is written in that
/// grammar, in pixels of the image the profile sends for the screen (the fixed point of its
/// family's `smart_resize`, crates/core/src/geometry.rs).
pub fn renderer_for(
    strategy: &str,
    profile: Option<&str>,
    screen: ImageSize,
) -> Result<Renderer, String> {
    match profile.map(str::trim).filter(|p| !p.is_empty()) {
        None => strategy_renderer(strategy),
        Some(p) if p.eq_ignore_ascii_case(crate::profile::DEFAULT) => strategy_renderer(strategy),
        Some(p) => profile_renderer(strategy, p, screen),
    }
}

fn strategy_renderer(strategy: &str) -> Result<Renderer, String> {
    let grammar = match strategy {
        "narrative" => Grammar::Calls,
        "vision" => Grammar::Json,
        "tools" => Grammar::Tools,
        other => {
            return Err(format!(
                "the scripted model cannot answer for strategy {other:?}: it knows narrative, vision and tools"
            ));
        }
    };
    Ok(Renderer {
        grammar,
        space: Space::Norm,
    })
}

fn profile_renderer(strategy: &str, name: &str, screen: ImageSize) -> Result<Renderer, String> {
    use crate::parser::Dialect;
    let known = || {
        format!(
            "the scripted model writes the grammars of franz and of the profiles {} (with \
             --strategy narrative)",
            PROFILE_GRAMMARS.join(", ")
        )
    };
    let profile = crate::profile::by_name(name)
        .filter(|p| PROFILE_GRAMMARS.contains(&p.name.as_str()))
        .ok_or_else(|| {
            format!(
                "the scripted model cannot answer as --profile {name}: {}",
                known()
            )
        })?;
    if strategy != "narrative" {
        return Err(format!(
            "the scripted model cannot answer as --profile {name} with --strategy {strategy}: {}",
            known()
        ));
    }
    let grammar = match profile.dialect() {
        Ok(Some(Dialect::Qwen)) => Grammar::Qwen,
        Ok(Some(Dialect::Uitars)) => Grammar::Uitars,
        _ => {
            return Err(format!(
                "the profile {name} has no grammar the scripted model writes"
            ));
        }
    };
    let image = profile.size_rule(0).resolve(screen.width, screen.height);
    Ok(Renderer {
        grammar,
        space: Space::Pixels(image),
    })
}

const POINT_KEYS: [(&str, &str); 2] = [("x", "y"), ("x2", "y2")];

impl Renderer {
    /// The reply that carries `action`.
    pub fn render(&self, action: &Action) -> ScriptedReply {
        let mut v = serde_json::to_value(action).unwrap_or(Value::Null);
        if let (Space::Pixels(size), Some(obj)) = (self.space, v.as_object_mut()) {
            for (kx, ky) in POINT_KEYS {
                scale(obj, kx, size.width);
                scale(obj, ky, size.height);
            }
        }
        let obj = v.as_object().cloned().unwrap_or_default();
        match self.grammar {
            Grammar::Calls => ScriptedReply::text(calls(&obj)),
            Grammar::Json => ScriptedReply::text(json_reply(&obj)),
            Grammar::Tools => tools(&obj),
            Grammar::Qwen => ScriptedReply::text(qwen(&obj)),
            Grammar::Uitars => ScriptedReply::text(uitars(&obj)),
        }
    }

    /// A point in 0..1000 as this renderer writes it (for messages and tests).
    pub fn point(&self, x: i32, y: i32) -> (i32, i32) {
        match self.space {
            Space::Norm => (x, y),
            Space::Pixels(s) => (norm_to_axis(x, 0, s.width), norm_to_axis(y, 0, s.height)),
        }
    }
}

fn scale(obj: &mut Map<String, Value>, key: &str, len: u32) {
    if let Some(n) = obj.get(key).and_then(Value::as_i64) {
        obj.insert(key.into(), json!(norm_to_axis(n as i32, 0, len)));
    }
}

/// Kept for symmetry with [`Renderer::point`]: pixels back to 0..1000.
pub fn to_norm(px: i32, len: u32) -> i32 {
    axis_to_norm(px, len)
}

fn num(o: &Map<String, Value>, k: &str) -> i64 {
    o.get(k).and_then(Value::as_i64).unwrap_or(0)
}

fn text(o: &Map<String, Value>, k: &str) -> String {
    let s = o.get(k).and_then(Value::as_str).unwrap_or("");
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn calls(o: &Map<String, Value>) -> String {
    let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
    let (x, y) = (num(o, "x"), num(o, "y"));
    let call = match kind {
        "click" => format!("left_click({x}, {y})"),
        "double_click" => format!("double_left_click({x}, {y})"),
        "right_click" | "triple_click" | "middle_click" | "move" => format!("{kind}({x}, {y})"),
        "drag" => format!("drag({x}, {y}, {}, {})", num(o, "x2"), num(o, "y2")),
        "scroll" => format!(
            "scroll({x}, {y}, {}, {})",
            text(o, "direction"),
            num(o, "amount")
        ),
        "type" => format!("type({})", text(o, "text")),
        "key" => format!("press_key({})", text(o, "keys")),
        "wait" => format!(
            "wait({})",
            o.get("seconds").and_then(Value::as_f64).unwrap_or(1.0)
        ),
        "fail" => format!("fail({})", text(o, "text")),
        _ => format!("done({})", text(o, "text")),
    };
    format!("{call}\nFollowing the golden trajectory: {kind}.")
}

fn json_reply(o: &Map<String, Value>) -> String {
    let mut a = o.clone();
    let kind = a.remove("type").unwrap_or(Value::Null);
    a.insert("name".into(), kind.clone());
    json!({"observation": format!("Following the golden trajectory: {}.", kind.as_str().unwrap_or("")), "actions": [a]}).to_string()
}

fn tools(o: &Map<String, Value>) -> ScriptedReply {
    let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
    let at = json!([num(o, "x"), num(o, "y")]);
    let call = |name: &str, args: Value| {
        ScriptedReply::text(format!("Following the golden trajectory: {kind}."))
            .tool_call(name, args)
    };
    let s = |k: &str| o.get(k).cloned().unwrap_or(Value::Null);
    match kind {
        "click" => call("click_element", json!({"label": "target", "box": at})),
        "double_click" => call(
            "double_click_element",
            json!({"label": "target", "box": at}),
        ),
        "right_click" => call("right_click_element", json!({"label": "target", "box": at})),
        "move" => call("move_mouse", json!({"position": at})),
        "drag" => call(
            "drag_element",
            json!({"start": at, "end": [num(o, "x2"), num(o, "y2")]}),
        ),
        "scroll" => call(
            "scroll_at_position",
            json!({"box": at, "direction": s("direction"), "amount": s("amount")}),
        ),
        "type" => call("type_text", json!({"text": s("text")})),
        "key" => call("press_key", json!({"key": s("keys")})),
        _ => ScriptedReply::text(format!(
            "The task is complete. {}",
            o.get("text").and_then(Value::as_str).unwrap_or("")
        )),
    }
}

/// Qwen's `computer_use` call for the action (a `terminate` failure for one it has no form for).
fn qwen(o: &Map<String, Value>) -> String {
    let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
    let at = json!([num(o, "x"), num(o, "y")]);
    let s = |k: &str| o.get(k).cloned().unwrap_or(Value::Null);
    let args = match kind {
        "click" => json!({"action": "left_click", "coordinate": at}),
        "double_click" | "right_click" | "middle_click" | "triple_click" => {
            json!({"action": kind, "coordinate": at})
        }
        "move" => json!({"action": "mouse_move", "coordinate": at}),
        "drag" => json!({"action": "left_click_drag", "start_coordinate": at,
            "coordinate": [num(o, "x2"), num(o, "y2")]}),
        "scroll" => {
            let n = num(o, "amount");
            let (action, pixels) = match o.get("direction").and_then(Value::as_str) {
                Some("down") => ("scroll", -n),
                Some("left") => ("hscroll", -n),
                Some("right") => ("hscroll", n),
                _ => ("scroll", n),
            };
            json!({"action": action, "coordinate": at, "pixels": pixels})
        }
        "type" => json!({"action": "type", "text": s("text")}),
        "key" => {
            let keys = o.get("keys").and_then(Value::as_str).unwrap_or("");
            json!({"action": "key", "keys": key_parts(keys)})
        }
        "wait" => json!({"action": "wait", "time": s("seconds")}),
        "done" => json!({"action": "terminate", "status": "success", "text": s("text")}),
        "fail" => json!({"action": "terminate", "status": "failure", "text": s("text")}),
        other => json!({"action": "terminate", "status": "failure",
            "text": format!("the golden step {other} has no computer_use form")}),
    };
    let call = json!({"name": "computer_use", "arguments": args});
    format!("Following the golden trajectory: {kind}.\n<tool_call>\n{call}\n</tool_call>")
}

/// The keys of a combo (`ctrl+c` -> `["ctrl", "c"]`; a `+` key stays one).
fn key_parts(keys: &str) -> Vec<String> {
    let parts: Vec<String> = keys
        .split('+')
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect();
    if parts.is_empty() || keys.ends_with("++") || keys == "+" {
        let mut p: Vec<String> = parts;
        p.push("+".into());
        return p;
    }
    parts
}

/// A Python string literal in single quotes, as UI-TARS writes its arguments.
fn py_str(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// UI-TARS's `Thought:` and `Action:` for the action (`call_user()` for one it has no form for:
/// the run then ends unfinished). It scrolls 3 notches a call and waits 5 s, as it defines them.
fn uitars(o: &Map<String, Value>) -> String {
    let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
    let at =
        |kx: &str, ky: &str| format!("'<|box_start|>({},{})<|box_end|>'", num(o, kx), num(o, ky));
    let text = |k: &str| py_str(o.get(k).and_then(Value::as_str).unwrap_or(""));
    let action = match kind {
        "click" => format!("click(start_box={})", at("x", "y")),
        "double_click" => format!("left_double(start_box={})", at("x", "y")),
        "right_click" => format!("right_single(start_box={})", at("x", "y")),
        "middle_click" => format!("middle_click(start_box={})", at("x", "y")),
        "move" => format!("hover(start_box={})", at("x", "y")),
        "drag" => format!(
            "drag(start_box={}, end_box={})",
            at("x", "y"),
            at("x2", "y2")
        ),
        "scroll" => format!(
            "scroll(start_box={}, direction={})",
            at("x", "y"),
            text("direction")
        ),
        "type" => format!("type(content={})", text("text")),
        "key" => {
            let keys = key_parts(o.get("keys").and_then(Value::as_str).unwrap_or(""));
            format!("hotkey(key={})", py_str(&keys.join(" ")))
        }
        "wait" => "wait()".into(),
        "done" => format!("finished(content={})", text("text")),
        _ => "call_user()".into(),
    };
    format!("Thought: Following the golden trajectory: {kind}.\nAction: {action}")
}
