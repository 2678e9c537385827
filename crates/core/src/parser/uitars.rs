//! UI-TARS: `Thought: ...\nAction: click(start_box='(x,y)')`.
//!
//! - `Action:` or the full-width `Action：`; when several Action lines appear, the last wins
//!   (it may hold several calls, one per line).
//! - Points: `'(x,y)'`, `'<|box_start|>(x,y)<|box_end|>'`, `'<point>x y</point>'`,
//!   `'<bbox>x1 y1 x2 y2</bbox>'`, `'[x1,y1,x2,y2]'`; a box becomes its center. Argument
//!   names `start_box`, `end_box`, `point`, `start_point`, `end_point`.
//! - Actions: click / left_single, left_double, right_single, hover, drag / select,
//!   hotkey(key='ctrl c'), press, type(content='...'), scroll(start_box, direction),
//!   wait() (5 s, as UI-TARS defines it), finished(content), call_user().
//! - The text is the Thought.

use super::calls::numbers;
use super::coords::{Ctx, at, click, drag};
use super::repair;
use super::syntax::{self, Arg};
use crate::action::ActionKind;
use serde_json::Value;

const NAMES: &[&str] = &[
    "click",
    "left_single",
    "left_double",
    "double_click",
    "right_single",
    "right_click",
    "middle_click",
    "hover",
    "mouse_move",
    "drag",
    "select",
    "hotkey",
    "press",
    "type",
    "scroll",
    "wait",
    "finished",
    "call_user",
    "key",
];

/// Byte offsets just after each `Action:` / `Action：` that starts a line.
fn action_markers(content: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut line_start = 0;
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let lower = trimmed.get(..6).map(str::to_ascii_lowercase);
        if lower.as_deref() == Some("action") {
            let after = trimmed[6..].trim_start_matches([' ', '\t']);
            for colon in [":", "："] {
                if let Some(rest) = after.strip_prefix(colon) {
                    let at = line_start + indent + (trimmed.len() - rest.len());
                    out.push((line_start + indent, at));
                }
            }
        }
        line_start += line.len();
    }
    out
}

pub(crate) fn has_action_line(content: &str) -> bool {
    !action_markers(content).is_empty()
}

pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    let markers = action_markers(content);
    let Some(&(_, last)) = markers.last() else {
        ctx.err("no Action line: write Thought: ... then Action: click(start_box='(x1,y1)'), with numbers in place of x1 and y1");
        return content.trim().to_string();
    };
    let first_marker = markers[0].0;
    let before = tags_as_text(&content[..first_marker]);
    let mut thought = before.as_str();
    for label in [
        "Thought:",
        "Thought：",
        "thought:",
        "Action_Summary:",
        "Action_Summary：",
    ] {
        if let Some(p) = thought.find(label) {
            thought = thought[p + label.len()..].trim();
        }
    }
    let thought = thought.to_string();
    let action_text = unquoted_tags(
        &content[last..]
            .replace("<|box_start|>", "")
            .replace("<|box_end|>", ""),
    );
    let calls = leading_calls(&action_text, syntax::find_calls(&action_text, NAMES));
    if calls.is_empty() {
        ctx.err(format!(
            "the Action line holds no known action: {}",
            crate::model::body::snippet(&action_text)
        ));
    }
    for c in calls {
        let name = c.name.to_ascii_lowercase();
        match c.args {
            Ok(args) => call(&name, &args, &thought, ctx),
            Err(e) => match repair::call_line(&action_text[c.span.clone()]) {
                Some(args) => call(&name, &args, &thought, ctx),
                None => ctx.err(format!(
                    "{name}: {e}; write one call per line, such as click(start_box='(x1,y1)')"
                )),
            },
        }
    }
    thought
}

/// The calls that start a line of the Action text (after spaces, or after the previous call
/// and a `;` or `,`): `click(...) then wait()` is one click and prose, as UI-TARS-desktop reads
/// it.
fn leading_calls(text: &str, calls: Vec<syntax::Call>) -> Vec<syntax::Call> {
    let mut kept: Vec<syntax::Call> = Vec::new();
    for c in calls {
        let line_start = text[..c.span.start].rfind('\n').map_or(0, |p| p + 1);
        let from = kept
            .last()
            .map_or(line_start, |k| k.span.end.max(line_start));
        let gap = text.get(from..c.span.start).unwrap_or("x");
        if gap
            .chars()
            .all(|ch| ch.is_whitespace() || ch == ';' || ch == ',')
        {
            kept.push(c);
        }
    }
    kept
}

/// Quotes `<point>..</point>` / `<bbox>..</bbox>` written without quotes after `=`.
fn unquoted_tags(s: &str) -> String {
    let mut out = s.to_string();
    for (open, close) in [("<point>", "</point>"), ("<bbox>", "</bbox>")] {
        let mut from = 0;
        while let Some(p) = out[from..].find(open).map(|p| p + from) {
            let before = out[..p].trim_end();
            let Some(end) = out[p..].find(close).map(|e| e + p + close.len()) else {
                break;
            };
            if before.ends_with('=') || before.ends_with('(') || before.ends_with(',') {
                out.insert(end, '\'');
                out.insert(p, '\'');
                from = end + 2;
            } else {
                from = end;
            }
        }
    }
    out
}

/// Reads one call; a `type` given a point (`type(content='x', point='<point>5 7</point>')`, as
/// UI-TARS-2 writes it) clicks there first, so the text goes where the model pointed.
pub(crate) fn call(name: &str, args: &[Arg], thought: &str, ctx: &mut Ctx) {
    let args = Args(args);
    if ctx.element(args.get(&["element"])).is_err() {
        return;
    }
    if name == "type" && (args.start().is_some() || has_xy(&args)) {
        let Some((x, y)) = start(name, &args, ctx) else {
            return;
        };
        ctx.push(click("click", Some(x), Some(y)), None);
    }
    if let Some(kind) = call_kind(name, &args, thought, ctx) {
        ctx.push(kind, None);
    }
}

/// Whether the call gives its point as separate `x` / `y` keywords.
fn has_xy(args: &Args) -> bool {
    args.get(&["x", "y"]).is_some()
}

/// The arguments of one call, by keyword or by position.
struct Args<'a>(&'a [Arg]);

impl Args<'_> {
    /// The value of the first argument named by one of `keys`.
    fn get(&self, keys: &[&str]) -> Option<&Value> {
        self.0
            .iter()
            .find(|a| a.key.as_deref().is_some_and(|k| keys.contains(&k)))
            .map(|a| &a.value)
    }

    /// The `i`th argument without a keyword.
    fn positional(&self, i: usize) -> Option<&Value> {
        self.0
            .iter()
            .filter(|a| a.key.is_none())
            .nth(i)
            .map(|a| &a.value)
    }

    /// The start point's value: `start_box`, `point`, `start_point`, `box`, or the first one.
    fn start(&self) -> Option<&Value> {
        self.get(&["start_box", "point", "start_point", "box"])
            .or_else(|| self.positional(0))
    }

    /// The keyword arguments as an object, for the shared position reader.
    fn keywords(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .filter_map(|a| Some((a.key.clone()?, a.value.clone())))
                .collect(),
        )
    }

    /// The text of `content` / `text`, or the first argument.
    fn content(&self) -> Option<&str> {
        self.get(&["content", "text"])
            .or_else(|| self.positional(0))
            .and_then(Value::as_str)
    }
}

/// The point in `v`; `None` (with an error) when it is missing or unreadable.
fn point(what: &str, v: Option<&Value>, ctx: &mut Ctx) -> Option<(i32, i32)> {
    match v {
        Some(v) if ctx.refuse_names(what, &[v]) => None,
        Some(v) => ctx.point_nums(what, &numbers(&[v])),
        None => ctx.fail(format!(
            "{what}: missing start_box (start_box='(x1,y1)' with numbers in place of x1 and y1)"
        )),
    }
}

/// The start point: `start_box` and friends, else any other shape the shared reader knows
/// (`x`/`y`, `coordinate`, `position`, ...); `None` (with an error) when missing or unreadable.
fn start(what: &str, args: &Args, ctx: &mut Ctx) -> Option<(i32, i32)> {
    if let Some(v) = args.start() {
        return point(what, Some(v), ctx);
    }
    match ctx.position(what, &args.keywords()) {
        Ok(Some(p)) => Some(p),
        Ok(None) => point(what, None, ctx),
        Err(()) => None,
    }
}

/// The action of the call `name`; `None` when it cannot be read (the reason is recorded) or the
/// name is not an action.
fn call_kind(name: &str, args: &Args, thought: &str, ctx: &mut Ctx) -> Option<ActionKind> {
    match name {
        "click" | "left_single" | "left_double" | "double_click" | "right_single"
        | "right_click" | "middle_click" => {
            // a click given only an end_box clicks there (as UI-TARS-desktop reads it); with
            // an element and no point, the executor clicks the element's centre
            let only_end = args
                .start()
                .is_none()
                .then(|| args.get(&["end_box", "end_point"]));
            let (x, y) = match only_end.flatten() {
                _ if args.get(&["element"]).is_some() && args.start().is_none() => (None, None),
                Some(end) => at(point(name, Some(end), ctx)?),
                None => at(start(name, args, ctx)?),
            };
            Some(click(name, x, y))
        }
        "hover" | "mouse_move" if args.get(&["element"]).is_some() && args.start().is_none() => {
            Some(ActionKind::Move { x: None, y: None })
        }
        "hover" | "mouse_move" => start(name, args, ctx).map(|(x, y)| ActionKind::Move {
            x: Some(x),
            y: Some(y),
        }),
        "drag" | "select" => {
            let end = args
                .get(&["end_box", "end_point"])
                .or_else(|| args.positional(1));
            let from = start(name, args, ctx);
            let to = point(&format!("{name} end"), end, ctx);
            drag(from, to)
        }
        "hotkey" | "press" | "key" => {
            let k = args
                .get(&["key", "keys", "hotkey"])
                .or_else(|| args.positional(0))
                .cloned()
                .unwrap_or(Value::Null);
            ctx.keys(name, &k).map(|keys| ActionKind::Key { keys })
        }
        "type" => match args.content() {
            Some(t) => Some(ActionKind::Type {
                text: t.to_string(),
            }),
            None => ctx.fail("type: missing content (e.g. type(content='hello'))"),
        },
        "scroll" => scroll(name, args, ctx),
        "wait" => Some(ActionKind::Wait { seconds: 5.0 }),
        "finished" => Some(ActionKind::Done {
            text: args.content().unwrap_or_default().to_string(),
        }),
        "call_user" => Some(ActionKind::AskUser {
            text: thought.to_string(),
        }),
        _ => None,
    }
}

/// `scroll(start_box, direction)`: 3 notches, down by default, at the pointer when no point is
/// given.
fn scroll(name: &str, args: &Args, ctx: &mut Ctx) -> Option<ActionKind> {
    let dir = args
        .get(&["direction"])
        .or_else(|| args.positional(1))
        .cloned()
        .unwrap_or(Value::from("down"));
    let direction = ctx.direction(name, Some(&dir))?;
    let (x, y) = match args.start().filter(|v| !numbers(&[v]).is_empty()) {
        Some(v) => at(point(name, Some(v), ctx)?),
        None => ctx
            .position(name, &args.keywords())
            .ok()?
            .map_or((None, None), at),
    };
    Some(ActionKind::Scroll {
        x,
        y,
        direction,
        amount: 3,
    })
}

/// Whether a tag (its text between `<` and `>`) is a thinking or Seed tool-call tag.
fn dropped_tag(tag: &str) -> bool {
    // only the name's first bytes are looked at: a `<` before a long text costs nothing more
    let name = tag.trim_start_matches('/').as_bytes();
    name.get(..5)
        .is_some_and(|n| n.eq_ignore_ascii_case(b"think"))
        || name.eq_ignore_ascii_case(b"seed:tool_call")
}

/// Text with the Seed tool-call tags removed and thinking tags (`<thinkt>`,
/// `<think_never_used_…>`, `<think_xxx>`) dropped, their content kept.
pub(crate) fn tags_as_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    super::work::charge(s.len());
    // the first `>` at or after `from`, found once for every `<` before it
    let mut gt: Option<usize> = None;
    let mut from = 0;
    while let Some(p) = s[from..].find('<').map(|p| p + from) {
        out.push_str(&s[from..p]);
        if gt.is_none_or(|g| g < p) {
            gt = s[p..].find('>').map(|g| g + p);
        }
        let Some(g) = gt else {
            // no `>` after this `<`: no tag closes any more
            from = p;
            break;
        };
        if dropped_tag(&s[p + 1..g]) {
            from = g + 1;
        } else {
            out.push('<');
            from = p + 1;
        }
    }
    let rest = &s[from..];
    out.push_str(rest);
    super::calls::tidy(&out)
}
