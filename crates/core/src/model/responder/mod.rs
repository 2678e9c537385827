//! A scripted model that answers in the format the request asks for, as a model that follows
//! its prompt would: it reads the request's system prompt and tool schema, finds the example
//! of the action it needs (a tool's function schema, the JSON example, the prompt's grammar
//! lines) and fills in the values. Coordinates are computed for the request: from the size of
//! the image it carries and the space its prompt names (pixels of that image, 0..1000, or
//! fractions 0..1).
//! Nothing here knows a profile or a strategy by name, so a new grammar or prompt is answered
//! the way its own text says.
//!
//! [`Style::Design`] answers instead in the designs' own formats (docs/actions.md): narrative
//! call lines, the vision JSON, franz's tool calls; always in 0..1000.
//!
//! [`script`] plays a plan of [`Intent`]s, one per request that shows the screen; a request
//! without a screenshot (the commander's leader) is briefed without using up the plan.

mod design;
mod grounder;
mod schema;
mod text;

use super::scripted_server::{RecordedRequest, Script};
use super::scripted_wire::ScriptedReply;
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError};

/// The sentence each reply carries where its format has room for the model's own words (a
/// finish's carries its answer instead).
const STORY: &str = "I see the terminal window; I act on it as the goal asks.";

/// What the scripted model does in one turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// A left click at fractions `fx`, `fy` (0.0 to 1.0) of the image's width and height.
    Click { fx: f64, fy: f64 },
    /// Types this text.
    Type(String),
    /// Presses this key or combination (`enter`, `ctrl+s`).
    Key(String),
    /// Says the task is done, with this answer.
    Finish(String),
}

/// Which format the replies are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The format the request asks for.
    Asked,
    /// One of the designs' own formats, whatever the request asks for.
    Design(DesignFormat),
}

/// The designs' formats (docs/actions.md), coordinates in 0..1000 of the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DesignFormat {
    /// Narrative call lines: `left_click(499, 494)`.
    Calls,
    /// The vision JSON: `{"observation", "bboxes", "actions"}`.
    VisionJson,
    /// franz's tool calls (`click_element`, `type_text`), as structured tool calls.
    Tools,
}

/// The coordinate space a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Norm1000,
    /// Pixels of the image sent, of this width and height.
    Pixels(u32, u32),
    /// Fractions 0..1 of each axis, written with four decimals.
    Relative,
}

impl Space {
    /// The point at fractions `fx`, `fy` of the image, in this space: whole numbers in
    /// 0..1000 and pixels, decimals in fractions.
    pub fn point(self, fx: f64, fy: f64) -> (f64, f64) {
        let at = |f: f64, len: u32| (f * f64::from(len)).round().clamp(0.0, f64::from(len));
        match self {
            Space::Norm1000 => (at(fx, 1000), at(fy, 1000)),
            Space::Pixels(w, h) => (
                at(fx, w).min(f64::from(w) - 1.0),
                at(fy, h).min(f64::from(h) - 1.0),
            ),
            Space::Relative => (at(fx, 10_000) / 10_000.0, at(fy, 10_000) / 10_000.0),
        }
    }
}

/// A coordinate as JSON: a whole number stays an integer (`500`, never `500.0`).
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        Value::from(v as i64)
    } else {
        Value::from(v)
    }
}

/// The replies a [`script`] gave, in order.
pub type Transcript = Arc<Mutex<Vec<ScriptedReply>>>;

/// A script that plays `plan` in `style`: each request that carries a screenshot gets the
/// next intent (the last one again once the plan is used up); one without (the commander's
/// leader) is briefed and the plan waits. Every reply is kept in the transcript.
pub fn script(plan: Vec<Intent>, style: Style) -> (Script, Transcript) {
    let transcript = Transcript::default();
    let kept = transcript.clone();
    let next = Mutex::new(0usize);
    let script = Script::func(move |req: &RecordedRequest| {
        let reply = match &req.json {
            None => ScriptedReply::text("(the request was not JSON)"),
            Some(body) if image_size(body).is_none() => brief(body),
            Some(body) => {
                let mut i = next.lock().unwrap_or_else(PoisonError::into_inner);
                let intent = plan.get(*i).or(plan.last());
                *i += 1;
                match intent {
                    Some(intent) => answer(body, intent, style),
                    None => ScriptedReply::text("(no plan)"),
                }
            }
        };
        let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.push(reply.clone());
        reply.into()
    });
    (script, transcript)
}

/// The reply to `request` (a chat-completions body) that does `intent`, in `style`.
pub fn answer(request: &Value, intent: &Intent, style: Style) -> ScriptedReply {
    // a grounding model's prompt is answered in its own form (docs/grounding.md)
    if let Intent::Click { fx, fy } = intent
        && let Some(reply) = grounder::answer(request, *fx, *fy)
    {
        return reply;
    }
    let space = read_space(request);
    let at = match intent {
        Intent::Click { fx, fy } => Some(space.point(*fx, *fy)),
        _ => None,
    };
    match style {
        Style::Design(format) => {
            let completion = system_text(request).contains("report_completion");
            design::reply(format, intent, at.map(|_| point_norm(intent)), completion)
        }
        Style::Asked => asked(request, intent, at),
    }
}

fn point_norm(intent: &Intent) -> (i64, i64) {
    match intent {
        Intent::Click { fx, fy } => {
            let (x, y) = Space::Norm1000.point(*fx, *fy);
            (x as i64, y as i64)
        }
        _ => (0, 0),
    }
}

/// In the format the request asks for: a structured tool call when it sends tools, else text.
fn asked(request: &Value, intent: &Intent, at: Option<(f64, f64)>) -> ScriptedReply {
    let sys = system_text(request);
    let tools = tool_functions(request);
    // a function for the action when the request sends one; else the prompt's text grammar
    // (the commander's operator sends its report functions and writes actions in text)
    let mut reply = match schema::call(&tools, intent, at) {
        Some((name, args)) => ScriptedReply::text(text::story(&sys)).tool_call(name, args),
        None => ScriptedReply::text(text::reply(&sys, intent, at)),
    };
    // a finish says what shows the goal is reached where the reply has words of its own
    // (a form with no place for the answer, such as Qwen's terminate, takes them as it)
    if let Intent::Finish(answer) = intent {
        let said = format!("The goal is reached: {answer}.");
        reply.content = reply.content.replace(STORY, &said);
    }
    reply
}

/// A request without a screenshot (the commander's leader): the function its prompt says to
/// end with, its text arguments filled with a brief.
fn brief(request: &Value) -> ScriptedReply {
    let sys = system_text(request);
    let tools = tool_functions(request);
    match schema::named_in(&tools, &sys) {
        Some(tool) => {
            let args = schema::brief_args(tool);
            let name = tool["name"].as_str().unwrap_or_default().to_string();
            ScriptedReply::text("The plan: one objective.").tool_call(name, args)
        }
        None => ScriptedReply::text(
            "OBJ-1: click into the terminal window, type the word and report completion.",
        ),
    }
}

/// The text of a message's content (a string, or the text parts of a list).
fn content_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Every message's text, joined.
fn all_text(request: &Value) -> String {
    messages(request)
        .map(content_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every system message's text, joined.
pub fn system_text(request: &Value) -> String {
    messages(request)
        .filter(|m| m["role"] == "system")
        .map(content_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn messages(request: &Value) -> impl Iterator<Item = &Value> {
    request["messages"].as_array().into_iter().flatten()
}

/// The `function` objects of the request's tools.
fn tool_functions(request: &Value) -> Vec<Value> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t.get("function").unwrap_or(t).clone())
        .collect()
}

/// The space the request's prompt names for points: fractions when its prompt or tool
/// descriptions say so; pixels of the image it carries when they say that (a request in pixels
/// may still name 0..1000 for something else, such as `list_windows`'s bounds); 0..1000 when
/// they say so; else pixels.
pub fn read_space(request: &Value) -> Space {
    let words = format!("{}\n{}", system_text(request), request["tools"]);
    let says = |ws: &[&str]| ws.iter().any(|w| words.contains(w));
    match image_size(request) {
        _ if says(&["fractions from 0 to 1", "fractions 0..1"]) => Space::Relative,
        Some((w, h)) if says(&["pixels of the"]) => Space::Pixels(w, h),
        Some((w, h)) if !says(&["0 to 1000", "0..1000", "1000x1000"]) => Space::Pixels(w, h),
        _ => Space::Norm1000,
    }
}

/// The width and height of the last image the request carries (PNG or JPEG, as the
/// `image_format` setting sends it).
pub fn image_size(request: &Value) -> Option<(u32, u32)> {
    let url = messages(request)
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter_map(|p| p["image_url"]["url"].as_str())
        .last()?;
    crate::model::context::image_size(url)
}

#[cfg(test)]
mod tests;
