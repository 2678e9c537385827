//! The panel's endpoints and its access check (Host, token, origin). Bodies are read as bytes and
//! parsed here so that malformed JSON gets 400 with serde's message, and oversized bodies 413.

use super::state::PanelState;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use franz_core::engine::{Op, RemoteError};
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
pub async fn check_access(
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

/// The op a POST asks for: its body is the op's JSON (`franz_core::engine::Op`) without the
/// `type`, which the endpoint names. A body that names another type gets the endpoint's.
fn op(headers: &HeaderMap, body: &Bytes, ty: &str) -> Result<Op, Refused> {
    let mut fields: serde_json::Map<String, serde_json::Value> = parse(headers, body)?;
    fields.insert("type".into(), ty.into());
    decode(fields)
}

/// An op from its JSON; a bad one gets 400 with serde's message, which says what is accepted.
fn decode(fields: serde_json::Map<String, serde_json::Value>) -> Result<Op, Refused> {
    serde_json::from_value(serde_json::Value::Object(fields))
        .map_err(|e| Refused(StatusCode::BAD_REQUEST, format!("bad op: {e}")))
}

/// An op of another type than the endpoint's (the endpoint names the type, so none gets here).
fn not_the_op(op: Op) -> Response {
    let ty = serde_json::to_value(op).map(|v| v["type"].to_string());
    let ty = ty.unwrap_or_else(|e| e.to_string());
    error(
        StatusCode::BAD_REQUEST,
        format!("this endpoint does not take an op of type {ty}"),
    )
}

fn submit(s: &PanelState, op: Op, ok: serde_json::Value) -> Response {
    match s.session.submit(op) {
        Ok(()) => Json(ok).into_response(),
        Err(e) => remote_error(e),
    }
}

/// `{"vlm_text"}`: `Op::Inject`.
pub async fn inject(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    match op(&headers, &body, "inject") {
        Ok(op) => submit(&s, op, serde_json::json!({"ok": true})),
        Err(e) => e.into_response(),
    }
}

/// `{"seq", "image_b64"}`: `Op::Annotate`, once the image is a PNG of the screenshot's size.
pub async fn annotated(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let (seq, png) = match op(&headers, &body, "annotate") {
        Ok(Op::Annotate { seq, png }) => (seq, png),
        Ok(other) => return not_the_op(other),
        Err(e) => return e.into_response(),
    };
    if let Err(message) = check_annotated(&s, seq, &png) {
        return error(StatusCode::BAD_REQUEST, message);
    }
    match s.session.submit(Op::Annotate { seq, png }) {
        Ok(()) => {
            s.note_annotated(seq);
            Json(serde_json::json!({"ok": true, "seq": seq})).into_response()
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

/// The ops `/control` takes, as its `command`.
const COMMANDS: [&str; 4] = ["pause", "resume", "step", "stop"];

/// `{"command"}`: the op of that type, one of [`COMMANDS`]; a stop that gives no `reason` is
/// "stopped from the panel".
pub async fn control(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    let mut fields: serde_json::Map<String, serde_json::Value> = match parse(&headers, &body) {
        Ok(f) => f,
        Err(e) => return e.into_response(),
    };
    let command = match fields.remove("command") {
        Some(serde_json::Value::String(c)) if COMMANDS.contains(&c.as_str()) => c,
        other => {
            let got = other.map_or("none".to_string(), |c| c.to_string());
            return error(
                StatusCode::BAD_REQUEST,
                format!("unknown command {got}: use pause, resume, step or stop"),
            );
        }
    };
    if command == "stop" {
        fields
            .entry("reason")
            .or_insert_with(|| "stopped from the panel".into());
    }
    fields.insert("type".into(), command.clone().into());
    match decode(fields) {
        Ok(op) => submit(&s, op, serde_json::json!({"ok": true, "command": command})),
        Err(e) => e.into_response(),
    }
}

/// `{"seq", "decision", "reason"}` (`reject`) or `{"seq", "decision", "reply"}` (`replace`):
/// `Op::Approve`.
pub async fn approve(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    match op(&headers, &body, "approve") {
        Ok(op @ Op::Approve { seq, .. }) => {
            submit(&s, op, serde_json::json!({"ok": true, "seq": seq}))
        }
        Ok(other) => not_the_op(other),
        Err(e) => e.into_response(),
    }
}

/// `{"text"}`: the answer to the model's question (`ask_user`); 409 unless the run waits for
/// one.
pub async fn answer(State(s): Shared, headers: HeaderMap, body: Bytes) -> Response {
    match op(&headers, &body, "answer") {
        Ok(op) => submit(&s, op, serde_json::json!({"ok": true})),
        Err(e) => e.into_response(),
    }
}
