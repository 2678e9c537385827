//! The shared control state of a session: pause, resume, step and stop at turn boundaries, an
//! injected reply, panel annotation, approve mode and the latest screenshot.
//!
//! [`Remote`] is what a [`super::SessionHandle`] drives (its ops land here) and what the engine
//! waits on, on a condition variable: no polling. A stop also sets the session's
//! [`crate::Cancel`] token, and a cancel (Ctrl+C) wakes every wait here, so the engine notices
//! either at once. Nothing here can make the engine do what it would not do on its own: an
//! injected reply goes through the same strategy parser, action cap, fence and executor as a
//! model's reply, and an approval only lets through actions the model (or an injected reply)
//! produced. A turn's `seq` is its number (the event's `turn`).

use crate::observe::Screenshot;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What the engine may do at a turn boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Start the next turn.
    Go,
    /// Paused: ask again (the engine emits `paused` once, and `resumed` on the next `Go`).
    Paused,
    /// End the run with this reason.
    Stop(String),
}

/// A person's decision on a turn's actions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Approve,
    /// Nothing runs; the model is told "the user rejected: REASON".
    Reject(String),
    /// A replacement reply, read by the strategy like a model's reply (and approved again).
    Replace(String),
}

/// Why [`Remote`] refused an annotation or a decision.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    #[error("nothing is waiting for {0}")]
    NotAwaiting(&'static str),
    #[error("wrong seq {got}: the engine waits for seq {want}")]
    WrongSeq { got: u32, want: u32 },
}

#[derive(Debug, Default)]
struct Shared {
    paused: bool,
    /// Turns allowed to start while paused.
    steps: u32,
    stop: Option<String>,
    injected: Option<String>,
    /// The seq the engine waits to have annotated / approved.
    want_annotation: Option<u32>,
    want_decision: Option<u32>,
    annotation: Option<(u32, Vec<u8>)>,
    decision: Option<(u32, Decision)>,
    screenshot: Option<ShownScreenshot>,
    /// The seq whose question waits for an answer, and the answer once given (`Some(None)`:
    /// nobody answers, the question ends the run).
    want_answer: Option<u32>,
    answer: Option<Option<String>>,
}

/// The image the model was shown for a turn (before any annotation), encoded: what the panel
/// shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownScreenshot {
    pub seq: u32,
    pub width: u32,
    pub height: u32,
    /// PNG or JPEG bytes, as sent to the model.
    pub encoded: Arc<Vec<u8>>,
}

/// Who steers a session besides the model: set once, on its handle ([`super::SessionHandle::new`]),
/// the one place the engine reads them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modes {
    /// Each screenshot waits for an annotated image (`Op::Annotate`) before the model sees it.
    pub annotate: bool,
    /// Each turn's actions wait for a decision (`Op::Approve`).
    pub approve: bool,
    /// Someone answers the model's questions (`ask_user` waits for `Op::Answer`); without,
    /// `ask_user` ends the run.
    pub answers: bool,
}

/// The control state, driven from other threads (the session handle's ops): commands set
/// shared state, the engine waits on a condition variable. Private to the engine: clients
/// reach it only through a [`super::SessionHandle`].
#[derive(Debug, Default)]
pub struct Remote {
    modes: Modes,
    shared: Mutex<Shared>,
    changed: Condvar,
    /// Where each turn's [`super::TurnOverhead`] goes (`franz bench turn`); none in a run.
    overhead: Mutex<Option<std::sync::mpsc::Sender<super::TurnOverhead>>>,
}

impl Remote {
    pub fn new(modes: Modes) -> Self {
        Self {
            modes,
            ..Self::default()
        }
    }

    /// The modes this session was started with.
    pub fn modes(&self) -> Modes {
        self.modes
    }

    /// Sends each turn's time by stage to `to` from now on (a benchmark's hook).
    pub fn report_overhead_to(&self, to: std::sync::mpsc::Sender<super::TurnOverhead>) {
        *self.overhead.lock().unwrap_or_else(|p| p.into_inner()) = Some(to);
    }

    /// A turn's time by stage, to whoever asked for it.
    pub(super) fn overhead(&self, o: super::TurnOverhead) {
        let to = self.overhead.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = to.as_ref() {
            let _gone = tx.send(o);
        }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut Shared)) {
        f(&mut self.lock());
        self.changed.notify_all();
    }

    /// Waits until `ready` gives a value, a stop arrives or `timeout` passes.
    fn wait_for<T>(
        &self,
        timeout: Duration,
        mut ready: impl FnMut(&mut Shared) -> Option<T>,
    ) -> Option<T> {
        let deadline = Instant::now() + timeout;
        let mut guard = self.lock();
        loop {
            if let Some(v) = ready(&mut guard) {
                return Some(v);
            }
            let now = Instant::now();
            if guard.stop.is_some() || now >= deadline {
                return None;
            }
            guard = match self.changed.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }

    pub fn pause(&self) {
        self.update(|s| s.paused = true);
    }
    pub fn resume(&self) {
        self.update(|s| {
            s.paused = false;
            s.steps = 0;
        });
    }
    /// While paused: let one more turn start.
    pub fn step(&self) {
        self.update(|s| {
            if s.paused {
                s.steps += 1;
            }
        });
    }
    /// Asks the run to end with `reason` (the first reason given stands).
    pub fn stop(&self, reason: impl Into<String>) {
        let reason = reason.into();
        self.update(|s| {
            s.stop.get_or_insert(reason);
        });
    }
    pub fn is_paused(&self) -> bool {
        self.lock().paused
    }
    pub fn annotate_mode(&self) -> bool {
        self.modes.annotate
    }
    pub fn approve_mode(&self) -> bool {
        self.modes.approve
    }
    /// Whether someone answers the model's questions.
    pub fn answering(&self) -> bool {
        self.modes.answers
    }
    /// The seq whose question waits for an answer, if any.
    pub fn pending_answer(&self) -> Option<u32> {
        self.lock().want_answer
    }

    /// Answers the question the run waits on; refused when none waits.
    pub fn answer(&self, text: impl Into<String>) -> Result<(), RemoteError> {
        self.give_answer(Some(text.into()))
    }
    /// Says that nobody answers the question the run waits on (a prompt that timed out): the
    /// question ends the run as when nobody is there. Refused when none waits.
    pub fn no_answer(&self) -> Result<(), RemoteError> {
        self.give_answer(None)
    }
    fn give_answer(&self, answer: Option<String>) -> Result<(), RemoteError> {
        let mut s = self.lock();
        if s.want_answer.is_none() {
            return Err(RemoteError::NotAwaiting("an answer"));
        }
        s.answer = Some(answer);
        drop(s);
        self.changed.notify_all();
        Ok(())
    }
    /// The seq waiting for an annotated image, if any.
    pub fn pending_annotation(&self) -> Option<u32> {
        self.lock().want_annotation
    }
    /// The seq waiting for a decision, if any.
    pub fn pending_decision(&self) -> Option<u32> {
        self.lock().want_decision
    }

    /// The next reply to use instead of the model's (replaces an earlier unused one).
    pub fn inject(&self, text: impl Into<String>) {
        let text = text.into();
        self.update(|s| s.injected = Some(text));
    }

    /// Hands over the annotated image for `seq`; refused unless the engine waits for that seq.
    pub fn annotate(&self, seq: u32, png: Vec<u8>) -> Result<(), RemoteError> {
        let mut s = self.lock();
        match s.want_annotation {
            None => Err(RemoteError::NotAwaiting("an annotation")),
            Some(want) if want != seq => Err(RemoteError::WrongSeq { got: seq, want }),
            Some(_) => {
                s.annotation = Some((seq, png));
                drop(s);
                self.changed.notify_all();
                Ok(())
            }
        }
    }

    /// Decides on the actions of `seq`; refused unless the engine waits for that seq.
    pub fn decide(&self, seq: u32, decision: Decision) -> Result<(), RemoteError> {
        let mut s = self.lock();
        match s.want_decision {
            None => Err(RemoteError::NotAwaiting("a decision")),
            Some(want) if want != seq => Err(RemoteError::WrongSeq { got: seq, want }),
            Some(_) => {
                s.decision = Some((seq, decision));
                drop(s);
                self.changed.notify_all();
                Ok(())
            }
        }
    }
}

/// What the engine asks. Clients go through the session handle; tests of a client that run no
/// engine ask through [`super::EngineStandin`].
impl Remote {
    /// At each turn boundary, before the turn starts: waits up to `timeout` while paused.
    pub fn gate(&self, timeout: Duration) -> Gate {
        let check = |s: &mut Shared| {
            if let Some(r) = &s.stop {
                Some(Gate::Stop(r.clone()))
            } else if !s.paused {
                Some(Gate::Go)
            } else if s.steps > 0 {
                s.steps -= 1;
                Some(Gate::Go)
            } else {
                None
            }
        };
        self.wait_for(timeout, check).unwrap_or(Gate::Paused)
    }

    /// A reply to use instead of asking the model this turn (taken once). It stands for every
    /// model call of the turn: a strategy's own calls (the commander's leader) wait for the
    /// next turn. It is read as a reply that ended with `finish_reason: stop`.
    pub fn injected_reply(&self) -> Option<String> {
        self.lock().injected.take()
    }

    /// The reason of a stop asked for, if any.
    pub fn stop_requested(&self) -> Option<String> {
        self.lock().stop.clone()
    }

    /// Keeps the observation of `seq` as the latest screenshot.
    pub fn observed(&self, seq: u32, screenshot: &Screenshot) {
        let shot = ShownScreenshot {
            seq,
            width: screenshot.size.width,
            height: screenshot.size.height,
            encoded: Arc::new(screenshot.encoded.clone()),
        };
        self.update(|s| s.screenshot = Some(shot));
    }

    /// The latest screenshot, if a turn observed one.
    pub fn screenshot(&self) -> Option<ShownScreenshot> {
        self.lock().screenshot.clone()
    }

    /// The annotated image (PNG bytes) for `seq`, once it arrives within `timeout`. The
    /// first call registers what is awaited.
    pub fn annotation(&self, seq: u32, timeout: Duration) -> Option<Vec<u8>> {
        self.lock().want_annotation = Some(seq);
        let got = self.wait_for(timeout, |s| match s.annotation.take() {
            Some((n, png)) if n == seq => Some(png),
            _ => None,
        });
        if got.is_some() {
            self.lock().want_annotation = None;
        }
        got
    }

    /// The answer to the question of turn `seq`, once given within `timeout`. The first call
    /// registers what is awaited.
    /// `Some(None)` when nobody answers ([`Remote::no_answer`]).
    pub fn answered(&self, seq: u32, timeout: Duration) -> Option<Option<String>> {
        self.lock().want_answer = Some(seq);
        let got = self.wait_for(timeout, |s| s.answer.take());
        if got.is_some() {
            self.lock().want_answer = None;
        }
        got
    }

    /// The decision on the actions of turn `seq`, once made within `timeout`. The first call
    /// registers what is awaited.
    pub fn decision(&self, seq: u32, timeout: Duration) -> Option<Decision> {
        self.lock().want_decision = Some(seq);
        let got = self.wait_for(timeout, |s| match s.decision.take() {
            Some((n, d)) if n == seq => Some(d),
            _ => None,
        });
        if got.is_some() {
            self.lock().want_decision = None;
        }
        got
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Duration = Duration::from_millis(10);

    #[test]
    fn pause_step_resume_stop() {
        let r = Remote::new(Modes::default());
        assert_eq!(r.gate(T), Gate::Go);
        r.pause();
        assert_eq!(r.gate(T), Gate::Paused);
        r.step();
        assert_eq!(r.gate(T), Gate::Go);
        assert_eq!(r.gate(T), Gate::Paused, "one step lets one turn through");
        r.resume();
        assert_eq!(r.gate(T), Gate::Go);
        r.stop("from the panel");
        assert_eq!(r.gate(T), Gate::Stop("from the panel".into()));
    }

    #[test]
    fn injected_reply_is_taken_once() {
        let r = Remote::new(Modes::default());
        r.inject("done()");
        assert_eq!(r.injected_reply().as_deref(), Some("done()"));
        assert_eq!(r.injected_reply(), None);
    }

    #[test]
    fn annotation_needs_the_pending_seq() {
        let r = std::sync::Arc::new(Remote::new(Modes {
            annotate: true,
            ..Modes::default()
        }));
        assert_eq!(
            r.annotate(1, vec![1]),
            Err(RemoteError::NotAwaiting("an annotation"))
        );
        assert_eq!(r.annotation(3, T), None);
        assert_eq!(r.pending_annotation(), Some(3));
        assert_eq!(
            r.annotate(2, vec![1]),
            Err(RemoteError::WrongSeq { got: 2, want: 3 })
        );
        assert_eq!(r.annotation(3, T), None, "still waiting after a wrong seq");
        let r2 = r.clone();
        let waiter = std::thread::spawn(move || r2.annotation(3, Duration::from_secs(10)));
        while r.annotate(3, vec![7]).is_err() {
            std::thread::yield_now();
        }
        assert_eq!(waiter.join().unwrap(), Some(vec![7]));
        assert_eq!(r.pending_annotation(), None);
    }

    #[test]
    fn decisions_need_the_pending_seq() {
        let r = Remote::new(Modes {
            approve: true,
            ..Modes::default()
        });
        assert!(r.decide(1, Decision::Approve).is_err());
        assert_eq!(r.decision(1, T), None);
        assert_eq!(
            r.decide(2, Decision::Approve),
            Err(RemoteError::WrongSeq { got: 2, want: 1 })
        );
        r.decide(1, Decision::Reject("no".into())).unwrap();
        assert_eq!(r.decision(1, T), Some(Decision::Reject("no".into())));
    }
}
