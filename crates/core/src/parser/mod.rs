//! The reply parser: turns what a model said (content text and/or tool calls) into actions,
//! the text that goes with them (vision notes, story, thought), and errors a strategy can send
//! back to the model.
//!
//! Every dialect franz meets has its own file; this module strips `<think>` blocks, detects
//! the dialect (or takes a forced one) and dispatches. The parser never panics and never
//! evaluates anything: broken input becomes entries in [`ParsedReply::errors`].
//!
//! Coordinates (see `coords`): 0..1000 by default, or pixels of the image with
//! [`CoordMode::Pixels`]; numbers may be strings, boxes become their centers, `[-1,-1]` and
//! empty boxes are errors, and values outside 0..1000 are kept as given: the executor's
//! `work_area` rule refuses them (only the vision loop's bboxes are clamped).

mod anthropic;
mod calls;
mod coords;
mod fallback;
mod gemini;
mod holo;
pub mod hostile;
mod json;
pub mod lenient;
mod openai;
mod point;
mod pyautogui;
mod qwen;
mod repair;
mod seed;
pub mod space;
pub mod stream;
mod syntax;
mod tools;
mod uitars;
mod values;
mod venus;
pub mod work;

use crate::action::Action;
use crate::geometry::{ImageSize, NormBox};
use crate::model::types::Reply;
use crate::placeholder;
use coords::Ctx;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

/// The reply formats franz reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// docs/designs.md (vision loop):
    /// `{"observation", "bboxes", "actions": [{"name": "click", "x1", "y1"}]}`.
    Json,
    /// docs/designs.md (narrative): `left_click(650, 420)` in text, the rest is the story.
    Calls,
    /// docs/designs.md (tool calling, commander): `click_element{label, box}`, `type_text`, ... as
    /// tool calls.
    Tools,
    /// Qwen2.5-VL / Qwen3-VL `computer_use` / `mobile_use`.
    Qwen,
    /// UI-TARS `Thought: ...\nAction: click(start_box='(x,y)')`.
    Uitars,
    /// Anthropic's `computer` tool input.
    Anthropic,
    /// OpenAI computer-use action objects.
    Openai,
    /// pyautogui code as OSWorld-style agents write it: `pyautogui.click(x=512, y=300)`.
    Pyautogui,
    /// H Company's Holo3 structured output (`{"thought", "tool_call": {"tool_name", "x",
    /// "y"}}`) and Holo1.5's `{"action": "click_absolute", "x", "y"}`.
    Holo,
    /// UI-Venus-1.5: `<action>Click(box=(x,y))</action>`.
    Venus,
    /// Gemini computer use: `click_at{x, y}`, `type_text_at`, ... as function calls.
    Gemini,
    /// A grounding model's answer: one point or box (`(x,y)`, `[x,y]`, OS-Atlas's
    /// `<|box_start|>(x1,y1),(x2,y2)<|box_end|>`), performed as a click there.
    Point,
    /// Auto-detection found nothing it knows.
    None,
}

impl Dialect {
    pub const ALL: [Dialect; 12] = [
        Dialect::Json,
        Dialect::Calls,
        Dialect::Tools,
        Dialect::Qwen,
        Dialect::Uitars,
        Dialect::Anthropic,
        Dialect::Openai,
        Dialect::Pyautogui,
        Dialect::Holo,
        Dialect::Venus,
        Dialect::Gemini,
        Dialect::Point,
    ];

    pub const fn as_str(&self) -> &'static str {
        match self {
            Dialect::Json => "json",
            Dialect::Calls => "calls",
            Dialect::Tools => "tools",
            Dialect::Qwen => "qwen",
            Dialect::Uitars => "uitars",
            Dialect::Anthropic => "anthropic",
            Dialect::Openai => "openai",
            Dialect::Pyautogui => "pyautogui",
            Dialect::Holo => "holo",
            Dialect::Venus => "venus",
            Dialect::Gemini => "gemini",
            Dialect::Point => "point",
            Dialect::None => "none",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!(
                    "unknown dialect {s:?}: use auto or one of {}",
                    Dialect::ALL.map(|d| d.as_str()).join(", ")
                )
            })
    }
}

/// How the model gives coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CoordMode {
    /// 0..1000 of the working area.
    #[default]
    Norm,
    /// Pixels of the image the model was sent.
    Pixels(ImageSize),
    /// A family profile's space (docs/coordinates.md, "Exact targets"): values in 0..=S on
    /// each axis of this extent S, kept exactly in each action's `exact` and mapped by
    /// `P0 + min(L - 1, round(v * L / S))`.
    Exact(ImageSize),
}

/// How to parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParseOptions {
    /// `None` detects the dialect.
    pub dialect: Option<Dialect>,
    pub coords: CoordMode,
}

/// What a reply meant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedReply {
    pub dialect: Dialect,
    pub actions: Vec<Action>,
    /// The text that goes with the actions: the vision notes (the JSON's `observation`), the
    /// narrative's story or UI-TARS's thought.
    pub text: String,
    /// What could not be read, for the model to fix next turn.
    pub errors: Vec<String>,
    /// The vision loop's regions of interest (0..1000, docs/designs.md), for the panel. Not part
    /// of `franz parse`.
    #[serde(skip)]
    pub bboxes: Vec<NormBox>,
}

/// Parses text alone.
pub fn parse_text(text: &str, opts: &ParseOptions) -> ParsedReply {
    parse_reply(&Reply::text(text), opts)
}

/// Parses a reply: its tool calls if it has any, else its content. With a dialect asked for
/// (`opts.dialect`), a reply that gives no action in it is read again in every other dialect
/// franz reads (by detection); what is found there is performed only when its numbers mean
/// the same under the run's coordinates (`parser/fallback.rs`, docs/actions.md "Replies in
/// another dialect").
pub fn parse_reply(reply: &Reply, opts: &ParseOptions) -> ParsedReply {
    let (mut first, _) = read(reply, opts, opts.dialect);
    if !first.actions.is_empty() || opts.dialect.is_none() {
        return first;
    }
    let detect = ParseOptions {
        dialect: None,
        ..*opts
    };
    let (other, foreign) = read(reply, &detect, opts.dialect);
    if foreign {
        return other;
    }
    // written in another dialect that read nothing either: its reasons say more
    if !matches!(other.dialect, Dialect::None) && other.dialect != first.dialect {
        let new: Vec<String> = (other.errors.into_iter())
            .filter(|e| !first.errors.contains(e))
            .collect();
        first.errors.extend(new);
    }
    first
}

/// Parses a reply in the dialect asked for only, never reading it again in another: the
/// streaming reader's first action must be the whole reply's first action in that dialect.
pub(crate) fn parse_asked(reply: &Reply, opts: &ParseOptions) -> ParsedReply {
    read(reply, opts, opts.dialect).0
}

/// One reading of a reply with `opts` (its dialect `None`: detection), `asked` being the dialect
/// the run asks for; and whether an action in another dialect than `asked` was read (performed
/// or refused).
fn read(reply: &Reply, opts: &ParseOptions, asked: Option<Dialect>) -> (ParsedReply, bool) {
    let content = strip_think(&reply.content);
    let mut ctx = Ctx::new(opts);
    ctx.asked = asked;
    let foreign_errors = |ctx: &Ctx| ctx.errors.iter().any(|e| e.contains(fallback::DISAGREE));
    let (dialect, text) = if reply.tool_calls.is_empty() {
        parse_answered(&content, &mut ctx)
    } else {
        let mut found = None;
        for call in &reply.tool_calls {
            let args = tools::arguments(&call.name, &call.arguments, &mut ctx);
            let d = dispatch_call(&call.name, args.as_ref(), opts.dialect, &mut ctx);
            found.get_or_insert(d);
        }
        (found.unwrap_or(Dialect::Tools), content.trim().to_string())
    };
    if reply.truncated() {
        ctx.err("the reply was cut off at max_tokens (finish_reason: length): answer shorter, or raise max_tokens");
    }
    refuse_echo(&content, &mut ctx);
    // franz's own formats are what franz prompted for where it has no prompt of the asked
    // dialect: no reminder then
    let prompted = |d: Dialect, asked: Dialect| {
        fallback::prompts_in_franz_formats(asked)
            && matches!(d, Dialect::Json | Dialect::Calls | Dialect::Tools)
    };
    if let (Some(d), Some(asked)) = (ctx.foreign, asked)
        && !prompted(d, asked)
    {
        ctx.err(fallback::reminder(d, asked));
    }
    if ctx.actions.is_empty() && ctx.errors.is_empty() && !ctx.explicit_none {
        ctx.err(match dialect {
            Dialect::None => {
                "no action found: the reply has no JSON actions, function calls or tool calls"
                    .to_string()
            }
            d => format!("no action found in the {d} reply"),
        });
    }
    let foreign = ctx.foreign.is_some() || foreign_errors(&ctx);
    let parsed = ParsedReply {
        dialect,
        actions: ctx.actions,
        text,
        errors: ctx.errors,
        bboxes: ctx.bboxes,
    };
    (parsed, foreign)
}

/// A reply that acted on nothing and repeats a prompt's example (`{"coordinate": [x, y]}`,
/// which is no JSON, or a call no dialect read) is told so (docs/actions.md, "Placeholders in
/// examples"), unless a reader already said it.
fn refuse_echo(content: &str, ctx: &mut Ctx) {
    if !ctx.actions.is_empty() || ctx.errors.iter().any(|e| e.contains(placeholder::ECHO)) {
        return;
    }
    let names = placeholder::echoed(content);
    if !names.is_empty() {
        ctx.err(placeholder::refusal("", &names));
    }
}

/// Parses content text: an `<answer>…</answer>` block is a final answer (done with its text,
/// after the actions the rest of the reply gives), read in the dialect of the rest, UI-TARS when
/// the rest is only thinking (the omni format of UI-TARS-desktop's parser). Returns the dialect
/// and the text that goes with the actions.
fn parse_answered(content: &str, ctx: &mut Ctx) -> (Dialect, String) {
    let forced = ctx.opts.dialect;
    let Some((rest, answer)) = answer_block(content) else {
        let d = forced.unwrap_or_else(|| detect(content));
        return (d, parse_content(d, content, ctx));
    };
    if grounding_answer(&answer, ctx) {
        let words = rest
            .replace("<grounding_think>", "")
            .replace("</grounding_think>", "");
        return (
            forced.unwrap_or(Dialect::Point),
            uitars::tags_as_text(&words),
        );
    }
    let detected = forced.unwrap_or_else(|| detect(&rest));
    let (d, text) = if uitars::tags_as_text(&rest).is_empty() {
        let d = if detected == Dialect::None {
            Dialect::Uitars
        } else {
            detected
        };
        (d, String::new())
    } else if detected == Dialect::None {
        (Dialect::Uitars, uitars::tags_as_text(&rest))
    } else {
        (detected, parse_content(detected, &rest, ctx))
    };
    ctx.push(crate::action::ActionKind::Done { text: answer }, None);
    (d, text)
}

/// MAI-UI's grounding form, `<answer>{"coordinate": [x, y]}</answer>` (Tongyi-MAI/MAI-UI
/// `src/prompt.py`, the grounding prompt): an answer that is only a coordinate is a point to
/// click, not a final answer. Whether it was one (the click, or its error, recorded).
fn grounding_answer(answer: &str, ctx: &mut Ctx) -> bool {
    let Ok(v) = lenient::parse(answer.trim()) else {
        return false;
    };
    let Some(obj) = v.as_object().filter(|o| o.len() == 1) else {
        return false;
    };
    let Some(at) = obj.get("coordinate") else {
        return false;
    };
    if let Some((x, y)) = ctx.point("click", at) {
        ctx.push(
            crate::action::ActionKind::Click {
                x: Some(x),
                y: Some(y),
            },
            None,
        );
    }
    true
}

/// The reply without its `<answer>…</answer>` block, and the answer (only the formatting
/// newlines right inside the tags dropped); `None` without a closed block.
fn answer_block(content: &str) -> Option<(String, String)> {
    let lower = content.to_ascii_lowercase();
    let open = lower.find("<answer>")?;
    let start = open + "<answer>".len();
    let end = lower[start..].find("</answer>")? + start;
    let answer = &content[start..end];
    let answer = answer.strip_prefix('\n').unwrap_or(answer);
    let answer = answer.strip_suffix('\n').unwrap_or(answer);
    let mut rest = content.to_string();
    rest.replace_range(open..end + "</answer>".len(), "");
    Some((rest, answer.to_string()))
}

/// Parses content text in dialect `d`; returns the text that goes with the actions.
fn parse_content(d: Dialect, content: &str, ctx: &mut Ctx) -> String {
    ctx.current = d;
    match d {
        Dialect::Json => json::parse(content, ctx),
        Dialect::Calls => calls::parse(content, ctx),
        Dialect::Uitars if has_tool_calls(content) => text_calls(d, content, ctx),
        Dialect::Uitars => match seed::compact_line(content) {
            Some(at) if !uitars::has_action_line(content) => seed::parse_compact(content, at, ctx),
            _ => uitars::parse(content, ctx),
        },
        Dialect::Pyautogui => pyautogui::parse(content, ctx),
        Dialect::Holo => holo::parse(content, ctx),
        Dialect::Venus => venus::parse(content, ctx),
        Dialect::Point => point::parse(content, ctx),
        Dialect::Tools | Dialect::Qwen | Dialect::Anthropic | Dialect::Openai | Dialect::Gemini => {
            text_calls(d, content, ctx)
        }
        Dialect::None => content.trim().to_string(),
    }
}

/// Whether content text holds tool calls (`<tool_call>` / `<function=` blocks, or a JSON
/// `{"name", "arguments"}` object) rather than UI-TARS `Action:` lines.
fn has_tool_calls(content: &str) -> bool {
    let lower = content.to_ascii_lowercase();
    if lower.contains("<tool_call>")
        || lower.contains("<function=")
        || lower.contains("<seed:tool_call>")
    {
        return true;
    }
    !uitars::has_action_line(content)
        && lenient::objects(content).iter().any(|o| {
            o.value.as_ref().is_ok_and(|v| {
                v.get("name").is_some()
                    && (v.get("arguments").is_some() || v.get("parameters").is_some())
            })
        })
}

/// Tool calls written into the content: `<tool_call>` blocks, `<function=...>` XML, or bare
/// JSON objects (`{"name", "arguments"}`, or an action object of the dialect).
fn text_calls(d: Dialect, content: &str, ctx: &mut Ctx) -> String {
    let (found, rest) = qwen::tagged_calls(content);
    if !found.is_empty() {
        for call in found {
            match call {
                Ok((name, raw)) => {
                    let args = tools::arguments(&name, &raw, ctx);
                    dispatch_call(&name, args.as_ref(), ctx.opts.dialect, ctx);
                }
                Err(e) => ctx.err(e),
            }
        }
        return uitars::tags_as_text(&rest);
    }
    let objects = lenient::objects(content);
    for obj in &objects {
        match &obj.value {
            Ok(v) => {
                let args = v.get("arguments").or_else(|| v.get("parameters"));
                match (v.get("name").and_then(Value::as_str), args) {
                    (Some(name), Some(a)) => {
                        let args = tools::arguments(name, a, ctx);
                        dispatch_call(name, args.as_ref(), ctx.opts.dialect, ctx);
                    }
                    _ => match d {
                        Dialect::Openai => openai::apply(v, ctx),
                        Dialect::Qwen => qwen::apply(v, false, ctx),
                        Dialect::Tools | Dialect::Uitars => ctx.err(format!(
                            "a JSON object without \"name\" and \"arguments\" is not a tool call: {}",
                            crate::model::body::snippet(&v.to_string())
                        )),
                        _ => anthropic::apply_call("computer", v, ctx),
                    },
                }
            }
            Err(e) => ctx.err(e.clone()),
        }
    }
    let mut rest = content.to_string();
    for obj in objects.iter().rev() {
        rest.replace_range(obj.span.clone(), "");
    }
    if d == Dialect::Uitars {
        if objects.is_empty() {
            ctx.err("no UI-TARS tool call found: write <seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter></function></seed:tool_call>");
        }
        return uitars::tags_as_text(&rest);
    }
    if objects.is_empty() {
        ctx.err(format!("no {d} tool call found in the text"));
    }
    lenient::strip_fences(&rest)
}

/// The dialect of one tool call: by its name (and arguments); a forced Qwen, Anthropic or
/// OpenAI dialect reads every call, a forced UI-TARS reads the UI-TARS-2 names.
fn route(name: &str, args: Option<&Value>, forced: Option<Dialect>) -> Dialect {
    let lname = name.trim().to_ascii_lowercase();
    let is_openai = args.is_some_and(|a| {
        a.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| !seed::anthropic_only(t))
            || a.get("action").is_some_and(Value::is_object)
    });
    match forced {
        Some(d @ (Dialect::Qwen | Dialect::Anthropic | Dialect::Openai)) => d,
        _ if gemini::is_call(&lname) => Dialect::Gemini,
        Some(Dialect::Uitars) if seed::is_tool(&lname) => Dialect::Uitars,
        _ if lname == "computer_use" || lname == "mobile_use" => Dialect::Qwen,
        _ if lname == "computer_use_preview" || lname == "computer_call" => Dialect::Openai,
        _ if lname == "computer" && is_openai => Dialect::Openai,
        _ if lname == "computer" => Dialect::Anthropic,
        _ if seed::is_anthropic_action(&lname, args) => Dialect::Anthropic,
        _ if seed::is_tool(&lname) => Dialect::Uitars,
        _ => Dialect::Tools,
    }
}

/// Routes one tool call and reads it; unreadable arguments (`None`) were already reported.
/// Returns the dialect used.
fn dispatch_call(
    name: &str,
    args: Option<&Value>,
    forced: Option<Dialect>,
    ctx: &mut Ctx,
) -> Dialect {
    let d = route(name, args, forced);
    let Some(args) = args else { return d };
    let around = std::mem::replace(&mut ctx.current, d);
    match d {
        Dialect::Qwen => qwen::apply(args, name.trim().eq_ignore_ascii_case("mobile_use"), ctx),
        Dialect::Anthropic => anthropic::apply_call(name, args, ctx),
        Dialect::Openai => openai::apply(args, ctx),
        Dialect::Uitars => seed::apply(name, args, ctx),
        Dialect::Gemini => gemini::apply(name, args, ctx),
        _ => tools::apply(name, args, ctx),
    }
    ctx.current = around;
    d
}

/// Guesses the dialect of content text.
pub fn detect(content: &str) -> Dialect {
    let lower = content.to_ascii_lowercase();
    if lower.contains("<tool_call>") || lower.contains("<function=") {
        let (calls, _) = qwen::tagged_calls(content);
        let names: Vec<String> = calls
            .iter()
            .filter_map(|c| c.as_ref().ok().map(|(n, _)| n.to_ascii_lowercase()))
            .collect();
        return if names
            .iter()
            .any(|n| n == "computer" || seed::anthropic_only(n))
        {
            Dialect::Anthropic
        } else if names.iter().all(|n| tools::is_tool_name(n)) && !names.is_empty() {
            Dialect::Tools
        } else if names.iter().all(|n| seed::is_tool(n)) && !names.is_empty() {
            Dialect::Uitars
        } else {
            Dialect::Qwen
        };
    }
    if lower.contains("<seed:tool_call>") {
        return Dialect::Uitars;
    }
    if pyautogui::detect(content) {
        return Dialect::Pyautogui;
    }
    if venus::detect(content) {
        return Dialect::Venus;
    }
    if uitars::has_action_line(content) || seed::compact_line(content).is_some() {
        return Dialect::Uitars;
    }
    let objects = lenient::objects(content);
    if let Some(d) = objects
        .iter()
        .find_map(|o| o.value.as_ref().ok())
        .and_then(detect_object)
    {
        return d;
    }
    if calls::has_calls(content) {
        return Dialect::Calls;
    }
    if !objects.is_empty() {
        return Dialect::Json;
    }
    Dialect::None
}

/// The dialect of the first JSON object a reply holds, when its keys say one.
fn detect_object(v: &Value) -> Option<Dialect> {
    if holo::is_holo(v) {
        return Some(Dialect::Holo);
    }
    if ["actions", "observation", "bboxes"]
        .iter()
        .any(|k| v.get(*k).is_some())
    {
        return Some(Dialect::Json);
    }
    if let Some(name) = v.get("name").and_then(Value::as_str)
        && (v.get("arguments").is_some() || v.get("parameters").is_some())
    {
        let n = name.to_ascii_lowercase();
        return Some(match n.as_str() {
            "computer_use" | "mobile_use" => Dialect::Qwen,
            "computer" => Dialect::Anthropic,
            "computer_use_preview" | "computer_call" => Dialect::Openai,
            n if gemini::is_call(n) => Dialect::Gemini,
            n if seed::is_anthropic_action(n, v.get("arguments")) => Dialect::Anthropic,
            n if seed::is_tool(n) => Dialect::Uitars,
            _ => Dialect::Tools,
        });
    }
    if v.get("action").is_some_and(Value::is_object) || openai::is_action(v) {
        return Some(Dialect::Openai);
    }
    if v.get("type")
        .and_then(Value::as_str)
        .is_some_and(seed::anthropic_only)
    {
        return Some(Dialect::Anthropic);
    }
    if v.get("action").is_some_and(Value::is_string) {
        return Some(if qwen::looks_like_qwen(v) {
            Dialect::Qwen
        } else {
            Dialect::Anthropic
        });
    }
    None
}

/// Removes `<think>…</think>` blocks; with only a closing `</think>`, everything before it.
/// An unclosed `<think>` (a cut-off reply) loses only the tag.
pub fn strip_think(s: &str) -> String {
    let mut out = s.to_string();
    for (open, close) in [("<think>", "</think>"), ("<thinking>", "</thinking>")] {
        out = strip_block(&out, open, close);
    }
    out
}

/// One pass of [`strip_think`] for one tag, in one reading of the text (docs/architecture.md,
/// "The parser"): each close removes back to the last open still kept before it (or to the
/// start), then the first open left loses its tag.
fn strip_block(s: &str, open: &str, close: &str) -> String {
    work::charge(s.len());
    let b = s.as_bytes();
    let at = |i: usize, tag: &str| {
        b.len() >= i + tag.len() && b[i..i + tag.len()].eq_ignore_ascii_case(tag.as_bytes())
    };
    let mut out = String::with_capacity(s.len());
    // where each open kept in `out` starts
    let mut opens: Vec<usize> = Vec::new();
    let (mut i, mut copied) = (0, 0);
    while let Some(p) = s[i..].find('<').map(|p| p + i) {
        if at(p, close) {
            out.push_str(&s[copied..p]);
            // every open still kept lies before the one popped
            out.truncate(opens.pop().unwrap_or(0));
            i = p + close.len();
            copied = i;
        } else if at(p, open) {
            out.push_str(&s[copied..p]);
            opens.push(out.len());
            i = p + 1;
            copied = p;
        } else {
            i = p + 1;
        }
    }
    out.push_str(&s[copied..]);
    if let Some(&first) = opens.first() {
        out.replace_range(first..first + open.len(), "");
    }
    out
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_echo;
#[cfg(test)]
mod tests_fallback;
#[cfg(test)]
mod tests_families;
#[cfg(test)]
mod tests_forms;

#[cfg(test)]
#[path = "tests_target.rs"]
mod tests_target;
