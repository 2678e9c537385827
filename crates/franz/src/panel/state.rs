//! What the panel knows about the run: the latest view (`GET /state`), fed by the session's
//! events, the latest screenshot (`GET /screenshot?seq=N`, taken from the session on each
//! `observation`; `/state` carries only its seq and size), and the events behind `/events`
//! (fanout.rs: one queue per client, bounded by bytes). Commands go to the run as ops on its [`SessionHandle`].

use franz_core::action::{Action, ActionResult};
use franz_core::engine::{SessionHandle, ShownScreenshot};
use franz_core::event::{Event, EventKind};
use franz_core::geometry::NormBox;
use franz_core::observe::StageTimings;
use franz_core::turn_tokens::{Sums, Tally, thousands};
use serde::Serialize;
use std::sync::{Arc, Mutex, MutexGuard};

/// The body of `GET /state` (the vision loop's fields, docs/designs.md, plus franz's).
#[derive(Debug, Clone, Default, Serialize)]
pub struct View {
    pub phase: String,
    pub error: Option<String>,
    pub turn: u32,
    /// Events seen so far; changes whenever anything does.
    pub msg_id: u64,
    /// The seq (turn) waiting for an annotated image or a decision.
    pub pending_seq: Option<u32>,
    pub annotated_seq: Option<u32>,
    /// The latest screenshot's seq (0: none yet; the image itself is `GET /screenshot?seq=N`)
    /// and its size: an annotated image must have this size.
    pub image_seq: u32,
    pub image_width: u32,
    pub image_height: u32,
    pub bboxes: Vec<NormBox>,
    pub actions: Vec<Action>,
    pub results: Vec<ActionResult>,
    pub observation: String,
    pub vlm_json: String,
    pub paused: bool,
    /// `approval`, `annotation` or `answer` while the engine waits for a person.
    pub awaiting: Option<String>,
    /// The model's question while `awaiting` is `answer`.
    pub question: Option<String>,
    pub annotate_mode: bool,
    pub approve_mode: bool,
    /// What the latest screenshot shows when it is a window, or why a window asked for is
    /// not shown (`observe_area`, docs/coordinates.md); `None` for the working area.
    pub area: Option<String>,
    /// The last turn's milliseconds: observation stages, model, act.
    pub timings: Timings,
    pub finished: Option<String>,
    /// The loop breaker's last word (`loop_detected`), e.g. `click ... on turns [1, 2]`.
    pub loop_detected: Option<String>,
    /// The last zoom-in refinement (`refined`, docs/refine.md): both points and their distance.
    pub refined: Option<String>,
    /// The grounding model's last point (`grounded`): the target's words, the grounder, the
    /// screen point and its time (docs/grounding.md).
    pub grounded: Option<String>,
    /// The last model call's tokens, as the terminal's reply line says them
    /// (`franz_core::turn_tokens`); empty before the first reply.
    pub tokens: String,
    /// The run's tokens so far.
    pub tokens_run: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    pub observe: Option<StageTimings>,
    pub model_ms: Option<f64>,
    pub act_ms: f64,
}

pub struct PanelState {
    pub token: String,
    pub session: SessionHandle,
    /// `GET /config`: the overlay config and the capture size.
    pub config: serde_json::Value,
    pub events: super::fanout::Fanout,
    view: Mutex<View>,
    /// The latest screenshot, served by `GET /screenshot`.
    shot: Mutex<Option<ShownScreenshot>>,
    /// Pairs replies with requests, and sums the run's tokens.
    tokens: Mutex<(Tally, Sums)>,
}

impl PanelState {
    pub fn new(token: String, session: SessionHandle, config: serde_json::Value) -> Arc<Self> {
        let events = super::fanout::Fanout::new(super::fanout::CLIENT_BYTES);
        let view = View {
            phase: "starting".into(),
            annotate_mode: session.modes().annotate,
            approve_mode: session.modes().approve,
            ..View::default()
        };
        Arc::new(Self {
            token,
            session,
            config,
            events,
            view: Mutex::new(view),
            shot: Mutex::new(None),
            tokens: Mutex::new(Default::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current view.
    pub fn view(&self) -> View {
        let mut v = self.lock().clone();
        v.paused = self.session.is_paused();
        v.pending_seq = self
            .session
            .pending_annotation()
            .or(self.session.pending_decision())
            .or(self.session.pending_answer());
        v
    }

    /// The size of the screenshot shown for `seq`, if it is the latest one.
    pub fn image_size(&self, seq: u32) -> Option<(u32, u32)> {
        self.screenshot(seq).map(|s| (s.width, s.height))
    }

    /// The latest screenshot, if its seq is `seq`.
    pub fn screenshot(&self, seq: u32) -> Option<ShownScreenshot> {
        let shot = self.shot.lock().unwrap_or_else(|p| p.into_inner());
        shot.as_ref().filter(|s| s.seq == seq).cloned()
    }

    /// The latest screenshot's seq, if any.
    pub fn latest_seq(&self) -> Option<u32> {
        let shot = self.shot.lock().unwrap_or_else(|p| p.into_inner());
        shot.as_ref().map(|s| s.seq)
    }

    pub fn note_annotated(&self, seq: u32) {
        self.lock().annotated_seq = Some(seq);
    }

    /// Updates the view with an event of the run, then broadcasts it. A `model_delta` only
    /// goes out on `/events` (the page shows it without asking `/state` again).
    pub fn record(&self, e: &Event) {
        if let EventKind::ModelDelta { .. } = e.kind {
            self.events.send(e.to_json_line());
            return;
        }
        if let EventKind::Observation { .. } = e.kind {
            self.observed();
        }
        self.count_tokens(e);
        {
            let mut v = self.lock();
            v.msg_id += 1;
            v.turn = e.turn;
            apply(&mut v, &e.kind);
        }
        self.events.send(e.to_json_line());
    }
}

/// An `observation`: the model thinks about the image, which shows `area`.
fn observed(
    v: &mut View,
    timings: franz_core::observe::StageTimings,
    area: Option<&franz_core::observe::ObservedArea>,
) {
    v.phase = "thinking".into();
    v.timings.observe = Some(timings);
    v.area = area.and_then(franz_core::observe::ObservedArea::line);
}

/// What an event changes in the panel's view (the phase, the reply, the results, ...).
fn apply(v: &mut View, kind: &EventKind) {
    match kind {
        EventKind::TurnStarted {} => {
            v.phase = "observing".into();
            v.awaiting = None;
            v.question = None;
            v.results.clear();
            v.timings = Timings::default();
        }
        EventKind::Observation { timings, area, .. } => observed(v, *timings, area.as_ref()),
        EventKind::ModelReply {
            ms,
            text,
            story,
            actions,
            bboxes,
            ..
        } => {
            v.phase = "acting".into();
            v.awaiting = None;
            v.timings.model_ms = Some(*ms);
            v.vlm_json = text.clone();
            v.observation = story.clone().unwrap_or_default();
            v.actions = actions.clone();
            v.bboxes = bboxes.clone();
        }
        EventKind::ActionResult { result, ms, .. } => {
            v.results.push(result.clone());
            v.timings.act_ms += ms;
        }
        EventKind::Error { message, .. } => v.error = Some(message.clone()),
        EventKind::RunFinished { reason, .. } => {
            v.phase = "finished".into();
            v.finished = Some(reason.clone());
        }
        EventKind::Paused { .. } => v.phase = "paused".into(),
        EventKind::Resumed {} => v.phase = "running".into(),
        EventKind::AwaitingApproval { .. } => {
            v.phase = "awaiting_approval".into();
            v.awaiting = Some("approval".into());
        }
        EventKind::AwaitingAnnotation { .. } => {
            v.phase = "awaiting_annotation".into();
            v.awaiting = Some("annotation".into());
        }
        EventKind::AwaitingAnswer { question } => {
            v.phase = "awaiting_answer".into();
            v.awaiting = Some("answer".into());
            v.question = Some(question.clone());
        }
        EventKind::LoopDetected {
            action,
            turns,
            stop,
            ..
        } => {
            let then = if *stop { "run stopped" } else { "model warned" };
            v.loop_detected = Some(format!(
                "{action} on turns {turns:?} changed nothing ({then})"
            ));
        }
        EventKind::Refined { .. } => v.refined = kind.refined_line(),
        EventKind::Grounded {
            target,
            model,
            screen,
            ms,
            ..
        } => {
            v.grounded = Some(format!(
                "{target:?} found by {model} at ({}, {}) in {ms:.0} ms",
                screen[0], screen[1]
            ));
        }
        _ => {}
    }
}

impl PanelState {
    /// The token figures of a `model_reply` (with its request's estimate) into the view.
    fn count_tokens(&self, e: &Event) {
        let (line, run) = {
            let mut t = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
            let Some(call) = t.0.push(e) else {
                return;
            };
            t.1.add(&call);
            (call.line(), run_line(&t.1))
        };
        let mut v = self.lock();
        v.tokens = line;
        v.tokens_run = run;
    }

    /// Shows the session's latest screenshot (the image the model was shown, before any
    /// annotation).
    fn observed(&self) {
        let Some(shot) = self.session.screenshot() else {
            return;
        };
        {
            let mut v = self.lock();
            v.image_seq = shot.seq;
            v.image_width = shot.width;
            v.image_height = shot.height;
        }
        *self.shot.lock().unwrap_or_else(|p| p.into_inner()) = Some(shot);
    }
}

/// The run's tokens so far on one line.
fn run_line(s: &Sums) -> String {
    let mut line = format!(
        "{} call(s): image {}, requests ~{} (franz's estimate)",
        s.calls,
        thousands(s.image_tokens),
        thousands(s.request_tokens)
    );
    if s.counted > 0 {
        line.push_str(&format!(
            ", server: {} prompt + {} completion",
            thousands(s.prompt_tokens),
            thousands(s.completion_tokens)
        ));
    }
    line
}
