//! The OpenAI-compatible chat-completions client: async reqwest behind a blocking API.
//!
//! - `--api-url` may be a base URL (`http://localhost:1234/v1`) or the full endpoint
//!   (`.../v1/chat/completions`, the designs' `LMSTUDIO_ENDPOINT`, docs/designs.md).
//! - Replies come whole or streamed (SSE); both give the same [`Reply`].
//! - A connect timeout and a whole-request timeout (zero = none, with a warning).
//! - Bounded retries with exponential backoff on connection errors, 429 and the 5xx that look
//!   transient; `Retry-After` is honoured (capped). A refusal that a retry cannot change (a chat
//!   template's or a validation's, a context overflow) fails at once (`refusal.rs`). Timeouts
//!   and cut streams are not retried: they cost too much. A stream that ends before its first
//!   event is asked once more without streaming, to learn why: a server that fails a streamed
//!   request after its headers (llama-cpp-python on a template error) says why only there.
//!   Each retry is reported to the caller as a [`Retry`] (its attempt number and why).
//! - A reply body larger than [`ClientConfig::max_response_bytes`] (the `max_response_bytes`
//!   setting, 32 MiB by default) is refused with [`ModelError::TooLarge`], streamed or not.
//! - The API key (`FRANZ_API_KEY`, else `OPENAI_API_KEY`) is sent as a bearer token and never
//!   logged or printed (the `Debug` of [`ClientConfig`] masks it).
//! - Every error names the URL and says what to do; [`ModelError::is_unreachable`] marks the
//!   ones the CLI maps to exit code 3.
//! - A cancel drops the request (see below): [`ModelError::Cancelled`] at once, and the TCP
//!   connection to the server is closed before the call returns.
//!
//! # One current-thread runtime per client
//!
//! franz-core's API is blocking: the engine runs on a thread of its own and calls
//! [`super::Model::complete`]. The client owns one current-thread tokio runtime, built with it
//! and shared by its clones, and each call drives its request future with `block_on` on the
//! caller's own thread, under a `tokio::select!` against the run's [`Cancel`]
//! ([`Cancel::cancelled`]). On cancel the future is dropped wherever it is (connecting, waiting
//! for the headers, between two chunks of a stream, in a retry's backoff), and dropping it is
//! what closes the connection. No thread is spawned per call, so none can be left waiting on a
//! server that sends nothing (the blocking client this replaces read on a worker thread that the
//! caller stopped waiting for, which kept the connection open until the timeout).
//!
//! Why this shape: current-thread because a run makes one call at a time, and a multi-thread
//! runtime would keep idle worker threads per client; one runtime per client rather than per
//! call, so a call does not pay to build and tear down a runtime (and its blocking pool). The
//! cost of current-thread: hyper runs each connection as a task of the runtime, and those tasks
//! only run while a call is inside `block_on`. So the client keeps no idle connections
//! (`pool_max_idle_per_host(0)`: one connection per request, which costs nothing next to a
//! model's answer), and before a call returns it lets the runtime finish its tasks (at most
//! `SETTLE`, 100 ms): a dropped request's connection task runs once more, sees its request gone
//! and closes the socket, within about a millisecond of the cancel on this box. Calls must not
//! come from inside an async runtime (as with the blocking client before). Clones may be used
//! from several threads at once; the runtime is then shared, and a call's last step may wait
//! (up to `SETTLE`) for another thread's connection to finish.

use super::backend::{Model, Progress, Retry};
use super::body::snippet;
use super::context::{ContextInfo, context_from_models, context_from_props};
use super::error::{ModelError, overflow_error, status_error};
use super::learned::{Learned, is_deterministic};
use super::sse::{Chunk, SseDecoder, StreamAssembler};
use super::types::{ChatRequest, Reply};
use crate::cancel::Cancel;
use reqwest::{Client, RequestBuilder, Response};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

/// How to reach the model server.
#[derive(Clone)]
pub struct ClientConfig {
    /// A base URL or the full chat/completions endpoint.
    pub api_url: String,
    pub api_key: Option<String>,
    pub connect_timeout: Duration,
    /// The whole request, streaming included; zero means none.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first retry's delay; it doubles each time (capped at 10 s).
    pub backoff: Duration,
    /// The largest reply body read, in bytes (the `max_response_bytes` setting).
    pub max_response_bytes: u64,
    /// How messages are fitted to the server's chat template (`model/shape.rs`).
    pub message_shape: super::shape::MessageShape,
    /// Whether and how replies are constrained (`model/constrain.rs`).
    pub constrain: super::constrain::Constrain,
}

/// The default of `max_response_bytes`: 32 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 32 << 20;

/// At most this much of an error status's body is read for its message.
const MAX_ERROR_BODY: u64 = 64 << 10;

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("api_url", &self.api_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("connect_timeout", &self.connect_timeout)
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("message_shape", &self.message_shape)
            .field("constrain", &self.constrain)
            .finish()
    }
}

impl ClientConfig {
    /// The settings table's defaults (`config/settings.rs`, the designs' numbers of
    /// docs/designs.md): 240 s per request, 10 s to connect, 3 retries from 500 ms, replies up
    /// to 32 MiB; the key from the environment. The mapping from the configuration is
    /// `Config::client` (`config/parts.rs`).
    pub fn new(api_url: impl Into<String>) -> Self {
        Self {
            api_url: api_url.into(),
            api_key: api_key_from_env(),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(240),
            retries: 3,
            backoff: Duration::from_millis(500),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            message_shape: super::shape::MessageShape::default(),
            constrain: super::constrain::Constrain::default(),
        }
    }
}

/// What keeps `value` from being sent as an HTTP header value (a line break, another control
/// character), naming the character and where it is but never the value; `None` when it can be
/// sent.
pub fn header_problem(value: &str) -> Option<String> {
    if reqwest::header::HeaderValue::from_str(value).is_ok() {
        return None;
    }
    let (at, c) = value
        .chars()
        .enumerate()
        .find(|(_, c)| c.is_control() && *c != '\t')?;
    let name = match c {
        '\n' | '\r' => "a line break".to_string(),
        c => format!("the control character U+{:04X}", c as u32),
    };
    Some(format!(
        "it holds {name} (character {} of {})",
        at + 1,
        value.chars().count()
    ))
}

/// The API key as the request will carry it, or why it cannot be sent.
fn checked_key(key: Option<&str>) -> Result<(), ModelError> {
    let Some(problem) = key.and_then(header_problem) else {
        return Ok(());
    };
    Err(ModelError::BadHeader {
        what: "API key (api_key, FRANZ_API_KEY or OPENAI_API_KEY)".into(),
        problem,
        fix: "a key is one line of visible characters: copy it again without the line break or control character".into(),
    })
}

/// `FRANZ_API_KEY`, else `OPENAI_API_KEY`; empty counts as unset.
pub fn api_key_from_env() -> Option<String> {
    ["FRANZ_API_KEY", "OPENAI_API_KEY"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.trim().is_empty())
}

/// The two URLs a server has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// e.g. `http://localhost:1234/v1`
    pub base: String,
    /// e.g. `http://localhost:1234/v1/chat/completions`
    pub chat: String,
}

impl Endpoint {
    pub fn parse(url: &str) -> Result<Endpoint, ModelError> {
        let u = url.trim();
        let bad = |reason: &str| ModelError::BadUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            return Err(bad("it must start with http:// or https://"));
        }
        let parsed = reqwest::Url::parse(u).map_err(|e| bad(&e.to_string()))?;
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(bad("it has no host"));
        }
        let u = u.trim_end_matches('/');
        let base = u.strip_suffix("/chat/completions").unwrap_or(u).to_string();
        Ok(Endpoint {
            chat: format!("{base}/chat/completions"),
            base,
        })
    }

    pub fn models(&self) -> String {
        format!("{}/models", self.base)
    }

    /// The server's root: the base without its `/v1` (where llama.cpp's `/props`, LM Studio's
    /// `/api/v0` and Ollama's `/api` live).
    pub fn root(&self) -> &str {
        self.base.strip_suffix("/v1").unwrap_or(&self.base)
    }
}

/// The models a server offers ([`ModelClient::served_models`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServedModels {
    /// The ids `GET /v1/models` lists.
    pub listed: Vec<String>,
    /// LM Studio's loaded models (`GET /api/v0/models`), asked only when `listed` is not one id.
    pub loaded: Vec<String>,
}

impl ServedModels {
    /// The one model the server serves: the only one listed, else LM Studio's only loaded one.
    pub fn the_one(&self) -> Option<&str> {
        match (self.listed.as_slice(), self.loaded.as_slice()) {
            ([one], _) | (_, [one]) => Some(one),
            _ => None,
        }
    }
}

/// The ids in a model list (`data` or `models`, each `id` or `name`) whose entry `keep` keeps.
fn model_ids(v: &Value, keep: impl Fn(&Value) -> bool) -> Vec<String> {
    v.get("data")
        .or_else(|| v.get("models"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| keep(m))
        .filter_map(|m| {
            m.get("id")
                .or_else(|| m.get("name"))
                .and_then(Value::as_str)
        })
        .map(str::to_string)
        .collect()
}

/// The client. Cheap to clone (clones share the connection settings and the runtime); one per
/// run.
#[derive(Clone, Debug)]
pub struct ModelClient {
    http: Client,
    runtime: Arc<Driver>,
    endpoint: Endpoint,
    cfg: ClientConfig,
    /// Drops the request the moment it is set.
    cancel: Option<Cancel>,
    /// The probes' answers by URL (`None`: no usable answer): the profile's model list and the
    /// context length read the same `GET /v1/models`, asked once per client.
    probed: Arc<Mutex<HashMap<String, Option<Value>>>>,
    /// The shape and constraint requests are sent in, learned from refusals (`adapt.rs`).
    learned: Arc<Mutex<Learned>>,
}

/// The client's current-thread runtime. Shut down without waiting when the last clone goes, so
/// dropping a client inside async code cannot panic.
#[derive(Debug)]
struct Driver(Option<Runtime>);

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// The longest a call lets the runtime finish its connection tasks before it returns.
const SETTLE: Duration = Duration::from_millis(100);

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
        self.drive(Some(cancel), self.ask_adapted(request, on_progress))
    }

    fn context_length(&self, model: &str, cancel: &Cancel) -> Option<ContextInfo> {
        let probed = self.drive(Some(cancel), async { Ok(self.probe_context(model).await) });
        Some(probed.unwrap_or_else(|_| unknown_context()))
    }

    fn wire_body(&self, request: &ChatRequest, cancel: &Cancel) -> Value {
        let learned = self.drive(Some(cancel), async { Ok(self.learn_server(request).await) });
        super::wire::body(request, learned.unwrap_or_else(|_| self.learned()))
    }
}

/// The header that marks the context probe's requests, so that the scripted server keeps them
/// apart from the model calls it records (`ScriptedServer::probes`).
pub const PROBE_HEADER: &str = "X-Franz-Probe";

/// How long each context probe may take: a server that does not answer is asked no further.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// What was asked when no server said its context length.
fn unknown_context() -> ContextInfo {
    ContextInfo {
        tokens: None,
        source: "neither GET /props (llama.cpp), GET /v1/models (vLLM) nor GET /api/v0/models (LM Studio) says it".into(),
    }
}

impl ModelClient {
    pub fn new(cfg: ClientConfig) -> Result<Self, ModelError> {
        let endpoint = Endpoint::parse(&cfg.api_url)?;
        checked_key(cfg.api_key.as_deref())?;
        let cannot = |e: &dyn std::fmt::Display| ModelError::BadUrl {
            url: cfg.api_url.clone(),
            reason: format!("cannot build an HTTP client: {e}"),
        };
        let mut builder = Client::builder()
            .connect_timeout(cfg.connect_timeout)
            // a connection is a task of the runtime, which runs only inside a call: one kept
            // idle between calls would go unwatched (see the module doc)
            .pool_max_idle_per_host(0);
        if cfg.timeout.is_zero() {
            tracing::warn!(
                "model request timeout is 0 (none): a stalled server will hang the run; set --timeout"
            );
        } else {
            builder = builder.timeout(cfg.timeout);
        }
        let http = builder.build().map_err(|e| cannot(&e))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| cannot(&e))?;
        let learned = Learned::from_settings(cfg.message_shape, cfg.constrain);
        Ok(Self {
            http,
            runtime: Arc::new(Driver(Some(runtime))),
            endpoint,
            cfg,
            cancel: None,
            probed: Arc::default(),
            learned: Arc::new(Mutex::new(learned)),
        })
    }

    /// This client, giving up with [`ModelError::Cancelled`] the moment `cancel` is set: the
    /// request is dropped (its connection closed) wherever it is, a retry's backoff included.
    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Sends a request and returns the reply, streamed if `req.stream`.
    pub fn chat(&self, req: &ChatRequest) -> Result<Reply, ModelError> {
        self.chat_with(req, &mut |_| {})
    }

    /// [`ModelClient::chat`], calling `on_retry` before each retry.
    pub fn chat_with(
        &self,
        req: &ChatRequest,
        on_retry: &mut dyn FnMut(&Retry),
    ) -> Result<Reply, ModelError> {
        let mut on_progress = |p: Progress<'_>| {
            if let Progress::Retry(r) = p {
                on_retry(r);
            }
        };
        self.drive(
            self.cancel.as_ref(),
            self.ask_adapted(req, &mut on_progress),
        )
    }

    /// Streams a request (SSE), calling `on_text` with each piece of content as it arrives.
    pub fn chat_stream(
        &self,
        req: &ChatRequest,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Reply, ModelError> {
        self.chat_stream_with(req, on_text, &mut |_| {})
    }

    /// [`ModelClient::chat_stream`], calling `on_retry` before each retry.
    pub fn chat_stream_with(
        &self,
        req: &ChatRequest,
        on_text: &mut dyn FnMut(&str),
        on_retry: &mut dyn FnMut(&Retry),
    ) -> Result<Reply, ModelError> {
        let mut req = req.clone();
        req.stream = true;
        let mut on_progress = |p: Progress<'_>| match p {
            Progress::Delta(t) => on_text(t),
            Progress::Retry(r) => on_retry(r),
            Progress::ToolCall(_) => {}
        };
        self.drive(
            self.cancel.as_ref(),
            self.ask_adapted(&req, &mut on_progress),
        )
    }

    /// `GET {base}/models`: the ids of the models the server offers.
    pub fn list_models(&self) -> Result<Vec<String>, ModelError> {
        let url = self.endpoint.models();
        let started = Instant::now();
        let body = self.drive(self.cancel.as_ref(), async {
            let resp = self.send(|| self.http.get(&url), &mut |_| {}).await?;
            self.read_body(resp, started).await
        })?;
        let v: Value = serde_json::from_slice(&body).map_err(|e| ModelError::NotJson {
            url: url.clone(),
            reason: e.to_string(),
            snippet: snippet(&String::from_utf8_lossy(&body)),
        })?;
        let data = v
            .get("data")
            .or_else(|| v.get("models"))
            .and_then(Value::as_array)
            .ok_or_else(|| ModelError::BadReply {
                url,
                reason: "no \"data\" list of models".into(),
            })?;
        Ok(data
            .iter()
            .filter_map(|m| {
                m.get("id")
                    .or_else(|| m.get("name"))
                    .and_then(Value::as_str)
            })
            .map(str::to_string)
            .collect())
    }

    /// The server's context length for `model` (see [`super::context`]): llama.cpp's
    /// `GET /props`, `GET /v1/models` (vLLM's `max_model_len`), then LM Studio's
    /// `GET /api/v0/models`; each asked once, without retries, for at most [`PROBE_TIMEOUT`].
    pub fn context_length(&self, model: &str) -> ContextInfo {
        let probed = self.drive(self.cancel.as_ref(), async {
            Ok(self.probe_context(model).await)
        });
        probed.unwrap_or_else(|_| unknown_context())
    }

    async fn probe_context(&self, model: &str) -> ContextInfo {
        let base = &self.endpoint.base;
        let root = base.strip_suffix("/v1").unwrap_or(base);
        let props = self.probe_json(&format!("{root}/props")).await;
        if let Some(n) = props.as_ref().and_then(context_from_props) {
            return ContextInfo {
                tokens: Some(n),
                source: "llama.cpp GET /props".into(),
            };
        }
        let tries = [
            (self.endpoint.models(), "GET /v1/models"),
            (
                format!("{root}/api/v0/models"),
                "LM Studio GET /api/v0/models",
            ),
        ];
        for (url, source) in tries {
            let listed = self.probe_json(&url).await;
            if let Some(n) = listed.and_then(|v| context_from_models(&v, model)) {
                return ContextInfo {
                    tokens: Some(n),
                    source: source.into(),
                };
            }
        }
        unknown_context()
    }

    /// Whether the server is llama.cpp's (`GET /props` answers) or llama-cpp-python's (its
    /// model list says so): the servers that take a GBNF `grammar` (`adapt.rs`). The answers
    /// are the ones the context probe got, when it asked.
    pub(super) async fn takes_grammar(&self) -> bool {
        let props = self
            .probe_json(&format!("{}/props", self.endpoint.root()))
            .await;
        if props.is_some_and(|v| v.get("default_generation_settings").is_some()) {
            return true;
        }
        let models = self.probe_get(&self.endpoint.models(), "models").await;
        models.is_some_and(|v| super::wire::is_llama_cpp_python(&v))
    }

    /// `GET {base}/models` as the server sent it (asked once per client, without retries):
    /// `None` on any failure.
    pub fn models_listing(&self) -> Option<Value> {
        let url = self.endpoint.models();
        let probed = self.drive(self.cancel.as_ref(), async {
            Ok(self.probe_get(&url, "models").await)
        });
        probed.ok().flatten()
    }

    /// One GET of a context probe: its JSON body, `None` on any failure.
    async fn probe_json(&self, url: &str) -> Option<Value> {
        self.probe_get(url, "context").await
    }

    /// What the server offers, for `--profile auto` when no model is named: the ids
    /// `GET /v1/models` lists, and the ones LM Studio's `GET /api/v0/models` says are loaded
    /// (`state` "loaded"). Each asked once, without retries, for at most [`PROBE_TIMEOUT`],
    /// with [`PROBE_HEADER`] "models"; a server that does not answer lists nothing.
    pub fn served_models(&self) -> ServedModels {
        let probed = self.drive(self.cancel.as_ref(), async {
            let base = &self.endpoint.base;
            let root = base.strip_suffix("/v1").unwrap_or(base);
            let listed = self.probe_get(&self.endpoint.models(), "models").await;
            let listed = listed.map(|v| model_ids(&v, |_| true)).unwrap_or_default();
            if listed.len() == 1 {
                return Ok(ServedModels {
                    listed,
                    loaded: Vec::new(),
                });
            }
            let lm = self
                .probe_get(&format!("{root}/api/v0/models"), "models")
                .await;
            let loaded = lm
                .map(|v| {
                    model_ids(&v, |m| {
                        m.get("state").and_then(Value::as_str) == Some("loaded")
                    })
                })
                .unwrap_or_default();
            Ok(ServedModels { listed, loaded })
        });
        probed.unwrap_or_default()
    }

    /// `GET {root}{path}` (e.g. `/props`), or `POST` of `body` when given (Ollama's
    /// `/api/show`), as a probe: once, without retries, for at most [`PROBE_TIMEOUT`], with
    /// [`PROBE_HEADER`] "server"; its JSON body, `None` on any failure (`model/server_info.rs`).
    pub fn probe_server(&self, path: &str, body: Option<&Value>) -> Option<Value> {
        let url = format!("{}{path}", self.endpoint.root());
        let probed = self.drive(self.cancel.as_ref(), async {
            let Some(body) = body else {
                return Ok(self.probe_get(&url, "server").await);
            };
            let mut rb = self.http.post(&url).header(PROBE_HEADER, "server");
            if let Some(key) = &self.cfg.api_key {
                rb = rb.bearer_auth(key);
            }
            let resp = match rb.json(body).timeout(PROBE_TIMEOUT).send().await {
                Ok(r) if r.status().is_success() => r,
                _ => return Ok(None),
            };
            let bytes = self.read_body(resp, Instant::now()).await.ok();
            Ok(bytes.and_then(|b| serde_json::from_slice(&b).ok()))
        });
        probed.ok().flatten()
    }

    /// One GET with [`PROBE_HEADER`] set to `what`: its JSON body, `None` on any failure;
    /// a URL this client probed before is answered from memory.
    async fn probe_get(&self, url: &str, what: &str) -> Option<Value> {
        let known = self.probed.lock().ok().and_then(|m| m.get(url).cloned());
        if let Some(answer) = known {
            return answer;
        }
        let answer = self.probe_once(url, what).await;
        if let Ok(mut m) = self.probed.lock() {
            m.insert(url.to_string(), answer.clone());
        }
        answer
    }

    /// [`Self::probe_get`] on the wire.
    async fn probe_once(&self, url: &str, what: &str) -> Option<Value> {
        let mut rb = self
            .http
            .get(url)
            .header(PROBE_HEADER, what)
            .timeout(PROBE_TIMEOUT);
        if let Some(key) = &self.cfg.api_key {
            rb = rb.bearer_auth(key);
        }
        let resp = match rb.send().await {
            Ok(r) if r.status().is_success() => r,
            Ok(r) => {
                tracing::debug!(url, status = r.status().as_u16(), "context probe");
                return None;
            }
            Err(e) => {
                tracing::debug!(url, "context probe: {}", describe(&e));
                return None;
            }
        };
        let body = self.read_body(resp, Instant::now()).await.ok()?;
        serde_json::from_slice(&body).ok()
    }

    /// Runs `work` to its end on the client's runtime, on this thread, unless `cancel` is set
    /// first (or already): then `work` is dropped at once, which closes its connection. Either
    /// way the runtime then finishes the connection tasks hyper spawned, so none is left
    /// holding a socket when this returns.
    fn drive<T>(
        &self,
        cancel: Option<&Cancel>,
        work: impl Future<Output = Result<T, ModelError>>,
    ) -> Result<T, ModelError> {
        let Some(runtime) = &self.runtime.0 else {
            // only `Drop` takes it
            return Err(ModelError::Cancelled);
        };
        runtime.block_on(async {
            let out = match cancel {
                None => work.await,
                Some(cancel) => tokio::select! {
                    biased;
                    () = cancel.cancelled() => Err(ModelError::Cancelled),
                    out = work => out,
                },
            };
            settle().await;
            out
        })
    }

    /// What requests are sent in now: the message shape and the constraint, as set and as
    /// learned from the server's refusals so far (`adapt.rs`).
    pub fn learned(&self) -> Learned {
        match self.learned.lock() {
            Ok(l) => *l,
            Err(p) => *p.into_inner(),
        }
    }

    pub(super) fn set_learned(&self, learned: Learned) {
        match self.learned.lock() {
            Ok(mut l) => *l = learned,
            Err(p) => *p.into_inner() = learned,
        }
    }

    pub(super) fn shape_setting(&self) -> super::shape::MessageShape {
        self.cfg.message_shape
    }

    /// One request with its JSON `body` (`req` shaped and constrained, `adapt.rs`): the reply,
    /// whole or streamed as `req.stream` says.
    pub(super) async fn ask(
        &self,
        req: &ChatRequest,
        body: &Value,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, ModelError> {
        let started = Instant::now();
        if !req.stream {
            let resp = self
                .send(
                    || self.http.post(&self.endpoint.chat).json(&body),
                    on_progress,
                )
                .await?;
            let body = self.read_body(resp, started).await?;
            return self.reply_from_body(&body);
        }
        let (resp, attempts) = self
            .send_counted(
                || {
                    self.http
                        .post(&self.endpoint.chat)
                        .header("Accept", "text/event-stream")
                        .json(body)
                },
                on_progress,
            )
            .await?;
        let is_json = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.contains("application/json"));
        if is_json {
            // The server ignored `stream: true` and answered whole.
            let body = self.read_body(resp, started).await?;
            let reply = self.reply_from_body(&body)?;
            on_progress(Progress::Delta(&reply.content));
            return Ok(reply);
        }
        let mut events = 0;
        match self
            .read_stream(resp, started, on_progress, &mut events)
            .await
        {
            Err(broken @ ModelError::Stream { .. }) if events == 0 => {
                self.ask_whole(req, broken, attempts, on_progress).await
            }
            read => read,
        }
    }

    /// A reply stream that ended before its first event, asked once more without streaming:
    /// a server that fails a streamed request after sending its headers (llama-cpp-python on a
    /// chat template's error) can say why only in a reply that is not streamed. Its reply, or
    /// its error (a refusal is then reported as one); the stream's error when the server is
    /// gone.
    async fn ask_whole(
        &self,
        req: &ChatRequest,
        broken: ModelError,
        attempts: u32,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, ModelError> {
        let why = match &broken {
            ModelError::Stream { reason, .. } => reason.clone(),
            other => other.to_string(),
        };
        on_progress(Progress::Retry(&Retry {
            attempt: attempts + 1,
            reason: format!(
                "the reply stream ended before its first event ({why}); asking once more without streaming to learn why"
            ),
        }));
        let mut whole = req.clone();
        whole.stream = false;
        let started = Instant::now();
        let mut rb = self.http.post(&self.endpoint.chat).json(&whole.to_body());
        if let Some(key) = &self.cfg.api_key {
            rb = rb.bearer_auth(key);
        }
        match rb.send().await {
            Ok(resp) if resp.status().is_success() => {
                let body = self.read_body(resp, started).await?;
                let reply = self.reply_from_body(&body)?;
                on_progress(Progress::Delta(&reply.content));
                Ok(reply)
            }
            Ok(resp) => {
                let status = resp.status().as_u16();
                let text = error_text(resp).await;
                let has_key = self.cfg.api_key.is_some();
                Err(status_error(
                    &self.endpoint.chat,
                    status,
                    &text,
                    attempts + 1,
                    has_key,
                ))
            }
            Err(e) if e.is_timeout() && !e.is_connect() => Err(self.timeout_error()),
            Err(_) => Err(broken),
        }
    }

    /// Sends with retries, telling `on_progress` about each; returns a 2xx response.
    async fn send(
        &self,
        build: impl Fn() -> RequestBuilder,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Response, ModelError> {
        Ok(self.send_counted(build, on_progress).await?.0)
    }

    /// [`Self::send`], with the number of attempts it took.
    async fn send_counted(
        &self,
        build: impl Fn() -> RequestBuilder,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<(Response, u32), ModelError> {
        let attempts = self.cfg.retries + 1;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut rb = build();
            if let Some(key) = &self.cfg.api_key {
                rb = rb.bearer_auth(key);
            }
            let last = attempt >= attempts;
            match rb.send().await {
                Ok(resp) if resp.status().is_success() => return Ok((resp, attempt)),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = retry_after(&resp);
                    let text = error_text(resp).await;
                    // a refusal (a chat template's, a validation's, a constraint's) or a context
                    // overflow (older llama.cpp sends them as 500s) comes back the same: only
                    // transient ones are retried (`refusal.rs`); `adapt.rs` answers a refusal by
                    // changing the request
                    let refusal = is_deterministic(&text);
                    if super::refusal::is_transient(status, &text) && !refusal && !last {
                        tracing::info!(status, attempt, "model server error; retrying");
                        let why = format!("HTTP {status} ({})", super::body::server_message(&text));
                        self.retry(attempt, why, retry_after, on_progress).await;
                        continue;
                    }
                    return Err(status_error(
                        &self.endpoint.chat,
                        status,
                        &text,
                        attempt,
                        self.cfg.api_key.is_some(),
                    ));
                }
                Err(e) if e.is_timeout() && !e.is_connect() => {
                    return Err(self.timeout_error());
                }
                // nothing was sent: a header (or the URL) could not be written
                Err(e) if e.is_builder() => {
                    return Err(ModelError::BadHeader {
                        what: "request".into(),
                        problem: describe(&e),
                        fix: "check the API key and the URL".into(),
                    });
                }
                Err(e) => {
                    let reason = describe(&e);
                    if !last {
                        tracing::info!(attempt, %reason, "model server not reachable; retrying");
                        let what = if e.is_connect() {
                            "not reachable"
                        } else {
                            "dropped the connection"
                        };
                        let why = format!("{what}: {reason}");
                        self.retry(attempt, why, None, on_progress).await;
                        continue;
                    }
                    return Err(self.connection_error(e.is_connect(), reason, attempt));
                }
            }
        }
    }

    /// The error after the last attempt found no server (`connect`) or lost the connection.
    fn connection_error(&self, connect: bool, reason: String, attempts: u32) -> ModelError {
        let url = self.endpoint.base.clone();
        if connect {
            ModelError::Unreachable {
                url,
                reason,
                attempts,
            }
        } else {
            ModelError::Disconnected {
                url,
                reason,
                attempts,
            }
        }
    }

    /// Tells `on_progress` that attempt `attempt + 1` follows and why, then waits the backoff
    /// (dropped with the request on cancel).
    async fn retry(
        &self,
        attempt: u32,
        why: String,
        retry_after: Option<Duration>,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) {
        let exp = self
            .cfg
            .backoff
            .saturating_mul(1u32 << (attempt - 1).min(10))
            .min(Duration::from_secs(10));
        let wait = retry_after.unwrap_or(exp);
        on_progress(Progress::Retry(&Retry {
            attempt: attempt + 1,
            reason: format!("{why}; retrying in {:.1} s", wait.as_secs_f64()),
        }));
        tokio::time::sleep(wait).await;
    }

    fn too_large(&self) -> ModelError {
        ModelError::TooLarge {
            url: self.endpoint.chat.clone(),
            limit: self.cfg.max_response_bytes,
        }
    }

    fn timeout_error(&self) -> ModelError {
        ModelError::Timeout {
            url: self.endpoint.chat.clone(),
            secs: self.cfg.timeout.as_secs_f64(),
        }
    }

    fn past_deadline(&self, started: Instant) -> bool {
        !self.cfg.timeout.is_zero() && started.elapsed() >= self.cfg.timeout
    }

    /// The error for a body read that failed after `read` bytes: the timeout if it passed.
    fn read_error(&self, e: &reqwest::Error, started: Instant, what: &str) -> ModelError {
        if e.is_timeout() || self.past_deadline(started) {
            return self.timeout_error();
        }
        ModelError::Stream {
            url: self.endpoint.chat.clone(),
            reason: format!("{what}: {}", describe(e)),
        }
    }

    /// The whole body, at most `max_response_bytes` of it.
    async fn read_body(&self, mut resp: Response, started: Instant) -> Result<Vec<u8>, ModelError> {
        let cap = self.cfg.max_response_bytes;
        if resp.content_length().is_some_and(|n| n > cap) {
            return Err(self.too_large());
        }
        let mut body = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    body.extend_from_slice(&chunk);
                    if body.len() as u64 > cap {
                        return Err(self.too_large());
                    }
                }
                Ok(None) => return Ok(body),
                Err(e) => {
                    let what = format!("the body was cut off after {} bytes", body.len());
                    return Err(self.read_error(&e, started, &what));
                }
            }
        }
    }

    fn reply_from_body(&self, body: &[u8]) -> Result<Reply, ModelError> {
        let url = &self.endpoint.chat;
        let v: Value = serde_json::from_slice(body).map_err(|e| ModelError::NotJson {
            url: url.clone(),
            reason: e.to_string(),
            snippet: snippet(&String::from_utf8_lossy(body)),
        })?;
        if v.get("choices").is_none()
            && let Some(err) = v.get("error")
        {
            // LM Studio may send its overflow error with status 200
            if let Some(e) = overflow_error(url, &String::from_utf8_lossy(body)) {
                return Err(e);
            }
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| err.to_string(), str::to_string);
            return Err(ModelError::BadReply {
                url: url.clone(),
                reason: format!("the server answered with an error: {msg}"),
            });
        }
        Reply::from_response(&v).map_err(|reason| ModelError::BadReply {
            url: url.clone(),
            reason,
        })
    }

    async fn read_stream(
        &self,
        mut resp: Response,
        started: Instant,
        on_progress: &mut dyn FnMut(Progress<'_>),
        events: &mut usize,
    ) -> Result<Reply, ModelError> {
        let url = &self.endpoint.chat;
        let mut decoder = SseDecoder::default();
        let mut asm = StreamAssembler::new();
        let mut total = 0usize;
        let stream_err = |reason: String| ModelError::Stream {
            url: url.clone(),
            reason,
        };
        loop {
            let chunk = match resp.chunk().await {
                Ok(chunk) => chunk,
                Err(e) => {
                    let what = format!("read failed after {total} bytes");
                    return Err(self.read_error(&e, started, &what));
                }
            };
            let mut payloads = match &chunk {
                None => decoder.finish().into_iter().collect(),
                Some(bytes) => {
                    total += bytes.len();
                    if total as u64 > self.cfg.max_response_bytes {
                        return Err(self.too_large());
                    }
                    decoder.feed(bytes)
                }
            };
            *events += payloads.len();
            for p in payloads.drain(..) {
                match asm.push(&p).map_err(stream_err)? {
                    Chunk::Delta(t) if !t.is_empty() => on_progress(Progress::Delta(&t)),
                    _ => {}
                }
                for call in asm.completed_calls() {
                    on_progress(Progress::ToolCall(&call));
                }
            }
            if asm.is_done() {
                return Ok(asm.finish());
            }
            if chunk.is_none() {
                let reply = asm.finish();
                if reply.finish_reason.is_some() {
                    // Some servers end without `[DONE]` once they sent a finish reason.
                    return Ok(reply);
                }
                return Err(stream_err(format!(
                    "it ended after {total} bytes without a finish reason or [DONE]"
                )));
            }
            if self.past_deadline(started) {
                return Err(self.timeout_error());
            }
        }
    }
}

/// Lets the runtime run its other tasks (the connections hyper spawned, which close once their
/// request or body is dropped) until none is left, for at most [`SETTLE`].
async fn settle() {
    let deadline = tokio::time::Instant::now() + SETTLE;
    let metrics = tokio::runtime::Handle::current().metrics();
    tokio::task::yield_now().await;
    while metrics.num_alive_tasks() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// The wait a response's `Retry-After` header asks for, in seconds, capped at 30 s.
fn retry_after(resp: &Response) -> Option<Duration> {
    resp.headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(30.0)))
}

/// The start of an error status's body, for its message (a huge error page is not read whole).
async fn error_text(mut resp: Response) -> String {
    let mut body = Vec::new();
    while (body.len() as u64) < MAX_ERROR_BODY {
        match resp.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) => break,
            Err(e) => {
                tracing::debug!("the error body was cut off after {} bytes: {e}", body.len());
                break;
            }
        }
    }
    body.truncate(usize::try_from(MAX_ERROR_BODY).unwrap_or(usize::MAX));
    String::from_utf8_lossy(&body).into_owned()
}

/// A short reason for a transport error: "connection refused", "could not resolve host", ...
fn describe(e: &reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
                std::io::ErrorKind::ConnectionReset => "connection reset".into(),
                std::io::ErrorKind::TimedOut => "connect timed out".into(),
                _ => io.to_string(),
            };
        }
        source = s.source();
    }
    let text = e.to_string();
    let mut chain = text.clone();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        chain = s.to_string();
        source = s.source();
    }
    if chain.contains("dns") || chain.contains("resolve") || chain.contains("lookup") {
        return "could not resolve host".into();
    }
    if e.is_connect() && e.is_timeout() {
        return "connect timed out".into();
    }
    chain
}

#[cfg(test)]
mod served_tests {
    use super::*;

    #[test]
    fn the_one_model_is_the_only_listed_else_lm_studios_only_loaded() {
        let lm = serde_json::json!({"data": [
            {"id": "qwen2.5-vl-7b", "state": "not-loaded"},
            {"id": "ui-tars-1.5-7b", "state": "loaded"},
        ]});
        let loaded = model_ids(&lm, |m| {
            m.get("state").and_then(Value::as_str) == Some("loaded")
        });
        assert_eq!(loaded, ["ui-tars-1.5-7b"]);
        let listed = model_ids(&lm, |_| true);
        let two = ServedModels { listed, loaded };
        assert_eq!(two.the_one(), Some("ui-tars-1.5-7b"));
        let one = ServedModels {
            listed: vec!["glm-4.5v".into()],
            loaded: Vec::new(),
        };
        assert_eq!(one.the_one(), Some("glm-4.5v"));
        let none = ServedModels {
            listed: vec!["a".into(), "b".into()],
            loaded: Vec::new(),
        };
        assert_eq!(none.the_one(), None);
    }
}
