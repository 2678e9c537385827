//! The panel's endpoints and its guard (Host, token, origin). Bodies are read as bytes and
//! parsed here so that malformed JSON gets 400 with serde's message, and oversized bodies 413.

use super::state::PanelState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use base64::Engine as _;
use franz_core::engine::{Decision, Op, RemoteError};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::convert::Infallible;
use std::sync::Arc;
use tokio_stream::StreamExt;

const PAGE: &str = include_str!("page.html");

type Shared = State<Arc<PanelState>>;

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let body = serde_json::json!({"error": message.into()});
    (status, Json(body)).into_response()
}

fn token_of(req: &Request) -> Option<String> {
    if let Some(q) = req.uri().query() {
        for pair in q.split('&') {
            if let Some(t) = pair.strip_prefix("token=") {
                return Some(t.to_string());
            }
        }
    }
    let auth = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    auth.strip_prefix("Bearer ").map(|t| t.trim().to_string())
}

/// Same length and every byte equal, without stopping at the first difference.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether an authority (`Host` header, or an origin without its scheme) names this machine:
/// `localhost`, `127.x.x.x` or `[::1]`, any port.
pub fn loopback_host(authority: &str) -> bool {
    let host = if let Some(v6) = authority.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, tail)) if tail.is_empty() || tail.starts_with(':') => h,
            _ => return false,
        }
    } else {
        match authority.split_once(':') {
            Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
            Some(_) => return false,
            None => authority,
        }
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Why a request is refused, if it is: a `Host` that is not this machine (DNS rebinding)
/// unless the panel serves other machines, a missing or wrong token, a browser request from
/// another origin.
fn refusal(s: &PanelState, allow_remote: bool, req: &Request) -> Option<Response> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !allow_remote && !loopback_host(host) {
        return Some(error(
            StatusCode::FORBIDDEN,
            "requests for another Host are refused (start franz with --panel-allow-remote to serve other machines)",
        ));
    }
    if !token_of(req).is_some_and(|t| same(&t, &s.token)) {
        return Some(error(StatusCode::UNAUTHORIZED, "missing or wrong token"));
    }
    if let Some(origin) = req.headers().get(header::ORIGIN)
        && origin.to_str().ok() != Some(format!("http://{host}").as_str())
    {
        return Some(error(
            StatusCode::FORBIDDEN,
            "requests from other origins are refused",
        ));
    }
    None
}

/// Every request passes [`refusal`]; every response is `no-store` (unless it says otherwise),
/// `nosniff` and sends no referrer.
pub async fn guard(
    State((s, allow_remote)): State<(Arc<PanelState>, bool)>,
    req: Request,
    next: Next,
) -> Response {
    let mut resp = match refusal(&s, allow_remote, &req) {
        Some(refused) => refused,
        None => next.run(req).await,
    };
    let h = resp.headers_mut();
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-store"),
        );
    }
    h.insert(
        "x-content-type-options",
        header::HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    resp
}

/// A refused request body: its status and message.
struct Refused(StatusCode, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        error(self.0, self.1)
    }
}

fn parse<T: DeserializeOwned>(headers: &HeaderMap, body: &Bytes) -> Result<T, Refused> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.starts_with("application/json"));
    if !json {
        return Err(Refused(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send application/json".into(),
        ));
    }
    serde_json::from_slice(body)
        .map_err(|e| Refused(StatusCode::BAD_REQUEST, format!("malformed JSON: {e}")))
}

pub async fn page() -> Html<&'static str> {
    Html(PAGE)
}

pub async fn config(State(s): Shared) -> Json<serde_json::Value> {
    Json(s.config.clone())
}

pub async fn state(State(s): Shared) -> Response {
    Json(s.view()).into_response()
}

#[derive(Deserialize)]
pub struct ShotQuery {
    seq: Option<String>,
}

/// `GET /screenshot?seq=N`: the latest screenshot (PNG or JPEG, as sent to the model) while
/// its seq is N, `no-store` like every response (a screenshot of the desktop stays out of the
/// browser's cache); the page asks again only when `/state`'s `image_seq` changes. 404 for any
/// other seq.
pub async fn screenshot(
    State(s): Shared,
    axum::extract::Query(q): axum::extract::Query<ShotQuery>,
) -> Response {
    let Some(seq) = q.seq.as_deref().and_then(|n| n.parse::<u32>().ok()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "give the screenshot's seq: /screenshot?seq=N (N is image_seq in /state)",
        );
    };
    let Some(shot) = s.screenshot(seq) else {
        let latest = s
            .latest_seq()
            .map_or("none yet".to_string(), |n| n.to_string());
        return error(
            StatusCode::NOT_FOUND,
            format!("no screenshot {seq}: the latest is {latest} (image_seq in /state)"),
        );
    };
    let kind = if shot.encoded.starts_with(b"\x89PNG") {
        "image/png"
    } else {
        "image/jpeg"
    };
    (
        [(header::CONTENT_TYPE, kind)],
        shot.encoded.as_ref().clone(),
    )
        .into_response()
}

pub async fn events(
    State(s): Shared,
) -> Sse<impl tokio_stream::Stream<Item = Result<SseEvent, Infallible>>> {
    // a client that falls behind is dropped (fanout.rs): its stream ends, and it reconnects
    let stream = s
        .events
        .subscribe()
        .into_stream()
        .map(|line| Ok(SseEvent::default().data(&*line)));
    Sse::new(stream).keep_alive(KeepAlive::default())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Inject {
    vlm_text: String,
}

pub async fn inject(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let req: Inject = match parse(&headers, &body) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = s.session.submit(Op::Inject(req.vlm_text)) {
        return remote_error(e);
    }
    Json(serde_json::json!({"ok": true})).into_response()
}

#[derive(Deserialize)]
struct Annotated {
    seq: u32,
    image_b64: String,
}

pub async fn annotated(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let req: Annotated = match parse(&headers, &body) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let b64 = req
        .image_b64
        .split_once("base64,")
        .map_or(req.image_b64.as_str(), |(_, b)| b);
    let png = match base64::engine::general_purpose::STANDARD.decode(b64.trim()) {
        Ok(p) => p,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("image_b64 is not base64: {e}"),
            );
        }
    };
    if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
        return error(StatusCode::BAD_REQUEST, "image_b64 is not a PNG");
    }
    if let Err(message) = check_annotated(&s, req.seq, &png) {
        return error(StatusCode::BAD_REQUEST, message);
    }
    match s.session.submit(Op::Annotate { seq: req.seq, png }) {
        Ok(()) => {
            s.note_annotated(req.seq);
            Json(serde_json::json!({"ok": true, "seq": req.seq})).into_response()
        }
        Err(e) => remote_error(e),
    }
}

/// The annotated PNG must decode, and have the size of the screenshot shown for `seq`: the
/// model maps its coordinates onto that size.
fn check_annotated(s: &PanelState, seq: u32, png: &[u8]) -> Result<(), String> {
    let image = image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .map_err(|e| format!("image_b64 is not a readable PNG: {e}"))?;
    let got = (image.width(), image.height());
    match s.image_size(seq) {
        Some(want) if want != got => Err(format!(
            "the annotated image is {}x{}, but screenshot {seq} is {}x{}: draw on the screenshot at its own size",
            got.0, got.1, want.0, want.1
        )),
        _ => Ok(()),
    }
}

fn remote_error(e: RemoteError) -> Response {
    error(StatusCode::CONFLICT, e.to_string())
}

#[derive(Deserialize)]
struct Control {
    command: String,
}

pub async fn control(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let req: Control = match parse(&headers, &body) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let op = match req.command.as_str() {
        "pause" => Op::Pause,
        "resume" => Op::Resume,
        "step" => Op::Step,
        "stop" => Op::Stop("stopped from the panel".into()),
        other => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("unknown command {other:?}: use pause, resume, step or stop"),
            );
        }
    };
    if let Err(e) = s.session.submit(op) {
        return remote_error(e);
    }
    Json(serde_json::json!({"ok": true, "command": req.command})).into_response()
}

#[derive(Deserialize)]
struct Approve {
    seq: u32,
    decision: String,
    #[serde(default)]
    reason: String,
}

pub async fn approve(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let req: Approve = match parse(&headers, &body) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let decision = match req.decision.as_str() {
        "approve" => Decision::Approve,
        "reject" => Decision::Reject(if req.reason.trim().is_empty() {
            "no reason given".into()
        } else {
            req.reason.clone()
        }),
        other => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("unknown decision {other:?}: use approve or reject"),
            );
        }
    };
    match s.session.submit(Op::Approve {
        seq: req.seq,
        decision,
    }) {
        Ok(()) => Json(serde_json::json!({"ok": true, "seq": req.seq})).into_response(),
        Err(e) => remote_error(e),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    text: String,
}

/// The answer to the model's question (`ask_user`); 409 unless the run waits for one.
pub async fn answer(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let req: Answer = match parse(&headers, &body) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    match s.session.submit(Op::Answer(req.text)) {
        Ok(()) => Json(serde_json::json!({"ok": true})).into_response(),
        Err(e) => remote_error(e),
    }
}
