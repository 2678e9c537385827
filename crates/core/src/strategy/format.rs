//! The reply formats a server is asked to constrain replies to (`constrain` setting,
//! docs/config.md, "Constrained output"), derived from the same source as each strategy's
//! grammar so that the two cannot disagree:
//!
//! - the narrative (franz's call dialect): a GBNF grammar of one call line from [`CALLS`], the
//!   table of the calls its prompt lists, then one line of story without parentheses;
//! - the vision loop (franz's JSON dialect): a JSON schema of its object, each action from
//!   [`VISION_ACTIONS`], the table of the actions its prompt lists;
//! - tools and the commander: one call of the request's own tools ([`of_tools`]), so the schema
//!   is the tool schema the request carries (`schema.rs`, or a family's in `grammar/`).
//!
//! A family grammar's text formats (UI-TARS' `Action:` lines, pyautogui code, `<tool_call>`
//! blocks in the narrative) and a replaced system prompt are not constrained: `None`.
//!
//! The grammar is built as a small tree ([`G`]) that renders both to GBNF (for the server) and to
//! a regular expression (for the tests that check every call of the table and every example the
//! prompt gives against it).

use super::ReadOptions;
use super::grammar::Space;
use crate::model::{ReplyFormat, Tool};
use crate::parser::Dialect;
use serde_json::{Value, json};

/// An argument of a call in [`CALLS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A coordinate in the strategy's space.
    Coord,
    /// `"up"`, `"down"`, `"left"` or `"right"`.
    Direction,
    /// A small whole number from 1 (scroll notches, seconds).
    Count,
    /// A quoted string, not empty (an empty `done` is refused once, `plain.rs`).
    Text,
    /// A quoted key or combination, `"ctrl+s"`, of the keys `keys.rs` knows.
    Key,
}

/// franz's call dialect as the narrative's prompt lists it (`prompts.rs`, NARRATIVE_SYSTEM):
/// every call and its arguments.
pub const CALLS: &[(&str, &[Arg])] = {
    use Arg::{Coord as C, Count as N, Direction as D, Key as K, Text as T};
    &[
        ("left_click", &[C, C]),
        ("right_click", &[C, C]),
        ("double_left_click", &[C, C]),
        ("middle_click", &[C, C]),
        ("triple_click", &[C, C]),
        ("move", &[C, C]),
        ("drag", &[C, C, C, C]),
        ("scroll", &[C, C, D, N]),
        ("type", &[T]),
        ("press_key", &[K]),
        ("wait", &[N]),
        ("done", &[T]),
        ("fail", &[T]),
    ]
};

/// The vision loop's actions as its prompt lists them (`prompts.rs`, VISION_SYSTEM): each
/// name and its fields.
pub const VISION_ACTIONS: &[(&str, &[(&str, Arg)])] = {
    use Arg::{Coord as C, Count as N, Direction as D, Key as K, Text as T};
    const POINT: &[(&str, Arg)] = &[("x1", C), ("y1", C)];
    &[
        ("move", POINT),
        ("click", POINT),
        ("right_click", POINT),
        ("double_click", POINT),
        ("drag", &[("x1", C), ("y1", C), ("x2", C), ("y2", C)]),
        ("type", &[("text", T)]),
        ("key", &[("keys", K)]),
        (
            "scroll",
            &[("x1", C), ("y1", C), ("direction", D), ("amount", N)],
        ),
        ("wait", &[("seconds", N)]),
        ("done", &[("text", T)]),
        ("fail", &[("text", T)]),
    ]
};

/// The longest quoted string and story line the grammars allow (a bound also ends a reply
/// that would otherwise run to max_tokens).
const TEXT_MAX: u32 = 80;
const STORY_MAX: u32 = 160;
/// At most this many actions in a constrained vision reply.
const VISION_MAX_ACTIONS: u32 = 2;

/// A grammar tree: renders to GBNF and to a regular expression.
#[derive(Debug, Clone)]
pub enum G {
    Lit(String),
    /// A character class, written the same in GBNF and in a regex (e.g. `[0-9]`).
    Class(&'static str),
    /// One digit from the first to the second.
    Digit(u8, u8),
    Seq(Vec<G>),
    Alt(Vec<G>),
    Rep(Box<G>, u32, u32),
}

fn lit(s: &str) -> G {
    G::Lit(s.to_string())
}

impl G {
    pub fn gbnf(&self) -> String {
        match self {
            G::Lit(s) => format!("\"{}\"", gbnf_escape(s)),
            G::Class(c) => (*c).to_string(),
            G::Digit(a, b) => format!("[{a}-{b}]"),
            G::Seq(items) => items.iter().map(G::gbnf).collect::<Vec<_>>().join(" "),
            G::Alt(items) => format!(
                "({})",
                items.iter().map(G::gbnf).collect::<Vec<_>>().join(" | ")
            ),
            G::Rep(g, min, max) => format!("({}){{{min},{max}}}", g.gbnf()),
        }
    }

    pub fn regex(&self) -> String {
        match self {
            G::Lit(s) => regex::escape(s),
            G::Class(c) => (*c).to_string(),
            G::Digit(a, b) => format!("[{a}-{b}]"),
            G::Seq(items) => items.iter().map(G::regex).collect(),
            G::Alt(items) => format!(
                "({})",
                items.iter().map(G::regex).collect::<Vec<_>>().join("|")
            ),
            G::Rep(g, min, max) => format!("({}){{{min},{max}}}", g.regex()),
        }
    }
}

fn gbnf_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A whole number from 0 to the largest coordinate of `space`.
fn coord(space: Space) -> G {
    match space {
        Space::Norm1000 => up_to(1000),
        Space::Pixels(s) => up_to(s.width.max(s.height).saturating_sub(1)),
        // a fraction 0..1 written as a decimal: 0, 1, 0.25, 1.0
        Space::Relative => G::Alt(vec![
            G::Seq(vec![lit("0."), G::Rep(Box::new(G::Digit(0, 9)), 1, 4)]),
            G::Seq(vec![lit("1."), G::Rep(Box::new(lit("0")), 1, 4)]),
            G::Digit(0, 1),
        ]),
    }
}

/// A whole number from 0 to `top`, without a leading zero: the numbers with fewer digits, then
/// those with as many that are smaller at their first differing digit, then `top` itself.
fn up_to(top: u32) -> G {
    let s = top.to_string();
    let digits: Vec<u8> = s.bytes().map(|b| b - b'0').collect();
    let k = digits.len();
    if k == 1 {
        return G::Digit(0, digits[0]);
    }
    let mut alts = vec![number(k as u32 - 1)];
    for (i, d) in digits.iter().enumerate() {
        let lo = u8::from(i == 0);
        if *d > lo {
            let rest = (k - i - 1) as u32;
            alts.push(G::Seq(vec![
                lit(&s[..i]),
                G::Digit(lo, d - 1),
                G::Rep(Box::new(G::Digit(0, 9)), rest, rest),
            ]));
        }
    }
    alts.push(lit(&s));
    G::Alt(alts)
}

/// 0, or up to `digits` digits without a leading zero.
fn number(digits: u32) -> G {
    let more = G::Rep(Box::new(G::Class("[0-9]")), 0, digits.saturating_sub(1));
    G::Alt(vec![G::Seq(vec![G::Class("[1-9]"), more]), lit("0")])
}

fn quoted(max: u32) -> G {
    let ch = G::Alt(vec![
        G::Class("[^\"\\\\\\n]"),
        G::Seq(vec![lit("\\"), G::Class("[\"\\\\nt]")]),
    ]);
    G::Seq(vec![lit("\""), G::Rep(Box::new(ch), 1, max), lit("\"")])
}

fn arg(a: Arg, space: Space) -> G {
    match a {
        Arg::Coord => coord(space),
        Arg::Direction => G::Alt(
            ["up", "down", "left", "right"]
                .iter()
                .map(|d| lit(&format!("\"{d}\"")))
                .collect(),
        ),
        Arg::Count => G::Seq(vec![
            G::Class("[1-9]"),
            G::Rep(Box::new(G::Class("[0-9]")), 0, 1),
        ]),
        Arg::Text => quoted(TEXT_MAX),
        Arg::Key => G::Seq(vec![lit("\""), combo(), lit("\"")]),
    }
}

/// One key of `keys.rs`: a named key, f1-f24, a letter or a digit.
fn key() -> G {
    let mut names: Vec<G> = crate::keys::named_keys().map(lit).collect();
    names.push(G::Seq(vec![
        lit("f"),
        G::Alt(vec![
            G::Seq(vec![lit("2"), G::Class("[0-4]")]),
            G::Seq(vec![lit("1"), G::Class("[0-9]")]),
            G::Class("[1-9]"),
        ]),
    ]));
    names.push(G::Class("[a-z0-9]"));
    G::Alt(names)
}

/// Up to four keys joined by `+`.
fn combo() -> G {
    G::Seq(vec![
        key(),
        G::Rep(Box::new(G::Seq(vec![lit("+"), key()])), 0, 3),
    ])
}

/// One call of [`CALLS`], `name(a, b)`.
fn call(name: &str, args: &[Arg], space: Space) -> G {
    let mut items = vec![lit(&format!("{name}("))];
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            items.push(lit(", "));
        }
        items.push(arg(*a, space));
    }
    items.push(lit(")"));
    G::Seq(items)
}

/// The narrative's reply: one call line, then one line of story without parentheses (the
/// call parser reads every `name(...)` in a reply, the story's too).
pub fn narrative_grammar(space: Space) -> G {
    let calls = CALLS.iter().map(|(n, a)| call(n, a, space)).collect();
    let story = G::Rep(Box::new(G::Class("[^\\n()]")), 1, STORY_MAX);
    G::Seq(vec![G::Alt(calls), lit("\n"), story])
}

/// The narrative's format, when its replies are in franz's call dialect.
pub fn narrative(options: &ReadOptions, space: Space) -> Option<ReplyFormat> {
    if options.system_prompt.is_some() || options.dialect != Some(Dialect::Calls) {
        return None;
    }
    Some(ReplyFormat::Text {
        gbnf: format!("root ::= {}\n", narrative_grammar(space).gbnf()),
    })
}

fn schema_of(a: Arg, space: Space) -> Value {
    let top = match space {
        Space::Norm1000 => 1000,
        Space::Pixels(s) => s.width.max(s.height).saturating_sub(1),
        Space::Relative => 1,
    };
    match a {
        Arg::Coord if space == Space::Relative => {
            json!({"type": "number", "minimum": 0, "maximum": top})
        }
        Arg::Coord => json!({"type": "integer", "minimum": 0, "maximum": top}),
        Arg::Direction => json!({"type": "string", "enum": ["up", "down", "left", "right"]}),
        Arg::Count => json!({"type": "integer", "minimum": 1, "maximum": 99}),
        Arg::Text => json!({"type": "string", "minLength": 1, "maxLength": TEXT_MAX}),
        Arg::Key => json!({"type": "string", "pattern": format!("^{}$", combo().regex())}),
    }
}

/// The vision loop's JSON object: the observation, at most a few actions of
/// [`VISION_ACTIONS`], and optional boxes.
pub fn vision_schema(space: Space) -> Value {
    let actions: Vec<Value> = VISION_ACTIONS
        .iter()
        .map(|(name, fields)| {
            let mut props = serde_json::Map::new();
            props.insert("name".into(), json!({"const": name}));
            for (f, a) in *fields {
                props.insert((*f).into(), schema_of(*a, space));
            }
            let mut required = vec!["name"];
            required.extend(fields.iter().map(|(f, _)| *f));
            json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
        })
        .collect();
    let c = schema_of(Arg::Coord, space);
    let bbox = json!({"type": "object", "properties": {"x1": c, "y1": c, "x2": c, "y2": c},
        "required": ["x1", "y1", "x2", "y2"], "additionalProperties": false});
    json!({
        "type": "object",
        "properties": {
            "observation": {"type": "string", "maxLength": STORY_MAX},
            "bboxes": {"type": "array", "items": bbox, "maxItems": VISION_MAX_ACTIONS},
            "actions": {"type": "array", "items": {"anyOf": actions}, "minItems": 1, "maxItems": VISION_MAX_ACTIONS},
        },
        "required": ["observation", "actions"],
        "additionalProperties": false,
    })
}

/// The vision loop's format, when its replies are in franz's JSON dialect.
pub fn vision(options: &ReadOptions, space: Space) -> Option<ReplyFormat> {
    if options.system_prompt.is_some() || options.dialect != Some(Dialect::Json) {
        return None;
    }
    Some(ReplyFormat::Json {
        name: "vision_reply".into(),
        schema: vision_schema(space),
    })
}

/// One call of one of `tools`, as the JSON object `{"name", "arguments"}` with each tool's own
/// parameters; `None` without tools.
pub fn of_tools(tools: &[Tool]) -> Option<ReplyFormat> {
    if tools.is_empty() {
        return None;
    }
    let calls: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({
                "type": "object",
                "properties": {
                    "name": {"const": t.function.name},
                    "arguments": every_argument(&t.function.parameters),
                },
                "required": ["name", "arguments"],
            })
        })
        .collect();
    Some(ReplyFormat::Call {
        schema: json!({"anyOf": calls}),
    })
}

/// A tool's parameters as a constrained call gives them: every argument required, except those
/// its description says stand in for another ("instead of ...") or are needed only by some
/// actions ("Required only by ..."), since a call without an argument the tool needs is not
/// readable (a click without its box); strings and lists bounded, and a list of anything made a
/// list of numbers (a box), so that a small model cannot write on until max_tokens.
fn every_argument(params: &Value) -> Value {
    let mut out = params.clone();
    let Some(props) = params.get("properties").and_then(Value::as_object) else {
        return out;
    };
    let optional = |p: &Value| {
        let d = p.get("description").and_then(Value::as_str).unwrap_or("");
        d.starts_with("instead of") || d.starts_with("Required only by")
    };
    let required: Vec<&String> = props
        .iter()
        .filter(|(_, p)| !optional(p))
        .map(|(k, _)| k)
        .collect();
    let bounded: serde_json::Map<String, Value> =
        props.iter().map(|(k, p)| (k.clone(), bounded(p))).collect();
    if let Some(map) = out.as_object_mut() {
        map.insert("required".into(), json!(required));
        map.insert("properties".into(), Value::Object(bounded));
    }
    out
}

/// One argument's schema with its length bounded (see [`every_argument`]).
fn bounded(p: &Value) -> Value {
    let mut p = p.clone();
    let Some(map) = p.as_object_mut() else {
        return p;
    };
    match map.get("type").and_then(Value::as_str) {
        Some("string") if !map.contains_key("enum") => {
            map.entry("maxLength").or_insert(json!(TEXT_MAX));
        }
        Some("array") => {
            let any = map
                .get("items")
                .is_none_or(|i| i.as_object().is_some_and(|o| o.is_empty()));
            if any {
                map.insert("items".into(), json!({"type": "number"}));
            }
            map.entry("maxItems").or_insert(json!(4));
        }
        _ => {}
    }
    p
}

/// The tools strategy's reply: one call of one of `tools` as the JSON object
/// `{"name", "arguments"}`, or `{"answer": "..."}`, its plain final answer (docs/seeds.md (tool
/// calling)), which a forced tool call would not allow; `None` without tools.
pub fn tools_reply(tools: &[Tool]) -> Option<ReplyFormat> {
    let Some(ReplyFormat::Call { schema }) = of_tools(tools) else {
        return None;
    };
    let mut alts = schema["anyOf"].as_array().cloned().unwrap_or_default();
    alts.push(json!({
        "type": "object",
        "properties": {"answer": {"type": "string", "minLength": 1, "maxLength": STORY_MAX}},
        "required": ["answer"],
        "additionalProperties": false,
    }));
    Some(ReplyFormat::Json {
        name: "tool_call_or_answer".into(),
        schema: json!({"anyOf": alts}),
    })
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
