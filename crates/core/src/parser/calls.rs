//! The function-call text of docs/seeds.md (narrative): `left_click(650, 420)` and friends
//! inside the narrative.
//!
//! The design's calls: `left_click(x,y)`, `right_click(x,y)`, `double_left_click(x,y)`,
//! `drag(x1,y1,x2,y2)`, `type("text")`. Added so the narrative strategy can do everything:
//! `press_key("ctrl+s")`, `scroll(x, y, "down", 3)`, `move(x,y)`, `middle_click(x,y)`,
//! `triple_click(x,y)`, `wait(2)`, `done("answer")`, `fail("reason")`; `click` and
//! `double_click` are accepted too. A reply may hold several calls; the rest is the story.

use super::coords::{Ctx, drag, number};
use super::lenient;
use super::syntax::{self, Arg};
use crate::action::ActionKind;
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
];

pub(crate) fn has_calls(content: &str) -> bool {
    !syntax::find_calls(content, NAMES).is_empty()
}

pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    let calls = syntax::find_calls(content, NAMES);
    if calls.is_empty() {
        ctx.err("no function call found: write e.g. left_click(500, 300) or type(\"text\")");
        return content.trim().to_string();
    }
    for c in &calls {
        let name = c.name.to_ascii_lowercase();
        match &c.args {
            Ok(args) => call(&name, args, ctx),
            Err(e) => ctx.err(format!("{name}: {e}")),
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
            Value::String(s) => out.extend(
                s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
                    .filter_map(|p| p.parse::<f64>().ok()),
            ),
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
    let kw = |k: &str| {
        args.iter()
            .find(|a| a.key.as_deref() == Some(k))
            .map(|a| &a.value)
    };
    let values: Vec<&Value> = args.iter().map(|a| &a.value).collect();
    let first_text = || {
        values.first().map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let point = |ctx: &mut Ctx, nums: &[f64]| -> Option<(Option<i32>, Option<i32>)> {
        if nums.is_empty() {
            return Some((None, None));
        }
        ctx.point_nums(name, nums).map(|(x, y)| (Some(x), Some(y)))
    };
    let kind = match name {
        "left_click" | "click" | "right_click" | "double_left_click" | "double_click"
        | "middle_click" | "triple_click" | "move" => {
            let nums = numbers(&values);
            let Some((x, y)) = point(ctx, &nums) else {
                return;
            };
            match name {
                "right_click" => ActionKind::RightClick { x, y },
                "double_left_click" | "double_click" => ActionKind::DoubleClick { x, y },
                "middle_click" => ActionKind::MiddleClick { x, y },
                "triple_click" => ActionKind::TripleClick { x, y },
                "move" => match (x, y) {
                    (Some(x), Some(y)) => ActionKind::Move { x, y },
                    _ => return ctx.err("move: give the point, e.g. move(500, 300)"),
                },
                _ => ActionKind::Click { x, y },
            }
        }
        "drag" => {
            let nums = numbers(&values);
            if nums.len() != 4 {
                return ctx.err(format!(
                    "drag: expected drag(x1, y1, x2, y2), got {} numbers",
                    nums.len()
                ));
            }
            let from = ctx.point_nums("drag", &nums[..2]);
            let Some(kind) = drag(from, ctx.point_nums("drag end", &nums[2..])) else {
                return;
            };
            kind
        }
        "type" => match kw("text")
            .or(kw("content"))
            .map(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(first_text)
        {
            Some(text) => ActionKind::Type { text },
            None => return ctx.err("type: give the text, e.g. type(\"hello\")"),
        },
        "press_key" => {
            let v = match values.as_slice() {
                [] => Value::Null,
                [one] => (*one).clone(),
                many => Value::Array(many.iter().map(|v| (*v).clone()).collect()),
            };
            let Some(keys) = ctx.keys(name, &v) else {
                return;
            };
            ActionKind::Key { keys }
        }
        "scroll" => {
            let dir = kw("direction").or_else(|| values.iter().copied().find(|v| is_direction(v)));
            let Some(direction) = ctx.direction(name, dir.or(Some(&Value::from("down")))) else {
                return;
            };
            let rest: Vec<&Value> = args
                .iter()
                .filter(|a| !is_direction(&a.value) && a.key.as_deref() != Some("direction"))
                .map(|a| &a.value)
                .collect();
            let nums = numbers(&rest);
            let (pt, amount) = match nums.as_slice() {
                [] => (vec![], 3.0),
                [n] => (vec![], *n),
                [x, y] => (vec![*x, *y], 3.0),
                [x, y, n, ..] => (vec![*x, *y], *n),
            };
            let Some((x, y)) = point(ctx, &pt) else {
                return;
            };
            let amount = ctx.notches(name, amount);
            ActionKind::Scroll {
                x,
                y,
                direction,
                amount,
            }
        }
        "wait" => ActionKind::Wait {
            seconds: values.first().and_then(|v| number(v)).unwrap_or(1.0),
        },
        "done" => ActionKind::Done {
            text: first_text().unwrap_or_default(),
        },
        "fail" => ActionKind::Fail {
            text: first_text().unwrap_or_default(),
        },
        _ => return,
    };
    ctx.push(kind, None);
}
