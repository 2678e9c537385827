//! One model call on a worker thread, so that Ctrl+C can end the run while a slow model is
//! still thinking (the blocking HTTP call cannot be cancelled; the thread is left to finish).

use crate::model::{ChatRequest, ModelClient, ModelError, Reply};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

pub enum CallResult {
    Reply(Reply),
    Failed(ModelError),
    Interrupted,
}

pub fn call(client: Arc<ModelClient>, request: ChatRequest, interrupt: &AtomicBool) -> CallResult {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let result = if request.stream {
            client.chat_stream(&request, &mut |_: &str| {})
        } else {
            client.chat(&request)
        };
        let _ = tx.send(result);
    });
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Ok(reply)) => return CallResult::Reply(reply),
            Ok(Err(e)) => return CallResult::Failed(e),
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
