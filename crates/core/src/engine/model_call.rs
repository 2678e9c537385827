//! One model call on a worker thread, so that Ctrl+C can end the run while a slow model is
//! still thinking (the blocking HTTP call cannot be cancelled; the thread is left to finish).

use crate::model::{ChatRequest, ModelClient, ModelError, Reply, Retry};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

pub enum CallResult {
    Reply(Reply),
    Failed(ModelError),
    Interrupted,
}

/// What the worker thread sends back: retries as they happen, then the result.
enum Msg {
    Retry(Retry),
    Done(Result<Reply, ModelError>),
}

/// Calls the model on a worker thread (inside the caller's tracing span, so its log lines
/// reach the run's `franz.log`); `on_retry` runs on the caller's thread for each retry.
pub fn call(
    client: Arc<ModelClient>,
    request: ChatRequest,
    interrupt: &AtomicBool,
    on_retry: &mut dyn FnMut(&Retry),
) -> CallResult {
    let (tx, rx) = mpsc::channel();
    let span = tracing::Span::current();
    std::thread::spawn(move || {
        let _in_run = span.enter();
        let retries = tx.clone();
        let mut report = |r: &Retry| {
            // the engine may have stopped listening (Ctrl+C): nothing left to tell
            let _gone = retries.send(Msg::Retry(r.clone()));
        };
        let result = client.chat_with(&request, &mut report);
        let _gone = tx.send(Msg::Done(result));
    });
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Msg::Retry(r)) => on_retry(&r),
            Ok(Msg::Done(Ok(reply))) => return CallResult::Reply(reply),
            Ok(Msg::Done(Err(e))) => return CallResult::Failed(e),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if interrupt.load(Ordering::SeqCst) {
                    return CallResult::Interrupted;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return CallResult::Failed(ModelError::BadReply {
                    url: String::new(),
                    reason: "the model call thread died".into(),
                });
            }
        }
    }
}
