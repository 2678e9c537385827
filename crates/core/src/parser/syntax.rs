//! Function-call syntax as models write it: `left_click(650, 420)`, `type("it's \"x\"")`,
//! `click(start_box='(10,20)')`, `scroll(500, 500, down, 3)`.
//!
//! A small hand-written reader (no regex, no eval): numbers, strings in either quote with
//! escapes, bare words, lists and tuples, optional `key=` names. Arguments become JSON values
//! so the dialects read them with the same helpers as JSON input.

use serde_json::Value;
use std::ops::Range;

/// One call found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// As written (case kept).
    pub name: String,
    /// Byte range of the whole call in the text.
    pub span: Range<usize>,
    /// The arguments, or why they could not be read.
    pub args: Result<Vec<Arg>, String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    pub key: Option<String>,
    pub value: Value,
}

/// Finds calls of the given names (compared case-insensitively) in `text`.
pub fn find_calls(text: &str, names: &[&str]) -> Vec<Call> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut unclosed = Unclosed::default();
    super::work::charge(text.len());
    while i < b.len() && out.len() < 64 {
        if !is_ident(b[i]) || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let name = &text[start..i];
        let mut j = i;
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        if j >= b.len() || b[j] != b'(' || !names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            continue;
        }
        let mut r = Reader {
            s: text,
            i: j + 1,
            unclosed,
        };
        let args = r.args();
        unclosed = r.unclosed;
        super::work::charge(r.i - j);
        let end = match &args {
            Ok(_) => r.i,
            // an unreadable call ends at the end of its line
            Err(_) => text[j..].find('\n').map_or(text.len(), |n| j + n),
        };
        out.push(Call {
            name: name.to_string(),
            span: start..end,
            args,
        });
        i = end.max(i);
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

struct Reader<'a> {
    s: &'a str,
    i: usize,
    unclosed: Unclosed,
}

/// Where a string in `"` and one in `'` were found never to close: a string that opens later
/// with the same quote cannot close either (the scan from the earlier one passed its opening
/// quote as an escaped character and went on from there as the later scan does), so it is not
/// read to the end again. This keeps a reply of many unclosed strings linear.
#[derive(Debug, Clone, Copy, Default)]
struct Unclosed {
    double: Option<usize>,
    single: Option<usize>,
}

impl Unclosed {
    fn slot(&mut self, q: char) -> &mut Option<usize> {
        if q == '"' {
            &mut self.double
        } else {
            &mut self.single
        }
    }
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += c.len_utf8();
        Some(c)
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    /// Arguments up to and including the closing `)`.
    fn args(&mut self) -> Result<Vec<Arg>, String> {
        let mut args = Vec::new();
        self.ws();
        if self.peek() == Some(')') {
            self.bump();
            return Ok(args);
        }
        loop {
            self.ws();
            let key = self.key();
            let value = self.value(0)?;
            args.push(Arg { key, value });
            self.ws();
            match self.bump() {
                Some(',') => {
                    self.ws();
                    if self.peek() == Some(')') {
                        self.bump();
                        return Ok(args);
                    }
                }
                Some(')') => return Ok(args),
                Some(c) => return Err(format!("unexpected {c:?} in the arguments")),
                None => return Err("the call is not closed with )".into()),
            }
            if args.len() > 16 {
                return Err("too many arguments".into());
            }
        }
    }

    /// `name=` or `name:` before a value, if present.
    fn key(&mut self) -> Option<String> {
        let rest = &self.s[self.i..];
        let len = rest.bytes().take_while(|c| is_ident(*c)).count();
        if len == 0 || rest.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        let after = rest[len..].trim_start();
        if after.starts_with('=') || (after.starts_with(':') && !after.starts_with("::")) {
            let key = rest[..len].to_string();
            self.i += rest.len() - after.len() + 1;
            self.ws();
            return Some(key);
        }
        None
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > 4 {
            return Err("arguments nested too deeply".into());
        }
        self.ws();
        match self.peek() {
            None => Err("the call is not closed with )".into()),
            Some(q @ ('"' | '\'')) => {
                self.bump();
                self.string(q).map(Value::String)
            }
            Some(open @ ('[' | '(')) => {
                self.bump();
                let close = if open == '[' { ']' } else { ')' };
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.peek() == Some(close) {
                        self.bump();
                        return Ok(Value::Array(items));
                    }
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.bump() {
                        Some(',') => {}
                        Some(c) if c == close => return Ok(Value::Array(items)),
                        _ => return Err(format!("a list is not closed with {close}")),
                    }
                    if items.len() > 16 {
                        return Err("a list is too long".into());
                    }
                }
            }
            Some(c) if c == '-' || c == '+' || c == '.' || c.is_ascii_digit() => {
                let start = self.i;
                self.bump();
                // digits, a point, an exponent with its sign: `1e-308`, `5E+2`
                while let Some(c) = self.peek() {
                    let exponent_sign =
                        matches!(c, '-' | '+') && self.s[..self.i].ends_with(['e', 'E']);
                    if !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E') || exponent_sign) {
                        break;
                    }
                    self.bump();
                }
                let t = &self.s[start..self.i];
                t.parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map(|n| {
                        if n.as_f64()
                            .is_some_and(|f| f.fract() == 0.0 && f.abs() < 1e15)
                        {
                            Value::from(n.as_f64().unwrap_or_default() as i64)
                        } else {
                            Value::Number(n)
                        }
                    })
                    .ok_or_else(|| format!("{t:?} is not a number"))
            }
            Some(c) if c.is_alphabetic() || c == '_' => {
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '+' | '-'))
                {
                    self.bump();
                }
                let w = &self.s[start..self.i];
                Ok(match w {
                    "True" | "true" => Value::Bool(true),
                    "False" | "false" => Value::Bool(false),
                    "None" | "null" => Value::Null,
                    _ => Value::String(w.to_string()),
                })
            }
            Some(c) => Err(format!("unexpected {c:?} in the arguments")),
        }
    }

    /// The rest of a string opened by `q`, with escapes decoded.
    fn string(&mut self, q: char) -> Result<String, String> {
        let opened = self.i;
        if self.unclosed.slot(q).is_some_and(|at| at <= opened) {
            self.i = self.s.len();
            return Err(format!("a string is not closed with {q}"));
        }
        let mut out = String::new();
        loop {
            match self.bump() {
                None => {
                    *self.unclosed.slot(q) = Some(opened);
                    return Err(format!("a string is not closed with {q}"));
                }
                Some('\\') => match self.bump() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('\\') => out.push('\\'),
                    Some('\'') => out.push('\''),
                    Some('"') => out.push('"'),
                    Some(c) => {
                        out.push('\\');
                        out.push(c);
                    }
                    None => {
                        *self.unclosed.slot(q) = Some(opened);
                        return Err(format!("a string is not closed with {q}"));
                    }
                },
                Some(c) if c == q => return Ok(out),
                Some(c) => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vals(c: &Call) -> Vec<Value> {
        c.args
            .as_ref()
            .unwrap()
            .iter()
            .map(|a| a.value.clone())
            .collect()
    }

    #[test]
    fn reads_calls() {
        let t =
            "I'll click. left_click(650, 420)\ntype(\"he said \\\"hi\\\" (twice)\") drag(1,2,3,4)";
        let c = find_calls(t, &["left_click", "type", "drag"]);
        assert_eq!(c.len(), 3);
        assert_eq!(vals(&c[0]), vec![json!(650), json!(420)]);
        assert_eq!(vals(&c[1]), vec![json!("he said \"hi\" (twice)")]);
        assert_eq!(&t[c[2].span.clone()], "drag(1,2,3,4)");
        let c = find_calls("click(1e-308, 5E+2, -7e1)", &["click"]);
        assert_eq!(vals(&c[0]), vec![json!(1e-308), json!(500), json!(-70)]);
        let c = find_calls("click(start_box='(10,20)', x = -2.5, dir=down)", &["click"]);
        let a = c[0].args.as_ref().unwrap();
        assert_eq!(a[0].key.as_deref(), Some("start_box"));
        assert_eq!(a[0].value, json!("(10,20)"));
        assert_eq!(a[1].value, json!(-2.5));
        assert_eq!(a[2].value, json!("down"));
    }

    #[test]
    fn broken_calls_are_errors() {
        assert!(find_calls("type(\"unclosed", &["type"])[0].args.is_err());
        assert!(
            find_calls("left_click(5, 6", &["left_click"])[0]
                .args
                .is_err()
        );
        assert!(find_calls("mytype(1)", &["type"]).is_empty());
        assert_eq!(find_calls("wait()", &["wait"])[0].args, Ok(vec![]));
    }
}
