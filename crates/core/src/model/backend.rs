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
use std::sync::mpsc;
use std::time::Duration;

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

/// What the worker thread sends back: progress as it happens, then the result.
enum Msg {
    Retry(Retry),
    Delta(String),
    Done(Result<Reply, ModelError>),
}

/// How often the caller looks at the token while the worker talks to the server.
const POLL: Duration = Duration::from_millis(10);

impl Model for ModelClient {
    /// Runs the blocking request on a worker thread (inside the caller's tracing span, so its
    /// log lines reach the run's `franz.log`) and waits for it or for `cancel`.
    fn complete(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, ModelError> {
        let (tx, rx) = mpsc::channel();
        let span = tracing::Span::current();
        let client = self.clone().with_cancel(cancel.clone());
        let request = request.clone();
        std::thread::spawn(move || {
            let _in_run = span.enter();
            // the caller may have stopped listening (cancelled): nothing left to tell
            let retries = tx.clone();
            let deltas = tx.clone();
            let mut on_retry = |r: &Retry| {
                let _gone = retries.send(Msg::Retry(r.clone()));
            };
            let mut on_text = |t: &str| {
                let _gone = deltas.send(Msg::Delta(t.to_string()));
            };
            let result = if request.stream {
                client.chat_stream_with(&request, &mut on_text, &mut on_retry)
            } else {
                client.chat_with(&request, &mut on_retry)
            };
            let _gone = tx.send(Msg::Done(result));
        });
        loop {
            match rx.recv_timeout(POLL) {
                Ok(Msg::Retry(r)) => on_progress(Progress::Retry(&r)),
                Ok(Msg::Delta(t)) => on_progress(Progress::Delta(&t)),
                Ok(Msg::Done(result)) => return result,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.is_cancelled() {
                        return Err(ModelError::Cancelled);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(ModelError::BadReply {
                        url: self.endpoint().chat.clone(),
                        reason: "the model call thread died".into(),
                    });
                }
            }
        }
    }
}
