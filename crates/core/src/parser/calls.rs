//! Seed 002's function-call text: `left_click(650, 420)`, `type("text")`, `press_key("ctrl+s")`,
//! several calls a reply; the rest of the reply is the story.
//!
//! Hand-written rather than a regex so that quotes, escapes and commas inside strings are
//! handled exactly and a broken call never swallows the story.

use crate::action::{Action, ActionKind};
use crate::keys;
use franz_desktop::ScrollDirection;

#[derive(Debug, Clone, PartialEq)]
enum Arg {
    Num(f64),
    Str(String),
}

const NAMES: &[&str] = &[
    "left_click",
    "click",
    "right_click",
    "double_left_click",
    "double_click",
    "middle_click",
    "triple_click",
    "drag",
    "type",
    "press_key",
    "key",
    "scroll",
    "move",
    "wait",
    "done",
    "fail",
];

/// Finds calls; returns the actions and the text with the calls removed.
pub fn parse(text: &str, errors: &mut Vec<String>) -> (Vec<Action>, String) {
    let mut actions = Vec::new();
    let mut rest = String::new();
    let mut i = 0;
    while i < text.len() {
        if let Some((name, after)) = call_start(text, i)
            && let Some((args, end)) = read_args(text, after)
        {
            match to_action(name, &args) {
                Ok(a) => actions.push(a),
                Err(e) => errors.push(e),
            }
            i = end;
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        rest.push(ch);
        i += ch.len_utf8();
    }
    let rest = rest
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    (actions, rest)
}

/// A known call name starting at `i` (at a word boundary) followed by `(`.
fn call_start(text: &str, i: usize) -> Option<(&'static str, usize)> {
    if i > 0
        && text[..i]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    {
        return None;
    }
    for name in NAMES {
        if text[i..].starts_with(name) {
            let after = i + name.len();
            let ws = text[after..].len() - text[after..].trim_start().len();
            if text[after + ws..].starts_with('(') {
                return Some((name, after + ws + 1));
            }
        }
    }
    None
}

/// Reads arguments up to the closing `)`; None when there is none.
fn read_args(text: &str, mut i: usize) -> Option<(Vec<Arg>, usize)> {
    let mut args = Vec::new();
    let chars: Vec<(usize, char)> = text[i..].char_indices().map(|(o, c)| (o + i, c)).collect();
    let mut k = 0;
    loop {
        while k < chars.len() && (chars[k].1.is_whitespace() || chars[k].1 == ',') {
            k += 1;
        }
        if k >= chars.len() {
            return None;
        }
        let (pos, c) = chars[k];
        if c == ')' {
            i = pos + 1;
            return Some((args, i));
        }
        if c == '"' || c == '\'' {
            let mut s = String::new();
            k += 1;
            let mut closed = false;
            while k < chars.len() {
                let ch = chars[k].1;
                if ch == '\\' && k + 1 < chars.len() {
                    let n = chars[k + 1].1;
                    s.push(match n {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                    k += 2;
                    continue;
                }
                if ch == c {
                    closed = true;
                    k += 1;
                    break;
                }
                s.push(ch);
                k += 1;
            }
            if !closed {
                return None;
            }
            args.push(Arg::Str(s));
        } else {
            let start = k;
            while k < chars.len() && !matches!(chars[k].1, ',' | ')') && !chars[k].1.is_whitespace()
            {
                k += 1;
            }
            let word: String = chars[start..k].iter().map(|(_, c)| *c).collect();
            // `x=500`: keep the value
            let word = word.rsplit('=').next().unwrap_or("").to_string();
            match word.parse::<f64>() {
                Ok(n) if n.is_finite() => args.push(Arg::Num(n)),
                _ => args.push(Arg::Str(word)),
            }
        }
    }
}

fn num(args: &[Arg], i: usize, name: &str) -> Result<i32, String> {
    match args.get(i) {
        Some(Arg::Num(n)) => Ok(n.round() as i32),
        Some(Arg::Str(s)) => s
            .trim()
            .parse::<f64>()
            .map(|n| n.round() as i32)
            .map_err(|_| format!("{name}: {s:?} is not a number")),
        None => Err(format!("{name}: missing argument {}", i + 1)),
    }
}

fn string(args: &[Arg], i: usize) -> Option<String> {
    match args.get(i) {
        Some(Arg::Str(s)) => Some(s.clone()),
        Some(Arg::Num(n)) => Some(n.to_string()),
        None => None,
    }
}

fn to_action(name: &str, args: &[Arg]) -> Result<Action, String> {
    let xy = |n: &str| -> Result<(Option<i32>, Option<i32>), String> {
        if args.is_empty() {
            Ok((None, None))
        } else {
            Ok((Some(num(args, 0, n)?), Some(num(args, 1, n)?)))
        }
    };
    let kind = match name {
        "left_click" | "click" => {
            let (x, y) = xy(name)?;
            ActionKind::Click { x, y }
        }
        "right_click" => {
            let (x, y) = xy(name)?;
            ActionKind::RightClick { x, y }
        }
        "double_left_click" | "double_click" => {
            let (x, y) = xy(name)?;
            ActionKind::DoubleClick { x, y }
        }
        "middle_click" => {
            let (x, y) = xy(name)?;
            ActionKind::MiddleClick { x, y }
        }
        "triple_click" => {
            let (x, y) = xy(name)?;
            ActionKind::TripleClick { x, y }
        }
        "move" => ActionKind::Move {
            x: num(args, 0, name)?,
            y: num(args, 1, name)?,
        },
        "drag" => ActionKind::Drag {
            x: Some(num(args, 0, name)?),
            y: Some(num(args, 1, name)?),
            x2: num(args, 2, name)?,
            y2: num(args, 3, name)?,
        },
        "type" => ActionKind::Type {
            text: string(args, 0).ok_or("type: missing the text")?,
        },
        "press_key" | "key" => {
            let parts: Vec<String> = args
                .iter()
                .map(|a| match a {
                    Arg::Str(s) => s.clone(),
                    Arg::Num(n) => n.to_string(),
                })
                .collect();
            let combo = keys::parse_combo_parts(&parts).map_err(|e| format!("{name}: {e}"))?;
            ActionKind::Key {
                keys: combo.to_string(),
            }
        }
        "scroll" => {
            let dir = string(args, 2).unwrap_or_else(|| "down".into());
            let direction = match dir.to_ascii_lowercase().as_str() {
                "up" => ScrollDirection::Up,
                "down" => ScrollDirection::Down,
                "left" => ScrollDirection::Left,
                "right" => ScrollDirection::Right,
                other => {
                    return Err(format!(
                        "scroll: direction {other:?} is not up, down, left or right"
                    ));
                }
            };
            let amount = if args.len() > 3 {
                num(args, 3, name)?.max(1) as u32
            } else {
                3
            };
            ActionKind::Scroll {
                x: Some(num(args, 0, name)?),
                y: Some(num(args, 1, name)?),
                direction,
                amount,
            }
        }
        "wait" => ActionKind::Wait {
            seconds: args
                .first()
                .and_then(|a| match a {
                    Arg::Num(n) => Some(*n),
                    Arg::Str(s) => s.parse().ok(),
                })
                .unwrap_or(1.0),
        },
        "done" => ActionKind::Done {
            text: string(args, 0).unwrap_or_default(),
        },
        "fail" => ActionKind::Fail {
            text: string(args, 0).unwrap_or_default(),
        },
        other => return Err(format!("unknown call {other}")),
    };
    Ok(kind.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_and_story() {
        let mut errors = Vec::new();
        let (a, rest) = parse(
            "left_click(650, 420)\ntype(\"a, \\\"b\\\" (c)\")\npress_key('Ctrl S')\nThe story goes on.",
            &mut errors,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(a.len(), 3);
        assert_eq!(
            a[0].kind,
            ActionKind::Click {
                x: Some(650),
                y: Some(420)
            }
        );
        assert_eq!(
            a[1].kind,
            ActionKind::Type {
                text: "a, \"b\" (c)".into()
            }
        );
        assert_eq!(
            a[2].kind,
            ActionKind::Key {
                keys: "ctrl+s".into()
            }
        );
        assert_eq!(rest, "The story goes on.");
    }

    #[test]
    fn broken_calls_do_not_swallow_text() {
        let mut errors = Vec::new();
        let (a, rest) = parse("I will click(12, now and then.", &mut errors);
        assert!(a.is_empty());
        assert!(rest.contains("click(12, now and then."));
        let (a, _) = parse("drag(1,2,3)", &mut errors);
        assert!(a.is_empty() && !errors.is_empty());
    }
}
