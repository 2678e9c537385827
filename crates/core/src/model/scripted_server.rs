//! A real OpenAI-compatible HTTP server on `127.0.0.1:0` that answers from a script.
//!
//! Library code, not dev-only: `franz demo` runs on it, and tests use the same code. It speaks
//! plain HTTP/1.1 over std TCP on its own threads (one per connection), so callers get a
//! blocking API and no async runtime leaks into theirs:
//! - replies come from a [`Script`]: a list of [`Step`]s, or a function of the request;
//! - `stream: true` requests get SSE (chunked), at [`ServerOptions::tokens_per_second`];
//! - [`Fault`]s: HTTP 500/429 (and any status), a dropped connection, a stream cut mid-way,
//!   a body that is not JSON, no answer at all or a stream that stalls mid-way (both held open
//!   until the client hangs up), or a real server's answer replayed byte for byte
//!   ([`Fault::Raw`]); any step may be delayed;
//! - a streamed reply may pause once mid-way ([`ScriptedReply::pause_after`]), e.g. after an
//!   action line and before the story (early execution's test), and the moment each reply was
//!   sent in full is kept ([`ScriptedServer::replied_at`]);
//! - every request is recorded ([`ScriptedServer::requests`], [`ScriptedServer::wait_for_requests`]),
//!   and so is the moment a client closes a connection the server still holds open
//!   ([`ScriptedServer::wait_for_hangup`]): a thread per connection watches for it, and a
//!   delay, a hang or a stall ends when it happens;
//! - `GET .../models` lists [`ServerOptions::models`]; other endpoints answer as
//!   [`ServerOptions::routes`] say (a real server's own API);
//! - each reply's `usage` counts the request's prompt by the server's own rule
//!   ([`prompt_tokens`]) unless the reply says otherwise ([`ScriptedReply::usage`]);
//! - a context window ([`ServerOptions::context_tokens`]): a chat request whose prompt (counted
//!   by the server's own rule, [`prompt_tokens`]) does not fit is refused with a llama.cpp- or
//!   vLLM-style error body ([`OverflowStyle`]), and the length is reported where
//!   [`ContextReport`] says (llama.cpp's `GET /props`, or `max_model_len` in `GET /v1/models`).
//!   The context probe's requests (header [`super::PROBE_HEADER`]) are kept apart
//!   ([`ScriptedServer::probes`]), so that [`ScriptedServer::requests`] stays the model calls.
//!
//! Dropping the handle stops the server; delays and streams in flight end promptly.

use super::scripted_wire::{chat_json, models_json, sse_events};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub use super::scripted_wire::ScriptedReply;

/// What the server does for one chat request.
#[derive(Debug, Clone)]
pub struct Step {
    pub reply: ScriptedReply,
    /// Wait this long before answering (or faulting).
    pub delay: Duration,
    pub fault: Option<Fault>,
}

impl Step {
    pub fn fault(fault: Fault) -> Step {
        Step {
            reply: ScriptedReply::text("(fault)"),
            delay: Duration::ZERO,
            fault: Some(fault),
        }
    }
    pub fn delayed(mut self, delay: Duration) -> Step {
        self.delay = delay;
        self
    }
}

impl From<ScriptedReply> for Step {
    fn from(reply: ScriptedReply) -> Step {
        Step {
            reply,
            delay: Duration::ZERO,
            fault: None,
        }
    }
}

/// Ways to misbehave.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer with this HTTP status and an OpenAI-style error body.
    Status(u16),
    /// Answer with this HTTP status and this body (a real server's error, as captured).
    Body(u16, String),
    /// 429 with `Retry-After: 0`.
    RateLimited,
    /// Close the connection without answering.
    DropConnection,
    /// Send this many SSE events (or half the JSON body), then close.
    TruncateStream { after_events: usize },
    /// 200 with a body that is not JSON (or an SSE event that is not).
    InvalidJson,
    /// Answer nothing; hold the connection open until the client hangs up or the server stops.
    Hang,
    /// Send this many SSE events (or half the JSON body), then nothing more; hold the
    /// connection open until the client hangs up or the server stops.
    StallStream { after_events: usize },
    /// Send exactly these bytes (status line, headers and body: a real server's answer as
    /// captured, e.g. `tests/fixtures/llama_cpp_python/`), then close the connection.
    Raw(Vec<u8>),
}

type ScriptFn = dyn Fn(&RecordedRequest) -> Step + Send + Sync;

/// Where replies come from.
pub enum Script {
    /// In order; when they run out the server answers 500 "script exhausted".
    List(Mutex<VecDeque<Step>>),
    Func(Box<ScriptFn>),
}

impl Script {
    pub fn list<S: Into<Step>>(steps: impl IntoIterator<Item = S>) -> Script {
        Script::List(Mutex::new(steps.into_iter().map(Into::into).collect()))
    }
    pub fn func(f: impl Fn(&RecordedRequest) -> Step + Send + Sync + 'static) -> Script {
        Script::Func(Box::new(f))
    }
    /// The same step for every request.
    pub fn repeat(step: impl Into<Step>) -> Script {
        let step = step.into();
        Script::func(move |_| step.clone())
    }
    fn next(&self, req: &RecordedRequest) -> Option<Step> {
        match self {
            Script::List(q) => lock(q).pop_front(),
            Script::Func(f) => Some(f(req)),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Streaming speed; `None` sends tokens as fast as the socket takes them.
    pub tokens_per_second: Option<f64>,
    /// What `GET /models` lists.
    pub models: Vec<String>,
    /// The context window in tokens: a chat request that does not fit is refused with HTTP 400
    /// and an error body in `overflow_style`. `None`: no limit.
    pub context_tokens: Option<u64>,
    pub overflow_style: OverflowStyle,
    /// Where the server says `context_tokens`.
    pub context_report: ContextReport,
    /// Fixed answers to other endpoints, asked before any other (a real server's own API,
    /// e.g. LM Studio's `GET /api/v0/models`: `model/server_shapes.rs`).
    pub routes: Vec<Route>,
}

/// A fixed answer to one endpoint: `method` and a path the request's ends with (query aside).
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub method: String,
    pub path: String,
    pub status: u16,
    pub body: String,
}

impl Route {
    /// 200 with `body` as JSON.
    pub fn json(method: &str, path: &str, body: &Value) -> Route {
        Route {
            method: method.into(),
            path: path.into(),
            status: 200,
            body: body.to_string(),
        }
    }
    fn matches(&self, req: &RecordedRequest) -> bool {
        let path = req.path.split('?').next().unwrap_or("");
        req.method.eq_ignore_ascii_case(&self.method)
            && path
                .trim_end_matches('/')
                .ends_with(self.path.trim_end_matches('/'))
    }
}

/// How an over-long request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OverflowStyle {
    /// llama.cpp's `exceed_context_size_error`: the prompt alone against `n_ctx`.
    #[default]
    LlamaCpp,
    /// vLLM's "maximum context length is N tokens. However, you requested M tokens": the
    /// prompt and the reply's `max_tokens` together.
    Vllm,
}

/// Where the server says its context length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContextReport {
    /// Nowhere (`GET /props` is 404, the model list has no length).
    #[default]
    Hidden,
    /// llama.cpp's `GET /props`: `default_generation_settings.n_ctx`.
    Props,
    /// `GET /v1/models`: `max_model_len` on each model, as vLLM does.
    Models,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            tokens_per_second: None,
            models: vec!["scripted-model".into()],
            context_tokens: None,
            overflow_style: OverflowStyle::default(),
            context_report: ContextReport::default(),
            routes: Vec::new(),
        }
    }
}

/// The prompt's tokens as this server counts them: the characters of every string in the
/// messages and tools (image URLs aside) at 4 a token, 4 tokens a message, and each PNG image
/// at one token per 28x28 pixels (rounded up; 1,500 for an image of unknown size).
pub fn prompt_tokens(body: &Value) -> u64 {
    fn chars(v: &Value, images: &mut u64) -> u64 {
        match v {
            Value::String(s) if s.starts_with("data:image/") => {
                *images += super::context::image_size(s).map_or(1_500, |(w, h)| {
                    u64::from(w.div_ceil(28)) * u64::from(h.div_ceil(28))
                });
                0
            }
            Value::String(s) => s.chars().count() as u64,
            Value::Array(a) => a.iter().map(|x| chars(x, images)).sum(),
            Value::Object(o) => o.values().map(|x| chars(x, images)).sum(),
            _ => 0,
        }
    }
    let mut images = 0;
    let messages = body.get("messages").and_then(Value::as_array);
    let text = messages.map_or(0, |m| chars(&Value::from(m.clone()), &mut images))
        + body.get("tools").map_or(0, |t| chars(t, &mut images));
    text.div_ceil(4) + 4 * messages.map_or(0, |m| m.len() as u64) + images
}

/// The error body for a request of `prompt` tokens (and `max_tokens` for the reply) that does
/// not fit `limit`; `None` when it fits.
fn overflow_body(style: OverflowStyle, limit: u64, prompt: u64, max_tokens: u64) -> Option<String> {
    match style {
        OverflowStyle::LlamaCpp if prompt > limit => Some(serde_json::json!({"error": {
            "code": 400,
            "message": format!("request ({prompt} tokens) exceeds the available context size ({limit} tokens), try increasing it"),
            "type": "exceed_context_size_error",
            "n_prompt_tokens": prompt,
            "n_ctx": limit}}).to_string()),
        OverflowStyle::Vllm if prompt + max_tokens > limit => Some(serde_json::json!({
            "object": "error",
            "message": format!("This model's maximum context length is {limit} tokens. However, you requested {} tokens ({prompt} in the messages, {max_tokens} in the completion). Please reduce the length of the messages or completion.", prompt + max_tokens),
            "type": "BadRequestError",
            "param": null,
            "code": 400}).to_string()),
        _ => None,
    }
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The body as JSON, if it is.
    pub json: Option<Value>,
}

impl RecordedRequest {
    /// A header's value, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    /// Whether the request asked for a stream.
    pub fn wants_stream(&self) -> bool {
        self.json
            .as_ref()
            .and_then(|j| j.get("stream"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}

struct State {
    script: Script,
    opts: ServerOptions,
    requests: Mutex<Vec<RecordedRequest>>,
    /// The context probe's requests.
    probes: Mutex<Vec<RecordedRequest>>,
    /// Chat requests refused for not fitting the context.
    rejections: std::sync::atomic::AtomicUsize,
    changed: Condvar,
    stop: AtomicBool,
    /// When the client closed the connection of request `i` (an index into `requests`) while
    /// the server still held it open; sleepers wait on this lock.
    hangups: Mutex<HashMap<usize, Instant>>,
    /// Woken when the server stops and at each hang-up.
    wake: Condvar,
    /// When the server had written the whole answer to request `i` (an index into `requests`).
    replied: Mutex<HashMap<usize, Instant>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl State {
    /// Sleeps up to `d` while serving request `index`; false if the server is stopping or the
    /// client hung up.
    fn sleep(&self, d: Duration, index: usize) -> bool {
        let deadline = Instant::now() + d;
        let mut g = lock(&self.hangups);
        loop {
            if self.stop.load(Ordering::SeqCst) || g.contains_key(&index) {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            g = match self.wake.wait_timeout(g, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

/// The running server. Dropping it stops it.
pub struct ScriptedServer {
    addr: SocketAddr,
    state: Arc<State>,
    accept: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    pub fn start(script: Script) -> std::io::Result<ScriptedServer> {
        Self::start_with(script, ServerOptions::default())
    }

    pub fn start_with(script: Script, opts: ServerOptions) -> std::io::Result<ScriptedServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            script,
            opts,
            requests: Mutex::new(Vec::new()),
            probes: Mutex::new(Vec::new()),
            rejections: std::sync::atomic::AtomicUsize::new(0),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            hangups: Mutex::new(HashMap::new()),
            wake: Condvar::new(),
            replied: Mutex::new(HashMap::new()),
        });
        let st = state.clone();
        let accept = std::thread::Builder::new()
            .name("scripted-server".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if st.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let st = st.clone();
                    let _ = std::thread::Builder::new()
                        .name("scripted-conn".into())
                        .spawn(move || {
                            if let Err(e) = handle(&st, conn) {
                                tracing::debug!("scripted server connection: {e}");
                            }
                        });
                }
            })?;
        Ok(ScriptedServer {
            addr,
            state,
            accept: Some(accept),
        })
    }

    /// The base URL, e.g. `http://127.0.0.1:41234/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests).clone()
    }

    /// The context probe's requests (marked with [`super::PROBE_HEADER`]), in arrival order.
    pub fn probes(&self) -> Vec<RecordedRequest> {
        lock(&self.state.probes).clone()
    }

    /// How many chat requests were refused for not fitting [`ServerOptions::context_tokens`].
    pub fn rejections(&self) -> usize {
        self.state.rejections.load(Ordering::SeqCst)
    }

    pub fn request_count(&self) -> usize {
        lock(&self.state.requests).len()
    }

    /// Waits until at least `n` requests arrived; false on timeout.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut g = lock(&self.state.requests);
        while g.len() < n {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            g = match self.state.changed.wait_timeout(g, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        true
    }

    /// When the server had written its whole answer to request `index` (0-based, as in
    /// [`ScriptedServer::requests`]); `None` before that, or when it answered with a fault.
    pub fn replied_at(&self, index: usize) -> Option<Instant> {
        lock(&self.state.replied).get(&index).copied()
    }

    /// When the client closed the connection that carried request `index` (0-based, as in
    /// [`ScriptedServer::requests`]) while the server still held it open (delaying, hanging,
    /// streaming); waits up to `timeout` for it. `None`: it did not.
    pub fn wait_for_hangup(&self, index: usize, timeout: Duration) -> Option<Instant> {
        let deadline = Instant::now() + timeout;
        let mut g = lock(&self.state.hangups);
        loop {
            if let Some(at) = g.get(&index) {
                return Some(*at);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            g = match self.state.wake.wait_timeout(g, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        {
            let _g = lock(&self.state.hangups);
            self.state.wake.notify_all();
        }
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// One connection: reads its request, records it, answers it while a second thread watches
/// for the client hanging up, then closes the connection.
fn handle(st: &Arc<State>, conn: TcpStream) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let Some(req) = read_request(&mut reader)? else {
        return Ok(());
    };
    if req.header(super::PROBE_HEADER).is_some() {
        lock(&st.probes).push(req.clone());
        let mut out = conn;
        return serve(st, &mut out, &req, usize::MAX);
    }
    let index = {
        let mut g = lock(&st.requests);
        g.push(req.clone());
        st.changed.notify_all();
        g.len() - 1
    };
    let served = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (st, conn, served) = (st.clone(), conn.try_clone()?, served.clone());
        std::thread::Builder::new()
            .name("scripted-hangup".into())
            .spawn(move || watch_hangup(&st, conn, index, &served))?
    };
    let mut out = conn;
    let result = serve(st, &mut out, &req, index);
    served.store(true, Ordering::SeqCst);
    // the watcher's clone keeps the socket open: shutting it down closes it and ends the watcher
    let _ = out.shutdown(Shutdown::Both);
    let _ = watcher.join();
    result
}

/// Reads until the client closes its end; records that as a hang-up on request `index` unless
/// the server was done with it first.
fn watch_hangup(st: &State, mut conn: TcpStream, index: usize, served: &AtomicBool) {
    let mut buf = [0u8; 1024];
    loop {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) =>
            {
                if served.load(Ordering::SeqCst) || st.stop.load(Ordering::SeqCst) {
                    return;
                }
            }
            Err(_) => break,
        }
    }
    if !served.load(Ordering::SeqCst) {
        let mut g = lock(&st.hangups);
        g.insert(index, Instant::now());
        st.wake.notify_all();
    }
}

/// Holds a connection open, sending nothing, until the client hangs up or the server stops.
fn hold(st: &State, index: usize) {
    while st.sleep(Duration::from_secs(3600), index) {}
}

fn serve(
    st: &State,
    out: &mut TcpStream,
    req: &RecordedRequest,
    index: usize,
) -> std::io::Result<()> {
    if st.stop.load(Ordering::SeqCst) {
        return Ok(());
    }
    if let Some(done) = serve_other(st, out, req) {
        return done;
    }
    let Some(mut step) = st.script.next(req) else {
        let body = r#"{"error":{"message":"scripted server: the script is exhausted"}}"#;
        return respond(out, 500, "application/json", body, &[]);
    };
    if step.reply.prompt_tokens.is_none() {
        step.reply.prompt_tokens = req.json.as_ref().map(prompt_tokens);
    }
    if !step.delay.is_zero() && !st.sleep(step.delay, index) {
        return Ok(());
    }
    answer(st, out, index, &step, req.wants_stream())
}

/// Answers what is not a scripted chat completion: a configured route, the model list, the
/// props, a request over the context, or anything else (404); `None` for a chat completion.
fn serve_other(
    st: &State,
    out: &mut TcpStream,
    req: &RecordedRequest,
) -> Option<std::io::Result<()>> {
    if let Some(r) = st.opts.routes.iter().find(|r| r.matches(req)) {
        return Some(respond(out, r.status, "application/json", &r.body, &[]));
    }
    let path = req.path.trim_end_matches('/');
    if req.method == "GET" && path.ends_with("/models") {
        let body = models_body(&st.opts);
        return Some(respond(out, 200, "application/json", &body, &[]));
    }
    if req.method == "GET"
        && path.ends_with("/props")
        && let (ContextReport::Props, Some(n)) = (st.opts.context_report, st.opts.context_tokens)
    {
        let body =
            serde_json::json!({"default_generation_settings": {"n_ctx": n}, "total_slots": 1});
        return Some(respond(
            out,
            200,
            "application/json",
            &body.to_string(),
            &[],
        ));
    }
    if let Some(body) = over_context(st, req) {
        st.rejections.fetch_add(1, Ordering::SeqCst);
        return Some(respond(out, 400, "application/json", &body, &[]));
    }
    if req.method != "POST" || !path.ends_with("/chat/completions") {
        let body = r#"{"error":{"message":"not found: the scripted server serves POST /v1/chat/completions and GET /v1/models"}}"#;
        return Some(respond(out, 404, "application/json", body, &[]));
    }
    None
}

/// Answers a chat completion with the script's step: its fault, or its reply (streamed when
/// asked for).
fn answer(
    st: &State,
    out: &mut TcpStream,
    index: usize,
    step: &Step,
    stream: bool,
) -> std::io::Result<()> {
    match &step.fault {
        Some(Fault::Status(code)) => {
            let body = format!(r#"{{"error":{{"message":"scripted fault: HTTP {code}"}}}}"#);
            respond(out, *code, "application/json", &body, &[])
        }
        Some(Fault::Body(code, body)) => respond(out, *code, "application/json", body, &[]),
        Some(Fault::RateLimited) => {
            let body = r#"{"error":{"message":"scripted fault: rate limited"}}"#;
            respond(out, 429, "application/json", body, &[("Retry-After", "0")])
        }
        Some(Fault::DropConnection) => Ok(()),
        Some(Fault::Raw(bytes)) => {
            out.write_all(bytes)?;
            out.flush()
        }
        Some(Fault::InvalidJson) if !stream => respond(
            out,
            200,
            "application/json",
            "{\"choices\": [ this is not json",
            &[],
        ),
        Some(Fault::InvalidJson) => write_sse(
            st,
            out,
            index,
            &["{\"choices\": [ not json".to_string()],
            None,
            None,
        ),
        Some(Fault::TruncateStream { after_events }) if stream => {
            let events = sse_events(&step.reply);
            write_sse(st, out, index, &events, Some(*after_events), None)
        }
        Some(Fault::TruncateStream { .. }) => write_half(out, &step.reply),
        Some(Fault::Hang) => {
            hold(st, index);
            Ok(())
        }
        Some(Fault::StallStream { after_events }) => {
            if stream {
                let events = sse_events(&step.reply);
                write_sse(st, out, index, &events, Some(*after_events), None)?;
            } else {
                write_half(out, &step.reply)?;
            }
            hold(st, index);
            Ok(())
        }
        None if stream => {
            let pause = step.reply.pause_event();
            write_sse(st, out, index, &sse_events(&step.reply), None, pause)?;
            lock(&st.replied).insert(index, Instant::now());
            Ok(())
        }
        None => {
            let body = chat_json(&step.reply).to_string();
            respond(out, 200, "application/json", &body, &[])?;
            lock(&st.replied).insert(index, Instant::now());
            Ok(())
        }
    }
}

/// The model list, with `max_model_len` where the context is reported there.
fn models_body(opts: &ServerOptions) -> String {
    let listed = models_json(&opts.models);
    let (ContextReport::Models, Some(n)) = (opts.context_report, opts.context_tokens) else {
        return listed;
    };
    let mut v: Value = serde_json::from_str(&listed).unwrap_or_default();
    if let Some(list) = v.get_mut("data").and_then(Value::as_array_mut) {
        for m in list {
            m["max_model_len"] = n.into();
        }
    }
    v.to_string()
}

/// The error body for a chat request that does not fit the context, if it does not.
fn over_context(st: &State, req: &RecordedRequest) -> Option<String> {
    let limit = st.opts.context_tokens?;
    let body = req.json.as_ref()?;
    let max_tokens = body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
    overflow_body(
        st.opts.overflow_style,
        limit,
        prompt_tokens(body),
        max_tokens,
    )
}

/// A 200 whose JSON body stops half-way.
fn write_half(out: &mut TcpStream, reply: &ScriptedReply) -> std::io::Result<()> {
    let body = chat_json(reply).to_string();
    let half = &body.as_bytes()[..body.len() / 2];
    write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    out.write_all(half)?;
    out.flush()
}

fn read_request(r: &mut BufReader<TcpStream>) -> std::io::Result<Option<RecordedRequest>> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    let (method, path) = (method.to_string(), path.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if let Some(len) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len.min(256 << 20), 0);
        r.read_exact(&mut body)?;
    } else if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            r.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    let body = String::from_utf8_lossy(&body).to_string();
    let json = serde_json::from_str(&body).ok();
    Ok(Some(RecordedRequest {
        method,
        path,
        headers,
        body,
        json,
    }))
}

fn status_text(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Scripted",
    }
}

fn respond(
    out: &mut TcpStream,
    code: u16,
    ctype: &str,
    body: &str,
    extra: &[(&str, &str)],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {code} {}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n",
        status_text(code),
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

/// Writes SSE events as a chunked body; `cut` closes after that many events, unterminated;
/// `hold_at` waits this long after the event of that index.
fn write_sse(
    st: &State,
    out: &mut TcpStream,
    index: usize,
    events: &[String],
    cut: Option<usize>,
    hold_at: Option<(usize, Duration)>,
) -> std::io::Result<()> {
    out.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    )?;
    let pause = st
        .opts
        .tokens_per_second
        .filter(|r| r.is_finite() && *r > 0.0)
        .map(|r| Duration::from_secs_f64(1.0 / r));
    for (i, ev) in events.iter().enumerate() {
        if cut == Some(i) {
            out.flush()?;
            return Ok(());
        }
        let data = format!("data: {ev}\n\n");
        write!(out, "{:x}\r\n{data}\r\n", data.len())?;
        out.flush()?;
        if let Some((_, d)) = hold_at.filter(|(at, _)| *at == i)
            && !st.sleep(d, index)
        {
            return Ok(());
        }
        if let Some(p) = pause
            && !st.sleep(p, index)
        {
            return Ok(());
        }
    }
    let done = "data: [DONE]\n\n";
    write!(out, "{:x}\r\n{done}\r\n0\r\n\r\n", done.len())?;
    out.flush()
}
