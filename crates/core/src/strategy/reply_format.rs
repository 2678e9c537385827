//! The JSON reply formats (`constrain` setting, docs/config.md, "Constrained output"): the
//! vision loop's object, one call of a request's own tools (tools and the commander), and the
//! tools strategy's call or answer. Each is a JSON schema built from the tables in `format.rs`,
//! with the GBNF grammar `json_grammar.rs` writes from it for servers that take grammars.

use super::ReadOptions;
use super::format::{
    Arg, Axis, COUNT_MAX, NOTE_MAX, TEXT_MAX, VISION_ACTIONS, VISION_MAX_ACTIONS, key_pattern,
    takes_target, top,
};
use super::grammar::Space;
use super::json_grammar;
use crate::model::{ReplyFormat, Tool};
use crate::parser::Dialect;
use serde_json::{Value, json};

/// A coordinate on `axis` of `space` as a JSON schema.
pub fn coord_schema(space: Space, axis: Axis) -> Value {
    let top = top(space, axis);
    match space {
        Space::Relative => json!({"type": "number", "minimum": 0, "maximum": top}),
        _ => json!({"type": "integer", "minimum": 0, "maximum": top}),
    }
}

fn schema_of(a: Arg, space: Space, axis: Axis) -> Value {
    match a {
        Arg::Coord => coord_schema(space, axis),
        Arg::Direction => json!({"type": "string", "enum": ["up", "down", "left", "right"]}),
        Arg::Count => json!({"type": "integer", "minimum": 1, "maximum": COUNT_MAX}),
        Arg::Text => json!({"type": "string", "minLength": 1, "maxLength": TEXT_MAX}),
        Arg::Key => json!({"type": "string", "pattern": key_pattern()}),
    }
}

/// A target in words (docs/grounding.md) as a JSON schema: a short text (the GBNF leaves the
/// placeholders out, `json_grammar.rs`).
pub fn target_schema() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": TEXT_MAX,
        "description": "the element in your own words: a grounding model finds it"})
}

/// The vision loop's JSON object: at most a few actions of [`VISION_ACTIONS`](super::format::VISION_ACTIONS), then a short
/// observation (required in this order, which is the order the grammar writes them in: the
/// actions first), and optional boxes. With `targets` (a grounding model is configured), an
/// action of one point may name its target in words instead: `{"name": "click", "target": ...}`.
pub fn vision_schema(space: Space, targets: bool) -> Value {
    let mut actions: Vec<Value> = VISION_ACTIONS
        .iter()
        .map(|(name, fields)| {
            let mut props = serde_json::Map::new();
            props.insert("name".into(), json!({"const": name}));
            for (f, a) in *fields {
                props.insert((*f).into(), schema_of(*a, space, Axis::of_field(f)));
            }
            let mut required = vec!["name"];
            required.extend(fields.iter().map(|(f, _)| *f));
            json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
        })
        .collect();
    if targets {
        let pointer = VISION_ACTIONS.iter().filter(|(_, f)| {
            let args: Vec<Arg> = f.iter().map(|(_, a)| *a).collect();
            takes_target(&args)
        });
        actions.extend(pointer.map(|(name, _)| {
            json!({"type": "object",
                "properties": {"name": {"const": name}, "target": target_schema()},
                "required": ["name", "target"], "additionalProperties": false})
        }));
    }
    let (x, y) = (coord_schema(space, Axis::X), coord_schema(space, Axis::Y));
    let bbox = json!({"type": "object", "properties": {"x1": x, "y1": y, "x2": x, "y2": y},
        "required": ["x1", "y1", "x2", "y2"], "additionalProperties": false});
    json!({
        "type": "object",
        "properties": {
            "observation": {"type": "string", "maxLength": NOTE_MAX},
            "bboxes": {"type": "array", "items": bbox, "maxItems": VISION_MAX_ACTIONS},
            "actions": {"type": "array", "items": {"anyOf": actions}, "minItems": 1, "maxItems": VISION_MAX_ACTIONS},
        },
        "required": ["actions", "observation"],
        "additionalProperties": false,
    })
}

/// The vision loop's format, when its replies are in franz's JSON dialect.
pub fn vision(options: &ReadOptions, space: Space) -> Option<ReplyFormat> {
    if options.system_prompt.is_some() || options.dialect != Some(Dialect::Json) {
        return None;
    }
    let schema = vision_schema(space, options.targets_in_words);
    Some(ReplyFormat::Json {
        name: "vision_reply".into(),
        gbnf: json_grammar::gbnf(&schema),
        schema,
    })
}

/// One call of one of `tools`, as the JSON object `{"name", "arguments"}` with each tool's own
/// parameters, positions bounded to `space`; `None` without tools.
pub fn of_tools(tools: &[Tool], space: Space) -> Option<ReplyFormat> {
    let calls = calls_of(tools, space)?;
    let schema = json!({"anyOf": calls});
    Some(ReplyFormat::Call {
        gbnf: json_grammar::gbnf(&schema),
        schema,
    })
}

/// The call forms of each of `tools` ([`call_forms`]); `None` without tools.
fn calls_of(tools: &[Tool], space: Space) -> Option<Vec<Value>> {
    (!tools.is_empty()).then(|| tools.iter().flat_map(|t| call_forms(t, space)).collect())
}

/// The arguments that give a point, which a target in words stands in for.
const POINT_ARGUMENTS: [&str; 5] = ["box", "position", "element", "x", "y"];

/// The calls of `tool` a constrained reply may write: its call with its own arguments; for a
/// tool that takes a target in words (a `target` parameter, `schema::with_targets`), that call
/// without the target and the call with the target in place of its point.
fn call_forms(tool: &Tool, space: Space) -> Vec<Value> {
    let params = &tool.function.parameters;
    let call = |args: Value| {
        json!({
            "type": "object",
            "properties": {
                "name": {"const": tool.function.name},
                "arguments": every_argument(&args, space),
            },
            "required": ["name", "arguments"],
        })
    };
    if params.pointer("/properties/target").is_none() {
        return vec![call(params.clone())];
    }
    let without = |names: &[&str]| {
        let mut p = params.clone();
        if let Some(props) = p.get_mut("properties").and_then(Value::as_object_mut) {
            props.retain(|k, _| !names.contains(&k.as_str()));
        }
        p
    };
    vec![call(without(&["target"])), call(without(&POINT_ARGUMENTS))]
}

/// `tools` with `report_completion`'s evidence at least `min` characters long (and up to
/// [`TEXT_MAX`](super::format::TEXT_MAX) more), as the commander requires it (`min_evidence`): a constrained call cannot
/// report a completion the commander refuses.
pub fn evidence_of_at_least(tools: &[Tool], min: usize) -> Vec<Tool> {
    let mut tools = tools.to_vec();
    for t in tools
        .iter_mut()
        .filter(|t| t.function.name == "report_completion")
    {
        if let Some(e) = t.function.parameters.pointer_mut("/properties/evidence") {
            e["minLength"] = json!(min);
            e["maxLength"] = json!(min + TEXT_MAX as usize);
        }
    }
    tools
}

/// A tool's parameters as a constrained call gives them: every argument required, except those
/// its description says stand in for another ("instead of ...") or are needed only by some
/// actions ("Required only by ..."), since a call without an argument the tool needs is not
/// readable (a click without its box); strings and lists bounded, and a list of anything made a
/// list of numbers (a box), so that a small model cannot write on until max_tokens.
pub(super) fn every_argument(params: &Value, space: Space) -> Value {
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
    let bounded: serde_json::Map<String, Value> = props
        .iter()
        .map(|(k, p)| (k.clone(), bounded(k, p, space)))
        .collect();
    if let Some(map) = out.as_object_mut() {
        map.insert("required".into(), json!(required));
        map.insert("properties".into(), Value::Object(bounded));
    }
    out
}

/// One argument's schema bounded (see [`every_argument`]): strings in length (not empty), a `key` to the
/// keys franz knows, `x` and `y` to `space`, and a position or box (a list of numbers, or of
/// anything) to a point `[x, y]` in `space`: a box in a grammar could be empty or all zeros,
/// which franz refuses as no place to act (`geometry.rs`), and its point is what franz acts on.
fn bounded(name: &str, p: &Value, space: Space) -> Value {
    let mut p = p.clone();
    let Some(map) = p.as_object_mut() else {
        return p;
    };
    let axis = |a| coord_schema(space, a);
    match map.get("type").and_then(Value::as_str) {
        Some("string") if name == "key" => {
            map.insert("pattern".into(), json!(key_pattern()));
        }
        Some("string") if !map.contains_key("enum") => {
            // an empty text to type is refused (`actions.rs`)
            map.entry("minLength").or_insert(json!(1));
            map.entry("maxLength").or_insert(json!(TEXT_MAX));
        }
        Some("number") if name == "x" || name == "y" => {
            let a = Axis::of_field(name);
            map.extend(axis(a).as_object().cloned().unwrap_or_default());
        }
        Some("array") => {
            let items = map.get("items");
            let any = items.is_none_or(|i| i.as_object().is_some_and(|o| o.is_empty()));
            let numbers = items.and_then(|i| i.get("type")) == Some(&json!("number"));
            let tuple = |n: usize| {
                let each: Vec<Value> = (0..n).map(|i| axis(Axis::nth(i))).collect();
                json!({"type": "array", "prefixItems": each, "minItems": n, "maxItems": n})
            };
            if any || numbers {
                let mut one = tuple(2);
                if let (Some(d), Some(o)) = (map.remove("description"), one.as_object_mut()) {
                    o.insert("description".into(), d);
                }
                return one;
            }
            map.entry("maxItems").or_insert(json!(4));
        }
        _ => {}
    }
    p
}

/// The tools strategy's reply: one call of one of `tools` as the JSON object
/// `{"name", "arguments"}`, or, where an answer may end the run (`answer`, see
/// `finish.rs`), `{"answer": "..."}`, its plain final answer (docs/designs.md (tool calling)),
/// which a forced tool call would not allow; `None` without tools.
pub fn tools_reply(tools: &[Tool], space: Space, answer: bool) -> Option<ReplyFormat> {
    let mut alts = calls_of(tools, space)?;
    alts.extend(answer.then(|| {
        json!({
            "type": "object",
            "properties": {"answer": {"type": "string", "minLength": 1, "maxLength": TEXT_MAX}},
            "required": ["answer"],
            "additionalProperties": false,
        })
    }));
    let schema = json!({"anyOf": alts});
    Some(ReplyFormat::Json {
        name: "tool_call_or_answer".into(),
        gbnf: json_grammar::gbnf(&schema),
        schema,
    })
}
