//! The context length of a server that says it only when it refuses a request as too long:
//! llama-cpp-python's server (`llama_cpp.server`) answers neither `GET /props` nor a context
//! field in `GET /v1/models`, but it refuses a prompt longer than its `n_ctx` before evaluating
//! any of it, naming `n_ctx` ("Requested tokens (N) exceed context window of M" as a 400 on the
//! text path, "Prompt exceeds n_ctx: N > M" as a 500 on the image path).
//!
//! [`context_from_refusal`] sends such a prompt on purpose (`franz doctor` does). Only to a
//! server whose model list is llama-cpp-python's ([`is_llama_cpp_python`](super::wire::is_llama_cpp_python)): another server may
//! evaluate a long prompt, which costs minutes, or cut it silently (Ollama), which says
//! nothing. A run does not probe: it learns the length from its first refused request
//! (`engine/mod.rs`, `ask_fitted`).

use super::client::ModelClient;
use super::context::ContextInfo;
use super::error::ModelError;
use super::types::{ChatRequest, Message};
use super::wire::is_llama_cpp_python;

/// Tokens of the probe's prompt: more than any context llama-cpp-python is run with on a
/// machine without a GPU (Gemma 3 and Qwen2.5-VL train at 32k to 128k), a few hundred KB.
const PROBE_TOKENS: usize = 1 << 18;

/// The context length from the server's refusal of a prompt longer than any context, when
/// the server is llama-cpp-python's; `None` otherwise, or when it did not refuse with numbers.
pub fn context_from_refusal(client: &ModelClient, model: &str) -> Option<ContextInfo> {
    if !client
        .models_listing()
        .is_some_and(|v| is_llama_cpp_python(&v))
    {
        return None;
    }
    let mut request = ChatRequest::new(model, vec![Message::user(" x".repeat(PROBE_TOKENS))]);
    request.max_tokens = Some(1);
    match client.chat(&request) {
        Err(ModelError::ContextOverflow {
            limit: Some(n),
            detail,
            ..
        }) => Some(ContextInfo {
            tokens: Some(n),
            source: format!("llama-cpp-python's refusal of a longer prompt: {detail}"),
        }),
        _ => None,
    }
}
