//! The two transports: stdio (the default; one client, the process that started franz) and
//! streamable HTTP (`--http ADDR`). Both serve the handshake revisions (an `initialize`
//! request, up to 2025-11-25) and the stateless one (2026-07-28): rmcp picks the lifecycle
//! from the client's first request.
//!
//! HTTP listens on loopback only unless `--allow-remote`; every request needs the bearer
//! token printed at start (`Authorization: Bearer TOKEN`, or `?token=`), else 401; a request
//! whose `Origin` is not a loopback origin gets 403 unless `--allow-remote`.

use super::shared::Shared;
use super::tools::FranzMcp;
use crate::terminal::errln;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Notify;

/// Wakes when Ctrl+C is pressed.
fn interrupted() -> Arc<Notify> {
    let notify = Arc::new(Notify::new());
    let n = notify.clone();
    crate::setup::interrupt_flag().on_cancel(move || n.notify_one());
    notify
}

/// Serves one client on stdin/stdout until it closes them (or Ctrl+C).
pub async fn stdio(shared: Arc<Shared>, read_only: bool) -> anyhow::Result<()> {
    let server = FranzMcp::new(shared, read_only)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("the MCP client did not start a session: {e}"))?;
    let stop = interrupted();
    let ct = server.cancellation_token();
    tokio::select! {
        r = server.waiting() => { r?; }
        _ = stop.notified() => ct.cancel(),
    }
    Ok(())
}

/// The request's token: `Authorization: Bearer` or `?token=`.
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

/// Compares in time independent of where the strings differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether an `Origin` header names this machine (`http(s)://localhost`, `127.x.x.x` or
/// `[::1]`, any port).
pub fn loopback_origin(origin: &str) -> bool {
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(crate::panel::loopback_host)
}

/// Who may call the HTTP transport: the token every request carries, and whether requests
/// from another origin are let through.
struct Access {
    token: String,
    allow_remote: bool,
}

async fn check_access(State(g): State<Arc<Access>>, req: Request, next: Next) -> Response {
    if !g.allow_remote
        && let Some(origin) = req.headers().get(header::ORIGIN)
        && !origin.to_str().is_ok_and(loopback_origin)
    {
        return (
            StatusCode::FORBIDDEN,
            "requests from a non-loopback Origin are refused (start franz mcp with --allow-remote to allow them)",
        )
            .into_response();
    }
    if !token_of(&req).is_some_and(|t| same(&t, &g.token)) {
        return (
            StatusCode::UNAUTHORIZED,
            "missing or wrong token: send Authorization: Bearer TOKEN with the token franz mcp printed at start",
        )
            .into_response();
    }
    next.run(req).await
}

/// Serves streamable HTTP on `addr` at `/mcp` until Ctrl+C.
pub async fn http(
    shared: Arc<Shared>,
    addr: &str,
    allow_remote: bool,
    read_only: bool,
) -> anyhow::Result<()> {
    let addr: SocketAddr = addr.parse().map_err(|e| {
        crate::exit::usage(format!(
            "--http: {addr:?} is not an address like 127.0.0.1:8765 ({e})"
        ))
    })?;
    if !addr.ip().is_loopback() {
        if !allow_remote {
            return Err(crate::exit::usage(format!(
                "--http {addr} is not a loopback address: pass --allow-remote to serve it to other machines"
            )));
        }
        errln!(
            "WARNING: franz mcp listens on {addr}: anyone who can reach it and has the token can drive this desktop"
        );
    }
    let mut config = StreamableHttpServerConfig::default();
    if allow_remote {
        config = config.disable_allowed_hosts();
    }
    let ct = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(FranzMcp::new(shared.clone(), read_only)),
        LocalSessionManager::default().into(),
        config,
    );
    let g = Arc::new(Access {
        token: crate::panel::new_token(),
        allow_remote,
    });
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| crate::exit::usage(format!("--http: cannot listen on {addr}: {e}")))?;
    let bound = listener.local_addr()?;
    let host = if bound.ip().is_unspecified() {
        "127.0.0.1".to_string()
    } else {
        bound
            .to_string()
            .rsplit_once(':')
            .map_or(String::new(), |(h, _)| h.to_string())
    };
    errln!("mcp: http://{host}:{}/mcp", bound.port());
    errln!(
        "mcp token: {} (send it as Authorization: Bearer TOKEN)",
        g.token
    );
    let router = axum::Router::new().nest_service("/mcp", service).layer(
        axum::middleware::from_fn_with_state(g.clone(), check_access),
    );
    let stop = interrupted();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            stop.notified().await;
            ct.cancel();
        })
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_origins_pass() {
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://127.1.2.3",
            "http://[::1]:80",
        ] {
            assert!(loopback_origin(ok), "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example:80",
            "https://10.0.0.1",
            "null",
            "file://",
            "http://[::2]",
        ] {
            assert!(!loopback_origin(bad), "{bad}");
        }
    }
}
