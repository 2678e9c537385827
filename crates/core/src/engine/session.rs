//! A run as a handle, in the manner of codex-rs: [`Session::spawn`] starts the engine on its
//! own thread and returns a [`SessionHandle`] (ops in) and an [`EventStream`] (events out).
//! The CLI, the panel and the terminal approver are clients of this API; several sessions can
//! run in one process, each with its own desktop, model, controls and cancel token.
//!
//! `Op::Stop` and a cancel of the session's token end the run at once, whatever it waits for:
//! a sleep, an action's pauses, a wait for a person, the model call.

use super::control::{Decision, Gate, Modes, Remote, RemoteError, ShownScreenshot};
use super::{Engine, Op, RunOptions, RunSummary, TurnOverhead};
use crate::cancel::Cancel;
use crate::event::Event;
use crate::executor::Executor;
use crate::model::Model;
use crate::observe::Pipeline;
use crate::overlay::Overlay;
use crate::runlog::RunWriter;
use crate::strategy::Strategy;
use franz_desktop::Desktop;
use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// What a session runs, besides its desktop and model. Who steers it (annotate, approve,
/// answers) is its handle's [`Modes`].
pub struct SessionConfig {
    pub pipeline: Pipeline,
    pub executor: Executor,
    pub strategy: Box<dyn Strategy>,
    /// Draws the last actions onto the next screenshot (with `options.feedback`).
    pub overlay: Option<Overlay>,
    /// The run directory; `None` keeps no log.
    pub writer: Option<RunWriter>,
    pub options: RunOptions,
    /// Elements from the accessibility tree each turn (`grounding` setting); `None`: none.
    pub grounding: Option<crate::grounding::GroundingSource>,
    /// The grounding model beside the planner (docs/grounding.md); `None`: none.
    pub grounder: Option<crate::grounder::Grounder>,
}

/// The client's end of a session: submit ops, read its state. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    controls: Arc<Remote>,
    cancel: Cancel,
}

impl SessionHandle {
    /// A handle with no engine behind it yet, steered as `modes` says: [`Session::spawn_with`]
    /// runs one on it.
    pub fn new(modes: Modes) -> Self {
        Self {
            controls: Arc::new(Remote::new(modes)),
            cancel: Cancel::new(),
        }
    }

    /// Applies an op. An approval or an annotation is refused unless the run waits for
    /// that seq.
    pub fn submit(&self, op: Op) -> Result<(), RemoteError> {
        let c = &self.controls;
        match op {
            Op::Pause => c.pause(),
            Op::Resume => c.resume(),
            Op::Step => c.step(),
            Op::Stop(reason) => {
                c.stop(reason);
                self.cancel.cancel();
            }
            Op::Inject(text) => c.inject(text),
            Op::Approve { seq, decision } => c.decide(seq, decision)?,
            Op::Annotate { seq, png } => c.annotate(seq, png)?,
            Op::Answer(text) => c.answer(text)?,
            Op::NoAnswer => c.no_answer()?,
        }
        Ok(())
    }

    /// The session's cancel token: set it (or link another to it) to stop the run at once.
    pub fn cancel_token(&self) -> &Cancel {
        &self.cancel
    }

    /// Sends each turn's time by stage to `to` from now on (`franz bench turn`'s figures);
    /// nothing is sent to a session nobody asked.
    pub fn report_overhead_to(&self, to: mpsc::Sender<TurnOverhead>) {
        self.controls.report_overhead_to(to);
    }

    /// Who steers this session besides the model.
    pub fn modes(&self) -> Modes {
        self.controls.modes()
    }
    pub fn is_paused(&self) -> bool {
        self.controls.is_paused()
    }
    /// The reason of the stop asked for (`Op::Stop`), if any: the run is ending.
    pub fn stop_requested(&self) -> Option<String> {
        self.controls.stop_requested()
    }
    /// The seq waiting for an annotated image, if any.
    pub fn pending_annotation(&self) -> Option<u32> {
        self.controls.pending_annotation()
    }
    /// The seq waiting for a decision, if any.
    pub fn pending_decision(&self) -> Option<u32> {
        self.controls.pending_decision()
    }
    /// The seq whose question waits for an answer, if any.
    pub fn pending_answer(&self) -> Option<u32> {
        self.controls.pending_answer()
    }
    /// The latest screenshot the model was shown.
    pub fn screenshot(&self) -> Option<ShownScreenshot> {
        self.controls.screenshot()
    }
}

/// The engine's end of a handle that runs no engine, for tests of a client (the panel's): it
/// waits for and takes what an engine would. It is made with its handle, never from one, so a
/// client's handle reaches nothing but the ops.
pub struct EngineStandin {
    controls: Arc<Remote>,
}

impl EngineStandin {
    /// A handle steered as `modes` says, and the engine's end of it.
    pub fn new(modes: Modes) -> (SessionHandle, Self) {
        let handle = SessionHandle::new(modes);
        let controls = handle.controls.clone();
        (handle, Self { controls })
    }
    /// What the engine may do at a turn boundary, waiting up to `timeout` while paused.
    pub fn gate(&self, timeout: Duration) -> Gate {
        self.controls.gate(timeout)
    }
    /// The injected reply, taken as the next turn would take it.
    pub fn injected_reply(&self) -> Option<String> {
        self.controls.injected_reply()
    }
    /// Waits up to `timeout` for the annotated image of `seq` (the first call makes `seq`
    /// the one awaited).
    pub fn annotation(&self, seq: u32, timeout: Duration) -> Option<Vec<u8>> {
        self.controls.annotation(seq, timeout)
    }
    /// Waits up to `timeout` for the decision on `seq` (the first call makes `seq` the one
    /// awaited).
    pub fn decision(&self, seq: u32, timeout: Duration) -> Option<Decision> {
        self.controls.decision(seq, timeout)
    }
}

/// The events of a session, in order; ends after `run_finished`.
pub struct EventStream {
    rx: mpsc::Receiver<Event>,
    engine: Option<JoinHandle<RunSummary>>,
}

/// No event came within the time given to [`EventStream::next_timeout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no event within the time given")]
pub struct TimedOut;

impl EventStream {
    /// The next event within `timeout`: `Ok(None)` when the run has ended and every event was
    /// read. (`next()`, from [`Iterator`], waits as long as it takes.)
    pub fn next_timeout(&mut self, timeout: Duration) -> Result<Option<Event>, TimedOut> {
        match self.rx.recv_timeout(timeout) {
            Ok(e) => Ok(Some(e)),
            Err(mpsc::RecvTimeoutError::Disconnected) => Ok(None),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(TimedOut),
        }
    }

    /// Reads what is left and returns how the run ended.
    pub fn finish(mut self) -> Result<RunSummary, SessionError> {
        while self.next().is_some() {}
        match self.engine.take().map(JoinHandle::join) {
            Some(Ok(summary)) => Ok(summary),
            _ => Err(SessionError::Panicked),
        }
    }
}

impl Iterator for EventStream {
    type Item = Event;
    /// The next event; `None` once the run has ended and every event was read.
    fn next(&mut self) -> Option<Event> {
        self.rx.recv().ok()
    }
}

/// Why a session could not start or end.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot start the engine thread: {0}")]
    Spawn(std::io::Error),
    #[error("the engine thread panicked: see franz.log")]
    Panicked,
}

/// Starts sessions.
pub struct Session;

impl Session {
    /// Runs `config` on `desktop` with `model` on a new thread, with nobody to annotate,
    /// approve or answer (see [`Session::spawn_with`]).
    pub fn spawn(
        config: SessionConfig,
        desktop: Box<dyn Desktop + Send>,
        model: Arc<dyn Model>,
    ) -> Result<(SessionHandle, EventStream), SessionError> {
        let handle = SessionHandle::new(Modes::default());
        let events = Self::spawn_with(&handle, config, desktop, model)?;
        Ok((handle, events))
    }

    /// Runs `config` under an existing handle (made with [`SessionHandle::new`]), steered as
    /// its [`Modes`] say.
    pub fn spawn_with(
        handle: &SessionHandle,
        config: SessionConfig,
        mut desktop: Box<dyn Desktop + Send>,
        model: Arc<dyn Model>,
    ) -> Result<EventStream, SessionError> {
        let (tx, rx) = mpsc::channel();
        let controls = handle.controls.clone();
        let cancel = handle.cancel.clone();
        let engine = std::thread::Builder::new()
            .name("franz-engine".into())
            .spawn(move || {
                let engine = Engine {
                    desktop: desktop.as_mut(),
                    pipeline: config.pipeline,
                    executor: config.executor.with_cancel(cancel.clone()),
                    model,
                    strategy: config.strategy,
                    overlay: config.overlay,
                    writer: config.writer,
                    subscribers: vec![Box::new(move |e: &Event| {
                        // the client may have stopped reading: the run still ends cleanly
                        let _gone = tx.send(e.clone());
                    })],
                    cancel,
                    loops: crate::loop_breaker::LoopDetector::new(
                        config.options.loop_breaker.loops,
                    ),
                    options: config.options,
                    controls,
                    last_acted: None,
                    consulted: None,
                    last_raw: None,
                    grounding: config.grounding,
                    grounder: config.grounder,
                    learned_context: None,
                    calibration: Default::default(),
                    spent: Default::default(),
                    overhead: Default::default(),
                };
                engine.run()
            })
            .map_err(SessionError::Spawn)?;
        Ok(EventStream {
            rx,
            engine: Some(engine),
        })
    }
}
