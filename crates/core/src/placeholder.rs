//! Placeholders: the names that stand for values in every action example a prompt or a tool
//! schema shows (docs/actions.md, "Placeholders in examples"). One list serves both sides:
//! prompts write their examples with these names and never with real values, and the parser
//! refuses a name where a value belongs, so a reply that repeats an example acts nowhere (never
//! at the pointer, never at a corner).
//!
//! A placeholder stands where a value goes: bare (`left_click(x, y)`, `"coordinate": [x, y]`),
//! as the whole of a quoted string (`type("text")`, `start_box='(x1,y1)'`), or in angle
//! brackets (`click(<x>, <y>)`); never as a JSON key or a keyword (`"x1":`, `x=`). Names are
//! compared without regard to case.
//!
//! [`examples`] finds the examples in a text (calls and JSON objects that hold a placeholder,
//! with their `<tool_call>` tags), [`fill`] puts values in their place: the round-trip test and
//! the scripted model fill the examples a request shows. The scanner is one pass over the text
//! with a stack of open brackets, so it stays linear in the text's length.

use serde_json::Value;
use std::ops::Range;

/// Names that stand for a coordinate: `x`, `y` (a point); `x1`, `y1` and `x2`, `y2` (where a
/// drag starts and ends, or a box's corners); `x3`, `y3` (UI-TARS's end point).
pub const POINT: [&str; 8] = ["x", "y", "x1", "y1", "x2", "y2", "x3", "y3"];

/// Names that stand for another number: wheel notches, seconds, OpenAI's scroll pixels.
pub const NUMBER: [&str; 4] = ["amount", "seconds", "scroll_x", "scroll_y"];

/// Names that stand for a string, written in quotes: the text to type, a key or combination,
/// a scroll direction, a result (a `done`'s answer), a reason (a `fail`'s); `xxx` is
/// UI-TARS's own. None is a value a grammar has (`answer` is a Qwen action, so not here).
pub const TEXT: [&str; 6] = ["text", "keys", "direction", "result", "reason", "xxx"];

/// Strings older prompts showed as examples: refused like [`TEXT`], never written again.
const OLD_TEXT: [&str; 4] = ["text to type", "answer", "...", "\u{2026}"];

/// Words of the point forms models write (`<point>x y</point>`, `<|box_start|>`): not names.
const TAG_WORDS: [&str; 4] = ["point", "bbox", "box_start", "box_end"];

/// The phrase every refusal of a repeated example carries (tests and callers look for it).
pub const ECHO: &str = "the reply repeated the prompt's example";

/// Whether `name` is one of the placeholder names (any case).
pub fn is_name(name: &str) -> bool {
    let n = name.trim();
    POINT
        .iter()
        .chain(NUMBER.iter())
        .chain(TEXT.iter())
        .any(|p| p.eq_ignore_ascii_case(n))
}

/// Whether a string value is a placeholder for text: one of [`TEXT`] (or an old example's
/// text), possibly in angle brackets or braces, any case. The parser refuses these.
pub fn is_text(s: &str) -> bool {
    let t = unwrap_brackets(s.trim());
    is_current_text(t) || OLD_TEXT.iter().any(|p| p.eq_ignore_ascii_case(t))
}

/// Words that stand for a target in words in the examples prompts show when a grounding model
/// is configured (`click(target="description")`, docs/grounding.md).
pub const TARGET: [&str; 3] = ["target", "description", "element description"];

/// Whether a target's words are a placeholder: one of [`TARGET`] or a text placeholder
/// ([`is_text`]), possibly in angle brackets or braces, any case. The parser refuses these.
pub fn is_target(s: &str) -> bool {
    let t = unwrap_brackets(s.trim());
    is_text(t) || TARGET.iter().any(|p| p.eq_ignore_ascii_case(t))
}

/// Whether `t` is one of the [`TEXT`] names prompts write today.
fn is_current_text(t: &str) -> bool {
    TEXT.iter().any(|p| p.eq_ignore_ascii_case(t))
}

/// Every text [`is_text`] refuses once trimmed and unbracketed, lowercase: [`TEXT`] and the old
/// examples. The constrained grammars leave them out (`strategy/quoted.rs`).
pub fn text_values() -> impl Iterator<Item = &'static str> {
    TEXT.iter().chain(OLD_TEXT.iter()).copied()
}

/// Every target [`is_target`] refuses once trimmed and unbracketed, lowercase: the texts of
/// [`text_values`] and [`TARGET`]. The constrained grammars leave them out of a target
/// (`strategy/quoted.rs`).
pub fn target_values() -> impl Iterator<Item = &'static str> {
    text_values().chain(TARGET.iter().copied())
}

/// `<name>` or `{name}` without its brackets.
fn unwrap_brackets(t: &str) -> &str {
    for (open, close) in [('<', '>'), ('{', '}')] {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            return inner.trim();
        }
    }
    t
}

/// The names in a value that stands where a position (or another number) belongs: words that
/// are not numbers, in a string (`"x"`, `"(x1,y1)"`, `"<point>x y</point>"` give `x`, `x1`,
/// `y1`, `x`, `y`), a list or an object's values. Empty when the value holds only numbers.
pub fn names_in(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_names(v, &mut out, 0);
    out
}

fn collect_names(v: &Value, out: &mut Vec<String>, depth: usize) {
    match v {
        Value::String(s) => out.extend(
            words(s)
                .filter(|w| !is_number(w) && !is_tag(w))
                .map(str::to_string),
        ),
        Value::Array(items) if depth < 4 => {
            items.iter().for_each(|i| collect_names(i, out, depth + 1));
        }
        Value::Object(map) if depth < 4 => {
            map.values().for_each(|i| collect_names(i, out, depth + 1));
        }
        _ => {}
    }
}

/// The refusal of a value that is a name: `what` is the action, `names` the names found.
/// Placeholders get [`ECHO`]; any other name is a name where a value belongs.
/// An empty `what` leaves the prefix out.
pub fn refusal(what: &str, names: &[String]) -> String {
    let shown = names.join(", ");
    let why = if names.iter().any(|n| is_name(n) || is_text(n)) {
        format!(
            "{ECHO} ({shown}) instead of values: write real numbers (and text) in place of the names; nothing was performed"
        )
    } else {
        format!(
            "{shown} is a name, not a value: give the numbers (or the text) themselves; nothing was performed"
        )
    };
    match what {
        "" => why,
        w => format!("{w}: {why}"),
    }
}

/// Whether a word is a number as models write them (`5`, `-7`, `2.5`, `1e-308`).
fn is_number(w: &str) -> bool {
    w.parse::<f64>().is_ok_and(f64::is_finite)
}

fn is_tag(w: &str) -> bool {
    TAG_WORDS.iter().any(|t| t.eq_ignore_ascii_case(w))
}

/// The words of a string: runs of letters, digits, `_`, `.`, `+` and `-`.
fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '+' | '-')))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
}

/// One call or JSON object found in a text, and the values it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    /// Where it is in the text (with the `<tool_call>` tags around it, when it has them).
    pub span: Range<usize>,
    /// Its text.
    pub text: String,
    /// The placeholders standing as its values.
    pub placeholders: Vec<String>,
    /// The real numbers among its values (`500`, `'(500,300)'`); an example shows none.
    pub numbers: Vec<String>,
    /// Bare words among its values that are no placeholder, number or literal (`true`,
    /// `None`): names the parser does not know as placeholders (`left_click(px, py)`); an
    /// example shows none.
    pub names: Vec<String>,
}

/// The calls (`name(...)`, `pyautogui.click(...)`) and top-level JSON objects of `text`, each
/// with the placeholders, numbers and other names that stand as its values; only those that
/// hold at least one of these. The examples a prompt shows are the ones with placeholders.
pub fn examples(text: &str) -> Vec<Example> {
    candidates(text)
        .into_iter()
        .filter_map(|span| {
            let part = &text[span.clone()];
            let vals = values(part);
            let (placeholders, numbers) = classify(part, &vals);
            let names = other_names(part, &vals);
            if placeholders.is_empty() && numbers.is_empty() && names.is_empty() {
                return None;
            }
            let span = with_tags(text, span);
            Some(Example {
                text: text[span.clone()].to_string(),
                span,
                placeholders,
                numbers,
                names,
            })
        })
        .collect()
}

/// Bare words that are values and neither a placeholder, a number nor a literal. A word in
/// angle brackets is a chat template's slot (`{"name": <function-name>}`), which no reader
/// takes for a value.
fn other_names(text: &str, values: &[Val]) -> Vec<String> {
    const LITERALS: [&str; 3] = ["true", "false", "none"];
    let b = text.as_bytes();
    let slot = |v: &&Val| {
        v.span.start > 0 && b[v.span.start - 1] == b'<' && b.get(v.span.end) == Some(&b'>')
    };
    let bare = (values.iter()).filter(|v| v.kind == Kind::Bare && !slot(v));
    bare.map(|v| &text[v.span.clone()])
        .filter(|w| {
            !is_name(w) && !is_number(w) && !LITERALS.iter().any(|l| l.eq_ignore_ascii_case(w))
        })
        .map(str::to_string)
        .collect()
}

/// The example `example` with each placeholder replaced by `value(name)` (the name as the
/// example writes it); names it gives `None` for stay. Inside a quoted string the name is
/// replaced and the quotes kept (`"text"` -> `"hello"`, `'(x1,y1)'` -> `'(5,7)'`); the caller
/// gives text that needs no escaping there.
pub fn fill(example: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(example.len() + 16);
    let mut last = 0;
    for v in values(example) {
        let placeholder = match v.kind {
            Kind::Bare => is_name(&example[v.span.clone()]),
            Kind::Quoted => is_placeholder_string(&example[v.span.clone()]),
        };
        if !placeholder {
            continue;
        }
        for w in word_spans(example, v.span.clone()) {
            let name = &example[w.clone()];
            if is_name(name)
                && let Some(val) = value(name)
            {
                out.push_str(&example[last..w.start]);
                out.push_str(&val);
                last = w.end;
            }
        }
    }
    out.push_str(&example[last..]);
    out
}

/// Whether the inside of a quoted string is a placeholder: only names and point-form tags
/// (`x`, `(x1,y1)`, `<point>x y</point>`), or one of the text placeholders.
fn is_placeholder_string(inner: &str) -> bool {
    if is_current_text(unwrap_brackets(inner.trim())) {
        return true;
    }
    let mut names = words(inner).filter(|w| !is_tag(w)).peekable();
    names.peek().is_some() && names.all(|w| POINT.iter().any(|p| p.eq_ignore_ascii_case(w)))
}

/// Whether the inside of a quoted string is a number or a point of numbers (`500`,
/// `(500,300)`, `<point>5 7</point>`).
fn is_number_string(inner: &str) -> bool {
    let mut ws = words(inner).filter(|w| !is_tag(w)).peekable();
    ws.peek().is_some() && ws.all(is_number)
}

/// The byte ranges of the words in `span` of `text`.
fn word_spans(text: &str, span: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text[span.clone()].char_indices() {
        let at = span.start + i;
        let word = c.is_alphanumeric() || matches!(c, '_' | '.' | '+' | '-');
        match (word, start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push(s..at);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..span.end);
    }
    out
}

/// How a value is written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A bare word or number: the span is the word.
    Bare,
    /// A quoted string: the span is its inside, without the quotes.
    Quoted,
}

#[derive(Debug, Clone)]
struct Val {
    kind: Kind,
    span: Range<usize>,
}

/// The placeholders and the real numbers among the `values` of `text`.
fn classify(text: &str, values: &[Val]) -> (Vec<String>, Vec<String>) {
    let (mut names, mut numbers) = (Vec::new(), Vec::new());
    for v in values {
        let s = &text[v.span.clone()];
        match v.kind {
            Kind::Bare if is_name(s) => names.push(s.to_string()),
            Kind::Bare if is_number(s) => numbers.push(s.to_string()),
            Kind::Quoted if is_placeholder_string(s) => names.push(s.to_string()),
            Kind::Quoted if is_number_string(s) => numbers.push(s.to_string()),
            _ => {}
        }
    }
    (names, numbers)
}

/// The values of a call or object: every bare word, number and quoted string that is not a
/// key (`"x1":`, `x=`) nor a function's name (`click(`).
fn values(text: &str) -> Vec<Val> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            let end = string_end(b, i);
            let after = end + 1;
            if !is_key_at(b, after) {
                out.push(Val {
                    kind: Kind::Quoted,
                    span: i + 1..end.min(b.len()),
                });
            }
            i = after;
        } else if is_word_byte(c) {
            let start = i;
            while i < b.len() && is_word_byte(b[i]) {
                i += 1;
            }
            if !is_key_at(b, i) && !next_is(b, i, b'(') {
                out.push(Val {
                    kind: Kind::Bare,
                    span: start..i,
                });
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'-') || c >= 0x80
}

/// The index of the quote closing the string opened at `open` (or the text's length).
fn string_end(b: &[u8], open: usize) -> usize {
    let q = b[open];
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == q => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// Whether the next byte after spaces at `at` is `:` or `=` (not `==`, `::`): a key.
fn is_key_at(b: &[u8], at: usize) -> bool {
    let mut i = at;
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    match b.get(i) {
        Some(b':') => b.get(i + 1) != Some(&b':'),
        Some(b'=') => b.get(i + 1) != Some(&b'='),
        _ => false,
    }
}

fn next_is(b: &[u8], at: usize, c: u8) -> bool {
    b.get(at) == Some(&c)
}

/// The spans of the top-level calls (a name right before `(`) and objects (`{...}`) of `text`:
/// one pass with a stack of open brackets; quotes count inside brackets only (an apostrophe in
/// prose is no string). An unclosed bracket or string ends the search.
fn candidates(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' | b'\'' if !stack.is_empty() => {
                i = string_end(b, i);
            }
            b'(' | b'[' | b'{' => {
                let start = if c == b'(' { name_start(b, i) } else { i };
                stack.push((c, start));
            }
            b')' | b']' | b'}' => {
                let open = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if let Some(&(o, start)) = stack.last()
                    && o == open
                {
                    stack.pop();
                    let named = o == b'(' && start < i && is_name_byte(b[start]);
                    if stack.is_empty() && (o == b'{' || named) {
                        out.push(start..i + 1);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn is_name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// Where the name right before the `(` at `open` starts (`open` itself without a name).
fn name_start(b: &[u8], open: usize) -> usize {
    let mut s = open;
    while s > 0 && is_name_byte(b[s - 1]) {
        s -= 1;
    }
    if s < open && b[s].is_ascii_digit() {
        return open;
    }
    s
}

/// `span` widened to the `<tool_call>` tags around it, when only spaces lie between.
fn with_tags(text: &str, span: Range<usize>) -> Range<usize> {
    let before = text[..span.start].trim_end();
    let after = text[span.end..].trim_start();
    let (open, close) = ("<tool_call>", "</tool_call>");
    let ends_open = before.len() >= open.len()
        && before.is_char_boundary(before.len() - open.len())
        && before[before.len() - open.len()..].eq_ignore_ascii_case(open);
    let starts_close = after.len() >= close.len()
        && after.is_char_boundary(close.len())
        && after[..close.len()].eq_ignore_ascii_case(close);
    if ends_open && starts_close {
        let start = before.len() - open.len();
        let end = text.len() - after.len() + close.len();
        return start..end;
    }
    span
}

/// The placeholders a reply repeated, in the calls and objects it holds (for the refusal
/// when nothing else in the reply could be read); empty when it repeated none.
pub fn echoed(text: &str) -> Vec<String> {
    examples(text)
        .into_iter()
        .flat_map(|e| e.placeholders)
        .collect()
}

#[cfg(test)]
#[path = "placeholder_tests.rs"]
mod tests;
