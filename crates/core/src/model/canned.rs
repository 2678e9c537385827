//! An in-memory [`Model`]: a queue of canned answers, taken one per call, and a record of
//! every request it got. Engine unit tests and `franz bench stop` use it instead of an HTTP
//! server; the scripted HTTP server (`scripted_server.rs`) stays for end-to-end tests.

use super::backend::{Model, Progress, Retry};
use super::error::ModelError;
use super::types::{ChatRequest, Reply};
use crate::cancel::Cancel;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One canned answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Canned {
    /// This text, ended with `finish_reason: stop`; streamed word by word as deltas when the
    /// request streams.
    Text(String),
    /// This reply as it is (tool calls, a finish reason, usage); streamed like a server streams
    /// it (its text word by word, then its complete calls).
    Reply(Reply),
    /// This error.
    Error(ModelError),
    /// Reports a retry with this reason, then answers with the next canned answer.
    Retry(String),
    /// Never answers: blocks until the call is cancelled (a hung server).
    Hang,
}

impl Canned {
    pub fn text(t: impl Into<String>) -> Self {
        Canned::Text(t.into())
    }
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Canned>,
    requests: Vec<ChatRequest>,
    /// Keeps no requests (a long benchmark run): `requests` stays empty.
    forget: bool,
}

/// The in-memory model. Answers calls in order; once the queue is empty a call fails with
/// a [`ModelError::BadReply`] that says so.
#[derive(Debug, Default)]
pub struct CannedModel {
    state: Mutex<State>,
    called: Condvar,
}

impl CannedModel {
    pub fn new(answers: impl IntoIterator<Item = Canned>) -> Self {
        Self {
            state: Mutex::new(State {
                queue: answers.into_iter().collect(),
                requests: Vec::new(),
                forget: false,
            }),
            called: Condvar::new(),
        }
    }

    /// A model that answers with these texts, in order.
    pub fn texts<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> Self {
        Self::new(texts.into_iter().map(|t| Canned::Text(t.into())))
    }

    /// This model keeping no record of the requests it gets (so that a long run's memory
    /// stays flat); `requests` and `wait_requests` then see none.
    pub fn forgetting(self) -> Self {
        self.lock().forget = true;
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues another answer.
    pub fn push(&self, answer: Canned) {
        self.lock().queue.push_back(answer);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.lock().requests.clone()
    }

    /// Waits until at least `n` requests arrived; false when `timeout` passed first.
    pub fn wait_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut s = self.lock();
        while s.requests.len() < n {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            s = match self.called.wait_timeout(s, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        true
    }

    fn next(&self) -> Option<Canned> {
        self.lock().queue.pop_front()
    }
}

impl Model for CannedModel {
    fn complete(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, ModelError> {
        {
            let mut s = self.lock();
            if !s.forget {
                s.requests.push(request.clone());
            }
        }
        self.called.notify_all();
        let mut attempt = 1;
        loop {
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            let Some(answer) = self.next() else {
                return Err(ModelError::BadReply {
                    url: "memory".into(),
                    reason: "the in-memory model has no more canned answers".into(),
                });
            };
            return match answer {
                Canned::Text(text) => {
                    if request.stream {
                        for word in text.split_inclusive(' ') {
                            on_progress(Progress::Delta(word));
                        }
                    }
                    Ok(Reply {
                        finish_reason: Some("stop".into()),
                        ..Reply::text(text)
                    })
                }
                Canned::Reply(reply) => {
                    // streamed: its text word by word, its calls whole before the reply ends;
                    // the last call of a reply cut off at max_tokens is never complete
                    if request.stream {
                        for word in reply.content.split_inclusive(' ') {
                            on_progress(Progress::Delta(word));
                        }
                        let whole = match reply.truncated() {
                            true => reply.tool_calls.len().saturating_sub(1),
                            false => reply.tool_calls.len(),
                        };
                        for call in &reply.tool_calls[..whole] {
                            on_progress(Progress::ToolCall(call));
                        }
                    }
                    Ok(reply)
                }
                Canned::Error(e) => Err(e),
                Canned::Retry(reason) => {
                    attempt += 1;
                    on_progress(Progress::Retry(&Retry { attempt, reason }));
                    continue;
                }
                Canned::Hang => {
                    cancel.wait();
                    Err(ModelError::Cancelled)
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Message;

    fn request(stream: bool) -> ChatRequest {
        let mut r = ChatRequest::new("m", vec![Message::user("hi")]);
        r.stream = stream;
        r
    }

    #[test]
    fn answers_in_order_records_requests_and_streams_deltas() {
        let m = CannedModel::new([
            Canned::text("first reply"),
            Canned::Retry("HTTP 503".into()),
            Canned::text("second"),
        ]);
        let cancel = Cancel::new();
        let mut seen = Vec::new();
        let mut on = |p: Progress<'_>| match p {
            Progress::Delta(d) => seen.push(d.to_string()),
            Progress::Retry(r) => seen.push(format!("retry {} {}", r.attempt, r.reason)),
            Progress::ToolCall(c) => seen.push(format!("call {}", c.name)),
        };
        let r = m.complete(&request(true), &cancel, &mut on).unwrap();
        assert_eq!(r.content, "first reply");
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        let r = m.complete(&request(false), &cancel, &mut on).unwrap();
        assert_eq!(r.content, "second");
        let err = m.complete(&request(false), &cancel, &mut on).unwrap_err();
        assert_eq!(seen, ["first ", "reply", "retry 2 HTTP 503"]);
        assert_eq!(m.requests().len(), 3);
        assert!(err.to_string().contains("no more canned answers"), "{err}");
    }

    #[test]
    fn a_hung_call_ends_when_cancelled() {
        let m = std::sync::Arc::new(CannedModel::new([Canned::Hang]));
        let cancel = Cancel::new();
        let (m2, c2) = (m.clone(), cancel.clone());
        let t = std::thread::spawn(move || m2.complete(&request(false), &c2, &mut |_| {}));
        assert!(m.wait_requests(1, Duration::from_secs(5)));
        let start = Instant::now();
        cancel.cancel();
        assert_eq!(t.join().unwrap(), Err(ModelError::Cancelled));
        assert!(start.elapsed() < Duration::from_secs(1));
    }
}
