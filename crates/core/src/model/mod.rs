//! Talking to models: the OpenAI-compatible client, its wire types, SSE assembly, the
//! exchange-log sanitizer, and the scripted model server that tests and `franz demo` use.
//!
//! A strategy builds a [`ChatRequest`]; the engine asks a [`Model`] (the HTTP [`ModelClient`]
//! or the in-memory `CannedModel`) and hands the [`Reply`] to the strategy's parser.
//!
//! The doubles (the scripted server, its responder and server shapes, the in-memory model)
//! are built only with the `scripted` feature (docs/testing.md): the tests turn it on, and so
//! does the `franz` binary, whose `demo` and benchmarks play them; a library user who embeds
//! the engine does not get them.

pub mod adapt;
pub mod backend;
pub mod body;
pub mod calibrate;
#[cfg(any(test, feature = "scripted"))]
pub mod canned;
pub mod client;
pub mod constrain;
pub mod context;
pub mod context_probe;
pub mod error;
pub mod honours;
pub mod learned;
pub mod refusal;
#[cfg(any(test, feature = "scripted"))]
pub mod responder;
pub mod sanitize;
#[cfg(any(test, feature = "scripted"))]
pub mod scripted_server;
#[cfg(any(test, feature = "scripted"))]
mod scripted_wire;
pub mod server_info;
#[cfg(any(test, feature = "scripted"))]
pub mod server_shapes;
pub mod shape;
pub mod sse;
pub mod types;
pub mod wire;

pub use backend::{Model, Progress, Retry};
pub use calibrate::Calibration;
#[cfg(any(test, feature = "scripted"))]
pub use canned::{Canned, CannedModel};
pub use client::{
    ClientConfig, DEFAULT_MAX_RESPONSE_BYTES, Endpoint, ModelClient, PROBE_HEADER, api_key_from_env,
};
pub use constrain::{Constrain, Mode, ReplyFormat};
pub use context::{ContextInfo, ImageCost, ImageTokens, Overflow, RequestCost};
pub use error::ModelError;
pub use learned::Learned;
pub use refusal::Refusal;
#[cfg(any(test, feature = "scripted"))]
pub use scripted_server::{
    ContextReport, Fault, OverflowStyle, RecordedRequest, Route, Script, ScriptedReply,
    ScriptedServer, ServerOptions, Step,
};
pub use shape::{MessageShape, Shape};
pub use types::{
    ChatRequest, Content, ContentPart, Message, Reply, Role, Tool, ToolCall, ToolChoice, Usage,
    data_url,
};
