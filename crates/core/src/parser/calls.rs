//! The function-call text of docs/designs.md (narrative): `left_click(650, 420)` and friends
//! inside the narrative.
//!
//! The design's calls: `left_click(x,y)`, `right_click(x,y)`, `double_left_click(x,y)`,
//! `drag(x1,y1,x2,y2)`, `type("text")`. Added so the narrative strategy can do everything:
//! `press_key("ctrl+s")`, `scroll(x, y, "down", 3)`, `move(x,y)`, `middle_click(x,y)`,
//! `triple_click(x,y)`, `wait(2)`, `done("answer")`, `fail("reason")`; `click` and
//! `double_click` are accepted too, and GLM-V's pointer verbs (zai-org/GLM-V's agent docs:
//! `left_double_click(start_box='[x,y]')`, `hover(...)`, `left_drag(start_box=..., end_box=...)`,
//! whose `left_click`/`right_click`/`middle_click` are the design's names already). A reply may
//! hold several calls; the rest is the story.

use super::coords::{Ctx, at, click, drag};
use super::lenient;
use super::syntax::{self, Arg};
use crate::action::ActionKind;
use crate::placeholder;
use serde_json::Value;

pub(crate) const NAMES: &[&str] = &[
    "left_click",
    "right_click",
    "double_left_click",
    "drag",
    "type",
    "press_key",
    "scroll",
    "move",
    "middle_click",
    "triple_click",
    "wait",
    "done",
    "fail",
    "click",
    "double_click",
    "list_windows",
    "focus_window",
    "left_double_click",
    "hover",
    "left_drag",
];

/// Whether `content` holds a call on its own line: what auto-detection counts as this dialect.
pub(crate) fn has_calls(content: &str) -> bool {
    let calls = find(content);
    !own_line(content, &calls).is_empty()
}

/// The calls of `content` with a name of this dialect; a method of a module or an object
/// (`pyautogui.click(...)`) is another dialect's, not one of these.
fn find(content: &str) -> Vec<syntax::Call> {
    let mut calls = syntax::find_calls(content, NAMES);
    calls.retain(|c| !content[..c.span.start].ends_with('.'));
    calls
}

/// The indices of the calls that stand on their own line: between the line's start (or the
/// previous call on it) and the call only spaces and list, quote or code marks (`-`, `*`, `>`,
/// `` ` ``, `1.`), or a sentence that ended (`.`, `:`, `!`, `?`); between the call and the
/// line's end (or the next call on it) only spaces, `;`, `,`, `.` or code marks. A call inside a
/// sentence (`I should wait() until ...`) is prose.
fn own_line(content: &str, calls: &[syntax::Call]) -> Vec<usize> {
    let line_start = |at: usize| content[..at].rfind('\n').map_or(0, |p| p + 1);
    let line_end = |at: usize| content[at..].find('\n').map_or(content.len(), |p| at + p);
    let marks = |s: &str, extra: &str| {
        s.chars()
            .all(|c| c.is_whitespace() || c.is_ascii_digit() || extra.contains(c))
    };
    (0..calls.len())
        .filter(|&i| {
            let span = &calls[i].span;
            let mut from = line_start(span.start);
            if i > 0 && calls[i - 1].span.end > from {
                from = calls[i - 1].span.end;
            }
            let mut to = line_end(span.end);
            if let Some(next) = calls.get(i + 1).filter(|n| n.span.start < to) {
                to = next.span.start;
            }
            let before = content[from..span.start].trim_end();
            let before_ok = marks(before, "-*>`.);,") || before.ends_with(['.', ':', '!', '?']);
            before_ok && marks(&content[span.end..to], ";,.`")
        })
        .collect()
}

/// Reads the calls of `content`. Under auto-detection (no forced dialect) only calls on their
/// own line count, the rest is prose; with `--dialect calls` every call counts.
pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    let mut calls = find(content);
    if ctx.opts.dialect.is_none() {
        let keep = own_line(content, &calls);
        calls = (calls.into_iter().enumerate())
            .filter_map(|(i, c)| keep.contains(&i).then_some(c))
            .collect();
    }
    if calls.is_empty() {
        ctx.err("no function call found: write one such as left_click(x, y) or type(\"text\"), with values in place of the names");
        return content.trim().to_string();
    }
    for c in &calls {
        let name = c.name.to_ascii_lowercase();
        match &c.args {
            Ok(args) => call(&name, args, ctx),
            Err(e) => match super::repair::call_line(&content[c.span.clone()]) {
                Some(args) => call(&name, &args, ctx),
                None => ctx.err(format!("{name}: {e}")),
            },
        }
    }
    let mut story = content.to_string();
    for c in calls.iter().rev() {
        story.replace_range(c.span.clone(), "");
    }
    tidy(&story)
}

/// Trims each line and drops the blank runs removed calls leave behind.
pub(crate) fn tidy(s: &str) -> String {
    let s = lenient::strip_fences(s);
    let mut out: Vec<&str> = Vec::new();
    let lines: Vec<String> = s.lines().map(collapse_spaces).collect();
    for line in lines.iter().map(String::as_str) {
        if line.trim().is_empty() && out.last().is_none_or(|l| l.trim().is_empty()) {
            continue;
        }
        out.push(line);
    }
    out.join("\n").trim().to_string()
}

/// Trims the end of a line and turns runs of inner spaces (left by removed calls) into one.
fn collapse_spaces(line: &str) -> String {
    let body = line.trim_start();
    let mut out = line[..line.len() - body.len()].to_string();
    let mut prev_space = false;
    for c in body.trim_end().chars() {
        if c == ' ' && prev_space {
            continue;
        }
        prev_space = c == ' ';
        out.push(c);
    }
    out
}

/// All numbers in the arguments, in order (numeric strings and lists included).
pub(crate) fn numbers(values: &[&Value]) -> Vec<f64> {
    fn walk(v: &Value, out: &mut Vec<f64>) {
        match v {
            Value::Number(n) => out.extend(n.as_f64()),
            Value::String(s) => out.extend(crate::geometry::numbers_in(s).unwrap_or_default()),
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    values.iter().for_each(|v| walk(v, &mut out));
    out.retain(|f| f.is_finite());
    out
}

fn is_direction(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "up" | "down" | "left" | "right"
        )
    })
}

fn call(name: &str, args: &[Arg], ctx: &mut Ctx) {
    if ctx.element(keyword(args, "element")).is_err()
        || ctx.target(keyword(args, "target")).is_err()
    {
        return;
    }
    if let Some(kind) = call_kind(name, args, ctx) {
        ctx.push(kind, None);
    }
}

/// The action of the call `name(args)`; `None` when it cannot be read (the reason is recorded)
/// or the name is not an action.
fn call_kind(name: &str, args: &[Arg], ctx: &mut Ctx) -> Option<ActionKind> {
    let values: Vec<&Value> = args
        .iter()
        .filter(|a| !matches!(a.key.as_deref(), Some("element" | "target")))
        .map(|a| &a.value)
        .collect();
    match name {
        "left_click" | "click" | "right_click" | "double_left_click" | "double_click"
        | "left_double_click" | "middle_click" | "triple_click" => {
            click_or_move(name, &values, ctx)
        }
        "move" | "hover" => click_or_move("move", &values, ctx),
        "drag" | "left_drag" => drag_call(&values, ctx),
        "type" => match keyword(args, "text")
            .or(keyword(args, "content"))
            .map(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| first_text(&values))
        {
            Some(text) => Some(ActionKind::Type { text }),
            None => ctx.fail("type: give the text, e.g. type(\"hello\")"),
        },
        "press_key" => {
            let v = match values.as_slice() {
                [] => Value::Null,
                [one] => (*one).clone(),
                many => Value::Array(many.iter().map(|v| (*v).clone()).collect()),
            };
            ctx.keys(name, &v).map(|keys| ActionKind::Key { keys })
        }
        "scroll" => scroll(name, args, ctx),
        "wait" if ctx.refuse_names(name, &values[..values.len().min(1)]) => None,
        "wait" => ctx
            .seconds(name, values.first().copied(), 1.0)
            .map(|seconds| ActionKind::Wait { seconds }),
        "done" => Some(ActionKind::Done {
            text: first_text(&values).unwrap_or_default(),
        }),
        "fail" => Some(ActionKind::Fail {
            text: first_text(&values).unwrap_or_default(),
        }),
        "list_windows" => Some(ActionKind::ListWindows),
        "focus_window" => {
            let named = ["window", "title", "id"]
                .iter()
                .find_map(|k| keyword(args, k));
            match super::coords::text(named.or(values.first().copied())) {
                Some(window) => Some(ActionKind::FocusWindow { window }),
                None => {
                    ctx.fail("focus_window: give a title or an id, e.g. focus_window(\"Terminal\")")
                }
            }
        }
        _ => None,
    }
}

/// The value of the keyword argument `key`.
fn keyword<'a>(args: &'a [Arg], key: &str) -> Option<&'a Value> {
    args.iter()
        .find(|a| a.key.as_deref() == Some(key))
        .map(|a| &a.value)
}

/// The first argument as text (a non-string is written as JSON).
fn first_text(values: &[&Value]) -> Option<String> {
    values.first().map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// The point given by `nums`, or the pointer (`None, None`) when there are no numbers; `None`
/// when the numbers are no point (the reason is recorded).
fn point_or_pointer(name: &str, nums: &[f64], ctx: &mut Ctx) -> Option<(Option<i32>, Option<i32>)> {
    if nums.is_empty() {
        return Some((None, None));
    }
    ctx.point_nums(name, nums).map(at)
}

/// Refuses the arguments of a position that hold a placeholder (`x`, `x1`, `<x>`), or names
/// and no number at all (`click("OK")`): never a click at the pointer or at the digits of a
/// name. A label beside the numbers (`left_click(5, 7, "OK")`) stays allowed. True when refused.
fn refuse_names(name: &str, values: &[&Value], ctx: &mut Ctx) -> bool {
    let names: Vec<String> = values
        .iter()
        .flat_map(|v| placeholder::names_in(v))
        .collect();
    let placeholders = names.iter().any(|n| placeholder::is_name(n));
    if names.is_empty() || !(placeholders || numbers(values).is_empty()) {
        return false;
    }
    ctx.err(placeholder::refusal(name, &names));
    true
}

/// A click of any kind at the numbers given (or the pointer), or `move(x, y)`.
fn click_or_move(name: &str, values: &[&Value], ctx: &mut Ctx) -> Option<ActionKind> {
    if refuse_names(name, values, ctx) {
        return None;
    }
    let (x, y) = point_or_pointer(name, &numbers(values), ctx)?;
    if name != "move" {
        return Some(click(name, x, y));
    }
    match (x, y) {
        (Some(_), Some(_)) => Some(ActionKind::Move { x, y }),
        _ if ctx.has_element() => Some(ActionKind::Move { x, y }),
        _ => ctx.fail("move: give the point, as in move(x, y) with numbers in place of x and y"),
    }
}

/// `drag(x1, y1, x2, y2)`.
fn drag_call(values: &[&Value], ctx: &mut Ctx) -> Option<ActionKind> {
    if ctx.refuse_names("drag", values) {
        return None;
    }
    let nums = numbers(values);
    if nums.len() != 4 {
        return ctx.fail(format!(
            "drag: expected drag(x1, y1, x2, y2), got {} numbers",
            nums.len()
        ));
    }
    let from = ctx.point_nums("drag", &nums[..2]);
    drag(from, ctx.point_nums("drag end", &nums[2..]))
}

/// `scroll(x, y, "down", 3)`: the direction anywhere (down by default; a word that is no
/// direction, such as `"upward"`, is an error, never down), then an optional point and an
/// optional amount (3 notches by default).
fn scroll(name: &str, args: &[Arg], ctx: &mut Ctx) -> Option<ActionKind> {
    let keyed = |a: &Arg| a.key.as_deref() == Some("direction");
    let others: Vec<&Value> = (args.iter())
        .filter(|a| !keyed(a) && !is_direction(&a.value))
        .map(|a| &a.value)
        .collect();
    let names: Vec<String> = others
        .iter()
        .flat_map(|v| placeholder::names_in(v))
        .collect();
    if names.iter().any(|n| placeholder::is_name(n)) {
        ctx.err(placeholder::refusal(name, &names));
        return None;
    }
    // the direction: named, else a direction word, else a word meant as one
    let word = |v: &&Value| !placeholder::names_in(v).is_empty() && numbers(&[*v]).is_empty();
    let dir = keyword(args, "direction")
        .or_else(|| args.iter().map(|a| &a.value).find(|v| is_direction(v)))
        .or_else(|| others.iter().copied().find(word));
    let direction = ctx.direction(name, dir.or(Some(&Value::from("down"))))?;
    let rest: Vec<&Value> = others.into_iter().filter(|v| !word(v)).collect();
    let nums = numbers(&rest);
    let (pt, amount) = match nums.as_slice() {
        [] => (vec![], 3.0),
        [n] => (vec![], *n),
        [x, y] => (vec![*x, *y], 3.0),
        [x, y, n, ..] => (vec![*x, *y], *n),
    };
    let (x, y) = point_or_pointer(name, &pt, ctx)?;
    let amount = ctx.notches(name, amount);
    Some(ActionKind::Scroll {
        x,
        y,
        direction,
        amount,
    })
}
