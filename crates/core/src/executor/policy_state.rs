//! The safety policy inside the executor (crates/core/src/policy.rs): every action that
//! touches the OS is checked before it runs, whatever command runs it. A refused action gets
//! a `policy_denied` error that names the rule and is not performed; `policy_violations_max`
//! refusals stop execution ([`ExecError::Policy`]). An action a `confirm` rule matches runs
//! only when the turn was confirmed (the engine's approval) or the [`Confirmer`] says yes.
//! The built-in `work_area` rule ([`super::fence`]) is always in force, also without a
//! configured policy: a pointer action is judged where it would land (an element's centre,
//! the pointer, the final pixel after calibration's test offset).

use super::{ExecError, Executor, touches_os};
use crate::action::{Action, ActionError, ActionKind, ErrorKind};
use crate::policy::{Context, Field, Policy, Verdict};
use franz_desktop::Desktop;

/// Asks a person whether an action a `confirm` rule matched may run: `(action, rule)`.
pub type Confirmer = Box<dyn FnMut(&Action, &str) -> bool + Send>;

/// The policy, the focused field as typing left it and the refusals counted.
#[derive(Default)]
pub(super) struct PolicyState {
    policy: Policy,
    /// The focused field's text as the actions so far left it.
    field: Field,
    violations: u32,
    confirmer: Option<Confirmer>,
    /// `confirm` verdicts pass without asking (a person approved the turn).
    confirmed: bool,
}

impl PolicyState {
    /// Notes an action that ran (what it did to the focused field).
    pub(super) fn performed(&mut self, kind: &ActionKind) {
        self.field = self.field.after(kind);
    }
}

/// A refusal: the action's error, and the stop when it was one too many.
type Refusal = (ActionError, Option<ExecError>);

impl Executor {
    /// The executor with a safety policy (the default allows everything).
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy_state.policy = policy;
        self
    }

    /// The executor with someone to ask about actions a `confirm` rule matches; without one
    /// (and without [`set_confirmed`](Self::set_confirmed)) they are not performed.
    pub fn with_confirmer(mut self, confirmer: Confirmer) -> Self {
        self.policy_state.confirmer = Some(confirmer);
        self
    }

    pub fn policy(&self) -> &Policy {
        &self.policy_state.policy
    }

    /// Whether the executor asks about `confirm` matches itself (a [`Confirmer`]), so that the
    /// engine need not hold the turn for an approval.
    pub fn has_confirmer(&self) -> bool {
        self.policy_state.confirmer.is_some()
    }

    /// Whether a person approved the coming actions (the engine's approval of a turn):
    /// `confirm` rules then let them through.
    pub fn set_confirmed(&mut self, yes: bool) {
        self.policy_state.confirmed = yes;
    }

    /// The policy's verdict on each action of a turn, in order, the focused field carried
    /// along as if each ran; nothing is performed.
    pub fn verdicts(&mut self, desktop: &mut dyn Desktop, actions: &[Action]) -> Vec<Verdict> {
        let mut field = self.policy_state.field.clone();
        let mut out = Vec::with_capacity(actions.len());
        for a in actions {
            let verdict = if self.judges(a) {
                let ctx = self.policy_context(desktop, a, field.clone());
                self.policy_state.policy.check(a, &ctx)
            } else {
                Verdict::Allow
            };
            field = field.after(&a.kind);
            out.push(verdict);
        }
        out
    }

    /// Whether the policy judges `action`: every action that touches the OS when a policy is
    /// configured, and every pointer action (the built-in `work_area` rule) in any case.
    fn judges(&self, action: &Action) -> bool {
        // an invalid action (e.g. `[-1, -1]`) gets its own error, not a refusal
        touches_os(&action.kind)
            && action.validate().is_ok()
            && (!self.policy_state.policy.is_empty()
                || action.kind.is_pointer()
                || action.element.is_some())
    }

    /// What the policy needs to judge `action`: its points (an element's centre; the pointer
    /// for an action at the pointer, not read in dry-run; shifted by the test-only offset)
    /// and, when `allow_only_windows` is set, the windows there.
    fn policy_context(&self, desktop: &mut dyn Desktop, action: &Action, field: Field) -> Context {
        let area = self.fence.area;
        // the screen is what configured regions are boxes of; `work_area` needs only the area
        let screen = if self.policy_state.policy.is_empty() {
            area.rect
        } else {
            desktop.monitor().rect
        };
        let pointed = self.pointed(action);
        let action = pointed.as_ref().unwrap_or(action);
        let mut ctx = Context::of(action, area, screen, None);
        let wanted = if matches!(action.kind, ActionKind::Drag { .. }) {
            2
        } else {
            1
        };
        if action.kind.is_pointer() && ctx.points.len() < wanted && !self.dry_run {
            ctx = Context::of(action, area, screen, desktop.pointer().ok());
        }
        let mut ctx = ctx.shifted(self.pixel_offset, area, action.kind.name());
        ctx.field = field;
        if self.policy_state.policy.needs_windows() {
            ctx.windows = ctx
                .points
                .iter()
                .map(|p| {
                    desktop
                        .window_at(*p)
                        .map_err(|e| tracing::warn!("window lookup: {e}"))
                })
                .collect::<Result<Vec<_>, ()>>()
                .ok();
        }
        ctx
    }

    /// Checks one action; `Some` when it must not run.
    pub(super) fn police(&mut self, desktop: &mut dyn Desktop, action: &Action) -> Option<Refusal> {
        if !self.judges(action) {
            return None;
        }
        let ctx = self.policy_context(desktop, action, self.policy_state.field.clone());
        let name = action.kind.name();
        match self.policy_state.policy.check(action, &ctx) {
            Verdict::Allow => None,
            Verdict::Confirm { .. } if self.policy_state.confirmed => None,
            Verdict::Confirm { rule } => {
                let yes = self
                    .policy_state
                    .confirmer
                    .as_mut()
                    .is_some_and(|c| c(action, &rule));
                if yes {
                    return None;
                }
                let e = ActionError::new(
                    ErrorKind::Rejected,
                    format!(
                        "{name}: the safety policy asks a person first ({rule}) and no one confirmed it: it was not performed"
                    ),
                );
                Some((e, None))
            }
            Verdict::Deny { rule } => {
                self.policy_state.violations += 1;
                let count = self.policy_state.violations;
                tracing::warn!(action = name, %rule, count, "refused by the safety policy");
                let e = ActionError::new(
                    ErrorKind::PolicyDenied,
                    format!(
                        "{name}: refused by the safety policy ({rule}); it was not performed: do it another way, or not at all"
                    ),
                );
                let stop = (count >= self.policy_state.policy.violations_max())
                    .then_some(ExecError::Policy { count, rule });
                Some((e, stop))
            }
        }
    }
}
