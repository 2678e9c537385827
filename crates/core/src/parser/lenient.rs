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
/// is followed by another block is skipped quietly, and the blocks inside it are read.
///
/// Linear in the text's length (docs/architecture.md, "The parser"): the braces are matched in
/// one pass ([`Braces`]), never by a scan from each `{`, and the candidates handed to the JSON
/// reader add up to at most [`PARSE_BUDGET`] times the text (more would mean blocks nested in
/// blocks that are none of them JSON: the rest is reported, not read).
pub fn objects(text: &str) -> Vec<Found> {
    let mut braces = Braces::new(text);
    let mut out = Vec::new();
    let mut budget = PARSE_BUDGET
        .saturating_mul(text.len())
        .saturating_add(64 * 1024);
    let mut skip = 0;
    while out.len() < 64 {
        let Some(start) = braces.next_open() else {
            break;
        };
        if start < skip {
            continue;
        }
        let Some(end) = braces.close_of(start) else {
            let src = &text[start..];
            if looks_like_json(src) {
                out.push(Found {
                    span: start..text.len(),
                    value: Err(format!(
                        "the JSON object is not closed (was the reply cut off?): {}",
                        crate::model::body::snippet(src)
                    )),
                });
                break;
            }
            continue;
        };
        let src = &text[start..=end];
        if src.len() > budget || !super::work::charge(src.len()) {
            out.push(Found {
                span: start..text.len(),
                value: Err(format!(
                    "the reply nests too many blocks in braces that are not JSON: not read from here on: {}",
                    crate::model::body::snippet(src)
                )),
            });
            break;
        }
        budget -= src.len();
        let parsed = parse(src);
        match parsed {
            Ok(v) if v.is_object() => out.push(Found {
                span: start..end + 1,
                value: Ok(v),
            }),
            _ if looks_like_json(src) => {
                let e = parsed.err().unwrap_or_else(|| "not an object".into());
                out.push(Found {
                    span: start..end + 1,
                    value: Err(format!(
                        "unreadable JSON ({e}): {}",
                        crate::model::body::snippet(src)
                    )),
                });
            }
            _ => continue,
        }
        skip = end + 1;
    }
    if braces.too_deep {
        out.push(Found {
            span: braces.at..text.len(),
            value: Err(format!(
                "the reply nests brackets more than {MAX_DEPTH} deep: not read from there on"
            )),
        });
    }
    out
}

/// How many times its length the candidate blocks of a text may add up to.
const PARSE_BUDGET: usize = 4;

/// The deepest nesting of `{` and `[` read (serde_json itself reads 128 levels).
const MAX_DEPTH: usize = 512;

/// `{"` or `{'` or `{ "key":` at the start: worth an error message if it fails to parse.
fn looks_like_json(src: &str) -> bool {
    let inner = src[1..].trim_start();
    inner.starts_with('"') || inner.starts_with('\'') || inner.starts_with('}')
}

/// A `{` outside strings, and what closes it once that is known: `Some(Some(i))` the `}` at
/// `i`, `Some(None)` a `]` (no object) or the end of the text.
struct Open {
    at: usize,
    close: Option<Option<usize>>,
}

/// The braces of a text, matched in one pass from left to right, as far as asked.
///
/// Strings (in either quote; an apostrophe only where a value or key could start) count only
/// inside a block: between blocks, quotes are prose. A `{` inside a string is no block.
struct Braces<'a> {
    b: &'a [u8],
    /// The next byte to read.
    at: usize,
    /// The open brackets: the index in `opens` of a `{` (its number since the start), or
    /// `None` for a `[`.
    stack: Vec<Option<usize>>,
    /// The `{`s not yet handed out, in order; `first` is the number of the front one.
    opens: std::collections::VecDeque<Open>,
    first: usize,
    /// The front of `opens` was handed out by [`Braces::next_open`].
    handed: bool,
    quote: Option<u8>,
    /// The last byte read that is not white space.
    last: u8,
    too_deep: bool,
}

impl<'a> Braces<'a> {
    fn new(text: &'a str) -> Self {
        Braces {
            b: text.as_bytes(),
            at: 0,
            stack: Vec::new(),
            opens: std::collections::VecDeque::new(),
            first: 0,
            handed: false,
            quote: None,
            last: b' ',
            too_deep: false,
        }
    }

    /// The position of the next `{` (in order), or `None` at the end of the text.
    fn next_open(&mut self) -> Option<usize> {
        if self.handed && self.opens.pop_front().is_some() {
            self.first += 1;
        }
        while self.opens.is_empty() {
            if !self.step() {
                return None;
            }
        }
        self.handed = true;
        self.opens.front().map(|o| o.at)
    }

    /// What closes the `{` last handed out by [`Braces::next_open`] at `start`.
    fn close_of(&mut self, start: usize) -> Option<usize> {
        loop {
            match self.opens.front() {
                Some(o) if o.at == start => {
                    if let Some(close) = o.close {
                        return close;
                    }
                }
                _ => return None,
            }
            if !self.step() {
                return None;
            }
        }
    }

    /// Reads a stretch of the text (up to a bracket that changes something); false at its
    /// end, where every block still open is closed by nothing.
    fn step(&mut self) -> bool {
        let from = self.at;
        while self.at < self.b.len() {
            let c = self.b[self.at];
            self.at += 1;
            if self.byte(c) {
                break;
            }
        }
        if !super::work::charge(self.at - from) || self.too_deep {
            self.at = self.b.len();
        }
        if self.at >= self.b.len() && self.at == from {
            self.end();
            return false;
        }
        true
    }

    /// Reads one byte; true when it opened or closed a block.
    fn byte(&mut self, c: u8) -> bool {
        if let Some(q) = self.quote {
            let mut seen = c;
            if c == b'\\' && self.at < self.b.len() {
                seen = self.b[self.at];
                self.at += 1;
            } else if c == q {
                self.quote = None;
            }
            if !seen.is_ascii_whitespace() {
                self.last = seen;
            } else if !c.is_ascii_whitespace() {
                self.last = c;
            }
            return false;
        }
        let prev = self.last;
        if !c.is_ascii_whitespace() {
            self.last = c;
        }
        match c {
            _ if self.stack.is_empty() && c != b'{' => false,
            b'"' => {
                self.quote = Some(c);
                false
            }
            b'\'' if matches!(prev, b'{' | b'[' | b',' | b':') => {
                self.quote = Some(c);
                false
            }
            b'{' | b'[' => self.open(c),
            b'}' | b']' => {
                self.close(c);
                true
            }
            _ => false,
        }
    }

    fn open(&mut self, c: u8) -> bool {
        if self.stack.len() >= MAX_DEPTH {
            self.too_deep = true;
            return true;
        }
        if c == b'[' {
            self.stack.push(None);
            return false;
        }
        self.stack.push(Some(self.first + self.opens.len()));
        self.opens.push_back(Open {
            at: self.at - 1,
            close: None,
        });
        true
    }

    fn close(&mut self, c: u8) {
        if let Some(Some(n)) = self.stack.pop()
            && let Some(o) = n
                .checked_sub(self.first)
                .and_then(|i| self.opens.get_mut(i))
        {
            o.close = Some((c == b'}').then_some(self.at - 1));
        }
    }

    /// The end of the text: what is still open is closed by nothing.
    fn end(&mut self) {
        for n in std::mem::take(&mut self.stack).into_iter().flatten() {
            if let Some(o) = n
                .checked_sub(self.first)
                .and_then(|i| self.opens.get_mut(i))
            {
                o.close = Some(None);
            }
        }
    }
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
