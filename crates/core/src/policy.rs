//! The safety policy: rules checked before every action, outside the model, so the model
//! cannot talk its way past them (the `[policy]` table of docs/config.md).
//!
//! - `deny_regions`: boxes `[x1, y1, x2, y2]` in 0..1000 of the whole screen where no pointer
//!   action may land; `deny_keys`: combos never sent (compared after alias normalisation, in
//!   any order: `Alt+F4` is `alt+f4`); `deny_text`: regular expressions that the focused
//!   field's text may not match, as the field will hold it after the action ([`Field`]:
//!   backspace and delete applied, keys that type a character counted, afresh only after a
//!   click, a focus change or Enter), so a command typed in pieces or edited into shape is
//!   caught, and refused before any of it is typed; `allow_only_windows`: patterns (regular
//!   expressions) of which one must match the class, instance or title of the window under
//!   every point a pointer action lands on.
//! - `[policy.confirm]`: the same three kinds (`regions`, `keys`, `text`); a match sends the
//!   action to the approver (panel or terminal) instead of refusing it.
//! - `work_area` (built in, always in force): no pointer action lands outside the working
//!   area (the crop): a point outside 0..1000, an exact target outside the model's space, an
//!   action at the pointer while the pointer is outside, or a final pixel outside is refused
//!   (crates/core/src/executor/fence.rs). The failsafe is a stop, never a violation.
//! - A refused action does not run; its result names the rule. `policy_violations_max`
//!   refusals end a run (exit 4).
//!
//! [`Policy::check`] is the one call every executor path makes (`crates/core/src/executor`);
//! [`Context`] is what it needs to know about the screen.

mod field;

pub use field::Field;

use crate::action::{Action, ActionKind};
use crate::executor::fence::Fence;
use crate::geometry::{Crop, WorkArea};
use crate::keys;
use franz_desktop::{PixelPoint, PixelRect, PointedWindow};
use serde::{Deserialize, Serialize};

/// The default of `policy_violations_max`.
pub const DEFAULT_VIOLATIONS_MAX: u32 = 3;

/// One kind-set of rules as written in the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleConfig {
    /// Boxes `[x1, y1, x2, y2]` in 0..1000 of the whole screen.
    pub regions: Vec<[u32; 4]>,
    /// Key combos, e.g. `alt+f4`.
    pub keys: Vec<String>,
    /// Regular expressions on typed text.
    pub text: Vec<String>,
}

/// The `[policy]` table of the config file (or the file `--policy` names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    pub deny_regions: Vec<[u32; 4]>,
    pub deny_keys: Vec<String>,
    pub deny_text: Vec<String>,
    /// Rules that route an action to the approver instead of refusing it.
    pub confirm: RuleConfig,
    /// Patterns of the windows pointer actions may land on (empty: any window).
    pub allow_only_windows: Vec<String>,
    /// Refusals that end a run (exit 4).
    pub policy_violations_max: u32,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            deny_regions: Vec::new(),
            deny_keys: Vec::new(),
            deny_text: Vec::new(),
            confirm: RuleConfig::default(),
            allow_only_windows: Vec::new(),
            policy_violations_max: DEFAULT_VIOLATIONS_MAX,
        }
    }
}

/// A bad rule: the message names it and says what is expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("policy: {0}")]
pub struct PolicyError(pub String);

/// What the policy does with an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Allow,
    /// Refused by `rule`.
    Deny {
        rule: String,
    },
    /// `rule` asks a person first.
    Confirm {
        rule: String,
    },
}

/// What the policy needs to know about the screen to judge an action.
#[derive(Debug, Clone)]
pub struct Context {
    /// Where each pointer event of the action lands, in root pixels (the start and the end of
    /// a drag); empty for actions without a pointer.
    pub points: Vec<PixelPoint>,
    /// The whole screen (the monitor) the regions are boxes of.
    pub screen: PixelRect,
    /// The focused field before the action, as typing has left it ([`Field`]).
    pub field: Field,
    /// The window under each point (same order), when looked up; `None` when it cannot be.
    pub windows: Option<Vec<Option<PointedWindow>>>,
    /// Why the action would act outside the working area (the built-in `work_area` rule).
    pub work_area: Option<String>,
}

impl Context {
    /// The context of `action` in working area `area` of `screen`: its points through the
    /// working-area fence (an action at the pointer lands at `pointer`, when known) and the
    /// `work_area` rule's verdict on them.
    pub fn of(
        action: &Action,
        area: WorkArea,
        screen: PixelRect,
        pointer: Option<PixelPoint>,
    ) -> Self {
        let fence = Fence::new(area);
        Context {
            points: points(&action.kind, action.exact, area, pointer),
            screen,
            field: Field::default(),
            windows: None,
            work_area: fence.refusal(&action.kind, action.exact, pointer),
        }
    }

    /// The context with every point shifted by `offset` (the test-only wrong mapping of
    /// `franz calibrate`): a point the shift takes out of `area` is a `work_area` refusal.
    pub fn shifted(mut self, offset: PixelPoint, area: WorkArea, what: &str) -> Self {
        if offset == PixelPoint::new(0, 0) {
            return self;
        }
        for p in &mut self.points {
            *p = PixelPoint::new(p.x + offset.x, p.y + offset.y);
            if self.work_area.is_none() {
                self.work_area = Fence::new(area).pixel_refusal(*p, what);
            }
        }
        self
    }
}

/// The pixels a pointer action lands on (its exact targets where it has them), through the
/// working-area fence.
pub fn points(
    kind: &ActionKind,
    exact: Option<crate::exact_target::Exact>,
    area: WorkArea,
    pointer: Option<PixelPoint>,
) -> Vec<PixelPoint> {
    let fence = Fence::new(area);
    let at = |x: Option<i32>, y: Option<i32>| match (x, y) {
        (Some(x), Some(y)) => Some(match exact.and_then(|e| e.at.map(|p| (e, p))) {
            Some((e, p)) => fence.exact(&e, p, kind.name()).0,
            None => fence.point(x, y, kind.name()).0,
        }),
        _ => pointer.map(|p| fence.pixel(p, kind.name()).0),
    };
    let end = |x2: i32, y2: i32| match exact.and_then(|e| e.to.map(|p| (e, p))) {
        Some((e, p)) => fence.exact(&e, p, kind.name()).0,
        None => fence.point(x2, y2, kind.name()).0,
    };
    let one = match kind {
        ActionKind::Move { x, y }
        | ActionKind::Click { x, y }
        | ActionKind::RightClick { x, y }
        | ActionKind::MiddleClick { x, y }
        | ActionKind::DoubleClick { x, y }
        | ActionKind::TripleClick { x, y }
        | ActionKind::MouseDown { x, y, .. }
        | ActionKind::MouseUp { x, y, .. }
        | ActionKind::LongPress { x, y, .. }
        | ActionKind::Scroll { x, y, .. } => at(*x, *y),
        ActionKind::Drag { x, y, x2, y2 } => {
            return at(*x, *y).into_iter().chain([end(*x2, *y2)]).collect();
        }
        _ => None,
    };
    one.into_iter().collect()
}

/// Compiled rules of one kind-set.
#[derive(Debug, Clone, Default)]
struct Rules {
    regions: Vec<Crop>,
    /// The combo as written, and its sorted canonical key names.
    keys: Vec<(String, Vec<String>)>,
    text: Vec<regex::Regex>,
}

impl Rules {
    fn new(name: &str, c: &RuleConfig) -> Result<Self, PolicyError> {
        let regions = c
            .regions
            .iter()
            .map(|[x1, y1, x2, y2]| {
                Crop::new(*x1, *y1, *x2, *y2).map_err(|_| {
                    PolicyError(format!(
                        "{name} regions: [{x1}, {y1}, {x2}, {y2}] is not a box: write [x1, y1, x2, y2] in 0..1000 of the screen with x1 < x2 and y1 < y2"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        let keys = c
            .keys
            .iter()
            .map(|k| {
                combo_names(k)
                    .map(|n| (k.clone(), n))
                    .map_err(|e| PolicyError(format!("{name} keys: {k:?}: {e}")))
            })
            .collect::<Result<_, _>>()?;
        let text = c
            .text
            .iter()
            .map(|t| {
                regex::Regex::new(t).map_err(|e| {
                    PolicyError(format!(
                        "{name} text: {t:?} is not a regular expression: {e}"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Rules {
            regions,
            keys,
            text,
        })
    }

    /// The first rule of this set that `kind` in `ctx` matches, named `{prefix}_{kind} ...`.
    fn matched(&self, prefix: &str, kind: &ActionKind, ctx: &Context) -> Option<String> {
        for p in &ctx.points {
            for r in &self.regions {
                if r.work_area(ctx.screen).is_ok_and(|a| a.contains(*p)) {
                    return Some(format!("{prefix}regions [{r}]"));
                }
            }
        }
        if let ActionKind::Key { keys } | ActionKind::HoldKey { keys, .. } = kind
            && let Ok(names) = combo_names(keys)
            && let Some((written, _)) = self.keys.iter().find(|(_, n)| *n == names)
        {
            return Some(format!("{prefix}keys {written:?}"));
        }
        if self.text.is_empty() {
            return None;
        }
        let texts = ctx.field.texts_after(kind);
        self.text
            .iter()
            .find(|re| texts.iter().any(|t| re.is_match(t)))
            .map(|re| format!("{prefix}text {:?}", re.as_str()))
    }
}

/// A combo's canonical key names, sorted (so `alt+ctrl+delete` is `ctrl+alt+delete`).
fn combo_names(s: &str) -> Result<Vec<String>, keys::KeyError> {
    let mut names: Vec<String> = keys::parse_combo(s)?
        .keys
        .iter()
        .map(|k| keys::key_name(*k))
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// The compiled policy. The default allows everything.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    config: PolicyConfig,
    deny: Rules,
    confirm: Rules,
    windows: Vec<regex::Regex>,
}

impl Policy {
    /// Compiles a configuration; a bad rule is an error that names it.
    pub fn new(config: &PolicyConfig) -> Result<Self, PolicyError> {
        let deny = Rules::new(
            "deny",
            &RuleConfig {
                regions: config.deny_regions.clone(),
                keys: config.deny_keys.clone(),
                text: config.deny_text.clone(),
            },
        )?;
        let confirm = Rules::new("confirm", &config.confirm)?;
        let windows = config
            .allow_only_windows
            .iter()
            .map(|t| {
                regex::Regex::new(t).map_err(|e| {
                    PolicyError(format!(
                        "allow_only_windows: {t:?} is not a regular expression: {e}"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        if config.policy_violations_max == 0 {
            return Err(PolicyError(
                "policy_violations_max must be at least 1 (the default is 3)".into(),
            ));
        }
        Ok(Policy {
            config: config.clone(),
            deny,
            confirm,
            windows,
        })
    }

    /// The configuration it was compiled from.
    pub fn config(&self) -> &PolicyConfig {
        &self.config
    }

    /// Refusals that end a run.
    pub fn violations_max(&self) -> u32 {
        self.config.policy_violations_max
    }

    /// Whether `allow_only_windows` is set (the caller must look up windows for the context).
    pub fn needs_windows(&self) -> bool {
        !self.windows.is_empty()
    }

    /// Whether it has no configured rule (it allows everything but what the built-in
    /// `work_area` rule refuses).
    pub fn is_empty(&self) -> bool {
        let c = &self.config;
        c.deny_regions.is_empty()
            && c.deny_keys.is_empty()
            && c.deny_text.is_empty()
            && c.allow_only_windows.is_empty()
            && !self.has_confirm()
    }

    /// Whether any `confirm` rule is set (a run needs someone to ask).
    pub fn has_confirm(&self) -> bool {
        let c = &self.config.confirm;
        !(c.regions.is_empty() && c.keys.is_empty() && c.text.is_empty())
    }

    /// What the policy does with `action` in `ctx`: the built-in `work_area` rule first, then
    /// a deny rule, then the windows allowed, then a confirm rule.
    pub fn check(&self, action: &Action, ctx: &Context) -> Verdict {
        if let Some(rule) = &ctx.work_area {
            return Verdict::Deny { rule: rule.clone() };
        }
        let kind = &action.kind;
        if let Some(rule) = self.deny.matched("deny_", kind, ctx) {
            return Verdict::Deny { rule };
        }
        if let Some(rule) = self.window_refusal(ctx) {
            return Verdict::Deny { rule };
        }
        match self.confirm.matched("confirm ", kind, ctx) {
            Some(rule) => Verdict::Confirm { rule },
            None => Verdict::Allow,
        }
    }

    /// `allow_only_windows`: the first point not on an allowed window.
    fn window_refusal(&self, ctx: &Context) -> Option<String> {
        if self.windows.is_empty() || ctx.points.is_empty() {
            return None;
        }
        let Some(windows) = &ctx.windows else {
            return Some(
                "allow_only_windows (the window under the point cannot be found here)".into(),
            );
        };
        for (i, p) in ctx.points.iter().enumerate() {
            let w = windows.get(i).cloned().flatten();
            let ok = w.as_ref().is_some_and(|w| {
                self.windows.iter().any(|re| {
                    [&w.class, &w.instance, &w.title]
                        .iter()
                        .any(|s| !s.is_empty() && re.is_match(s))
                })
            });
            if !ok {
                let on = match w {
                    Some(w) => format!("window {:?} (class {:?}) ", w.title, w.class),
                    None => "no window ".into(),
                };
                return Some(format!(
                    "allow_only_windows: pixel ({}, {}) is on {on}which matches none of {:?}",
                    p.x, p.y, self.config.allow_only_windows
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
