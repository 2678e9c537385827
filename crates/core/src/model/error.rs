//! What can go wrong talking to a model server, each error naming the URL and what to do.
//!
//! [`ModelError::is_unreachable`] marks "no server after retries" (exit code 3); everything
//! else is a failure of the run (exit code 1) or, for a bad URL, a configuration error.

use super::body::server_message;
use super::refusal::{Refusal, refusal};

/// A model-server error. Messages never contain the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("bad model server URL {url:?}: {reason}: pass --api-url like http://localhost:1234/v1")]
    BadUrl { url: String, reason: String },
    /// A value franz would send as an HTTP header cannot be one (the API key with a line
    /// break in it): nothing was sent. Never holds the value.
    #[error("the {what} cannot be sent in an HTTP header: {problem}: {fix}")]
    BadHeader {
        what: String,
        problem: String,
        fix: String,
    },
    #[error(
        "no model server at {url} ({reason}): start your model server (e.g. LM Studio's local server) or pass --api-url"
    )]
    Unreachable {
        url: String,
        reason: String,
        attempts: u32,
    },
    #[error(
        "the model server at {url} dropped the connection ({reason}; {attempts} attempts): check the server's log, or pass --api-url"
    )]
    Disconnected {
        url: String,
        reason: String,
        attempts: u32,
    },
    #[error(
        "the model server at {url} did not answer within {secs} s: raise --timeout (0 = none), or use a smaller model or image"
    )]
    Timeout { url: String, secs: f64 },
    /// An HTTP error status; the message is specific to the status.
    #[error("{message}")]
    Status {
        url: String,
        status: u16,
        message: String,
    },
    #[error(
        "the model server at {url} sent a body that is not JSON ({reason}): {snippet}: check that --api-url points at an OpenAI-compatible /v1 endpoint"
    )]
    NotJson {
        url: String,
        reason: String,
        snippet: String,
    },
    #[error(
        "the model server at {url} sent an unexpected reply ({reason}): check that it is an OpenAI-compatible chat completions endpoint"
    )]
    BadReply { url: String, reason: String },
    #[error(
        "the model server at {url} sent a reply larger than {limit} bytes: raise the max_response_bytes setting (config file, or FRANZ_MAX_RESPONSE_BYTES), or lower max_tokens"
    )]
    TooLarge { url: String, limit: u64 },
    #[error(
        "the reply stream from {url} broke ({reason}): the server may have crashed or run out of memory; try again, or turn streaming off"
    )]
    Stream { url: String, reason: String },
    /// The request did not fit the server's context (its error said so): the numbers where
    /// the server gave them, and the setting to change.
    #[error("{}", overflow_message(url, *requested, *limit, detail))]
    ContextOverflow {
        url: String,
        /// The tokens the request needed, as the server counted them.
        requested: Option<u64>,
        /// The server's context length.
        limit: Option<u64>,
        /// The server's own message.
        detail: String,
    },
    /// The server refused the request for a reason a retry cannot change (its chat template
    /// raised, or the request did not validate): not retried (`refusal.rs`).
    #[error("{}", refusal_message(url, *status, *kind, detail))]
    Refused {
        url: String,
        status: u16,
        kind: Refusal,
        /// The server's own message.
        detail: String,
    },
    /// The run's [`crate::cancel::Cancel`] token was set while the call was under way.
    #[error("the model call was cancelled: the run was stopped")]
    Cancelled,
}

impl ModelError {
    /// No server answered, even after the retries: the CLI exits with code 3.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            ModelError::Unreachable { .. } | ModelError::Disconnected { .. }
        )
    }

    /// The HTTP status, for status errors.
    pub fn status(&self) -> Option<u16> {
        match self {
            ModelError::Status { status, .. } | ModelError::Refused { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// The message of [`ModelError::Refused`]: the server's words and what to change.
fn refusal_message(url: &str, status: u16, kind: Refusal, detail: &str) -> String {
    let (what, fix) = match kind {
        Refusal::Template => (
            "its chat template does not take the messages franz sent",
            "set message_shape to alternate (user and assistant strictly alternating, tool results as user text) \
             or strict (also no system message), with --message-shape, FRANZ_MESSAGE_SHAPE or the config file; \
             or serve the model with a chat template that takes them",
        ),
        Refusal::Validation => (
            "it does not take something in the request",
            "the server's message names it: leave that feature out (images: load the model's image projector; \
             tools: use another --strategy; a response format or grammar: turn constraining off), \
             or check the server's log",
        ),
    };
    format!(
        "the model server at {url} refused the request ({status}: {detail}): {what}; \
         the same request fails the same way, so franz did not retry it: {fix}"
    )
}

/// The message of [`ModelError::ContextOverflow`].
fn overflow_message(url: &str, requested: Option<u64>, limit: Option<u64>, detail: &str) -> String {
    let numbers = match (requested, limit) {
        (Some(r), Some(l)) => format!("the request needs {r} tokens, the context holds {l}"),
        (None, Some(l)) => format!("the context holds {l} tokens"),
        (Some(r), None) => format!("the request needs {r} tokens"),
        (None, None) => "the server gave no numbers".to_string(),
    };
    let set = match limit {
        Some(l) => format!("set context_tokens to {l}"),
        None => "set context_tokens to the server's context length".to_string(),
    };
    format!(
        "the request does not fit the model server's context at {url} ({numbers}; the server said: {detail}): \
         {set} (--context-tokens, FRANZ_CONTEXT_TOKENS or the config file) so that franz keeps each request inside it, \
         or load the model with a larger context (llama.cpp: -c; LM Studio: the model's context length), \
         or lower max_tokens, keep_last_screenshots or the image --size"
    )
}

/// The error for a body that reports a context overflow, if it does.
pub(crate) fn overflow_error(url: &str, body: &str) -> Option<ModelError> {
    let o = super::context::context_overflow(body)?;
    Some(ModelError::ContextOverflow {
        url: url.to_string(),
        requested: o.requested,
        limit: o.limit,
        detail: server_message(body),
    })
}

/// The message for an HTTP error status.
pub(crate) fn status_error(
    url: &str,
    status: u16,
    body: &str,
    attempts: u32,
    has_key: bool,
) -> ModelError {
    if let Some(e) = overflow_error(url, body) {
        return e;
    }
    let detail = server_message(body);
    if status >= 400
        && let Some(kind) = refusal(body)
    {
        return ModelError::Refused {
            url: url.to_string(),
            status,
            kind,
            detail,
        };
    }
    let what = match status {
        401 | 403 if has_key => format!(
            "the model server at {url} refused the API key ({status}: {detail}): check FRANZ_API_KEY (or OPENAI_API_KEY)"
        ),
        401 | 403 => format!(
            "the model server at {url} wants an API key ({status}: {detail}): set FRANZ_API_KEY (or OPENAI_API_KEY)"
        ),
        404 => format!(
            "the model server at {url} answered 404 Not Found ({detail}): check the model name (--model; `franz doctor` lists the server's models) and that --api-url is the server's /v1 base URL"
        ),
        400 | 413 | 422 => format!(
            "the model server at {url} rejected the request ({status}: {detail}): the model may not take images or tools, or the context is too long (fewer screenshots, smaller images)"
        ),
        429 => format!(
            "the model server at {url} is rate limiting (429, {attempts} attempts: {detail}): wait a while, or raise --retries"
        ),
        s if s >= 500 => format!(
            "the model server at {url} failed ({status}, {attempts} attempts: {detail}): check the server's log (is the model loaded?)"
        ),
        _ => format!("the model server at {url} answered {status} ({detail})"),
    };
    ModelError::Status {
        url: url.to_string(),
        status,
        message: what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_overflow_becomes_a_message_with_the_numbers_and_the_setting() {
        let llama = r#"{"error":{"code":400,"message":"request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#;
        let e = status_error("http://h/v1/chat/completions", 400, llama, 1, false);
        assert_eq!(
            e,
            ModelError::ContextOverflow {
                url: "http://h/v1/chat/completions".into(),
                requested: Some(9000),
                limit: Some(8192),
                detail: "request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it".into(),
            }
        );
        let msg = e.to_string();
        assert!(
            msg.contains("needs 9000 tokens, the context holds 8192"),
            "{msg}"
        );
        assert!(
            msg.contains("set context_tokens to 8192") && msg.contains("--context-tokens"),
            "{msg}"
        );
        assert!(!e.is_unreachable());
        // older llama.cpp sends it as a 500, without numbers
        let old = r#"{"error":{"code":500,"message":"the request exceeds the available context size, try increasing it","type":"server_error"}}"#;
        let msg = status_error("u", 500, old, 1, false).to_string();
        assert!(msg.contains("the server gave no numbers"), "{msg}");
        assert!(
            msg.contains("set context_tokens to the server's context length"),
            "{msg}"
        );
        // other errors keep their messages
        let other = status_error("u", 400, r#"{"error":{"message":"no images"}}"#, 1, false);
        assert!(
            matches!(other, ModelError::Status { status: 400, .. }),
            "{other:?}"
        );
    }
}
