//! Errors of the OS boundary. OS error types never leak into the public enum: they are
//! turned into messages that say what to do.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum DesktopError {
    #[error(
        "cannot open X display {display}: {reason}. Set DISPLAY to a running X server, or pass --sandbox to run on a private Xvfb"
    )]
    NoDisplay { display: String, reason: String },
    #[error(
        "this is a Wayland session without an X display (DISPLAY is not set): franz captures and drives X11 only, so on Wayland it works with XWayland applications only. Set DISPLAY to XWayland's display (e.g. DISPLAY=:0) to act on those, or pass --sandbox to work on a private Xvfb desktop"
    )]
    WaylandOnly,
    #[error(
        "monitor {requested} does not exist: this display has {count} monitor(s), numbered 0..{count}"
    )]
    NoSuchMonitor { requested: usize, count: usize },
    #[error("screen capture failed: {0}")]
    Capture(String),
    #[error("input injection failed: {0}")]
    Input(String),
    #[error("sandbox: {0}")]
    Sandbox(String),
    #[error("{0} is not supported")]
    Unsupported(String),
    /// One of the X11 tools (the sandbox, the X11 witness window, ...) on a system without X11.
    #[error("{0} needs Linux with X11")]
    NeedsX11(String),
    #[error("X11 protocol error: {0}")]
    X11(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
