//! The live panel (`franz run --panel`): an axum server on its own thread and tokio runtime
//! that shows the run as it happens and steers it through the session's ops.
//!
//! Every request needs the run's random token (`?token=` or `Authorization: Bearer`) and a
//! loopback `Host` (unless `--panel-allow-remote`: DNS rebinding); requests from another origin
//! are refused; bodies are capped; responses send no referrer and are not cached; a client
//! that does not read `/events` is dropped once it falls `fanout::CLIENT_BYTES` behind. The panel only reaches the engine
//! through the session handle, so it cannot make the engine do what it would not do on its own.

mod fanout;
mod handlers;
mod state;
#[cfg(test)]
mod tests;

pub use handlers::loopback_host;
pub use state::PanelState;

use crate::terminal::errln;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use std::net::SocketAddr;
use std::sync::Arc;

/// Request bodies past this many bytes get 413 (an annotated 1536x864 PNG is a few MB).
pub const BODY_LIMIT: usize = 16 * 1024 * 1024;

/// The panel's routes, ready to serve (tests bind it to port 0); `allow_remote` lets requests
/// for any `Host` through.
pub fn app(state: Arc<PanelState>, allow_remote: bool) -> Router {
    Router::new()
        .route("/", get(handlers::page))
        .route("/config", get(handlers::config))
        .route("/state", get(handlers::state))
        .route("/screenshot", get(handlers::screenshot))
        .route("/events", get(handlers::events))
        .route("/inject", post(handlers::inject))
        .route("/annotated", post(handlers::annotated))
        .route("/control", post(handlers::control))
        .route("/approve", post(handlers::approve))
        .route("/answer", post(handlers::answer))
        .layer(axum::middleware::from_fn_with_state(
            (state.clone(), allow_remote),
            handlers::check_access,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

/// A running panel server.
pub struct Panel {
    pub url: String,
}

/// Binds `addr` and serves the panel on a thread of its own. A non-loopback address needs
/// `allow_remote` and gets a warning on stderr.
pub fn start(addr: &str, allow_remote: bool, state: Arc<PanelState>) -> anyhow::Result<Panel> {
    let addr: SocketAddr = addr.parse().map_err(|e| {
        anyhow::anyhow!("--panel: {addr:?} is not an address like 127.0.0.1:8080 ({e})")
    })?;
    if !addr.ip().is_loopback() {
        if !allow_remote {
            anyhow::bail!(
                "--panel {addr} is not a loopback address: pass --panel-allow-remote to serve it to other machines"
            );
        }
        errln!(
            "WARNING: the panel listens on {addr}: anyone who can reach it and has the token can watch and steer this run"
        );
    }
    let listener = std::net::TcpListener::bind(addr)
        .map_err(|e| anyhow::anyhow!("--panel: cannot listen on {addr}: {e}"))?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    let host = if bound.ip().is_unspecified() {
        "127.0.0.1".to_string()
    } else {
        bound.ip().to_string()
    };
    let url = format!("http://{host}:{}/?token={}", bound.port(), state.token);
    let router = app(state, allow_remote);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("franz-panel".into())
        .spawn(move || {
            runtime.block_on(async move {
                match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => {
                        if let Err(e) = axum::serve(l, router).await {
                            tracing::error!("panel server: {e}");
                        }
                    }
                    Err(e) => tracing::error!("panel server: {e}"),
                }
            })
        })?;
    Ok(Panel { url })
}

/// A random token: 128 bits as hex.
pub fn new_token() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
