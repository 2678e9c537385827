//! Finding and reading the JSON that models write: inside code fences or prose, several
//! objects back to back, with trailing commas, single quotes, Python's `True`/`None`, or
//! unquoted keys. Nothing here evaluates anything; it only rewrites text and calls serde_json.

use serde_json::Value;
use std::ops::Range;

/// One `{...}` block found in text.
#[derive(Debug, Clone)]
pub struct Found {
    /// Byte range in the text.
    pub span: Range<usize>,
    /// The parsed object, or why it could not be read.
    pub value: Result<Value, String>,
}

/// The top-level `{...}` blocks in `text`, in order. A block that never closes (a cut-off
/// reply) runs to the end and is reported as an error; a `{` that starts nothing readable and
/// is followed by another block is skipped quietly.
pub fn objects(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() && out.len() < 64 {
        if bytes[i] != b'{' {
            i += 1;
            continue;
        }
        match matching_brace(bytes, i) {
            Some(end) => {
                let src = &text[i..=end];
                match parse(src) {
                    Ok(v) if v.is_object() => {
                        out.push(Found {
                            span: i..end + 1,
                            value: Ok(v),
                        });
                        i = end + 1;
                    }
                    Ok(_) | Err(_) if looks_like_json(src) => {
                        let e = parse(src).err().unwrap_or_else(|| "not an object".into());
                        out.push(Found {
                            span: i..end + 1,
                            value: Err(format!(
                                "unreadable JSON ({e}): {}",
                                crate::model::snippet(src)
                            )),
                        });
                        i = end + 1;
                    }
                    _ => i += 1,
                }
            }
            None => {
                let src = &text[i..];
                if looks_like_json(src) {
                    out.push(Found {
                        span: i..text.len(),
                        value: Err(format!(
                            "the JSON object is not closed (was the reply cut off?): {}",
                            crate::model::snippet(src)
                        )),
                    });
                    break;
                }
                i += 1;
            }
        }
    }
    out
}

/// `{"` or `{'` or `{ "key":` at the start: worth an error message if it fails to parse.
fn looks_like_json(src: &str) -> bool {
    let inner = src[1..].trim_start();
    inner.starts_with('"') || inner.starts_with('\'') || inner.starts_with('}')
}

/// The index of the `}` closing the `{` at `start`, honouring strings in either quote.
fn matching_brace(b: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) => {
                if c == b'\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                b'"' => quote = Some(c),
                // an apostrophe only opens a string where a JSON value or key could start
                b'\''
                    if prev_non_ws(b, i)
                        .is_some_and(|p| matches!(p, b'{' | b'[' | b',' | b':')) =>
                {
                    quote = Some(c)
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return (c == b'}').then_some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

fn prev_non_ws(b: &[u8], i: usize) -> Option<u8> {
    b[..i]
        .iter()
        .rev()
        .find(|c| !c.is_ascii_whitespace())
        .copied()
}

/// Parses JSON, repairing the usual model mistakes if strict parsing fails.
pub fn parse(src: &str) -> Result<Value, String> {
    match serde_json::from_str(src) {
        Ok(v) => Ok(v),
        Err(e) => serde_json::from_str(&repair(src)).map_err(|_| e.to_string()),
    }
}

/// Rewrites single-quoted strings, trailing commas, Python literals and bare keys.
pub fn repair(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' => {
                out.push(c);
                i += 1;
                while i < chars.len() {
                    let d = chars[i];
                    out.push(d);
                    i += 1;
                    if d == '\\' && i < chars.len() {
                        out.push(chars[i]);
                        i += 1;
                    } else if d == '"' {
                        break;
                    }
                }
            }
            '\'' => {
                out.push('"');
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    match chars[i] {
                        '\\' if i + 1 < chars.len() && chars[i + 1] == '\'' => {
                            out.push('\'');
                            i += 1;
                        }
                        '\\' if i + 1 < chars.len() => {
                            out.push('\\');
                            out.push(chars[i + 1]);
                            i += 1;
                        }
                        '"' => out.push_str("\\\""),
                        d => out.push(d),
                    }
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}') | Some(']')) {
                    out.push(',');
                }
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let next = chars[i..].iter().find(|c| !c.is_whitespace());
                match word.as_str() {
                    "True" => out.push_str("true"),
                    "False" => out.push_str("false"),
                    "None" => out.push_str("null"),
                    w if next == Some(&':') && !matches!(w, "true" | "false" | "null") => {
                        out.push('"');
                        out.push_str(w);
                        out.push('"');
                    }
                    w => out.push_str(w),
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Removes code fences (```json ... ```) markers and trims.
pub fn strip_fences(s: &str) -> String {
    let kept: Vec<&str> = s
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect();
    kept.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repairs() {
        assert_eq!(
            parse("{'a': 'it\\'s \"x\"', 'b': [1,2,],}").unwrap(),
            json!({"a": "it's \"x\"", "b": [1, 2]})
        );
        assert_eq!(
            parse("{a: True, b: None}").unwrap(),
            json!({"a": true, "b": null})
        );
        assert!(parse("{\"a\": ").is_err());
    }

    #[test]
    fn finds_objects_in_prose_and_back_to_back() {
        let t = "Sure! ```json\n{\"a\": 1}{\"b\": \"}\"}\n``` and {not json} then {\"c\": [";
        let found = objects(t);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].value, Ok(json!({"a": 1})));
        assert_eq!(found[1].value, Ok(json!({"b": "}"})));
        assert!(found[2].value.as_ref().unwrap_err().contains("not closed"));
        assert_eq!(strip_fences("```json\nx\n```"), "x");
    }

    #[test]
    fn apostrophes_in_prose_do_not_open_strings() {
        let t = "{\"observation\": \"the user's file\", \"actions\": []}";
        assert_eq!(objects(t)[0].value.as_ref().unwrap()["actions"], json!([]));
        let t = "{'observation': 'ok', 'actions': [{'name': 'click', 'x1': 5, 'y1': 6}]}";
        assert_eq!(
            objects(t)[0].value.as_ref().unwrap()["actions"][0]["x1"],
            json!(5)
        );
    }
}
