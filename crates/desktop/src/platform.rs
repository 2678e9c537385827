//! The one place that picks this system's implementation of each part of the API. Everything
//! else, in this crate and in its callers, is the same on every OS: a caller asks here what the
//! system offers ([`HAS_X11`], [`needs_x11`]) instead of looking at the OS itself.
//!
//! | part                                  | Linux  | Windows    | macOS         | other         |
//! |---------------------------------------|--------|------------|---------------|---------------|
//! | desktop, input, elements, press witness | `x11/` | `windows/` | `macos/`      | `unsupported/` |
//! | X11 tools (sandbox, witness, wm, ...) | `x11/` | `unsupported/` | `unsupported/` | `unsupported/` |
//! | stop signals                          | `unix/` | `windows/` | `unix/`       | `unix/` or `unsupported/` |

use crate::elements::Elements;
use crate::{Desktop, DesktopError, DesktopOptions};

#[cfg(target_os = "macos")]
use crate::macos as os;
#[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
use crate::unsupported as os;
#[cfg(windows)]
use crate::windows as os;
#[cfg(target_os = "linux")]
use crate::x11::backend as os;

#[cfg(not(target_os = "linux"))]
use crate::unsupported::x11_tools;
#[cfg(target_os = "linux")]
use crate::x11::tools as x11_tools;

#[cfg(unix)]
use crate::unix as signals;
#[cfg(not(any(unix, windows)))]
use crate::unsupported as signals;
#[cfg(windows)]
use crate::windows as signals;

pub use os::{EnigoInput, PressWitness};
pub use x11_tools::{
    Programs, Sandbox, Witness, held_state, top_windows, viewable_windows, wm_running, wm_start,
};

/// Whether this system has the X11 tools: the Xvfb sandbox, programs launched on an X display,
/// the X11 witness window, a window manager for the sandbox, the held-input and top-window
/// queries. Elsewhere each of them answers [`DesktopError::NeedsX11`].
pub const HAS_X11: bool = cfg!(target_os = "linux");

/// Whether this process runs as the superuser (Chromium then needs `--no-sandbox`).
pub fn running_as_root() -> bool {
    signals::running_as_root()
}

/// `Ok` where the X11 tools exist ([`HAS_X11`]), else the error that says `what` needs them
/// (`bench act` -> "bench act needs Linux with X11").
pub fn needs_x11(what: &str) -> Result<(), DesktopError> {
    if HAS_X11 {
        Ok(())
    } else {
        Err(DesktopError::NeedsX11(what.to_string()))
    }
}

/// The X display of the environment (`$DISPLAY`, set and not empty) on a system with X11;
/// `None` elsewhere, where no display is named (Wine sets `DISPLAY` for itself).
pub fn env_display() -> Option<String> {
    HAS_X11
        .then(|| std::env::var("DISPLAY").ok())
        .flatten()
        .filter(|d| !d.is_empty())
}

/// Whether franz runs inside a Wayland session (`WAYLAND_DISPLAY` set and not empty, or
/// `XDG_SESSION_TYPE=wayland`) on a system with X11, where it then works through XWayland only.
/// Always `false` elsewhere (Wine passes the host's environment on).
pub fn wayland_session() -> bool {
    HAS_X11
        && (std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty())
            || std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| t.eq_ignore_ascii_case("wayland")))
}

/// Opens the desktop of this OS. It can move to another thread (a session's engine runs on its
/// own): each opens its own display connection.
pub fn open(options: &DesktopOptions) -> Result<Box<dyn Desktop + Send>, DesktopError> {
    os::open(options)
}

/// Opens this OS's source of accessibility elements ([`crate::elements::open`]).
pub(crate) fn open_elements() -> Result<Box<dyn Elements + Send>, DesktopError> {
    os::open_elements()
}

/// Prepares the process before any window, monitor or coordinate is looked at: on Windows it
/// becomes per-monitor DPI aware (physical pixels everywhere); elsewhere nothing to do.
pub fn prepare_process() {
    os::prepare_process();
}

/// A request to stop from outside: a signal (or Ctrl+C on a Windows console).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopSignal {
    /// Its name in messages: `SIGINT`, `SIGTERM`, `SIGHUP`, `Ctrl+C`.
    pub name: &'static str,
    /// How a person sends it again: `Ctrl+C`, `send it`.
    pub again: &'static str,
}

/// Calls `on_stop` on a thread of its own for every stop request: SIGINT, SIGTERM and SIGHUP on
/// Unix (each named), Ctrl+C on Windows. Install it before any work starts, so that no request
/// is missed.
pub fn listen_for_stop(on_stop: fn(StopSignal)) -> Result<(), DesktopError> {
    signals::listen_for_stop(on_stop)
}
