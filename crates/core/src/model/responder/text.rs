//! Replies written in a prompt's text format: the example the prompt shows for the action
//! (its "For example:" block, a line of its grammar, its JSON template, the function schema
//! inside `<tools>`), with the values filled in. Placeholders are found by shape, not by
//! name: a coordinate pair is two numbers or two names like `x, y` / `x1,y1` / `x=X, y=Y` /
//! `"x": X, "y": Y`; a text is the quoted string after `text`/`content` or the first
//! argument.

use super::{Intent, STORY, schema};
use regex::Regex;
use serde_json::{Map, Value, json};

/// The reply that does `intent` in the format `prompt` (the system text) asks for.
pub(super) fn reply(prompt: &str, intent: &Intent, at: Option<(f64, f64)>) -> String {
    if let Some(tools) = embedded_tools(prompt) {
        return match schema::call(&tools, intent, at) {
            Some((name, args)) => tool_call_text(prompt, &name, &args),
            None => plain_answer(intent),
        };
    }
    if let Some(template) = json_template(prompt) {
        return json_reply(prompt, &template, intent, at);
    }
    call_reply(prompt, intent, at)
}

/// The text that goes with a structured tool call: the prompt's labelled report lines
/// (`OBJ:`, `DOD:` ... under a "FORMAT" heading) when it asks for them, else a sentence.
pub(super) fn story(prompt: &str) -> String {
    let mut lines = prompt.lines().skip_while(|l| !l.contains("FORMAT")).skip(1);
    let Ok(label) = Regex::new(r"^([A-Z]{2,}): ") else {
        return STORY.into();
    };
    let report: Vec<String> = lines
        .by_ref()
        .map_while(|l| label.captures(l).map(|c| format!("{} {STORY}", &c[0])))
        .collect();
    if report.is_empty() {
        STORY.into()
    } else {
        report.join("\n")
    }
}

/// An answer in plain text, with no action.
pub(super) fn plain_answer(intent: &Intent) -> String {
    match intent {
        Intent::Finish(answer) => format!("The goal is reached: {answer}."),
        _ => STORY.into(),
    }
}

/// The functions of the prompt's `<tools>...</tools>` block, one JSON object a line (the
/// first block that has any: a sentence may name the tags with nothing between them).
fn embedded_tools(prompt: &str) -> Option<Vec<Value>> {
    prompt.match_indices("<tools>").find_map(|(i, tag)| {
        let start = i + tag.len();
        let end = start + prompt[start..].find("</tools>")?;
        let tools: Vec<Value> = prompt[start..end]
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
            .map(|t| t.get("function").cloned().unwrap_or(t))
            .collect();
        (!tools.is_empty()).then_some(tools)
    })
}

/// The lines after the prompt's "For example:", up to a blank line or the next heading (a
/// line that opens in capitals, such as `SITREP FORMAT (...)`).
fn example_block(prompt: &str) -> Option<String> {
    let start = prompt.find("For example:")? + "For example:".len();
    let heading = Regex::new(r"^[A-Z]{2,}[A-Z ]*[:(]").ok()?;
    let lines: Vec<&str> = prompt[start..]
        .trim_start_matches([' ', '\n'])
        .lines()
        .take_while(|l| !l.trim().is_empty() && !heading.is_match(l))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The call written as the prompt's example writes one (e.g. inside `<tool_call>` tags).
fn tool_call_text(prompt: &str, name: &str, args: &Value) -> String {
    let call = json!({"name": name, "arguments": args}).to_string();
    let block = example_block(prompt)
        .and_then(|ex| {
            let (start, end) = balanced(&ex, ex.find('{')?)?;
            Some(format!("{}{call}{}", &ex[..start], &ex[end..]))
        })
        .unwrap_or_else(|| format!("<tool_call>\n{call}\n</tool_call>"));
    format!("{STORY}\n{block}")
}

/// The byte range of the balanced `{...}` or `[...]` that opens at `start`.
fn balanced(s: &str, start: usize) -> Option<(usize, usize)> {
    let (mut depth, mut in_str, mut escaped) = (0i32, false, false);
    for (i, c) in s[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_str => escaped = true,
            '"' => in_str = !in_str,
            '{' | '[' if !in_str => depth += 1,
            '}' | ']' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    return Some((start, start + i + 1));
                }
            }
            _ => {}
        }
    }
    None
}

/// The JSON object the prompt asks the whole reply to be (one with an `actions` list).
fn json_template(prompt: &str) -> Option<String> {
    let mut from = 0;
    while let Some(i) = prompt[from..].find('{') {
        let (s, e) = balanced(prompt, from + i)?;
        if prompt[s..e].contains("\"actions\"") {
            return Some(prompt[s..e].to_string());
        }
        from = from + i + 1;
    }
    None
}

/// The template's top-level keys and their values' text.
fn top_level(template: &str) -> Vec<(String, String)> {
    let Ok(key) = Regex::new(r#""(\w+)"\s*:\s*"#) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut at = 1;
    while let Some(c) = key.captures(&template[at..]) {
        let (Some(whole), Some(name)) = (c.get(0), c.get(1)) else {
            break;
        };
        let value_start = at + whole.end();
        let value_end = match template[value_start..].chars().next() {
            Some('{' | '[') => balanced(template, value_start).map_or(template.len(), |r| r.1),
            Some('"') => template[value_start + 1..]
                .find('"')
                .map_or(template.len(), |e| value_start + e + 2),
            _ => template[value_start..]
                .find([',', '}'])
                .map_or(template.len(), |e| value_start + e),
        };
        out.push((
            name.as_str().to_string(),
            template[value_start..value_end].to_string(),
        ));
        at = value_end;
    }
    out
}

/// A reply that is the prompt's JSON object: its text fields a story, its action list the one
/// action, its other lists empty.
fn json_reply(prompt: &str, template: &str, intent: &Intent, at: Option<(f64, f64)>) -> String {
    let mut object = Map::new();
    for (key, value) in top_level(template) {
        let v = if value.starts_with('[') && key.contains("action") {
            json!([json_action(prompt, &value, intent, at)])
        } else if value.starts_with('[') {
            json!([])
        } else {
            json!(STORY)
        };
        object.insert(key, v);
    }
    Value::Object(object).to_string()
}

/// One action object: the template's own example filled for a click; for another action,
/// its name and argument as the prompt's list of action names gives them (`type (text)`).
fn json_action(prompt: &str, actions: &str, intent: &Intent, at: Option<(f64, f64)>) -> Value {
    let (verbs, value) = match intent {
        Intent::Click { .. } => {
            let example = actions
                .find('{')
                .and_then(|i| balanced(actions, i))
                .map(|(s, e)| &actions[s..e]);
            let filled = example.and_then(|ex| fill_point(ex, at?));
            return filled
                .and_then(|f| serde_json::from_str(&f).ok())
                .unwrap_or(Value::Null);
        }
        Intent::Type(text) => ("type|write", text.clone()),
        Intent::Key(keys) => ("key|press_key|hotkey", keys.clone()),
        Intent::Finish(answer) => ("done|finished|finish", answer.clone()),
    };
    let re = Regex::new(&format!(r"\b({verbs})\s*\((\w+)")).ok();
    match re.and_then(|re| re.captures(prompt)) {
        Some(c) => json!({"name": &c[1], &c[2]: value}),
        None => Value::Null,
    }
}

/// The prompt's grammar: each call or JSON action it lists (several a line are split where
/// two spaces part them; a trailing `# comment` is dropped).
fn snippets(prompt: &str) -> Vec<String> {
    let Ok(gap) = Regex::new(r"\s{2,}") else {
        return Vec::new();
    };
    prompt
        .lines()
        .flat_map(|l| gap.split(l.trim()).map(str::to_string).collect::<Vec<_>>())
        .map(|s| s.split(" #").next().unwrap_or_default().trim().to_string())
        .filter(|s| s.starts_with('{') || s.starts_with("```") || call_verb(s).is_some())
        .collect()
}

/// The action a snippet writes: a JSON object's `type`/`name`/`action`, or a call's function
/// (its last dotted part).
fn call_verb(s: &str) -> Option<String> {
    let re = if s.starts_with('{') {
        Regex::new(r#""(?:type|name|action)"\s*:\s*"(\w+)""#)
    } else {
        Regex::new(r"^([\w.]+)\(")
    };
    let c = re.ok()?.captures(s)?;
    let name = c.get(1)?.as_str();
    Some(name.rsplit('.').next().unwrap_or(name).to_lowercase())
}

fn does(verb: &str, intent: &Intent) -> bool {
    match intent {
        Intent::Click { .. } => {
            verb.ends_with("click")
                && !["double", "right", "middle", "triple"]
                    .iter()
                    .any(|w| verb.contains(w))
        }
        Intent::Type(_) => ["type", "write", "type_text"].contains(&verb),
        Intent::Key(_) => ["press_key", "key", "hotkey", "press", "keypress"].contains(&verb),
        Intent::Finish(_) => ["done", "finished", "finish", "terminate"].contains(&verb),
    }
}

mod calls;
use calls::{call_reply, fill_point};
#[cfg(test)]
pub(super) use calls::{fill_point as calls_fill_point, fill_text};
