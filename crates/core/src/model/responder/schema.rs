//! Tool calls filled from a function schema: the one "computer" function whose `action` (or
//! `type`) enum names each action, or a function per action; the point goes where the schema
//! takes `[x, y]` (or `x` and `y`), text where it takes `text` or `content`, and every other
//! required text parameter gets a sentence.

use super::Intent;
use serde_json::{Map, Value, json};

/// The function and arguments that do `intent`, or `None` when no function does (a finish
/// with no function for it is a plain answer).
pub(super) fn call(
    tools: &[Value],
    intent: &Intent,
    at: Option<(f64, f64)>,
) -> Option<(String, Value)> {
    let name = |t: &Value| t["name"].as_str().unwrap_or_default().to_string();
    for tool in tools {
        if let Some((prop, verb)) = enum_verb(tool, intent) {
            return Some((name(tool), enum_args(tool, &prop, &verb, intent, at)));
        }
    }
    let tool = tools.iter().find(|t| fits(t, intent))?;
    Some((name(tool), function_args(tool, intent, at)))
}

/// The function `prompt` tells the model to end with ("... calling NAME ..."), among `tools`.
pub(super) fn named_in<'a>(tools: &'a [Value], prompt: &str) -> Option<&'a Value> {
    let re = regex::Regex::new(r"calling (\w+)").ok()?;
    re.captures_iter(prompt)
        .filter_map(|c| c.get(1))
        .find_map(|m| tools.iter().find(|t| t["name"] == m.as_str()))
}

/// A brief in every required text parameter.
pub(super) fn brief_args(tool: &Value) -> Value {
    let mut args = Map::new();
    for (name, _) in required_strings(tool) {
        args.insert(
            name,
            json!(
                "OBJ-1: click into the terminal window and type the word; done when it is typed."
            ),
        );
    }
    Value::Object(args)
}

fn properties(tool: &Value) -> impl Iterator<Item = (&String, &Value)> {
    tool["parameters"]["properties"]
        .as_object()
        .into_iter()
        .flatten()
}

fn enum_values(schema: &Value) -> Vec<&str> {
    schema["enum"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The names an action goes by in schemas, best first.
fn verbs(intent: &Intent) -> &'static [&'static str] {
    match intent {
        Intent::Click { .. } => &["left_click", "click"],
        Intent::Type(_) => &["type", "write", "type_text"],
        Intent::Key(_) => &["key", "keypress", "press_key", "hotkey", "press"],
        Intent::Finish(_) => &["terminate", "done", "finished", "finish"],
    }
}

/// The enum parameter that names actions and the value for `intent`.
fn enum_verb(tool: &Value, intent: &Intent) -> Option<(String, String)> {
    properties(tool).find_map(|(name, schema)| {
        let values = enum_values(schema);
        let verb = verbs(intent).iter().find(|v| values.contains(v))?;
        Some((name.clone(), (*verb).to_string()))
    })
}

/// Whether a parameter takes a point `[x, y]` (not a drag's start or end).
fn is_point(name: &str, schema: &Value) -> bool {
    let named = ["coordinate", "position", "box", "point"].contains(&name);
    let described = schema["description"]
        .as_str()
        .is_some_and(|d| d.contains("[x, y]"));
    schema["type"] == "array"
        && (named || described)
        && !name.starts_with("start")
        && !name.starts_with("end")
}

fn enum_args(
    tool: &Value,
    prop: &str,
    verb: &str,
    intent: &Intent,
    at: Option<(f64, f64)>,
) -> Value {
    let mut args = Map::new();
    args.insert(prop.to_string(), json!(verb));
    for (name, schema) in properties(tool).filter(|(n, _)| n.as_str() != prop) {
        let value = match intent {
            Intent::Click { .. } => point_value(name, schema, at).or_else(|| {
                (name == "button" && enum_values(schema).contains(&"left")).then(|| json!("left"))
            }),
            Intent::Type(text) => ["text", "content"]
                .contains(&name.as_str())
                .then(|| json!(text)),
            Intent::Key(keys) => key_value(tool, name, schema, keys),
            Intent::Finish(_) => (name == "status" && enum_values(schema).contains(&"success"))
                .then(|| json!("success")),
        };
        if let Some(v) = value {
            args.insert(name.clone(), v);
        }
    }
    Value::Object(args)
}

/// `[x, y]` for a point parameter, `x` or `y` for those.
fn point_value(name: &str, schema: &Value, at: Option<(f64, f64)>) -> Option<Value> {
    let (x, y) = at?;
    match name {
        "x" => Some(super::number(x)),
        "y" => Some(super::number(y)),
        _ => is_point(name, schema).then(|| json!([super::number(x), super::number(y)])),
    }
}

/// The keys for a parameter of `tool` that takes them: a list (`keys: ["ctrl", "s"]`) or a
/// string (`key`, `keys`, or the `text` a key action takes where no parameter is named so).
fn key_value(tool: &Value, name: &str, schema: &Value, keys: &str) -> Option<Value> {
    let named = properties(tool).any(|(n, _)| n == "key" || n == "keys");
    match name {
        "keys" | "key" if schema["type"] == "array" => {
            Some(json!(keys.split('+').collect::<Vec<_>>()))
        }
        "keys" | "key" => Some(json!(keys)),
        "text" if !named => Some(json!(keys)),
        _ => None,
    }
}

/// Whether a function (one per action) does `intent`.
fn fits(tool: &Value, intent: &Intent) -> bool {
    let name = tool["name"].as_str().unwrap_or_default().to_lowercase();
    match intent {
        Intent::Click { .. } => {
            let points = properties(tool).any(|(n, s)| is_point(n, s) || n == "x");
            name.contains("click")
                && !["double", "right", "middle", "triple"]
                    .iter()
                    .any(|w| name.contains(w))
                && points
        }
        Intent::Type(_) => name.contains("type") || name.contains("write"),
        Intent::Key(_) => name.contains("key") || name.contains("press"),
        Intent::Finish(_) => ["complet", "finish", "done", "terminate"]
            .iter()
            .any(|w| name.contains(w)),
    }
}

fn function_args(tool: &Value, intent: &Intent, at: Option<(f64, f64)>) -> Value {
    let mut args = Map::new();
    for (name, schema) in properties(tool) {
        let value = match intent {
            Intent::Click { .. } => point_value(name, schema, at),
            Intent::Type(text) => ["text", "content"]
                .contains(&name.as_str())
                .then(|| json!(text)),
            Intent::Key(keys) => key_value(tool, name, schema, keys),
            Intent::Finish(_) => None,
        };
        if let Some(v) = value {
            args.insert(name.clone(), v);
        }
    }
    for (name, _) in required_strings(tool) {
        if !args.contains_key(&name) {
            let words = sentence(&name, intent);
            args.insert(name, json!(words));
        }
    }
    Value::Object(args)
}

/// The required parameters of type string.
fn required_strings(tool: &Value) -> Vec<(String, Value)> {
    let required: Vec<&str> = tool["parameters"]["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    properties(tool)
        .filter(|(n, s)| required.contains(&n.as_str()) && s["type"] == "string")
        .map(|(n, s)| (n.clone(), s.clone()))
        .collect()
}

/// Words for a text parameter the action does not fill (a label, a justification, evidence).
fn sentence(name: &str, intent: &Intent) -> String {
    match intent {
        Intent::Finish(answer) => format!(
            "{answer}. The terminal window that was on the screen took the typed word and \
             closed, as its program does once it has read the whole word: the goal is reached."
        ),
        _ if name == "label" => "the terminal window".into(),
        _ => "the terminal window is where the word must be typed".into(),
    }
}
