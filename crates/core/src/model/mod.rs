//! Talking to models: the OpenAI-compatible client, its wire types, SSE assembly, the
//! exchange-log sanitizer, and the scripted model server that tests and `franz demo` use.
//!
//! A strategy builds a [`ChatRequest`]; the engine asks a [`Model`] (the HTTP [`ModelClient`]
//! or the in-memory [`MemoryModel`]) and hands the [`Reply`] to the strategy's parser.

pub mod backend;
pub mod client;
pub mod context;
pub mod error;
pub mod memory;
pub mod responder;
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
pub use scripted_server::{
    ContextReport, Fault, OverflowStyle, RecordedRequest, Script, ScriptedReply, ScriptedServer,
    ServerOptions, Step,
};
pub use types::{
    ChatRequest, Content, ContentPart, Message, Reply, Role, Tool, ToolCall, ToolChoice, Usage,
    data_url,
};

/// At most 200 characters of `s` on one line, for error messages.
pub(crate) fn snippet(s: &str) -> String {
    let one_line: String = s
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out: String = one_line.chars().take(200).collect();
    if one_line.chars().count() > 200 {
        out.push('…');
    }
    out
}
