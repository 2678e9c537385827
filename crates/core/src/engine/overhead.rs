//! What a turn spends outside the model, by stage: the figures `franz bench turn` prints.
//! The engine adds up the time spent in places spread over a turn (events, run-log writes,
//! the model call) in a [`Spent`], and reports one [`TurnOverhead`] per turn to whoever asked
//! for it on the session's handle ([`super::SessionHandle::report_overhead_to`]); nobody does in a
//! normal run, and then nothing is sent.

use std::time::Instant;

/// One turn's time by stage, in milliseconds. Every stage but `model_ms` is franz's own.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TurnOverhead {
    pub turn: u32,
    /// Capture, crop, resize, cursor, overlay, encode (the observation pipeline).
    pub observe_ms: f64,
    /// The strategy's prompt, the request, fitting it into the context, its size.
    pub request_ms: f64,
    /// The strategy reading the reply.
    pub parse_ms: f64,
    /// Performing the actions.
    pub execute_ms: f64,
    /// The run directory: screenshots handed over, exchange and turn records written.
    pub log_ms: f64,
    /// Emitting events (the event log and every subscriber).
    pub events_ms: f64,
    /// Waiting for the model.
    pub model_ms: f64,
    /// The whole turn, model included.
    pub turn_ms: f64,
}

impl TurnOverhead {
    /// The turn without the model.
    pub fn outside_model_ms(&self) -> f64 {
        self.turn_ms - self.model_ms
    }

    /// The stages, named as `franz bench turn` prints them.
    pub fn stages(&self) -> [(&'static str, f64); 6] {
        [
            ("observe", self.observe_ms),
            ("request build", self.request_ms),
            ("parse", self.parse_ms),
            ("execute", self.execute_ms),
            ("run-log write", self.log_ms),
            ("events", self.events_ms),
        ]
    }
}

/// Time added up over a turn in the places that are not one span.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Spent {
    pub model: f64,
    pub events: f64,
    pub log: f64,
}

impl Spent {
    /// Milliseconds since `since` spent elsewhere than events, the run log and the model,
    /// given the `before` of this accumulator at `since`.
    pub fn own_ms(&self, since: Instant, before: Spent) -> f64 {
        let other =
            (self.model - before.model) + (self.events - before.events) + (self.log - before.log);
        (ms(since) - other).max(0.0)
    }
}

/// Milliseconds since `t`.
pub(super) fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
