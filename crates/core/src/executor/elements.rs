//! Element references (`element=7`, grounding): an action that names a mark of this turn acts
//! at the mark's box centre (a click of any kind, or a `move` to hover it); `type` with an
//! element clicks it first. A mark that does not exist
//! this turn is the action's error, never a guess, and then no action of the turn is performed.

use super::{Executor, Fault};
use crate::action::{Action, ActionError, ActionKind, ActionResult, ErrorKind, Warning};
use crate::grounding;
use franz_desktop::Desktop;

impl Executor {
    /// One result per action when an action names a mark this turn does not have (that action
    /// says which; the others were not performed); `None` when every reference resolves.
    pub(super) fn unknown_elements(&self, actions: &[Action]) -> Option<Vec<ActionResult>> {
        let (bad, message) = actions.iter().enumerate().find_map(|(i, a)| {
            let id = a.element?;
            grounding::resolve(&self.marks, id).err().map(|m| (i, m))
        })?;
        let results = actions
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let text = if i == bad {
                    format!("{}: {message}; nothing was done", a.kind.name())
                } else {
                    format!(
                        "{}: not performed: action {} names an element that does not exist",
                        a.kind.name(),
                        bad + 1
                    )
                };
                ActionResult::Error(ActionError::new(ErrorKind::InvalidValue, text))
            })
            .collect();
        Some(results)
    }

    /// Performs `action`, at its element's centre when it names one.
    pub(super) fn perform_action(
        &mut self,
        desktop: &mut dyn Desktop,
        action: &Action,
    ) -> Result<Vec<Warning>, Fault> {
        // a target in words acts only at the point a grounding model found for it
        // (docs/grounding.md): never at the pointer
        if action.target.is_some() && action.kind.point().is_none() {
            return Err(Fault::Action(ActionError::new(
                ErrorKind::InvalidCoordinate,
                format!(
                    "{}: the target {:?} has no point: no grounding model found it; nothing was done",
                    action.kind.name(),
                    action.target.as_deref().unwrap_or_default()
                ),
            )));
        }
        let Some(id) = action.element else {
            return self.perform(desktop, &action.kind);
        };
        let (x, y) = grounding::resolve(&self.marks, id).map_err(|m| {
            Fault::Action(ActionError::new(
                ErrorKind::InvalidValue,
                format!("{}: {m}", action.kind.name()),
            ))
        })?;
        let Some(kind) = at_element(&action.kind, x, y) else {
            return Err(Fault::Action(ActionError::new(
                ErrorKind::InvalidAction,
                format!(
                    "{}: takes no element; element=N goes with clicks, move and type",
                    action.kind.name()
                ),
            )));
        };
        if let ActionKind::Type { .. } = action.kind {
            let mut w = self.perform(desktop, &kind)?;
            w.extend(self.perform(desktop, &action.kind)?);
            return Ok(w);
        }
        self.perform(desktop, &kind)
    }

    /// `action` with the point its element names this turn written into `element_at`, for
    /// the run log (replay acts there); unchanged without an element, or with one this turn
    /// does not have.
    pub fn with_element_at(&self, action: &Action) -> Action {
        let mut out = action.clone();
        if let Some(id) = action.element {
            out.element_at = grounding::resolve(&self.marks, id)
                .ok()
                .map(|(x, y)| [x, y]);
        }
        out
    }

    /// The pointer action the safety policy judges for `action`: with an element of this
    /// turn, the action at the element's centre (the click before a `type`); else `None`.
    pub(super) fn pointed(&self, action: &Action) -> Option<Action> {
        let (x, y) = grounding::resolve(&self.marks, action.element?).ok()?;
        at_element(&action.kind, x, y).map(Action::from)
    }
}

/// `kind` acting at `(x, y)`, an element's centre: a click for `type` (the click before the
/// typing); `None` for a kind that takes no element.
fn at_element(kind: &ActionKind, x: i32, y: i32) -> Option<ActionKind> {
    let (x, y) = (Some(x), Some(y));
    Some(match kind {
        ActionKind::Type { .. } | ActionKind::Click { .. } => ActionKind::Click { x, y },
        ActionKind::RightClick { .. } => ActionKind::RightClick { x, y },
        ActionKind::MiddleClick { .. } => ActionKind::MiddleClick { x, y },
        ActionKind::DoubleClick { .. } => ActionKind::DoubleClick { x, y },
        ActionKind::TripleClick { .. } => ActionKind::TripleClick { x, y },
        ActionKind::Move { .. } => ActionKind::Move { x, y },
        _ => return None,
    })
}
