//! The [`Model`] trait: what the engine asks a model through. Two implementations: the
//! OpenAI-compatible HTTP client ([`ModelClient`]) and the in-memory [`super::MemoryModel`]
//! that engine tests and `franz bench stop` use.
//!
//! A call gives up as soon as the run's [`Cancel`] token is set: the HTTP client runs on a
//! worker thread that the caller stops waiting for; the worker itself checks the token
//! before each attempt, during retry backoff and between the chunks of a stream, so it drops
//! the request at its next read.

use super::client::{ModelClient, Retry};
use super::error::ModelError;
use super::types::{ChatRequest, Reply};
use crate::cancel::Cancel;

/// What a model call reports while it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress<'a> {
    /// A piece of streamed content.
    Delta(&'a str),
    /// The attempt before failed; another follows.
    Retry(&'a Retry),
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
}

impl Model for ModelClient {
    /// Drives the request on the caller's thread (on the client's runtime, so its log lines
    /// stay in the caller's tracing span and reach the run's `franz.log`) and drops it the
    /// moment `cancel` is set: the connection is closed and nothing is left running.
    fn complete(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, ModelError> {
        self.complete_with(request, cancel, on_progress)
    }
}
