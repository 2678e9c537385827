//! Seed 000's JSON: `{"observation": "...", "bboxes": [...], "actions": [{"name": "click",
//! "x1": .., "y1": ..}]}`, in fences or prose, with trailing commas or single quotes tolerated.

use crate::action::{Action, ActionKind};
use franz_desktop::ScrollDirection;
use serde_json::Value;

/// The first balanced `{...}` block that parses (leniently).
pub fn first_object(text: &str) -> Option<Value> {
    let bytes: Vec<char> = text.chars().collect();
    let mut start = 0;
    while let Some(off) = bytes[start..].iter().position(|c| *c == '{') {
        let s = start + off;
        let mut depth = 0i32;
        let mut in_str: Option<char> = None;
        let mut esc = false;
        for (k, c) in bytes.iter().enumerate().skip(s) {
            if let Some(q) = in_str {
                if esc {
                    esc = false;
                } else if *c == '\\' {
                    esc = true;
                } else if *c == q {
                    in_str = None;
                }
                continue;
            }
            match c {
                '"' | '\'' => in_str = Some(*c),
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        let block: String = bytes[s..=k].iter().collect();
                        if let Some(v) = lenient(&block) {
                            return Some(v);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        start = s + 1;
    }
    None
}

/// Parses JSON, then retries with trailing commas removed and single quotes made double.
fn lenient(block: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str(block) {
        return Some(v);
    }
    let mut fixed = String::with_capacity(block.len());
    let chars: Vec<char> = block.chars().collect();
    let mut in_str: Option<char> = None;
    let mut esc = false;
    for (i, c) in chars.iter().enumerate() {
        if let Some(q) = in_str {
            if esc {
                esc = false;
                fixed.push(*c);
                continue;
            }
            if *c == '\\' {
                esc = true;
                fixed.push(*c);
                continue;
            }
            if *c == q {
                in_str = None;
                fixed.push('"');
                continue;
            }
            if *c == '"' && q == '\'' {
                fixed.push_str("\\\"");
                continue;
            }
            fixed.push(*c);
            continue;
        }
        match c {
            '"' | '\'' => {
                in_str = Some(*c);
                fixed.push('"');
            }
            ',' => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}') | Some(']')) {
                    fixed.push(',');
                }
            }
            _ => fixed.push(*c),
        }
    }
    serde_json::from_str(&fixed).ok()
}

fn int(v: &Value, key: &str) -> Option<i32> {
    match v.get(key)? {
        Value::Number(n) => n.as_f64().map(|f| f.round() as i32),
        Value::String(s) => s.trim().parse::<f64>().ok().map(|f| f.round() as i32),
        _ => None,
    }
}

fn text_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(|t| t.as_str()).map(str::to_string)
}

pub fn parse(text: &str, errors: &mut Vec<String>) -> (Vec<Action>, String) {
    let Some(obj) = first_object(text) else {
        return (Vec::new(), text.trim().to_string());
    };
    let observation = text_of(&obj, "observation").unwrap_or_default();
    let mut actions = Vec::new();
    for (i, a) in obj
        .get("actions")
        .and_then(|a| a.as_array())
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        match one(a) {
            Ok(action) => actions.push(action),
            Err(e) => errors.push(format!("actions[{i}]: {e}")),
        }
    }
    (actions, observation)
}

fn one(a: &Value) -> Result<Action, String> {
    let name = text_of(a, "name")
        .or_else(|| text_of(a, "type"))
        .ok_or("an action needs a name")?
        .to_ascii_lowercase();
    let x1 = int(a, "x1").or_else(|| int(a, "x"));
    let y1 = int(a, "y1").or_else(|| int(a, "y"));
    let need = |v: Option<i32>, k: &str| v.ok_or_else(|| format!("{name}: missing {k}"));
    let kind = match name.as_str() {
        "move" => ActionKind::Move {
            x: need(x1, "x1")?,
            y: need(y1, "y1")?,
        },
        "click" | "left_click" => ActionKind::Click {
            x: Some(need(x1, "x1")?),
            y: Some(need(y1, "y1")?),
        },
        "right_click" => ActionKind::RightClick {
            x: Some(need(x1, "x1")?),
            y: Some(need(y1, "y1")?),
        },
        "double_click" => ActionKind::DoubleClick {
            x: Some(need(x1, "x1")?),
            y: Some(need(y1, "y1")?),
        },
        "drag" => ActionKind::Drag {
            x: Some(need(x1, "x1")?),
            y: Some(need(y1, "y1")?),
            x2: need(int(a, "x2"), "x2")?,
            y2: need(int(a, "y2"), "y2")?,
        },
        "type" => ActionKind::Type {
            text: text_of(a, "text").ok_or("type: missing text")?,
        },
        "key" | "press_key" => ActionKind::Key {
            keys: crate::keys::normalize_combo(
                &text_of(a, "keys")
                    .or_else(|| text_of(a, "key"))
                    .ok_or("key: missing keys")?,
            )
            .map_err(|e| e.to_string())?,
        },
        "scroll" => ActionKind::Scroll {
            x: x1,
            y: y1,
            direction: match text_of(a, "direction")
                .unwrap_or_else(|| "down".into())
                .to_ascii_lowercase()
                .as_str()
            {
                "up" => ScrollDirection::Up,
                "left" => ScrollDirection::Left,
                "right" => ScrollDirection::Right,
                _ => ScrollDirection::Down,
            },
            amount: int(a, "amount").unwrap_or(3).max(1) as u32,
        },
        "wait" => ActionKind::Wait {
            seconds: a.get("seconds").and_then(Value::as_f64).unwrap_or(1.0),
        },
        "done" => ActionKind::Done {
            text: text_of(a, "text").unwrap_or_default(),
        },
        "fail" => ActionKind::Fail {
            text: text_of(a, "text").unwrap_or_default(),
        },
        other => return Err(format!("unknown action name {other:?}")),
    };
    Ok(kind.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_reply_in_prose_with_trailing_commas() {
        let mut errors = Vec::new();
        let text = "Sure!\n```json\n{'observation': 'two buttons', 'bboxes': [], 'actions': [{'name': 'Click', 'x1': 10, 'y1': 20,}, {\"name\": \"drag\", \"x1\": 1, \"y1\": 2, \"x2\": 3, \"y2\": 4},],}\n```";
        let (a, obs) = parse(text, &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(obs, "two buttons");
        assert_eq!(
            a[0].kind,
            ActionKind::Click {
                x: Some(10),
                y: Some(20)
            }
        );
        assert_eq!(
            a[1].kind,
            ActionKind::Drag {
                x: Some(1),
                y: Some(2),
                x2: 3,
                y2: 4
            }
        );
        let (a, obs) = parse("no json at all", &mut errors);
        assert!(a.is_empty());
        assert_eq!(obs, "no json at all");
    }
}
