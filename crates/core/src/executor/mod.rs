//! The executor: performs [`Action`]s on a [`Desktop`], like a person would.
//!
//! - Coordinates go through the working-area [`fence`]; the pointer moves along a smoothstep
//!   path and clicks, typing and drags follow the [`motion`] profile's cadence.
//! - Per-action problems (an unknown key, empty text, `[-1,-1]`, one action too many for the
//!   turn, input the OS refused) become [`ActionResult::Error`]: they go back to the model.
//!   Only the [`failsafe`] and a dead desktop are fatal ([`ExecError`]).
//! - Dry-run: nothing reaches the OS (not even a pointer query); results are as if executed.
//! - Terminal actions (done, fail, ask_user, report_*) and observe are ok and do nothing here;
//!   `wait` sleeps its seconds (not in dry-run), watching the failsafe. A failsafe that trips
//!   inside an action gives that action its result (an error naming the failsafe) first.
//! - No input stays held: every button and key pressed down is tracked ([`held`]) and released
//!   at the end of each turn (each `execute_with` call), on any error, on Ctrl+C (the
//!   [`cancel`](Executor::with_cancel) token, checked during every wait and hold) and on the
//!   failsafe; the engine calls [`Executor::release_all`] when a run ends. `long_press`,
//!   `hold_key` and a key combo are one action each, so they run whole or are released whole.

mod elements;
pub mod failsafe;
pub mod fence;
pub mod held;
pub mod motion;
mod policy_state;
pub mod secret;
mod windows;

use crate::action::{Action, ActionError, ActionKind, ActionResult, ErrorKind, Warning};
use crate::cancel::Cancel;
use crate::geometry::WorkArea;
use crate::keys;
use fence::Fence;
use franz_desktop::{Button, Desktop, DesktopError, Key, PixelPoint, Press, ScrollDirection};
use held::{Held, HeldItem};
use motion::Motion;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

pub use failsafe::Tripped;
pub use motion::MotionProfile;
pub use policy_state::Confirmer;

/// The designs (docs/designs.md) cap the actions one model reply may ask for (`max_actions` in the
/// configuration, default 8); the rest are refused with `too_many_actions`.
pub const DEFAULT_MAX_ACTIONS_PER_TURN: usize = 8;

/// How the executor behaves. Every field has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExecConfig {
    /// Timing of input (the `human` profile by default).
    pub motion: Motion,
    /// Actions past this many in one `execute` call get a `too_many_actions` error.
    pub max_actions_per_turn: usize,
    /// Stop when the pointer is in the top-left corner and franz did not put it there.
    pub failsafe: bool,
    /// The environment variables `{secret:NAME}` may type besides `FRANZ_SECRET_*`
    /// (`secrets`; secret.rs).
    pub secrets: Vec<String>,
}

/// The settings table's defaults (`config/settings.rs`): human motion, 8 actions a turn, the
/// failsafe on. The mapping from the configuration is `Config::exec` (`config/parts.rs`).
impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            motion: Motion::human(),
            max_actions_per_turn: DEFAULT_MAX_ACTIONS_PER_TURN,
            failsafe: true,
            secrets: Vec::new(),
        }
    }
}

impl ExecConfig {
    /// The defaults with the given motion profile.
    pub fn with_profile(profile: MotionProfile) -> Self {
        ExecConfig {
            motion: Motion::of(profile),
            ..ExecConfig::default()
        }
    }
}

/// Why execution stopped. Everything else is a per-action [`ActionResult::Error`].
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The failsafe fired; the CLI exits 4.
    #[error(transparent)]
    Failsafe(#[from] Tripped),
    /// The desktop is gone (X server died, connection lost).
    #[error("the desktop stopped working: {0}")]
    Desktop(DesktopError),
    /// A button or key franz pressed could not be released.
    #[error(
        "cannot release {what} that franz pressed ({err}); it may still be held down: press and release it by hand"
    )]
    Release { what: String, err: DesktopError },
    /// The safety policy refused `policy_violations_max` actions; the CLI exits 4.
    #[error(
        "the safety policy refused {count} actions (policy_violations_max), the last by {rule}: stopped"
    )]
    Policy { count: u32, rule: String },
}

/// A per-action failure or a fatal one, inside the executor.
enum Fault {
    Action(ActionError),
    Fatal(ExecError),
    /// The failsafe tripped while an action ran (a wait, a hold, a drag, typing): the action
    /// gets its result (an error naming the failsafe), then the run stops.
    Midway(Tripped),
}

impl Fault {
    /// This fault, raised after the action began.
    fn midway(self) -> Fault {
        match self {
            Fault::Fatal(ExecError::Failsafe(t)) => Fault::Midway(t),
            other => other,
        }
    }
}

impl From<DesktopError> for Fault {
    fn from(e: DesktopError) -> Self {
        match e {
            // The OS refused this input (an unsupported key, an untypable character).
            DesktopError::Input(_) | DesktopError::Unsupported(_) => {
                Fault::Action(ActionError::new(ErrorKind::ExecutionFailed, e.to_string()))
            }
            other => Fault::Fatal(ExecError::Desktop(other)),
        }
    }
}

impl From<ActionError> for Fault {
    fn from(e: ActionError) -> Self {
        Fault::Action(e)
    }
}

/// Performs actions on a desktop, inside a working area.
pub struct Executor {
    fence: Fence,
    config: ExecConfig,
    dry_run: bool,
    /// Where franz last put the pointer (for the failsafe).
    placed: Option<PixelPoint>,
    /// The buttons and keys franz holds down now.
    held: Held,
    /// Set by Ctrl+C: waits and holds end early, the turn's remaining actions are skipped.
    cancel: Option<Cancel>,
    /// The exact target of the action being performed (docs/coordinates.md, "Exact targets").
    exact: Option<crate::exact_target::Exact>,
    /// The safety policy, its state and who confirms ([`policy_state`]).
    policy_state: policy_state::PolicyState,
    /// Test only (`franz calibrate --test-offset`): every pixel an action acts at is shifted
    /// by this much, a deliberately wrong mapping.
    pixel_offset: PixelPoint,
    /// This turn's grounding marks: what an action's `element` refers to.
    marks: Vec<crate::grounding::Mark>,
}

impl Executor {
    pub fn new(area: WorkArea, config: ExecConfig, dry_run: bool) -> Self {
        Executor {
            fence: Fence::new(area),
            config,
            dry_run,
            placed: None,
            held: Held::default(),
            cancel: None,
            exact: None,
            policy_state: policy_state::PolicyState::default(),
            pixel_offset: PixelPoint::new(0, 0),
            marks: Vec::new(),
        }
    }

    /// Test only: shifts every pixel an action acts at by `offset` (calibration's wrong
    /// mapping).
    pub fn with_pixel_offset(mut self, offset: PixelPoint) -> Self {
        self.pixel_offset = offset;
        self
    }

    /// This turn's area: the rectangle of the turn's observation, which every point of the
    /// turn maps through and the `work_area` rule fences (docs/coordinates.md).
    pub fn set_area(&mut self, area: WorkArea) {
        self.fence = Fence::new(area);
    }

    /// This turn's marks (grounding): the elements an action's `element` may refer to.
    pub fn set_marks(&mut self, marks: Vec<crate::grounding::Mark>) {
        self.marks = marks;
    }

    pub fn marks(&self) -> &[crate::grounding::Mark] {
        &self.marks
    }

    /// The executor with the run's cancel token (Ctrl+C): once it is set, a `wait`,
    /// `long_press` or `hold_key` stops at once (releasing what it holds) and the turn's
    /// remaining actions are not performed.
    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Replaces the cancel token (see [`Executor::with_cancel`]): a server that performs
    /// each call's action under the call's own token (`franz mcp`: a cancelled request stops
    /// its action).
    pub fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = Some(cancel);
    }

    /// The cancel token, if any.
    pub fn cancel_token(&self) -> Option<&Cancel> {
        self.cancel.as_ref()
    }

    fn interrupted(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
    }

    /// What cut an action short: `interrupted (SIGTERM)`.
    fn interrupted_by(&self) -> String {
        self.cancel
            .as_ref()
            .map_or_else(|| "interrupted".into(), Cancel::interrupted)
    }

    /// A motion pause inside an action: an error (the action stops there) when cancelled.
    fn pause(&self, ms: u64, what: &str) -> Result<(), Fault> {
        if ms > 0 {
            self.sleep(Duration::from_millis(ms));
        }
        if self.interrupted() {
            return Err(self.cut_short(what, "part way".into()));
        }
        Ok(())
    }

    /// The error of an action cut short by a cancel.
    fn cut_short(&self, what: &str, when: String) -> Fault {
        Fault::Action(ActionError::new(
            ErrorKind::ExecutionFailed,
            format!(
                "{what}: {} {when}; everything held was released",
                self.interrupted_by()
            ),
        ))
    }

    /// Sleeps `d`, waking at once when cancelled.
    fn sleep(&self, d: Duration) {
        match &self.cancel {
            Some(c) => {
                c.sleep(d);
            }
            None => std::thread::sleep(d),
        }
    }

    /// What franz holds down now (empty between turns).
    pub fn held(&self) -> &[HeldItem] {
        self.held.items()
    }

    /// Releases every button and key franz holds, last pressed first. Tries them all; what
    /// cannot be released stays in the set (for the next try) and the first failure is
    /// returned. Touches nothing when nothing is held (so never in dry-run).
    pub fn release_all(&mut self, desktop: &mut dyn Desktop) -> Result<(), ExecError> {
        if self.held.is_empty() {
            return Ok(());
        }
        let mut first = None;
        for item in self.held.release_order() {
            let sent = match item {
                HeldItem::Button(b) => desktop.input().button(b, Press::Up),
                HeldItem::Key(k) => desktop.input().key(k, Press::Up),
            };
            match sent {
                Ok(()) => self.held.note(item, Press::Up),
                Err(err) => {
                    tracing::error!(?item, "cannot release: {err}");
                    first.get_or_insert(ExecError::Release {
                        what: held_name(item),
                        err,
                    });
                }
            }
        }
        if let Err(err) = desktop.input().sync() {
            first.get_or_insert(ExecError::Desktop(err));
        }
        first.map_or(Ok(()), Err)
    }

    pub fn area(&self) -> WorkArea {
        self.fence.area
    }

    pub fn config(&self) -> &ExecConfig {
        &self.config
    }

    pub fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    /// Performs the actions of one turn in order and returns one result per action.
    pub fn execute(
        &mut self,
        desktop: &mut dyn Desktop,
        actions: &[Action],
    ) -> Result<Vec<ActionResult>, ExecError> {
        self.execute_with(desktop, actions, |_, _| {})
    }

    /// Like [`execute`](Self::execute), calling `on_result(index, result)` as soon as each
    /// action is done (before the delay that follows it).
    ///
    /// Nothing stays held across turns: a `mouse_down` and its `mouse_up` in the same call
    /// make a manual drag, but whatever is still held when the call ends (a `mouse_down`
    /// without its `mouse_up`), when an action fails, on Ctrl+C or on a fatal error is
    /// released before this returns.
    pub fn execute_with(
        &mut self,
        desktop: &mut dyn Desktop,
        actions: &[Action],
        mut on_result: impl FnMut(usize, &ActionResult),
    ) -> Result<Vec<ActionResult>, ExecError> {
        let outcome = self.perform_all(desktop, actions, &mut on_result);
        let released = self.release_all(desktop);
        let results = outcome?;
        released?;
        Ok(results)
    }

    /// Why action `i` of a turn is not performed, if it is not: franz was interrupted, or the
    /// turn's cap is reached.
    fn skipped(&self, i: usize, action: &Action) -> Option<ActionError> {
        if self.interrupted() {
            Some(ActionError::new(
                ErrorKind::ExecutionFailed,
                format!(
                    "{}: not performed: franz was {}",
                    action.kind.name(),
                    self.interrupted_by()
                ),
            ))
        } else if i >= self.config.max_actions_per_turn {
            Some(ActionError::new(
                ErrorKind::TooManyActions,
                format!(
                    "{}: at most {} actions per turn; this one was not performed",
                    action.kind.name(),
                    self.config.max_actions_per_turn
                ),
            ))
        } else {
            None
        }
    }

    /// The actions of one turn, in order, with the cap and the delays between them.
    fn perform_all(
        &mut self,
        desktop: &mut dyn Desktop,
        actions: &[Action],
        on_result: &mut impl FnMut(usize, &ActionResult),
    ) -> Result<Vec<ActionResult>, ExecError> {
        if let Some(results) = self.unknown_elements(actions) {
            for (i, r) in results.iter().enumerate() {
                on_result(i, r);
            }
            return Ok(results);
        }
        let mut results = Vec::with_capacity(actions.len());
        let mut touched_os = false;
        for (i, action) in actions.iter().enumerate() {
            let result = if let Some(skipped) = self.skipped(i, action) {
                ActionResult::Error(skipped)
            } else {
                if i > 0 && touched_os && !self.dry_run {
                    self.sleep(Duration::from_millis(self.config.motion.action_delay_ms));
                }
                // the failsafe first: a pointer slammed into the corner is a stop, never a
                // refusal (an action at that pointer would be outside a crop)
                if touches_os(&action.kind)
                    && let Err(Fault::Fatal(e)) = self.check_failsafe(desktop)
                {
                    return Err(e);
                }
                if let Some((refusal, stop)) = self.police(desktop, action) {
                    let result = ActionResult::Error(refusal);
                    on_result(i, &result);
                    if let Some(stop) = stop {
                        return Err(stop);
                    }
                    results.push(result);
                    continue;
                }
                self.exact = action.exact;
                let performed = self.perform_action(desktop, action);
                self.exact = None;
                match performed {
                    Ok(mut warnings) => {
                        touched_os |= touches_os(&action.kind);
                        self.policy_state.performed(&action.kind);
                        if let Some(note) = &action.clamped {
                            warnings.insert(0, clamped_warning(note));
                        }
                        ActionResult::Ok { warnings }
                    }
                    Err(Fault::Action(e)) => {
                        // a failed action releases everything at once: a combo cut short must
                        // not leave ctrl down for the next action
                        self.release_all(desktop)?;
                        ActionResult::Error(e)
                    }
                    Err(Fault::Fatal(e)) => return Err(e),
                    Err(Fault::Midway(t)) => {
                        let e = ActionError::new(
                            ErrorKind::ExecutionFailed,
                            format!("{}: stopped part way: {t}", action.kind.name()),
                        );
                        on_result(i, &ActionResult::Error(e));
                        return Err(ExecError::Failsafe(t));
                    }
                }
            };
            tracing::debug!(action = action.kind.name(), ?result, "executed");
            on_result(i, &result);
            results.push(result);
        }
        if touched_os && !self.dry_run {
            self.sleep(Duration::from_millis(self.config.motion.ui_settle_ms));
        }
        Ok(results)
    }

    /// One action, without the per-turn cap or the delays between actions. The failsafe is
    /// checked before it begins (a trip there is fatal, the action never ran) and while it runs
    /// ([`Fault::Midway`]: the action gets its result, then the run stops).
    fn perform(
        &mut self,
        desktop: &mut dyn Desktop,
        kind: &ActionKind,
    ) -> Result<Vec<Warning>, Fault> {
        kind.validate()?;
        if !kind.is_terminal() && !matches!(kind, ActionKind::ReportProgress { .. }) {
            self.check_failsafe(desktop)?;
        }
        self.perform_checked(desktop, kind).map_err(Fault::midway)
    }

    /// The body of [`perform`](Self::perform), once the action is valid and the failsafe quiet.
    fn perform_checked(
        &mut self,
        desktop: &mut dyn Desktop,
        kind: &ActionKind,
    ) -> Result<Vec<Warning>, Fault> {
        let mut warnings = Vec::new();
        match kind {
            ActionKind::Type { text } => {
                // a secret is resolved here, at execution, and kept nowhere
                let text = secret::resolve(text, &self.config.secrets)?;
                if !self.dry_run {
                    self.type_text(desktop, &text)?;
                }
            }
            ActionKind::Key { keys } | ActionKind::HoldKey { keys, .. } => {
                self.press_combo(desktop, kind, keys)?
            }
            ActionKind::Wait { seconds } => {
                if !self.dry_run {
                    // the failsafe is watched during the wait too: a trip ends it with an error
                    // result, and the run stops (tests/act.rs)
                    self.hold(desktop, *seconds, kind.name())?;
                }
            }
            ActionKind::ListWindows => {
                warnings.push(windows::list(desktop, self.area(), self.dry_run)?)
            }
            ActionKind::FocusWindow { window } => {
                warnings.push(windows::focus(desktop, window, self.area(), self.dry_run)?)
            }
            ActionKind::Observe
            | ActionKind::Done { .. }
            | ActionKind::Fail { .. }
            | ActionKind::AskUser { .. }
            | ActionKind::ReportProgress { .. }
            | ActionKind::ReportCompletion { .. } => {}
            _ => self.perform_pointer(desktop, kind, &mut warnings)?,
        }
        if touches_os(kind) && !self.dry_run {
            desktop.input().sync()?;
        }
        Ok(warnings)
    }

    /// A pointer action: a move, a click, a press or release, a long press, a drag or a scroll.
    fn perform_pointer(
        &mut self,
        desktop: &mut dyn Desktop,
        kind: &ActionKind,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), Fault> {
        match kind {
            ActionKind::Move { x, y } => {
                let p = self.at(desktop, *x, *y, kind.name(), warnings)?;
                self.move_to(desktop, p)?;
            }
            ActionKind::Click { x, y } => {
                self.click(desktop, *x, *y, Button::Left, 1, kind, warnings)?
            }
            ActionKind::RightClick { x, y } => {
                self.click(desktop, *x, *y, Button::Right, 1, kind, warnings)?
            }
            ActionKind::MiddleClick { x, y } => {
                self.click(desktop, *x, *y, Button::Middle, 1, kind, warnings)?
            }
            ActionKind::DoubleClick { x, y } => {
                self.click(desktop, *x, *y, Button::Left, 2, kind, warnings)?
            }
            ActionKind::TripleClick { x, y } => {
                self.click(desktop, *x, *y, Button::Left, 3, kind, warnings)?
            }
            ActionKind::MouseDown { x, y, button } | ActionKind::MouseUp { x, y, button } => {
                let p = self.at(desktop, *x, *y, kind.name(), warnings)?;
                self.move_to(desktop, p)?;
                let press = if matches!(kind, ActionKind::MouseDown { .. }) {
                    Press::Down
                } else {
                    Press::Up
                };
                if !self.dry_run {
                    self.pause(self.config.motion.click_settle_ms, kind.name())?;
                    self.button(desktop, *button, press)?;
                }
            }
            ActionKind::LongPress { x, y, seconds } => {
                let p = self.at(desktop, *x, *y, kind.name(), warnings)?;
                self.move_to(desktop, p)?;
                if !self.dry_run {
                    self.pause(self.config.motion.click_settle_ms, kind.name())?;
                    self.button(desktop, Button::Left, Press::Down)?;
                    self.hold(desktop, *seconds, kind.name())?;
                    self.button(desktop, Button::Left, Press::Up)?;
                }
            }
            ActionKind::Drag { x, y, x2, y2 } => {
                let from = self.at(desktop, *x, *y, "drag start", warnings)?;
                let (to, w) = match self.exact.and_then(|e| e.to.map(|p| (e, p))) {
                    Some((e, p)) => self.fence.exact(&e, p, "drag end"),
                    None => self.fence.point(*x2, *y2, "drag end"),
                };
                warnings.extend(w);
                self.drag(desktop, from, to)?;
            }
            ActionKind::Scroll {
                x,
                y,
                direction,
                amount,
            } => {
                let p = self.at(desktop, *x, *y, kind.name(), warnings)?;
                self.move_to(desktop, p)?;
                self.scroll_notches(desktop, *direction, *amount)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Turns the wheel `amount` notches, notch by notch: a cancel stops it part way.
    fn scroll_notches(
        &mut self,
        desktop: &mut dyn Desktop,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<(), Fault> {
        if self.dry_run {
            return Ok(());
        }
        for turned in 0..amount {
            if self.interrupted() {
                let when = format!("after {turned} of {amount} notches");
                return Err(self.cut_short("scroll", when));
            }
            desktop.input().scroll(direction, 1)?;
        }
        Ok(())
    }

    /// A key combination pressed in order and released in reverse, held for a `hold_key`.
    fn press_combo(
        &mut self,
        desktop: &mut dyn Desktop,
        kind: &ActionKind,
        keys: &str,
    ) -> Result<(), Fault> {
        let m = self.config.motion;
        let combo = keys::parse_combo(keys)
            .map_err(|e| ActionError::new(ErrorKind::InvalidKey, e.to_string()))?;
        if self.dry_run {
            return Ok(());
        }
        // a key failing half-way returns here with the first keys still down:
        // `execute_with` releases them (and everything else held) at once
        for (i, k) in combo.keys.iter().enumerate() {
            if i > 0 {
                self.pause(m.key_delay_ms, kind.name())?;
            }
            self.key(desktop, *k, Press::Down)?;
        }
        if let ActionKind::HoldKey { seconds, .. } = kind {
            self.hold(desktop, *seconds, kind.name())?;
        }
        for k in combo.keys.iter().rev() {
            // the release goes on even when cancelled: execute_with releases too
            self.sleep(Duration::from_millis(m.key_delay_ms));
            self.key(desktop, *k, Press::Up)?;
        }
        Ok(())
    }

    /// Presses or releases a button, noting what is held.
    fn button(
        &mut self,
        desktop: &mut dyn Desktop,
        button: Button,
        press: Press,
    ) -> Result<(), Fault> {
        desktop.input().button(button, press)?;
        self.held.note(HeldItem::Button(button), press);
        Ok(())
    }

    /// Presses or releases a key, noting what is held.
    fn key(&mut self, desktop: &mut dyn Desktop, key: Key, press: Press) -> Result<(), Fault> {
        desktop.input().key(key, press)?;
        self.held.note(HeldItem::Key(key), press);
        Ok(())
    }

    /// Waits `seconds` in short steps (a `wait`, a long press, a held key): Ctrl+C ends the
    /// wait with an error (the caller's `execute_with` then releases what is held) and the
    /// failsafe is checked at every step, so no wait outlasts the person's corner slam.
    fn hold(&mut self, desktop: &mut dyn Desktop, seconds: f64, what: &str) -> Result<(), Fault> {
        const STEP: Duration = Duration::from_millis(50);
        let start = Instant::now();
        let end = start + Duration::from_secs_f64(seconds);
        loop {
            if self.interrupted() {
                let when = format!("after {:.1} of {seconds} s", start.elapsed().as_secs_f64());
                return Err(self.cut_short(what, when));
            }
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            self.sleep((end - now).min(STEP));
            self.check_failsafe(desktop)?;
        }
    }

    fn check_failsafe(&mut self, desktop: &mut dyn Desktop) -> Result<(), Fault> {
        if self.dry_run || !self.config.failsafe {
            return Ok(());
        }
        let pointer = match desktop.pointer() {
            Ok(p) => p,
            Err(DesktopError::Unsupported(what)) => {
                tracing::warn!("failsafe off: cannot read the pointer ({what})");
                return Ok(());
            }
            Err(e) => return Err(Fault::Fatal(ExecError::Desktop(e))),
        };
        let monitor = desktop.monitor().rect;
        failsafe::check(pointer, monitor, self.placed).map_err(|t| Fault::Fatal(t.into()))
    }

    /// The pixel an action acts at: its point through the fence, or the pointer (fenced).
    /// `None` in dry-run when the action acts at the pointer.
    fn at(
        &mut self,
        desktop: &mut dyn Desktop,
        x: Option<i32>,
        y: Option<i32>,
        what: &str,
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<PixelPoint>, Fault> {
        let exact = self.exact.and_then(|e| e.at.map(|p| (e, p)));
        let (p, w) = match (x, y) {
            (Some(x), Some(y)) => match exact {
                Some((e, p)) => self.fence.exact(&e, p, what),
                None => self.fence.point(x, y, what),
            },
            _ if self.dry_run => return Ok(None),
            _ => {
                let pointer = desktop.pointer()?;
                self.fence.pixel(pointer, what)
            }
        };
        warnings.extend(w);
        let o = self.pixel_offset;
        Ok(Some(PixelPoint::new(p.x + o.x, p.y + o.y)))
    }

    /// Moves the pointer to `p` along the profile's path (nothing in dry-run or for `None`).
    fn move_to(&mut self, desktop: &mut dyn Desktop, p: Option<PixelPoint>) -> Result<(), Fault> {
        let Some(p) = p else { return Ok(()) };
        if self.dry_run {
            self.placed = Some(p);
            return Ok(());
        }
        let m = self.config.motion;
        let from = if m.move_steps > 0 {
            desktop.pointer().ok()
        } else {
            None
        };
        match from {
            Some(from) if from != p => {
                for q in motion::path(from, p, m.move_steps) {
                    // the failsafe is watched along a stepped move (a drag's approach too)
                    self.check_failsafe(desktop)?;
                    desktop.input().move_to(q)?;
                    self.placed = Some(q);
                    self.pause(m.move_step_delay_ms, "move")?;
                }
            }
            _ => desktop.input().move_to(p)?,
        }
        self.placed = Some(p);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn click(
        &mut self,
        desktop: &mut dyn Desktop,
        x: Option<i32>,
        y: Option<i32>,
        button: Button,
        times: u32,
        kind: &ActionKind,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), Fault> {
        let p = self.at(desktop, x, y, kind.name(), warnings)?;
        self.move_to(desktop, p)?;
        if self.dry_run {
            return Ok(());
        }
        let m = self.config.motion;
        self.pause(m.click_settle_ms, kind.name())?;
        for i in 0..times {
            if i > 0 {
                self.pause(m.click_interval_ms, kind.name())?;
            }
            desktop.input().button(button, Press::Click)?;
        }
        Ok(())
    }

    /// Press at `from`, N moves to `to`, release there. Both ends are fenced, so every point
    /// of the straight path between them is inside the working area.
    fn drag(
        &mut self,
        desktop: &mut dyn Desktop,
        from: Option<PixelPoint>,
        to: PixelPoint,
    ) -> Result<(), Fault> {
        self.move_to(desktop, from)?;
        if self.dry_run {
            self.placed = Some(to);
            return Ok(());
        }
        let m = self.config.motion;
        let from = match from {
            Some(p) => p,
            None => desktop.pointer()?,
        };
        self.pause(m.click_settle_ms, "drag")?;
        self.button(desktop, Button::Left, Press::Down)?;
        for q in motion::path(from, to, m.drag_steps.max(1)) {
            // a cancel or the failsafe mid-drag ends it; execute_with releases the button
            self.pause(m.drag_step_delay_ms, "drag")?;
            self.check_failsafe(desktop)?;
            desktop.input().move_to(q)?;
            self.placed = Some(q);
        }
        self.pause(m.click_settle_ms, "drag")?;
        self.button(desktop, Button::Left, Press::Up)?;
        Ok(())
    }

    /// Types `text`: character by character at the motion's cadence, or in pieces of
    /// [`FAST_PIECE`] characters when the motion has none (`fast`). The failsafe and Ctrl+C are
    /// watched between characters (between pieces on the fast path), so a long word typed on
    /// does not outlast the person's corner slam.
    fn type_text(&mut self, desktop: &mut dyn Desktop, text: &str) -> Result<(), Fault> {
        let m = self.config.motion;
        if m.types_in_one_go() {
            return self.type_pieces(desktop, text);
        }
        let mut buf = [0u8; 4];
        for (typed, c) in text.chars().enumerate() {
            if self.interrupted() {
                return Err(self.cut_short("type", format!("after {typed} characters")));
            }
            if typed > 0 {
                self.check_failsafe(desktop)?;
            }
            desktop.input().text(c.encode_utf8(&mut buf))?;
            self.pause(m.char_pause_ms(), "type")?;
            if c == ' ' || c == '\n' {
                self.pause(m.word_delay_ms, "type")?;
            }
        }
        Ok(())
    }

    /// The fast path of [`Executor::type_text`]: pieces of [`FAST_PIECE`] characters, the
    /// failsafe and Ctrl+C watched between them.
    fn type_pieces(&mut self, desktop: &mut dyn Desktop, text: &str) -> Result<(), Fault> {
        let mut typed = 0;
        let mut rest = text;
        while !rest.is_empty() {
            if self.interrupted() {
                return Err(self.cut_short("type", format!("after {typed} characters")));
            }
            if typed > 0 {
                self.check_failsafe(desktop)?;
            }
            let end = rest
                .char_indices()
                .nth(FAST_PIECE)
                .map_or(rest.len(), |(i, _)| i);
            desktop.input().text(&rest[..end])?;
            typed += FAST_PIECE;
            rest = &rest[end..];
        }
        Ok(())
    }
}

/// How many characters the fast path types between two looks at the failsafe.
const FAST_PIECE: usize = 16;

/// How a held item is named in messages: `the left button`, `the key ctrl`.
fn held_name(item: HeldItem) -> String {
    match item {
        HeldItem::Button(b) => format!("the {} button", format!("{b:?}").to_lowercase()),
        HeldItem::Key(k) => format!("the key {}", keys::key_name(k)),
    }
}

/// Whether an action sends input to the OS.
/// The kind of warning an action whose point the parser took for the edge of the model's
/// space carries in its result (docs/coordinates.md, "Out-of-range values").
pub const CLAMPED: &str = "clamped";

/// The warning of an action's `clamped` note.
fn clamped_warning(note: &str) -> Warning {
    Warning {
        kind: CLAMPED.into(),
        message: note.to_string(),
    }
}

fn touches_os(kind: &ActionKind) -> bool {
    !(kind.is_bookkeeping() || matches!(kind, ActionKind::ListWindows))
}

#[cfg(test)]
mod tests;
