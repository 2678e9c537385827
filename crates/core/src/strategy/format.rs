//! The reply formats a server is asked to constrain replies to (`constrain` setting,
//! docs/config.md, "Constrained output"), derived from the same source as each strategy's
//! grammar so that the two cannot disagree:
//!
//! - the narrative (franz's call dialect): a GBNF grammar of one call line from [`CALLS`], the
//!   table of the calls its prompt lists, then one line of story without parentheses;
//! - the vision loop (franz's JSON dialect): a JSON schema of its object, each action from
//!   [`VISION_ACTIONS`], the table of the actions its prompt lists (`reply_format.rs`);
//! - tools and the commander: one call of the request's own tools (`reply_format.rs`), so the
//!   schema is the tool schema the request carries (`schema.rs`, or a family's in `grammar/`).
//!
//! With a grounding model configured (`ReadOptions::targets_in_words`, docs/grounding.md), the
//! actions of one point ([`takes_target`]) may name their target in words in each of them:
//! `left_click(target="...")`, `{"name": "click", "target": "..."}`, a `target` argument.
//!
//! A family grammar's text formats (UI-TARS' `Action:` lines, pyautogui code, `<tool_call>`
//! blocks in the narrative) and a replaced system prompt are not constrained: `None`.
//!
//! The grammar is built as a small tree ([`G`]) that renders both to GBNF (for the server) and to
//! a regular expression (for the tests that check every call of the table and every example the
//! prompt gives against it).

use super::ReadOptions;
pub use super::gbnf::G;
pub(super) use super::gbnf::{lit, rule, shared};
use super::grammar::Space;
pub(super) use super::quoted::{quoted_between, quoted_target};
use crate::model::ReplyFormat;
use crate::parser::Dialect;

/// An argument of a call in [`CALLS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A coordinate in the strategy's space.
    Coord,
    /// `"up"`, `"down"`, `"left"` or `"right"`.
    Direction,
    /// A small whole number from 1 (scroll notches, seconds).
    Count,
    /// A quoted string, not empty (an empty `done` is refused once, `text_reply.rs`).
    Text,
    /// A quoted key or combination, `"ctrl+s"`, of the keys `keys.rs` knows.
    Key,
}

/// franz's call dialect as the narrative's prompt lists it (`prompts.rs`, NARRATIVE_SYSTEM):
/// every call and its arguments.
pub const CALLS: &[(&str, &[Arg])] = {
    use Arg::{Coord as C, Count as N, Direction as D, Key as K, Text as T};
    &[
        ("left_click", &[C, C]),
        ("right_click", &[C, C]),
        ("double_left_click", &[C, C]),
        ("middle_click", &[C, C]),
        ("triple_click", &[C, C]),
        ("move", &[C, C]),
        ("drag", &[C, C, C, C]),
        ("scroll", &[C, C, D, N]),
        ("type", &[T]),
        ("press_key", &[K]),
        ("wait", &[N]),
        ("done", &[T]),
        ("fail", &[T]),
    ]
};

/// The vision loop's actions as its prompt lists them (`prompts.rs`, VISION_SYSTEM): each
/// name and its fields.
pub const VISION_ACTIONS: &[(&str, &[(&str, Arg)])] = {
    use Arg::{Coord as C, Count as N, Direction as D, Key as K, Text as T};
    const POINT: &[(&str, Arg)] = &[("x1", C), ("y1", C)];
    &[
        ("move", POINT),
        ("click", POINT),
        ("right_click", POINT),
        ("double_click", POINT),
        ("drag", &[("x1", C), ("y1", C), ("x2", C), ("y2", C)]),
        ("type", &[("text", T)]),
        ("key", &[("keys", K)]),
        (
            "scroll",
            &[("x1", C), ("y1", C), ("direction", D), ("amount", N)],
        ),
        ("wait", &[("seconds", N)]),
        ("done", &[("text", T)]),
        ("fail", &[("text", T)]),
    ]
};

/// The longest quoted string the grammars allow (text to type, a done's or an answer's words):
/// a bound also ends a reply that would otherwise run to max_tokens.
pub(super) const TEXT_MAX: u32 = 64;
/// The longest free text after the action (the narrative's story line, the vision loop's
/// observation): short, and written after the action, so that the action is whole however
/// soon the reply ends.
pub(super) const NOTE_MAX: u32 = 48;
/// The most characters of a reply any format allows (its grammar's longest text): a constrained
/// turn's `max_tokens` at least this ends every reply with its grammar (docs/config.md,
/// "Constrained output").
pub const LONGEST_REPLY: u32 = 512;
/// At most this many actions in a constrained vision reply.
pub(super) const VISION_MAX_ACTIONS: u32 = 2;
/// The largest count (scroll notches, seconds to wait): the longest wait franz performs, which
/// is less than the most notches of a scroll.
pub(super) const COUNT_MAX: u32 = crate::action::MAX_WAIT_SECONDS as u32;

/// Which axis a coordinate is on: pixel coordinates are bounded by the image's width or height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
}

impl Axis {
    /// The axis of the `i`th coordinate of a call (x, y, x, y).
    pub(super) fn nth(i: usize) -> Axis {
        if i.is_multiple_of(2) {
            Axis::X
        } else {
            Axis::Y
        }
    }

    /// The axis a field is named for (`x1`, `y`, ...).
    pub(super) fn of_field(name: &str) -> Axis {
        if name.starts_with('y') {
            Axis::Y
        } else {
            Axis::X
        }
    }
}

/// The largest whole coordinate on `axis` of `space` (1 for the relative space).
pub fn top(space: Space, axis: Axis) -> u32 {
    match (space, axis) {
        (Space::Norm1000, _) => 1000,
        (Space::Pixels(s), Axis::X) => s.width.saturating_sub(1),
        (Space::Pixels(s), Axis::Y) => s.height.saturating_sub(1),
        (Space::Relative, _) => 1,
    }
}

/// A coordinate on `axis` of `space`: a whole number from 0 to its [`top`], or a fraction 0..1.
pub fn coord_grammar(space: Space, axis: Axis) -> G {
    match space {
        Space::Norm1000 | Space::Pixels(_) => up_to(top(space, axis)),
        Space::Relative => relative(),
    }
}

/// A fraction 0..1 written as a decimal: 0, 1, 0.25, 1.0.
pub(super) fn relative() -> G {
    rule(
        "frac",
        G::Alt(vec![
            G::Seq(vec![lit("0."), G::Rep(Box::new(G::Digit(0, 9)), 1, 4)]),
            G::Seq(vec![lit("1."), G::Rep(Box::new(lit("0")), 1, 4)]),
            G::Digit(0, 1),
        ]),
    )
}

/// A whole number from 0 to `top`, without a leading zero.
fn up_to(top: u32) -> G {
    between(0, top)
}

/// A whole number from `lo` to `hi`, without a leading zero: for each count of digits, the
/// numbers of that length inside the range ([`same_length`]).
pub(super) fn between(lo: u32, hi: u32) -> G {
    let (lo_len, hi_len) = (lo.to_string().len() as u32, hi.to_string().len() as u32);
    let mut alts = Vec::new();
    for len in lo_len..=hi_len {
        let first = if len == 1 { 0 } else { 10u32.pow(len - 1) };
        let last = 10u32.saturating_pow(len).saturating_sub(1);
        let (a, b) = (lo.max(first), hi.min(last));
        if a <= b {
            alts.push(same_length(&a.to_string(), &b.to_string()));
        }
    }
    let g = match alts.len() {
        1 => alts.remove(0),
        _ => G::Alt(alts),
    };
    rule(&format!("num-{lo}-{hi}"), g)
}

/// The numbers from `a` to `b`, both written with the same number of digits: `a`'s first digit
/// followed by anything from the rest of `a` up, the digits between followed by anything, and
/// `b`'s first digit followed by anything up to the rest of `b`.
fn same_length(a: &str, b: &str) -> G {
    let (x, y) = (a.as_bytes()[0] - b'0', b.as_bytes()[0] - b'0');
    let rest = (a.len() - 1) as u32;
    if rest == 0 {
        return G::Digit(x, y);
    }
    let any = |n: u32| G::Rep(Box::new(G::Digit(0, 9)), n, n);
    if x == y {
        return G::Seq(vec![lit(&a[..1]), same_length(&a[1..], &b[1..])]);
    }
    let nines = "9".repeat(rest as usize);
    let zeros = "0".repeat(rest as usize);
    let mut alts = vec![G::Seq(vec![lit(&a[..1]), same_length(&a[1..], &nines)])];
    if y > x + 1 {
        alts.push(G::Seq(vec![G::Digit(x + 1, y - 1), any(rest)]));
    }
    alts.push(G::Seq(vec![lit(&b[..1]), same_length(&zeros, &b[1..])]));
    G::Alt(alts)
}

/// 0, or up to `digits` digits without a leading zero.
pub(super) fn number(digits: u32) -> G {
    let more = G::Rep(
        Box::new(G::Class("[0-9]".into())),
        0,
        digits.saturating_sub(1),
    );
    let g = G::Alt(vec![G::Seq(vec![G::Class("[1-9]".into()), more]), lit("0")]);
    rule(&format!("int-{digits}"), g)
}

fn quoted(max: u32) -> G {
    quoted_between(1, max)
}

fn arg(a: Arg, space: Space, axis: Axis) -> G {
    match a {
        Arg::Coord => coord_grammar(space, axis),
        Arg::Direction => G::Alt(
            ["up", "down", "left", "right"]
                .iter()
                .map(|d| lit(&format!("\"{d}\"")))
                .collect(),
        ),
        Arg::Count => between(1, COUNT_MAX),
        Arg::Text => quoted(TEXT_MAX),
        Arg::Key => G::Seq(vec![lit("\""), combo(), lit("\"")]),
    }
}

/// The JSON-schema `pattern` of a key or combination ([`combo`]).
pub fn key_pattern() -> String {
    format!("^{}$", combo().regex())
}

/// One key of `keys.rs`: a named key, f1-f24, a letter or a digit.
fn key() -> G {
    let mut names: Vec<G> = crate::keys::named_keys().map(lit).collect();
    names.push(G::Seq(vec![
        lit("f"),
        G::Alt(vec![
            G::Seq(vec![lit("2"), G::Class("[0-4]".into())]),
            G::Seq(vec![lit("1"), G::Class("[0-9]".into())]),
            G::Class("[1-9]".into()),
        ]),
    ]));
    names.push(G::Class("[a-z0-9]".into()));
    rule("key", G::Alt(names))
}

/// Up to four keys joined by `+`.
pub(super) fn combo() -> G {
    let g = G::Seq(vec![
        key(),
        G::Rep(Box::new(G::Seq(vec![lit("+"), key()])), 0, 3),
    ]);
    rule("combo", g)
}

/// One call of [`CALLS`], `name(a, b)`.
fn call(name: &str, args: &[Arg], space: Space) -> G {
    let mut items = vec![lit(&format!("{name}("))];
    let mut coords = 0;
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            items.push(lit(", "));
        }
        items.push(arg(*a, space, Axis::nth(coords)));
        coords += usize::from(*a == Arg::Coord);
    }
    items.push(lit(")"));
    G::Seq(items)
}

/// Whether a call or an action of one point (`[Coord, Coord]`: the clicks and `move`) may name
/// its target in words in place of the point, when a grounding model is configured
/// (docs/grounding.md).
pub fn takes_target(args: &[Arg]) -> bool {
    args == [Arg::Coord, Arg::Coord]
}

/// A target in words, as the grammars write it: a quoted text that is not a placeholder.
pub(super) fn target_text() -> G {
    quoted_target(1, TEXT_MAX)
}

/// `name(target="...")`: a call of one point with its target in words.
fn target_call(name: &str) -> G {
    G::Seq(vec![
        lit(&format!("{name}(target=")),
        target_text(),
        lit(")"),
    ])
}

/// The narrative's reply: one call line, then optionally a short line of story without
/// parentheses (the call parser reads every `name(...)` in a reply, the story's too). With
/// `targets` (a grounding model is configured), a call of one point may name its target in
/// words instead: `left_click(target="the Save button")`.
pub fn narrative_grammar(space: Space, targets: bool) -> G {
    let mut calls: Vec<G> = CALLS.iter().map(|(n, a)| call(n, a, space)).collect();
    if targets {
        let pointer = CALLS.iter().filter(|(_, a)| takes_target(a));
        calls.extend(pointer.map(|(n, _)| target_call(n)));
    }
    let story = rule(
        "story",
        G::Rep(Box::new(G::Class("[^\\n()]".into())), 1, NOTE_MAX),
    );
    let after = G::Rep(Box::new(G::Seq(vec![lit("\n"), story])), 0, 1);
    G::Seq(vec![G::Alt(calls), after])
}

/// The narrative's format, when its replies are in franz's call dialect.
pub fn narrative(options: &ReadOptions, space: Space) -> Option<ReplyFormat> {
    if options.system_prompt.is_some() || options.dialect != Some(Dialect::Calls) {
        return None;
    }
    let targets = options.targets_in_words;
    let key = format!("narrative {space:?} targets {targets}");
    Some(ReplyFormat::Text {
        gbnf: super::memo::gbnf(key, || narrative_grammar(space, targets).gbnf()),
    })
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
