//! Early execution: with a streamed reply, the turn's first action is performed as
//! soon as it is complete ([`crate::parser::stream::StreamReader`]), while the rest of the
//! reply (the story) still arrives.
//!
//! Only when the strategy takes that action whatever the rest says
//! ([`crate::strategy::Strategy::early_reading`]: the narrative strategy's text;
//! [`crate::strategy::Strategy::early_call`]: the tools strategy's first tool call, complete
//! once the next call began or the finish reason came), never when approval
//! or a `confirm` rule must see the whole reply first, and never for `done`, `fail`,
//! `ask_user` or `report_completion`, which need the complete reply. The action goes through the
//! executor as any other (policy, fence, failsafe); its results and events are kept and given
//! out where the turn gives them without early execution (after `model_reply`), so the turn's
//! records and events are the same, plus `early_exec_ms_saved`. When the whole reply's first
//! action is another one (a reply that turned out malformed), the performed action stands and
//! the difference is one of the reply's problems. A reply cut off at max_tokens performs nothing
//! (strategy/finish.rs), but an action that ran before the cut was known stands: it is recorded
//! as the turn's action and the model is told.
//!
//! The action runs inside the stream's progress callback, on the engine's thread: the socket
//! (and the server) buffer the rest of the reply meanwhile, nothing else reads it, and the
//! executor and the desktop stay on the one thread that owns them. A thread would save at
//! most the action's own time (a few ms with the fast profile) and would need the desktop
//! shared across threads.

use super::{Engine, Stop};
use crate::action::{Action, ActionKind, ActionResult};
use crate::executor::{ExecError, Executor};
use crate::model::{ChatRequest, Progress, Reply};
use crate::observe::Screenshot;
use crate::parser::stream::StreamReader;
use crate::strategy::{Reading, Strategy, TurnContext};
use franz_desktop::Desktop;
use std::time::Instant;

/// What [`Engine::act`] makes of a turn's actions: each result as it came (index, result,
/// ms) and the executor's outcome.
pub(super) type Performed = (
    Vec<(usize, ActionResult, f64)>,
    Result<Vec<ActionResult>, ExecError>,
);

/// An action performed while the reply streamed.
pub(super) struct Ran {
    pub action: Action,
    pub performed: Performed,
    started: Instant,
    /// How long before the whole reply had been read the action started.
    pub saved_ms: f64,
}

/// Whether an action may run before the whole reply is read.
fn may_run_early(kind: &ActionKind) -> bool {
    !matches!(
        kind,
        ActionKind::Done { .. }
            | ActionKind::Fail { .. }
            | ActionKind::AskUser { .. }
            | ActionKind::ReportCompletion { .. }
    )
}

/// Performs `actions` with the executor, keeping each result with its time.
pub(super) fn perform(
    executor: &mut Executor,
    desktop: &mut dyn Desktop,
    actions: &[Action],
) -> Performed {
    let mut events = Vec::new();
    let mut last = Instant::now();
    let outcome = executor.execute_with(desktop, actions, |i, r| {
        let ms = last.elapsed().as_secs_f64() * 1000.0;
        last = Instant::now();
        events.push((i, r.clone(), ms));
    });
    (events, outcome)
}

/// Reads the stream; performs its first action once (see the module doc).
struct Early<'x> {
    /// The content's reader; `None` when the strategy reads no text early.
    reader: Option<StreamReader>,
    strategy: &'x dyn Strategy,
    ctx: &'x TurnContext<'x>,
    ran: Option<Ran>,
    /// The first action must wait for the whole reply (`done`, or a tool call the strategy
    /// does not take early): nothing runs early.
    waits: bool,
    executor: &'x mut Executor,
    desktop: &'x mut dyn Desktop,
}

impl Early<'_> {
    fn progress(&mut self, p: Progress<'_>) {
        if self.ran.is_some() || self.waits {
            return;
        }
        let action = match p {
            Progress::Retry(_) => return self.reader.iter_mut().for_each(StreamReader::reset),
            Progress::Delta(d) => match self.reader.as_mut().and_then(|r| r.push(d)) {
                Some(a) => a,
                None => return,
            },
            // the reply's first call: the strategy takes it early, or nothing runs early
            Progress::ToolCall(call) => match self.strategy.early_call(call, self.ctx) {
                Some(a) => a,
                None => {
                    self.waits = true;
                    return;
                }
            },
        };
        // a target in words waits for the grounding model (`grounded.rs`)
        if !may_run_early(&action.kind) || action.target.is_some() {
            self.waits = true;
            return;
        }
        let started = Instant::now();
        tracing::debug!("early execution: {}", action.kind.name());
        let performed = perform(self.executor, self.desktop, std::slice::from_ref(&action));
        self.ran = Some(Ran {
            action,
            performed,
            started,
            saved_ms: 0.0,
        });
    }
}

impl Engine<'_> {
    /// Whether this turn's first action may run before the whole reply is read.
    fn acts_early(&self) -> bool {
        self.options.stream
            && self.options.early_exec
            && !self.controls.approve_mode()
            && !self.executor.policy().has_confirm()
    }

    /// Asks the model, performing the reply's first action as soon as it is complete when the
    /// turn may act early; `sent` is the image the model is sent (its coordinates' space).
    pub(super) fn ask_early(
        &mut self,
        turn: u32,
        request: &ChatRequest,
        ctx: &TurnContext<'_>,
        sent: &Screenshot,
    ) -> Result<(Reply, Option<Ran>), Stop> {
        if !self.acts_early() {
            return self.channel().ask(turn, request).map(|r| (r, None));
        }
        let ctx = TurnContext {
            screenshot: sent,
            ..*ctx
        };
        let mut early = Early {
            reader: self
                .strategy
                .early_reading(&ctx)
                .and_then(StreamReader::new),
            strategy: self.strategy.as_ref(),
            ctx: &ctx,
            ran: None,
            waits: false,
            executor: &mut self.executor,
            desktop: &mut *self.desktop,
        };
        let mut channel = super::Channel {
            writer: &mut self.writer,
            subscribers: &mut self.subscribers,
            model: &self.model,
            cancel: &self.cancel,
            controls: &self.controls,
            context: &self.options.context,
            spent: &mut self.spent,
            learned: &mut self.learned_context,
            calibration: &mut self.calibration,
        };
        let asked = channel.ask_with(turn, request, &mut |p| early.progress(p));
        let ran = early.ran.map(|mut ran| {
            ran.saved_ms = ran.started.elapsed().as_secs_f64() * 1000.0;
            ran
        });
        match asked {
            Ok(reply) => Ok((reply, ran)),
            Err(stop) => {
                // the action happened: it is recorded although the reply never completed
                if let Some(ran) = ran {
                    self.record_orphan(turn, ran);
                }
                Err(stop)
            }
        }
    }

    /// Records an action performed early whose reply then failed (the server broke off, the
    /// run was stopped): its result events and a note, so that nothing done goes unsaid.
    fn record_orphan(&mut self, turn: u32, ran: Ran) {
        let (events, _) = ran.performed;
        for (index, result, ms) in events {
            self.emit(
                turn,
                crate::event::EventKind::ActionResult {
                    index,
                    action: ran.action.clone(),
                    result,
                    ms,
                    early_exec_ms_saved: Some(ran.saved_ms),
                },
            );
        }
        let text = format!(
            "{} was performed as soon as it was complete, then the reply failed; it stands",
            serde_json::to_string(&ran.action).unwrap_or_default()
        );
        self.emit(turn, crate::event::EventKind::Note { text });
    }
}

/// The whole reply read: the action performed early is the turn's one. When the reading's
/// first action is another, the performed one stands and the difference is a problem. When
/// the reply was cut off at max_tokens (`cut`), which performs nothing (strategy/finish.rs),
/// the performed one stands too: it ran before the cut was known, and the model is told.
pub(super) fn settle(reading: &mut Reading, ran: &Ran, cut: bool) {
    if cut {
        use crate::strategy::finish::CUT_OFF;
        reading.errors.retain(|e| !e.starts_with(CUT_OFF));
        reading.errors.push(format!(
            "{CUT_OFF}: {} had already been performed as soon as it was complete, before the cut was known, and it stands; nothing else in the reply was performed, and it is not a final answer; write less (or raise max_tokens)",
            serde_json::to_string(&ran.action).unwrap_or_default()
        ));
        reading.actions = vec![ran.action.clone()];
        return;
    }
    if reading.actions.first() == Some(&ran.action) {
        reading.actions.truncate(1);
        return;
    }
    let whole = match reading.actions.first() {
        Some(a) => format!(
            "reads {} first",
            serde_json::to_string(a).unwrap_or_default()
        ),
        None => "holds no action".to_string(),
    };
    reading.errors.push(format!(
        "the reply turned out malformed: {} was performed as soon as it was complete, but the whole reply {whole}; the performed action stands",
        serde_json::to_string(&ran.action).unwrap_or_default()
    ));
    reading.actions = vec![ran.action.clone()];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_different_whole_reply_leaves_the_performed_action_and_a_problem() {
        let click: Action = ActionKind::Key { keys: "a".into() }.into();
        let other: Action = ActionKind::Key { keys: "b".into() }.into();
        let ran = Ran {
            action: click.clone(),
            performed: (Vec::new(), Ok(vec![ActionResult::ok()])),
            started: Instant::now(),
            saved_ms: 1.0,
        };
        let mut same = Reading {
            actions: vec![click.clone()],
            ..Reading::default()
        };
        settle(&mut same, &ran, false);
        assert!(same.errors.is_empty(), "{same:?}");
        let mut differs = Reading {
            actions: vec![other],
            ..Reading::default()
        };
        settle(&mut differs, &ran, false);
        assert_eq!(differs.actions, vec![click]);
        assert!(differs.errors[0].contains("malformed"), "{differs:?}");
        assert!(!may_run_early(&ActionKind::Done { text: "x".into() }));
    }

    #[test]
    fn an_action_performed_before_the_cut_stands_and_the_model_is_told() {
        let key: Action = ActionKind::Key { keys: "a".into() }.into();
        let ran = Ran {
            action: key.clone(),
            performed: (Vec::new(), Ok(vec![ActionResult::ok()])),
            started: Instant::now(),
            saved_ms: 1.0,
        };
        let mut cut = Reading {
            errors: vec![crate::strategy::finish::cut_off_problem()],
            ..Reading::default()
        };
        settle(&mut cut, &ran, true);
        assert_eq!(cut.actions, vec![key]);
        assert_eq!(cut.errors.len(), 1, "{cut:?}");
        assert!(
            cut.errors[0].contains("already been performed") && cut.errors[0].contains("cut off"),
            "{cut:?}"
        );
    }
}
