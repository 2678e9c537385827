//! The parse context shared by the dialects: where actions and errors collect, and the one
//! place coordinates, keys, directions and amounts are read.
//!
//! Coordinates: any of the designs' target forms (`[x,y]`, `[x1,y1,x2,y2]`, `[[x1,y1],[x2,y2]]`,
//! `{"x","y"}`, strings like `"[640, 360]"` or `"<point>5 7</point>"`) through
//! [`Target`]; a box becomes its center; pixels are converted with the docs/coordinates.md inverse
//! formula `round(p * 1000 / (L - 1))`. A point outside 0..1000 (or outside the model's space
//! in [`CoordMode::Exact`]) is kept as given, never clamped: the executor's `work_area` rule
//! refuses it (crates/core/src/executor/fence.rs), so a wrong point is never acted on by
//! guess. Only the vision loop's bboxes, which are drawn and not acted on, are clamped.

use super::fallback;
use super::space::{self, Verdict};
use super::{CoordMode, Dialect, ParseOptions};
use crate::action::{Action, ActionKind};
use crate::exact_target::{Exact, Num};
use crate::geometry::{GeometryError, NORM_MAX, NormBox, Target};
use crate::keys;
use crate::placeholder;
use franz_desktop::ScrollDirection;
use serde_json::Value;

/// A drag from `from` to `to` when both points were read (a point that could not be read has
/// already recorded its error), the one place every dialect builds its drags.
pub(crate) fn drag(from: Option<(i32, i32)>, to: Option<(i32, i32)>) -> Option<ActionKind> {
    let ((x, y), (x2, y2)) = (from?, to?);
    Some(ActionKind::Drag {
        x: Some(x),
        y: Some(y),
        x2,
        y2,
    })
}

/// The click a dialect's name asks for, at `(x, y)` or, with `None`, where the pointer is. The
/// names of every dialect are here; each dialect only sends the names it reads as clicks.
pub(crate) fn click(name: &str, x: Option<i32>, y: Option<i32>) -> ActionKind {
    match name {
        "right_click" | "right_single" | "right_click_element" => ActionKind::RightClick { x, y },
        "middle_click" => ActionKind::MiddleClick { x, y },
        "double_click"
        | "double_left_click"
        | "left_double"
        | "left_double_click"
        | "double_click_element" => ActionKind::DoubleClick { x, y },
        "triple_click" => ActionKind::TripleClick { x, y },
        _ => ActionKind::Click { x, y },
    }
}

/// A point that was read, as the optional coordinates of an action.
pub(crate) fn at((x, y): (i32, i32)) -> (Option<i32>, Option<i32>) {
    (Some(x), Some(y))
}

/// The value of the first of `keys` that `args` has (a JSON null counts), or null.
pub(crate) fn field(args: &Value, keys: &[&str]) -> Value {
    keys.iter()
        .find_map(|k| args.get(*k))
        .cloned()
        .unwrap_or(Value::Null)
}

/// The value of the first of `keys` that `args` has and is not a JSON null.
pub(crate) fn given<'a>(args: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter()
        .find_map(|k| args.get(*k).filter(|v| !v.is_null()))
}

/// The fields that give an action's position, in the order they are tried (then `x`/`y`, then
/// `x1`/`y1`): the one list every dialect reads a position from.
pub(crate) const POINT_KEYS: &[&str] = &[
    "coordinate",
    "coordinates",
    "point",
    "position",
    "start_box",
    "start_point",
    "box",
    "bbox",
];

/// Fields whose numbers are never a position (durations, amounts, text, names).
const NOT_POSITION: &[&str] = &[
    "action",
    "type",
    "name",
    "text",
    "keys",
    "key",
    "button",
    "direction",
    "scroll_direction",
    "scroll_amount",
    "amount",
    "notches",
    "clicks",
    "pixels",
    "scroll_x",
    "scroll_y",
    "duration",
    "time",
    "seconds",
    "status",
    "answer",
    "content",
    "value",
    "label",
    "justification",
    "note",
    "reason",
    "evidence",
    "objective_id",
    "element",
];

/// Whether `v` holds a number anywhere (a number, a string with a digit, or inside a list or
/// object).
fn has_number(v: &Value) -> bool {
    match v {
        Value::Number(_) => true,
        Value::String(s) => s.chars().any(|c| c.is_ascii_digit()),
        Value::Array(items) => items.iter().any(has_number),
        Value::Object(map) => map.values().any(has_number),
        _ => false,
    }
}

/// The fields of `args` that carry numbers but are neither a position franz reads nor a known
/// non-position field: numbers a reader would otherwise silently drop.
pub(crate) fn stray_numbers(args: &Value) -> Vec<String> {
    let Some(map) = args.as_object() else {
        return Vec::new();
    };
    map.iter()
        .filter(|(k, v)| !NOT_POSITION.contains(&k.to_ascii_lowercase().as_str()) && has_number(v))
        .map(|(k, _)| k.clone())
        .collect()
}

/// Whether an action of this kind may name an element instead of its point.
fn takes_element(kind: &ActionKind) -> bool {
    matches!(
        kind,
        ActionKind::Click { .. }
            | ActionKind::RightClick { .. }
            | ActionKind::MiddleClick { .. }
            | ActionKind::DoubleClick { .. }
            | ActionKind::TripleClick { .. }
            | ActionKind::Move { .. }
            | ActionKind::Type { .. }
    )
}

/// Whether an action of this kind may name its target in words instead of its point.
fn takes_target(kind: &ActionKind) -> bool {
    kind.is_click() || matches!(kind, ActionKind::Move { .. })
}

/// The action's point and drag end, where it has them.
fn points_of(kind: &ActionKind) -> Vec<(i32, i32)> {
    let to = match kind {
        ActionKind::Drag { x2, y2, .. } => Some((*x2, *y2)),
        _ => None,
    };
    kind.point().into_iter().chain(to).collect()
}

/// The notes of the action's points that were taken for the edge of the space.
fn clamped_of(kind: &ActionKind, reads: &[PointRead]) -> Option<String> {
    let notes: Vec<String> = points_of(kind)
        .into_iter()
        .filter_map(|p| reads.iter().rev().find(|r| r.at == p))
        .filter_map(|r| r.clamped.clone())
        .collect();
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// The model's values of the action's points, as it wrote them.
fn raw_points(kind: &ActionKind, reads: &[PointRead]) -> Vec<[f64; 2]> {
    points_of(kind)
        .into_iter()
        .map(|p| {
            reads
                .iter()
                .rev()
                .find(|r| r.at == p)
                .map_or([p.0 as f64, p.1 as f64], |r| r.raw)
        })
        .collect()
}

/// The text an action carries that a prompt's example shows as a placeholder.
fn kind_text(kind: &ActionKind) -> Option<&str> {
    match kind {
        ActionKind::Type { text } | ActionKind::Done { text } | ActionKind::Fail { text } => {
            Some(text)
        }
        ActionKind::ReportCompletion { evidence } => Some(evidence),
        ActionKind::FocusWindow { window } => Some(window),
        _ => None,
    }
}
pub use crate::action::MAX_SCROLL_NOTCHES;

pub(crate) struct Ctx<'a> {
    pub opts: &'a ParseOptions,
    pub actions: Vec<Action>,
    pub errors: Vec<String>,
    pub bboxes: Vec<NormBox>,
    /// The reply said on purpose that there is nothing to do (e.g. `"actions": []`).
    pub explicit_none: bool,
    /// With [`CoordMode::Exact`]: each point read, as its rounded 0..1000 point and the
    /// model's own values, so that [`Ctx::push`] gives the action its exact target.
    exact: Vec<((i32, i32), [Num; 2])>,
    /// The element reference of the action being read ([`Ctx::element`]), for [`Ctx::push`].
    element: Option<u32>,
    /// The target words of the action being read ([`Ctx::target`]), for [`Ctx::push`].
    target: Option<String>,
    /// The points read since the last action: each as its 0..1000 point, the model's values
    /// and, when it was taken for the edge of the space (`parser/space.rs`), the note, so that
    /// [`Ctx::push`] gives the action its `clamped` note (and a refusal its values).
    reads: Vec<PointRead>,
    /// The dialect the run asks for (`None`: detection, which reads every dialect as its own):
    /// an action read in another is checked by `parser/fallback.rs`.
    pub asked: Option<Dialect>,
    /// The dialect reading now.
    pub current: Dialect,
    /// A dialect other than the asked one whose actions were read.
    pub foreign: Option<Dialect>,
}

/// One point read: its 0..1000 point, the model's values, the note when clamped.
struct PointRead {
    at: (i32, i32),
    raw: [f64; 2],
    clamped: Option<String>,
}

impl<'a> Ctx<'a> {
    pub fn new(opts: &'a ParseOptions) -> Self {
        Self {
            opts,
            actions: Vec::new(),
            errors: Vec::new(),
            bboxes: Vec::new(),
            explicit_none: false,
            exact: Vec::new(),
            element: None,
            target: None,
            reads: Vec::new(),
            asked: opts.dialect,
            current: opts.dialect.unwrap_or(Dialect::None),
            foreign: None,
        }
    }

    pub fn err(&mut self, msg: impl Into<String>) {
        if self.errors.len() < 50 {
            self.errors.push(msg.into());
        }
    }

    /// Records an error and gives `None`: for readers that return the action they read.
    pub fn fail<T>(&mut self, msg: impl Into<String>) -> Option<T> {
        self.err(msg);
        None
    }

    /// Adds an action if it is valid; else its problem goes to `errors`.
    pub fn push(&mut self, kind: ActionKind, note: Option<String>) {
        let note = note.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
        let element = self.element.take();
        let target = self.target.take();
        if target.is_some() && !takes_target(&kind) {
            return self.err(format!(
                "{}: takes no target; target=\"...\" goes with clicks and move",
                kind.name()
            ));
        }
        if let Some(text) = kind_text(&kind)
            && self.refuse_text(kind.name(), text)
        {
            return;
        }
        if element.is_some() && !takes_element(&kind) {
            return self.err(format!(
                "{}: takes no element; element=N goes with clicks, move and type",
                kind.name()
            ));
        }
        let exact = self.exact_of(&kind);
        let reads = std::mem::take(&mut self.reads);
        let clamped = clamped_of(&kind, &reads);
        let mut action = Action {
            kind,
            note,
            exact,
            element,
            clamped,
            read_in: None,
            element_at: None,
            target,
        };
        if let Err(e) = action.validate() {
            return self.err(e.message);
        }
        if let Some(asked) = self.asked.filter(|a| *a != self.current) {
            let points = raw_points(&action.kind, &reads);
            if !points.is_empty() && !fallback::agrees(self.current, asked, self.opts.coords) {
                let what = action.kind.name();
                let e =
                    fallback::disagreement(what, self.current, asked, self.opts.coords, &points);
                return self.err(e);
            }
            action.read_in = Some(self.current.as_str().to_string());
            self.foreign.get_or_insert(self.current);
        }
        if self.actions.len() < 100 {
            self.actions.push(action);
        } else {
            self.err("too many actions in one reply: the rest were dropped");
        }
    }

    /// The exact target of an action whose points were read in [`CoordMode::Exact`]: the
    /// latest point read that rounds to the action's point (and its drag end).
    fn exact_of(&self, kind: &ActionKind) -> Option<Exact> {
        let CoordMode::Exact(of) = self.opts.coords else {
            return None;
        };
        let find = |p: (i32, i32)| {
            self.exact
                .iter()
                .rev()
                .find(|(q, _)| *q == p)
                .map(|(_, v)| *v)
        };
        let at = kind.point().and_then(find);
        let to = match kind {
            ActionKind::Drag { x2, y2, .. } => find((*x2, *y2)),
            _ => None,
        };
        (at.is_some() || to.is_some()).then_some(Exact {
            at,
            to,
            of: [Num(of.width as f64), Num(of.height as f64)],
        })
    }

    /// Whether the action being read names an element or a target in words (it may then have
    /// no point).
    pub fn has_element(&self) -> bool {
        self.element.is_some() || self.target.is_some()
    }

    /// Reads the target in words (`target="the Save button"`) for the next action pushed
    /// (docs/grounding.md). `Err(())` (the reason recorded) when it is no text, or is an
    /// example's placeholder the model repeated: never act on words the model did not write.
    pub fn target(&mut self, v: Option<&Value>) -> Result<(), ()> {
        self.target = None;
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(());
        };
        match v.as_str().map(str::trim) {
            Some(t) if placeholder::is_target(t) => {
                self.err(placeholder::refusal("target", &[t.to_string()]));
                Err(())
            }
            Some(t) if !t.is_empty() => {
                self.target = Some(t.to_string());
                Ok(())
            }
            _ => {
                self.err(format!(
                    "target {v}: describe the element in words, e.g. target=\"the Save button\""
                ));
                Err(())
            }
        }
    }

    /// Reads the element reference `v` (`"element": 7`) for the next action pushed. `Err(())`
    /// (the reason recorded) when it is no mark number.
    pub fn element(&mut self, v: Option<&Value>) -> Result<(), ()> {
        self.element = None;
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(());
        };
        match number(v) {
            Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => {
                self.element = Some(n as u32);
                Ok(())
            }
            _ => {
                self.err(format!(
                    "element {v}: give the number of a mark from this turn's ELEMENTS list, e.g. 7"
                ));
                Err(())
            }
        }
    }

    /// Refuses values that hold names where numbers belong (`x`, `"(x1,y1)"`, `<x>`: a
    /// prompt's example repeated, docs/actions.md "Placeholders in examples"); true when
    /// refused (the reason recorded).
    pub fn refuse_names(&mut self, what: &str, values: &[&Value]) -> bool {
        let names: Vec<String> = values
            .iter()
            .flat_map(|v| placeholder::names_in(v))
            .collect();
        if names.is_empty() {
            return false;
        }
        self.err(placeholder::refusal(what, &names));
        true
    }

    /// Refuses a text that is a placeholder (`"text"`, `'xxx'`); true when refused.
    pub fn refuse_text(&mut self, what: &str, text: &str) -> bool {
        if !placeholder::is_text(text) {
            return false;
        }
        self.err(placeholder::refusal(what, &[text.trim().to_string()]));
        true
    }

    /// A point from a JSON value in any target form; `None` (with an error) if unusable.
    pub fn point(&mut self, what: &str, v: &Value) -> Option<(i32, i32)> {
        if self.refuse_names(what, &[v]) {
            return None;
        }
        match crate::geometry::target_numbers(v) {
            Ok(nums) => self.point_nums(what, &nums),
            Err(e) => {
                self.target_error(what, e);
                None
            }
        }
    }

    /// The position an action's arguments give, in any of the common shapes (the first of
    /// [`POINT_KEYS`], `x`/`y`, or `x1`/`y1`; each a list, a numeric string, `"[x, y]"`,
    /// `"(x,y)"` or `"<point>x y</point>"`). `Ok(None)` only when the arguments give no position
    /// and carry no number a rule could read as one: that is the pointer ("here"). `Err(())`
    /// (the reason recorded) when a position is given but unreadable, or numbers sit in fields
    /// no rule reads: never a click at the pointer then.
    pub fn position(&mut self, what: &str, args: &Value) -> Result<Option<(i32, i32)>, ()> {
        if let Some(v) = given(args, POINT_KEYS) {
            return self.point(what, v).map(Some).ok_or(());
        }
        for (kx, ky) in [("x", "y"), ("x1", "y1")] {
            if given(args, &[kx, ky]).is_some() {
                return self
                    .point_xy(what, args.get(kx), args.get(ky))
                    .map(Some)
                    .ok_or(());
            }
        }
        // a target in words read for this action (`Ctx::target`) is no stray number
        let stray: Vec<String> = stray_numbers(args)
            .into_iter()
            .filter(|k| !(k == "target" && self.target.is_some()))
            .collect();
        if stray.is_empty() {
            return Ok(None);
        }
        self.err(format!(
            "{what}: no position read from the numbers in {}: give the point as \"coordinate\": [x, y]; nothing was clicked",
            stray
                .iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Err(())
    }

    /// [`Ctx::position`] as an action's optional coordinates: `(None, None)` is the pointer.
    pub fn position_or_pointer(
        &mut self,
        what: &str,
        args: &Value,
    ) -> Result<(Option<i32>, Option<i32>), ()> {
        Ok(self.position(what, args)?.map_or((None, None), at))
    }

    /// A point from numbers already pulled out, inside the model's space: a point just past
    /// an edge is taken for the edge (with a note for the action), one further out is refused
    /// (`parser/space.rs`).
    pub fn point_nums(&mut self, what: &str, nums: &[f64]) -> Option<(i32, i32)> {
        let t = match Target::from_numbers(nums) {
            Ok(t) => t,
            Err(e) => {
                self.target_error(what, e);
                return None;
            }
        };
        let exact = matches!(self.opts.coords, CoordMode::Exact(_));
        let raw = raw_point(nums);
        let (at, clamped) = match space::judge(self.opts.coords, what, raw) {
            Verdict::Inside if exact => (self.convert_exact(raw), None),
            Verdict::Inside => (self.convert(t), None),
            Verdict::Clamped(v, note) if exact => (self.convert_exact(v), Some(note)),
            Verdict::Clamped(v, note) => {
                let r = |f: f64| f.round() as i32;
                let p = Target::Point(crate::NormPoint::new(r(v[0]), r(v[1])));
                (self.convert(p), Some(note))
            }
            Verdict::Refused(e) => return self.fail(e),
        };
        self.reads.push(PointRead { at, raw, clamped });
        Some(at)
    }

    /// A point from two separate fields (`x`, `y`), each a number or a numeric string.
    pub fn point_xy(
        &mut self,
        what: &str,
        x: Option<&Value>,
        y: Option<&Value>,
    ) -> Option<(i32, i32)> {
        let given: Vec<&Value> = [x, y].into_iter().flatten().collect();
        if self.refuse_names(what, &given) {
            return None;
        }
        match (x.and_then(number), y.and_then(number)) {
            (Some(x), Some(y)) => self.point_nums(what, &[x, y]),
            _ => {
                self.err(format!("{what}: give both x and y as numbers in 0..1000"));
                None
            }
        }
    }

    /// A box (for the vision loop's bboxes, docs/designs.md), converted and clamped like points.
    pub fn norm_box(&mut self, nums: &[f64]) -> Option<NormBox> {
        match Target::from_numbers(nums) {
            Ok(Target::Box(b)) => {
                let corner = |c: &mut Self, x, y| {
                    let (x, y) = c.convert(Target::Point(crate::NormPoint::new(x, y)));
                    let (cx, cy) = (x.clamp(0, NORM_MAX), y.clamp(0, NORM_MAX));
                    if (cx, cy) != (x, y) {
                        c.err(format!(
                            "bbox: ({x}, {y}) is outside 0..1000; clamped to ({cx}, {cy})"
                        ));
                    }
                    (cx, cy)
                };
                let (x1, y1) = corner(self, b.x1, b.y1);
                let (x2, y2) = corner(self, b.x2, b.y2);
                Some(NormBox::from_corners(x1, y1, x2, y2))
            }
            _ => None,
        }
    }

    /// A point given in [`CoordMode::Exact`]'s space: kept as given for the action's `exact`
    /// and rounded to 0..1000 for its `x`/`y` (a value outside the space stays outside: the
    /// executor refuses it).
    fn convert_exact(&mut self, v: [f64; 2]) -> (i32, i32) {
        let CoordMode::Exact(of) = self.opts.coords else {
            return (0, 0);
        };
        let n = crate::exact_target::norm_point(v, of);
        let p = (n.x, n.y);
        self.exact.push((p, [Num(v[0]), Num(v[1])]));
        p
    }

    fn target_error(&mut self, what: &str, e: GeometryError) {
        self.err(format!("{what}: {e}"));
    }

    /// A point in 0..1000 from a target in the reply's units, not clamped.
    fn convert(&mut self, t: Target) -> (i32, i32) {
        let p = t.point();
        let (x, y) = match self.opts.coords {
            CoordMode::Norm | CoordMode::Exact(_) => (p.x as i64, p.y as i64),
            CoordMode::Pixels(size) => (
                pixel_to_norm(p.x, size.width),
                pixel_to_norm(p.y, size.height),
            ),
        };
        let fit = |v: i64| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        (fit(x), fit(y))
    }

    /// A key combo from a string (`"ctrl+s"`, `"ctrl c"`) or an array of names, in canonical
    /// form. Garbled arrays such as `["keys=['ctrl'", "'c']"]` are repaired.
    pub fn keys(&mut self, what: &str, v: &Value) -> Option<String> {
        let placeholder = match v {
            Value::String(s) => Some(s.as_str()),
            Value::Array(items) if items.len() == 1 => items[0].as_str(),
            _ => None,
        };
        if placeholder.is_some_and(|s| self.refuse_text(what, s)) {
            return None;
        }
        let result = match v {
            Value::String(s) if s.contains(['[', '\'', '"', '=']) && s.chars().count() > 1 => {
                keys::parse_combo_parts(&garbled_parts(&[s.as_str()]))
            }
            Value::String(s) => keys::parse_combo(s),
            Value::Array(items) => {
                let strs: Vec<String> = items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                    .collect();
                let garbled = strs
                    .iter()
                    .any(|s| s.chars().count() > 1 && s.contains(['[', ']', '\'', '"', '=']));
                if garbled {
                    let refs: Vec<&str> = strs.iter().map(String::as_str).collect();
                    keys::parse_combo_parts(&garbled_parts(&refs))
                } else {
                    keys::parse_combo_parts(&strs)
                }
            }
            Value::Null => Err(keys::KeyError::Empty),
            other => keys::parse_combo(&other.to_string()),
        };
        match result {
            Ok(c) => Some(c.to_string()),
            Err(e) => {
                self.err(format!("{what}: {e}"));
                None
            }
        }
    }

    /// A scroll direction word.
    pub fn direction(&mut self, what: &str, v: Option<&Value>) -> Option<ScrollDirection> {
        if v.and_then(Value::as_str)
            .is_some_and(|s| self.refuse_text(what, s))
        {
            return None;
        }
        let s = v
            .and_then(Value::as_str)
            .map(|s| s.trim().trim_matches(['\'', '"']).to_ascii_lowercase());
        match s.as_deref() {
            Some("up") => Some(ScrollDirection::Up),
            Some("down") => Some(ScrollDirection::Down),
            Some("left") => Some(ScrollDirection::Left),
            Some("right") => Some(ScrollDirection::Right),
            _ => {
                self.err(format!(
                    "{what}: direction {} is not up, down, left or right",
                    v.map_or_else(|| "(missing)".to_string(), Value::to_string)
                ));
                None
            }
        }
    }

    /// Notches from a count (already in notches), capped with a warning.
    pub fn notches(&mut self, what: &str, n: f64) -> u32 {
        let n = n.abs().round();
        if n > MAX_SCROLL_NOTCHES as f64 {
            self.err(format!(
                "{what}: {n} notches is too many; scrolled {MAX_SCROLL_NOTCHES}"
            ));
            return MAX_SCROLL_NOTCHES;
        }
        n as u32
    }
}

/// The point a target's numbers give, unrounded: `[x, y]`, or a box's centre
/// `((x1 + x2) / 2, (y1 + y2) / 2)`. Only called once [`Target::from_numbers`] accepted them.
fn raw_point(nums: &[f64]) -> [f64; 2] {
    match nums {
        [x1, y1, x2, y2] => [(x1 + x2) / 2.0, (y1 + y2) / 2.0],
        [x, y, ..] => [*x, *y],
        _ => [0.0, 0.0],
    }
}

/// Pixel p of an axis of `len` pixels in 0..1000, unclamped: `round(p * 1000 / (len - 1))`.
fn pixel_to_norm(p: i32, len: u32) -> i64 {
    let span = (len.max(2) - 1) as i64;
    let p = p as i64 * NORM_MAX as i64;
    if p >= 0 {
        (p + span / 2) / span
    } else {
        -((-p + span / 2) / span)
    }
}

/// A number, or a string holding exactly one number.
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        Value::String(s) => s
            .trim()
            .trim_matches(['\'', '"'])
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite()),
        _ => None,
    }
}

/// A string field, or a number written as text.
pub fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Repairs key lists split in the wrong places: strips `keys=`, brackets and quotes and splits
/// on commas.
fn garbled_parts(items: &[&str]) -> Vec<String> {
    let joined = items.join(",");
    let mut out = Vec::new();
    for part in joined.split(',') {
        let mut p = part.trim();
        for prefix in ["keys=", "key=", "keys:", "key:"] {
            if let Some(rest) = p.strip_prefix(prefix) {
                p = rest.trim();
            }
        }
        let p = p.trim_matches(|c| matches!(c, '[' | ']' | '\'' | '"' | ' '));
        if !p.is_empty() {
            out.push(p.to_string());
        }
    }
    out
}
