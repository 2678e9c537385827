//! The JSON formats (`format.rs`) as GBNF grammars, for servers that take a `grammar`
//! (llama.cpp's server and llama-cpp-python's; docs/config.md, "Constrained output").
//!
//! Written by hand rather than left to the server's own JSON-schema-to-grammar converter:
//! llama-cpp-python's ignores `minimum` and `maximum`, so a small model constrained by a schema
//! still writes coordinates like 3000 or -2000. Here a bounded integer is digit rules
//! (`format::between`), so that a number outside the space is not in the grammar's language.
//!
//! The converter reads the parts of JSON Schema the formats use: `const`, `enum`, `anyOf`,
//! objects (the `required` properties, in that order; optional ones are left out), strings
//! (length, and the key pattern `format::key_pattern`; a `target` property's text is never a
//! target's placeholder), bounded integers and numbers, arrays
//! (`items` or a tuple's `prefixItems`, with their counts). The reply is written compactly
//! (`{"name": "press_key", "arguments": {"key": "enter"}}`), which every JSON reader takes.

use super::format::{self, G, lit};
use serde_json::Value;

/// Digits of a number without bounds (an element's index).
const UNBOUNDED_DIGITS: u32 = 5;
/// The property that names an action's target in words (docs/grounding.md): its text is never
/// a target's placeholder (`placeholder::is_target`).
const TARGET: &str = "target";
/// Items of a list without `maxItems`.
const ITEMS_MAX: u32 = 4;

/// The GBNF grammar of the JSON values `schema` allows, with its root rule (built once per
/// schema, `memo.rs`).
pub fn gbnf(schema: &Value) -> String {
    super::memo::gbnf(schema.to_string(), || of(schema).gbnf())
}

/// The grammar tree of the JSON values `schema` allows.
pub fn of(schema: &Value) -> G {
    if let Some(c) = schema.get("const") {
        return lit(&c.to_string());
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return G::Alt(values.iter().map(|v| lit(&v.to_string())).collect());
    }
    if let Some(Value::Array(alts)) = schema.get("anyOf") {
        return G::Alt(alts.iter().map(of).collect());
    }
    let n = |k: &str| {
        schema
            .get(k)
            .and_then(Value::as_u64)
            .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
    };
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => object(schema),
        Some("array") => array(schema, n("minItems").unwrap_or(0), n("maxItems")),
        Some("integer") => integer(n("minimum"), n("maximum")),
        Some("number") => number(n("minimum"), n("maximum")),
        Some("boolean") => G::Alt(vec![lit("true"), lit("false")]),
        // a string, and what the formats leave untyped
        _ => string(schema, n("minLength").unwrap_or(0), n("maxLength")),
    }
}

/// `{"a": ..., "b": ...}` with the required properties, in the order `required` lists them.
fn object(schema: &Value) -> G {
    let props = schema.get("properties");
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut items = vec![lit("{")];
    for (i, key) in required.iter().enumerate() {
        if i > 0 {
            items.push(lit(", "));
        }
        let value = match props.and_then(|p| p.get(*key)) {
            Some(p) if *key == TARGET => target(p),
            Some(p) => of(p),
            None => string(&Value::Null, 0, None),
        };
        items.push(lit(&format!("{}: ", Value::String((*key).to_string()))));
        items.push(value);
    }
    items.push(lit("}"));
    G::Seq(items)
}

/// A target in words (`format::quoted_target`): a quoted text that is none of the targets'
/// placeholders either, as long as the schema says.
fn target(schema: &Value) -> G {
    let n = |k: &str| {
        schema
            .get(k)
            .and_then(Value::as_u64)
            .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
    };
    let (min, max) = (
        n("minLength").unwrap_or(1),
        n("maxLength").unwrap_or(format::TEXT_MAX),
    );
    format::quoted_target(min, max.max(min.max(1)))
}

/// `[a, b]`: a tuple's own items, or `min` to `max` of `items`.
fn array(schema: &Value, min: u32, max: Option<u32>) -> G {
    if let Some(Value::Array(each)) = schema.get("prefixItems") {
        let mut items = vec![lit("[")];
        for (i, s) in each.iter().enumerate() {
            if i > 0 {
                items.push(lit(", "));
            }
            items.push(of(s));
        }
        items.push(lit("]"));
        return G::Seq(items);
    }
    let item = format::shared(
        schema
            .get("items")
            .map_or_else(|| string(&Value::Null, 0, None), of),
    );
    let max = max.unwrap_or(ITEMS_MAX).max(1);
    let more = G::Rep(
        Box::new(G::Seq(vec![lit(", "), item.clone()])),
        min.saturating_sub(1),
        max - 1,
    );
    let full = G::Seq(vec![lit("["), item, more, lit("]")]);
    if min == 0 {
        G::Alt(vec![lit("[]"), full])
    } else {
        full
    }
}

/// A whole number from `min` (0 without one) to `max`; without `max`, a few digits.
fn integer(min: Option<u32>, max: Option<u32>) -> G {
    match max {
        Some(max) => format::between(min.unwrap_or(0), max),
        None => format::number(UNBOUNDED_DIGITS),
    }
}

/// A number from `min` to `max`: a fraction 0..1 when those are its bounds (a relative
/// coordinate), else a whole number as [`integer`] writes it.
fn number(min: Option<u32>, max: Option<u32>) -> G {
    match (min, max) {
        (Some(0), Some(1)) => format::relative(),
        _ => integer(min, max),
    }
}

/// A quoted string of `min` to `max` characters, or a key or combination when the schema's
/// pattern is the key pattern. Another pattern is not read: the string is then any string.
fn string(schema: &Value, min: u32, max: Option<u32>) -> G {
    let pattern = schema.get("pattern").and_then(Value::as_str);
    if pattern == Some(format::key_pattern().as_str()) {
        return G::Seq(vec![lit("\""), format::combo(), lit("\"")]);
    }
    format::quoted_between(min, max.unwrap_or(format::TEXT_MAX).max(min.max(1)))
}

#[cfg(test)]
#[path = "json_grammar_tests.rs"]
mod tests;
