//! Talking to models: the OpenAI-compatible client, its wire types, SSE assembly, the
//! exchange-log sanitizer, and the scripted model server that tests and `franz demo` use.
//!
//! A strategy builds a [`ChatRequest`]; the engine asks a [`Model`] (the HTTP [`ModelClient`]
//! or the in-memory [`MemoryModel`]) and hands the [`Reply`] to the strategy's parser.

pub mod backend;
pub mod client;
pub mod context;
pub mod context_probe;
pub mod error;
pub mod memory;
pub mod refusal;
pub mod sanitize;
pub mod scripted_server;
mod scripted_wire;
pub mod sse;
pub mod types;

pub use backend::{Model, Progress};
pub use client::{
    ClientConfig, DEFAULT_MAX_RESPONSE_BYTES, Endpoint, ModelClient, PROBE_HEADER, Retry,
    api_key_from_env,
};
pub use context::{ContextInfo, ImageCost, ImageTokens, Overflow, RequestCost};
pub use error::ModelError;
pub use memory::{Canned, MemoryModel};
pub use refusal::Refusal;
pub use scripted_server::{
    ContextReport, Fault, OverflowStyle, RecordedRequest, Script, ScriptedReply, ScriptedServer,
    ServerOptions, Step,
};
pub use types::{
    ChatRequest, Content, ContentPart, Message, Reply, Role, Tool, ToolCall, ToolChoice, Usage,
    data_url,
};

/// At most 200 characters of `s` on one line, for error messages. Looks at no more of `s`
/// than it shows (a snippet of a 30 MB reply costs what one of a line does).
pub(crate) fn snippet(s: &str) -> String {
    let mut chars = s.trim().chars();
    let head: String = chars
        .by_ref()
        .take(200)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if chars.as_str().is_empty() {
        return head;
    }
    head + "…"
}
