//! A run as a handle, in the manner of codex-rs: [`Session::spawn`] starts the engine on its
//! own thread and returns a [`SessionHandle`] (ops in) and an [`EventStream`] (events out).
//! The CLI, the panel and the terminal approver are clients of this API; several sessions can
//! run in one process, each with its own desktop, model, controls and cancel token.
//!
//! `Op::Stop` and a cancel of the session's token end the run at once, whatever it waits for:
//! a sleep, an action's pauses, a wait for a person, the model call.

use super::control::{Decision, Remote, RemoteError, ShownScreenshot};
use super::{Engine, RunOptions, RunSummary};
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

/// What a session runs, besides its desktop and model.
pub struct SessionConfig {
    pub pipeline: Pipeline,
    pub executor: Executor,
    pub strategy: Box<dyn Strategy>,
    /// Draws the last actions onto the next screenshot (with `options.feedback`).
    pub overlay: Option<Overlay>,
    /// The run directory; `None` keeps no log.
    pub writer: Option<RunWriter>,
    pub options: RunOptions,
    /// Each screenshot waits for an annotated image (`Op::Annotate`) before the model sees it.
    pub annotate: bool,
    /// Each turn's actions wait for a decision (`Op::Approve`).
    pub approve: bool,
    /// Someone answers the model's questions (`ask_user` waits for `Op::Answer`); without,
    /// `ask_user` ends the run.
    pub answers: bool,
    /// Elements from the accessibility tree each turn (`grounding` setting); `None`: none.
    pub grounding: Option<crate::grounding::GroundingSource>,
}

/// What a client can ask of a running session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Stop before the next turn starts (the run waits, emitting `paused`).
    Pause,
    Resume,
    /// While paused: let one more turn run.
    Step,
    /// End the run now with this reason (outcome `interrupted`).
    Stop(String),
    /// The next turn reads this reply instead of asking the model.
    Inject(String),
    /// The decision on the actions of turn `seq` (approve mode).
    Approve {
        seq: u32,
        decision: Decision,
    },
    /// The annotated PNG for the screenshot of turn `seq` (annotation mode).
    Annotate {
        seq: u32,
        png: Vec<u8>,
    },
    /// The answer to the model's question (`ask_user`) the run waits on.
    Answer(String),
    /// Nobody answers the question the run waits on (the terminal prompt timed out): the run
    /// ends as when nobody is there (exit 1, the question in the reason).
    NoAnswer,
}

/// The client's end of a session: submit ops, read its state. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SessionHandle {
    controls: Arc<Remote>,
    cancel: Cancel,
}

impl SessionHandle {
    /// A handle with no engine behind it yet: [`Session::spawn_with`] runs one on it. Also lets
    /// a client (the panel's tests) be driven without an engine.
    pub fn new(annotate: bool, approve: bool) -> Self {
        Self {
            controls: Arc::new(Remote::new(annotate, approve)),
            cancel: Cancel::new(),
        }
    }

    /// This handle with someone to answer the model's questions (before it is cloned or
    /// runs a session).
    pub fn with_answers(mut self, answering: bool) -> Self {
        let c = &self.controls;
        let controls = Remote::new(c.annotate_mode(), c.approve_mode()).with_answers(answering);
        self.controls = Arc::new(controls);
        self
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

    /// The controls behind this handle, as the engine sees them (for tests that stand in for
    /// an engine).
    pub fn controls(&self) -> &Arc<Remote> {
        &self.controls
    }

    /// The session's cancel token: set it (or link another to it) to stop the run at once.
    pub fn cancel_token(&self) -> &Cancel {
        &self.cancel
    }

    pub fn is_paused(&self) -> bool {
        self.controls.is_paused()
    }
    pub fn annotate_mode(&self) -> bool {
        self.controls.annotate_mode()
    }
    pub fn approve_mode(&self) -> bool {
        self.controls.approve_mode()
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
    /// Runs `config` on `desktop` with `model` on a new thread.
    pub fn spawn(
        config: SessionConfig,
        desktop: Box<dyn Desktop + Send>,
        model: Arc<dyn Model>,
    ) -> Result<(SessionHandle, EventStream), SessionError> {
        let handle =
            SessionHandle::new(config.annotate, config.approve).with_answers(config.answers);
        let events = Self::spawn_with(&handle, config, desktop, model)?;
        Ok((handle, events))
    }

    /// Runs `config` under an existing handle (made with [`SessionHandle::new`]); the
    /// handle's annotate, approve and answer modes count, not the config's.
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
                    loops: crate::loops::LoopDetector::new(config.options.guard.loops),
                    options: config.options,
                    controls,
                    last_acted: None,
                    consulted: None,
                    last_raw: None,
                    grounding: config.grounding,
                    learned_context: None,
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
