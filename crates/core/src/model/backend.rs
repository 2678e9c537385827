//! The [`Model`] trait: what the engine asks a model through. Two implementations: the
//! OpenAI-compatible HTTP client ([`super::ModelClient`]) and the in-memory
//! [`super::CannedModel`] that engine tests and `franz bench stop` use.
//!
//! A call gives up as soon as the run's [`Cancel`] token is set. The HTTP client then drops
//! its request wherever it is (connecting, waiting for an answer, mid-stream, in a retry's
//! backoff), which closes the connection to the server; it runs on the caller's thread, so no
//! thread is left behind (`client.rs`'s module doc says how; the impl is there, next to the
//! private calls it drives).

use super::context::ContextInfo;
use super::error::ModelError;
use super::types::{ChatRequest, Reply, ToolCall};
use crate::cancel::Cancel;

/// A retry about to be made: its attempt number (2 for the first retry) and why the attempt
/// before it failed (e.g. `HTTP 503 (...); retrying in 0.5 s`).
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    pub attempt: u32,
    pub reason: String,
}

/// What a model call reports while it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress<'a> {
    /// A piece of streamed content.
    Delta(&'a str),
    /// The attempt before failed; another follows.
    Retry(&'a Retry),
    /// A streamed tool call that is complete: the next call began, or the finish reason came
    /// (and is not `length`). Early execution reads it (`engine/early.rs`).
    ToolCall(&'a ToolCall),
}

/// A chat model.
pub trait Model: Send + Sync {
    /// Answers `request` (streamed when `request.stream`), reporting deltas and retries to
    /// `on_progress` on the caller's thread. Returns [`ModelError::Cancelled`] promptly once
    /// `cancel` is set.
    fn complete(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, ModelError>;

    /// The context length the server reports for `model`, asked once at the start of a run.
    /// `None`: there is no server to ask (the in-memory model); `Some` with `tokens: None`: the
    /// server did not say.
    fn context_length(&self, _model: &str, _cancel: &Cancel) -> Option<ContextInfo> {
        None
    }

    /// The JSON body `request` is sent as, first try: what the run's exchange log keeps. The
    /// HTTP client's is shaped and constrained as it learned the server (`adapt.rs`).
    fn wire_body(&self, request: &ChatRequest, _cancel: &Cancel) -> serde_json::Value {
        request.to_body()
    }
}
