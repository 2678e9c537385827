//! UI-Venus-1.5 (inclusionAI/UI-Venus): `<think>...</think><action>Click(box=(x,y))</action>
//! <conclusion>...</conclusion>`, points in 0..1000 of the image (docs/coordinates.md). Its
//! action space (`models/navigation/utils.py`, the web prompt): Click, DoubleClick,
//! LongPress, Hover (`box=(x,y)`), Drag (`start=(x1,y1), end=(x2,y2)`), Scroll
//! (`direction='down or up'`, or the phone's `start`/`end` swipe), Type (`content`), Hotkey
//! (`keys=['ctrl', 'c']`), PressEnter, Wait, Finished (`content`), CallUser (`content`).
//! Launch and the phone's PressBack / PressHome / PressRecent have no desktop meaning and are
//! refused with that said. A reply that is only a point (its grounding answer `[x,y]`) is
//! read as a grounding answer (`point.rs`).

use super::coords::{Ctx, at, drag, given, text};
use super::syntax::{self, Arg};
use crate::action::ActionKind;
use franz_desktop::ScrollDirection;
use serde_json::{Map, Value};

const NAMES: &[&str] = &[
    "Click",
    "DoubleClick",
    "LongPress",
    "Hover",
    "Drag",
    "Scroll",
    "Type",
    "Hotkey",
    "PressEnter",
    "Wait",
    "Finished",
    "CallUser",
    "Launch",
    "PressBack",
    "PressHome",
    "PressRecent",
];

/// Whether `content` holds a UI-Venus action: one of its calls with a `box=` or `start=`
/// argument, or one written capitalized inside `<action>` tags (never a UI-TARS `Action:`
/// line).
pub(crate) fn detect(content: &str) -> bool {
    if super::uitars::has_action_line(content) {
        return false;
    }
    let tagged = content.to_ascii_lowercase().contains("<action>");
    syntax::find_calls(content, NAMES).iter().any(|c| {
        let keyed = c.args.as_ref().is_ok_and(|args| {
            args.iter().any(|a| {
                a.key
                    .as_deref()
                    .is_some_and(|k| ["box", "start"].contains(&k))
            })
        });
        keyed || (tagged && c.name.starts_with(|ch: char| ch.is_ascii_uppercase()))
    })
}

/// Reads the reply; returns its words (the conclusion, else the text around the action).
pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    let calls = syntax::find_calls(content, NAMES);
    if calls.is_empty() {
        return super::point::parse(content, ctx);
    }
    for c in &calls {
        match &c.args {
            Ok(args) => call(&c.name.to_ascii_lowercase(), &keyed(args), ctx),
            Err(e) => ctx.err(format!("{}: {e}", c.name)),
        }
    }
    let mut rest = content.to_string();
    for c in calls.iter().rev() {
        rest.replace_range(c.span.clone(), "");
    }
    for tag in ["<action>", "</action>", "<conclusion>", "</conclusion>"] {
        rest = rest.replace(tag, " ");
    }
    super::uitars::tags_as_text(&rest)
}

/// The arguments as one object (unnamed ones under their position: `box` for the first).
fn keyed(args: &[Arg]) -> Value {
    let mut m = Map::new();
    for (i, a) in args.iter().enumerate() {
        let k = a
            .key
            .clone()
            .unwrap_or_else(|| if i == 0 { "box" } else { "end" }.to_string());
        m.insert(k.to_ascii_lowercase(), a.value.clone());
    }
    Value::Object(m)
}

/// The point of `key`; `None` with the reason recorded.
fn point(what: &str, a: &Value, key: &str, ctx: &mut Ctx) -> Option<(i32, i32)> {
    match a.get(key) {
        Some(v) => ctx.point(what, v),
        None => ctx.fail(format!("{what}: missing {key}=(x,y)")),
    }
}

fn call(name: &str, a: &Value, ctx: &mut Ctx) {
    let kind = match name {
        "click" | "doubleclick" | "hover" | "longpress" => {
            let Some(p) = point(name, a, "box", ctx) else {
                return;
            };
            let (x, y) = at(p);
            match name {
                "doubleclick" => ActionKind::DoubleClick { x, y },
                "hover" => ActionKind::Move { x, y },
                "longpress" => ActionKind::LongPress { x, y, seconds: 1.0 },
                _ => ActionKind::Click { x, y },
            }
        }
        "drag" => {
            let from = point(name, a, "start", ctx);
            let to = point(name, a, "end", ctx);
            let Some(kind) = drag(from, to) else { return };
            kind
        }
        "scroll" => match scroll(a, ctx) {
            Some(kind) => kind,
            None => return,
        },
        "type" => match text(given(a, &["content", "box"])) {
            Some(t) if !ctx.refuse_text(name, &t) => ActionKind::Type { text: t },
            Some(_) => return,
            None => return ctx.err("Type: missing content='...'"),
        },
        "hotkey" | "pressenter" => {
            let keys = if name == "pressenter" {
                Value::String("enter".into())
            } else {
                given(a, &["keys", "box"]).cloned().unwrap_or(Value::Null)
            };
            match ctx.keys(name, &keys) {
                Some(keys) => ActionKind::Key { keys },
                None => return,
            }
        }
        "wait" => match wait(a, ctx) {
            Some(kind) => kind,
            None => return,
        },
        "finished" | "calluser" => {
            let t = text(given(a, &["content", "box"])).unwrap_or_default();
            if name == "finished" {
                ActionKind::Done { text: t }
            } else {
                ActionKind::AskUser { text: t }
            }
        }
        other => {
            return ctx.err(format!(
                "{other}: a phone action with no desktop meaning; nothing was performed"
            ));
        }
    };
    ctx.push(kind, None);
}

/// `Wait()` takes nothing (2 s, as UI-Venus's own executor waits); one number is read as
/// seconds (`Wait(3)`, `Wait(seconds=3)`). A name where the number belongs (`Wait(seconds)`,
/// a prompt's example echoed) or anything else is refused: never a wait the model did not
/// write (docs/actions.md, "Placeholders in examples").
fn wait(a: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    let values: Vec<&Value> = a
        .as_object()
        .map(|m| m.values().collect())
        .unwrap_or_default();
    if ctx.refuse_names("Wait", &values) {
        return None;
    }
    match values.as_slice() {
        [] => Some(ActionKind::Wait { seconds: 2.0 }),
        [v] => match v.as_f64() {
            Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                Some(ActionKind::Wait { seconds })
            }
            _ => ctx.fail(format!("Wait: write Wait() or Wait(SECONDS), not {a}")),
        },
        _ => ctx.fail(format!("Wait: write Wait() or Wait(SECONDS), not {a}")),
    }
}

/// `Scroll(direction='down')` at the pointer, or the phone's swipe `Scroll(start, end)`: the
/// page moves with the finger, so a swipe up scrolls down, at its start.
fn scroll(a: &Value, ctx: &mut Ctx) -> Option<ActionKind> {
    if let Some(d) = given(a, &["direction"]) {
        let direction = ctx.direction("Scroll", Some(d))?;
        return Some(ActionKind::Scroll {
            x: None,
            y: None,
            direction,
            amount: 5,
        });
    }
    let (sx, sy) = point("Scroll", a, "start", ctx)?;
    let (ex, ey) = point("Scroll", a, "end", ctx)?;
    let (dx, dy) = (ex - sx, ey - sy);
    let direction = match (dx.abs() > dy.abs(), dx > 0, dy > 0) {
        (true, true, _) => ScrollDirection::Left,
        (true, false, _) => ScrollDirection::Right,
        (false, _, true) => ScrollDirection::Up,
        (false, _, false) => ScrollDirection::Down,
    };
    Some(ActionKind::Scroll {
        x: Some(sx),
        y: Some(sy),
        direction,
        amount: 5,
    })
}
