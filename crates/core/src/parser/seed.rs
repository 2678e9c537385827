//! UI-TARS-2 / Seed forms of the UI-TARS actions, read with UI-TARS semantics (`uitars.rs`):
//!
//! - tool calls: `<seed:tool_call><function=click><parameter=point><point>17 58</point>
//!   </parameter></function></seed:tool_call>` (several functions per block allowed), and the
//!   JSON form `{"name": "hotkey", "arguments": "{\"key\": \"enter\"}"}` (arguments a JSON
//!   string or object), for click, left_single, left_double, right_single, hover, drag
//!   (start_point / end_point), scroll (point, direction), type (content, optional point),
//!   hotkey / press (key), wait, finished (content), call_user;
//! - Doubao's compact form, the same call with its tags lost: `click>point>point>112 56`;
//! - the thinking tags these models write (`<thinkt>`, `<think_never_used_…>`), kept as text.
//!
//! Which tool names are UI-TARS verbs and which are Anthropic `computer` actions written as the
//! function name (`<function=left_click>`) is decided here too.

use super::coords::Ctx;
use super::syntax::Arg;
use super::uitars::{self, tags_as_text};
use serde_json::Value;

/// The function names UI-TARS-2 tool calls use.
const TOOL_NAMES: &[&str] = &[
    "click",
    "left_single",
    "left_double",
    "right_single",
    "hover",
    "drag",
    "select",
    "scroll",
    "type",
    "hotkey",
    "press",
    "wait",
    "finished",
    "call_user",
];

/// Actions of Anthropic's `computer` tool that no UI-TARS call shares.
const ANTHROPIC_ONLY: &[&str] = &[
    "key",
    "hold_key",
    "cursor_position",
    "mouse_move",
    "left_mouse_down",
    "left_mouse_up",
    "left_click",
    "left_click_drag",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "screenshot",
];

/// Fields only Anthropic's `computer` actions have.
const ANTHROPIC_FIELDS: &[&str] = &[
    "coordinate",
    "start_coordinate",
    "text",
    "scroll_direction",
    "scroll_amount",
    "duration",
];

/// Whether `name` is an Anthropic `computer` action that no UI-TARS call shares.
pub(crate) fn anthropic_only(name: &str) -> bool {
    ANTHROPIC_ONLY.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// Whether a tool call named `name` is a UI-TARS-2 call.
pub(crate) fn is_tool(name: &str) -> bool {
    TOOL_NAMES.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// Whether a tool call named `name` (not `computer`) is an Anthropic `computer` action written
/// as the function name: an Anthropic-only action, or `type` / `scroll` / `wait` with Anthropic's
/// fields (`text`, `scroll_direction`, `duration`, ...).
pub(crate) fn is_anthropic_action(name: &str, args: Option<&Value>) -> bool {
    let n = name.trim().to_ascii_lowercase();
    anthropic_only(&n)
        || (matches!(n.as_str(), "type" | "scroll" | "wait")
            && args.is_some_and(|a| ANTHROPIC_FIELDS.iter().any(|k| a.get(*k).is_some())))
}

/// Reads one UI-TARS-2 tool call (its arguments already an object).
pub(crate) fn apply(name: &str, args: &Value, ctx: &mut Ctx) {
    let lname = name.trim().to_ascii_lowercase();
    if !is_tool(&lname) {
        return ctx.err(format!(
            "unknown UI-TARS function {name:?}: use one of {}",
            TOOL_NAMES.join(", ")
        ));
    }
    let args: Vec<Arg> = args
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| Arg {
                    key: Some(k.trim().to_string()),
                    value: v.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    uitars::call(&lname, &args, "", ctx);
}

/// Doubao's compact call on one line: `NAME>PARAM>VALUE`, the parameter name possibly written
/// twice (`click>point>point>112 56`) and the value possibly in its tag
/// (`click>point><point>18 59</point>`). Returns the name and its one argument.
pub(crate) fn compact(line: &str) -> Option<(String, Arg)> {
    let line = line.trim();
    let (name, rest) = line.split_once('>')?;
    let name = name.trim().to_ascii_lowercase();
    if !is_tool(&name) {
        return None;
    }
    let (param, mut value) = rest.split_once('>')?;
    let param = param.trim();
    if param.is_empty() || !param.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    if let Some(v) = value.strip_prefix(param).and_then(|v| v.strip_prefix('>')) {
        value = v;
    }
    let arg = Arg {
        key: Some(param.to_string()),
        value: Value::String(value.to_string()),
    };
    Some((name, arg))
}

/// The byte offset of the first line holding a compact call, if any.
pub(crate) fn compact_line(content: &str) -> Option<usize> {
    let mut at = 0;
    for line in content.split_inclusive('\n') {
        let body = after_think(line);
        if compact(body).is_some() {
            return Some(at + (line.len() - body.len()));
        }
        at += line.len();
    }
    None
}

/// The part of a line after any thinking tags that close on it (the compact call may follow
/// `</think_never_used_…>` directly).
fn after_think(line: &str) -> &str {
    // most lines hold no tag: nothing to lower-case
    if !line.contains('<') {
        return line;
    }
    let lower = line.to_ascii_lowercase();
    match lower.rfind("</think") {
        Some(p) => line[p..].find('>').map_or("", |q| &line[p + q + 1..]),
        None => line,
    }
}

/// Reads the compact calls of `content` (from the first one on); returns the text before them.
pub(crate) fn parse_compact(content: &str, start: usize, ctx: &mut Ctx) -> String {
    for line in content[start..].lines() {
        let body = after_think(line);
        match compact(body) {
            Some((name, arg)) => uitars::call(&name, &[arg], "", ctx),
            None if body.trim().is_empty() => {}
            None => ctx.err(format!(
                "not a compact UI-TARS call (NAME>PARAM>VALUE): {}",
                crate::model::body::snippet(body)
            )),
        }
    }
    tags_as_text(&content[..start])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_forms() {
        let (n, a) = compact("click>point>point>112 56").unwrap();
        assert_eq!((n.as_str(), a.key.as_deref()), ("click", Some("point")));
        assert_eq!(a.value, Value::from("112 56"));
        let (_, a) = compact("click>point><point>18 59</point>").unwrap();
        assert_eq!(a.value, Value::from("<point>18 59</point>"));
        assert!(compact("a > b > c").is_none());
        assert!(compact("left_click>point>1 2").is_none());
    }

    #[test]
    fn thinking_tags_become_text() {
        assert_eq!(
            tags_as_text("<thinkt>go</thinkt><seed:tool_call>\n</seed:tool_call>"),
            "go"
        );
        assert_eq!(tags_as_text("a < b <b>"), "a < b <b>");
    }
}
