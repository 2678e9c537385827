//! Replies in a call grammar (`left_click(x, y)`, `click(start_box='(x1,y1)')`,
//! `pyautogui.click(x=X, y=Y)`, one JSON action a line): the snippet for the action, filled,
//! set where the prompt's example sets its call, with the story where the prompt puts it.

use super::{Intent, STORY, call_verb, does, example_block, plain_answer, snippets, story};
use regex::Regex;

/// The reply in the prompt's call grammar.
pub(in super::super) fn call_reply(
    prompt: &str,
    intent: &Intent,
    at: Option<(f64, f64)>,
) -> String {
    let example = example_block(prompt);
    let filled = match intent {
        Intent::Finish(answer) => match finish_form(prompt) {
            Some(Finish::Plain) => return plain_answer(intent),
            Some(Finish::Form(form)) => fill_text(&form, answer).unwrap_or(form),
            None => snippet_for(prompt, intent)
                .map(|s| fill_text(&s, answer).unwrap_or(s))
                .unwrap_or_else(|| plain_answer(intent)),
        },
        Intent::Type(text) | Intent::Key(text) => match snippet_for(prompt, intent) {
            Some(s) => fill_text(&s, text).unwrap_or(s),
            None => return plain_answer(intent),
        },
        Intent::Click { .. } => {
            let own = example
                .as_deref()
                .filter(|ex| {
                    ex.lines()
                        .any(|l| call_verb(call_in(l)).is_some_and(|v| does(&v, intent)))
                })
                .map(str::to_string);
            let base = own.or_else(|| snippet_for(prompt, intent));
            match (base, at) {
                (Some(b), Some(p)) => fill_point(&b, p).unwrap_or(b),
                _ => return plain_answer(intent),
            }
        }
    };
    place(prompt, example.as_deref(), &filled)
}

/// The part of a line that is a call or a JSON action (after a label such as `Action: `).
fn call_in(line: &str) -> &str {
    let Ok(re) = Regex::new(r"(?:[\w.]+\(.*\)|\{.*\})") else {
        return line;
    };
    re.find(line).map_or(line, |m| m.as_str())
}

/// The grammar's snippet for the intent.
fn snippet_for(prompt: &str, intent: &Intent) -> Option<String> {
    snippets(prompt)
        .into_iter()
        .find(|s| call_verb(s).is_some_and(|v| does(&v, intent)))
}

/// How the prompt says to finish.
enum Finish {
    /// An answer in plain text without an action.
    Plain,
    /// This form (a call or a special code).
    Form(String),
}

/// The finish the prompt's "When the goal is reached, ..." sentence names.
fn finish_form(prompt: &str) -> Option<Finish> {
    let re =
        Regex::new(r"When the (?:goal is reached|task is done|task is complete),([^\n]*)").ok()?;
    let rest = re.captures(prompt)?.get(1)?.as_str().to_string();
    let code = Regex::new(r"```\w+```|[\w.]+\([^)]*\)").ok()?;
    match code.find(&rest) {
        Some(m) => Some(Finish::Form(m.as_str().to_string())),
        None if rest.contains("plain text") => Some(Finish::Plain),
        None => None,
    }
}

/// `filled` where the prompt's example has its call (keeping the example's other lines, e.g.
/// a code fence or an `Action: ` label), and the story where the prompt wants it.
fn place(prompt: &str, example: Option<&str>, filled: &str) -> String {
    if prompt.contains("nothing else") {
        return filled.to_string();
    }
    let whole = filled.starts_with("```") || filled.contains('\n');
    let block = match example {
        Some(ex) if !whole => ex
            .lines()
            .map(|l| {
                let call = call_in(l);
                if call != l || call_verb(call).is_some() {
                    l.replacen(call, filled, 1)
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => filled.to_string(),
    };
    // a labelled line of the example that is not the call (`Thought: ...`) takes the story
    let Ok(label) = Regex::new(r"(?m)^(\w+): [^\n(]*$") else {
        return block;
    };
    if label.is_match(&block) {
        return label
            .replace(&block, format!("${{1}}: {STORY}"))
            .into_owned();
    }
    let story = story(prompt);
    if prompt.contains("Then write") {
        format!("{block}\n{story}")
    } else {
        format!("{story}\n{block}")
    }
}

/// `s` with its first coordinate pair set to `(x, y)`; `None` when it has none.
pub(in super::super) fn fill_point(s: &str, (x, y): (f64, f64)) -> Option<String> {
    let slot_x = r"-?\d+(?:\.\d+)?|<?[xX]\d?>?";
    let slot_y = r"-?\d+(?:\.\d+)?|<?[yY]\d?>?";
    let re = Regex::new(&format!(
        r#"(^|[^\w.])({slot_x})(\s*,\s*(?:"?[yY]\d?"?\s*[:=]\s*)?)({slot_y})($|[^\w.])"#
    ))
    .ok()?;
    let c = re.captures(s)?;
    let (a, b) = (c.get(2)?, c.get(4)?);
    Some(format!(
        "{}{x}{}{y}{}",
        &s[..a.start()],
        &s[a.end()..b.start()],
        &s[b.end()..]
    ))
}

/// `s` with its text argument (the quoted string after `text`/`content`, else the first
/// quoted argument) set to `text`; `None` when it has none.
pub(in super::super) fn fill_text(s: &str, text: &str) -> Option<String> {
    let keyed = Regex::new(r#"\b(?:text|content|keys?)"?\s*[:=]\s*(["'])(.*?)["']"#).ok()?;
    let first = Regex::new(r#"\(\s*(["'])(.*?)["']"#).ok()?;
    let c = keyed.captures(s).or_else(|| first.captures(s))?;
    let inner = c.get(2)?;
    Some(format!(
        "{}{text}{}",
        &s[..inner.start()],
        &s[inner.end()..]
    ))
}
