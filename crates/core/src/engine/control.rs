//! Outside control of a running engine (the live panel, the terminal approver): pause, resume,
//! step and stop at turn boundaries, an injected reply, panel annotation and approve mode.
//!
//! The engine consults an optional [`Controller`] at fixed points of a turn; every method has a
//! no-op default, so a controller only implements what it offers. A controller can never make
//! the engine do what it would not do on its own: an injected reply goes through the same
//! strategy parser, action cap, fence and executor as a model's reply, and an approval only
//! lets through actions the model (or an injected reply) produced. A turn's `seq` is its
//! number (the event's `turn`).
//!
//! [`Remote`] is the shared-state implementation the panel server drives.

use crate::action::Action;
use crate::observe::Observation;
use std::sync::{Condvar, Mutex, MutexGuard};
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

/// Hooks the engine consults. Methods that wait get a `timeout` and return `None`/`Paused`
/// when it passes, so the engine can notice Ctrl+C between waits. The engine calls
/// [`Controller::annotation`] and [`Controller::decision`] once with a zero timeout before it
/// emits `awaiting_annotation` / `awaiting_approval`: that call registers what is awaited and
/// must not block.
pub trait Controller: Send + Sync {
    /// At each turn boundary, before the turn starts.
    fn gate(&self, _timeout: Duration) -> Gate {
        Gate::Go
    }
    /// A stop asked for while the engine waits on an annotation or a decision.
    fn stop_requested(&self) -> Option<String> {
        None
    }
    /// A reply to use instead of asking the model this turn (taken once). It stands for every
    /// model call of the turn: a strategy's own calls (the commander's leader) wait for the
    /// next turn. It is read as a reply that ended with `finish_reason: stop`.
    fn injected_reply(&self) -> Option<String> {
        None
    }
    /// Sees each observation (the image sent to the model, before any annotation).
    fn observed(&self, _seq: u32, _observation: &Observation) {}
    /// Panel-annotation mode: the server draws no overlays, and the engine waits for an
    /// annotated image before it calls the model.
    fn annotating(&self) -> bool {
        false
    }
    /// The annotated image (PNG bytes) for `seq`, once it has arrived.
    fn annotation(&self, _seq: u32, _timeout: Duration) -> Option<Vec<u8>> {
        None
    }
    /// Approve mode: each turn's actions wait for [`Controller::decision`].
    fn approving(&self) -> bool {
        false
    }
    /// The decision on `actions` of turn `seq`, once made.
    fn decision(&self, _seq: u32, _actions: &[Action], _timeout: Duration) -> Option<Decision> {
        None
    }
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
}

/// A controller driven from another thread (the panel): commands set shared state, the engine
/// waits on a condition variable.
#[derive(Debug, Default)]
pub struct Remote {
    annotate: bool,
    approve: bool,
    shared: Mutex<Shared>,
    changed: Condvar,
}

impl Remote {
    pub fn new(annotate: bool, approve: bool) -> Self {
        Self {
            annotate,
            approve,
            ..Self::default()
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
    pub fn stop(&self, reason: impl Into<String>) {
        let reason = reason.into();
        self.update(|s| s.stop = Some(reason));
    }
    pub fn is_paused(&self) -> bool {
        self.lock().paused
    }
    pub fn annotate_mode(&self) -> bool {
        self.annotate
    }
    pub fn approve_mode(&self) -> bool {
        self.approve
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

impl Controller for Remote {
    fn gate(&self, timeout: Duration) -> Gate {
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

    fn injected_reply(&self) -> Option<String> {
        self.lock().injected.take()
    }

    fn stop_requested(&self) -> Option<String> {
        self.lock().stop.clone()
    }

    fn annotating(&self) -> bool {
        self.annotate
    }

    fn annotation(&self, seq: u32, timeout: Duration) -> Option<Vec<u8>> {
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

    fn approving(&self) -> bool {
        self.approve
    }

    fn decision(&self, seq: u32, _actions: &[Action], timeout: Duration) -> Option<Decision> {
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
        let r = Remote::new(false, false);
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
        let r = Remote::new(false, false);
        r.inject("done()");
        assert_eq!(r.injected_reply().as_deref(), Some("done()"));
        assert_eq!(r.injected_reply(), None);
    }

    #[test]
    fn annotation_needs_the_pending_seq() {
        let r = std::sync::Arc::new(Remote::new(true, false));
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
        let r = Remote::new(false, true);
        assert!(r.decide(1, Decision::Approve).is_err());
        assert_eq!(r.decision(1, &[], T), None);
        assert_eq!(
            r.decide(2, Decision::Approve),
            Err(RemoteError::WrongSeq { got: 2, want: 1 })
        );
        r.decide(1, Decision::Reject("no".into())).unwrap();
        assert_eq!(r.decision(1, &[], T), Some(Decision::Reject("no".into())));
    }
}
