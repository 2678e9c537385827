//! The sandbox's window manager on X11 ([`crate::wm`]): started on a display, ready once it
//! announces itself through `_NET_SUPPORTING_WM_CHECK` on the root.

use crate::DesktopError;
use crate::sandbox::Programs;
use crate::wm::{WINDOW_MANAGERS, find};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};

/// How long a window manager may take to announce itself.
const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// Whether an EWMH window manager runs on `display`.
pub fn running(display: &str) -> Result<bool, DesktopError> {
    let x11 = |e: &dyn std::fmt::Display| DesktopError::X11(e.to_string());
    let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| x11(&e))?;
    let root = conn.setup().roots[screen].root;
    let check = conn
        .intern_atom(false, b"_NET_SUPPORTING_WM_CHECK")
        .map_err(|e| x11(&e))?
        .reply()
        .map_err(|e| x11(&e))?
        .atom;
    let reply = conn
        .get_property(false, root, check, AtomEnum::WINDOW, 0, 1)
        .map_err(|e| x11(&e))?
        .reply()
        .map_err(|e| x11(&e))?;
    Ok(reply.value32().is_some_and(|mut v| v.next().is_some()))
}

/// Starts the first installed window manager on the programs' display and waits until it runs;
/// returns its name.
pub fn start(programs: &mut Programs, display: &str) -> Result<&'static str, DesktopError> {
    let wm = find().ok_or_else(|| {
        DesktopError::Sandbox(format!(
            "--wm: no window manager found (looked for {}): install openbox (scripts/deps.sh does), or leave --wm out",
            WINDOW_MANAGERS.join(", ")
        ))
    })?;
    programs.launch(wm)?;
    let deadline = Instant::now() + READY_TIMEOUT;
    while !running(display)? {
        if Instant::now() >= deadline {
            return Err(DesktopError::Sandbox(format!(
                "--wm: {wm} did not announce itself (_NET_SUPPORTING_WM_CHECK) within {}s",
                READY_TIMEOUT.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(wm)
}
