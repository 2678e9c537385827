//! The sandbox's window manager on X11 ([`crate::wm`]): started on a display, ready once it
//! announces itself through `_NET_SUPPORTING_WM_CHECK` on the root and answers a request.
//!
//! A manager announces itself before it has finished starting: openbox sets the check window,
//! then takes over the windows already there, and only then runs its event loop. A program
//! mapped in between is managed but never given the focus, so a run's first turn found no
//! focused window (seen about once in 30 starts on a loaded machine). Hence the second step:
//! a `_NET_REQUEST_FRAME_EXTENTS` for a probe window, answered from the event loop. It is sent
//! again every 100 ms: openbox drops what came before its loop (asked once, it answered in 2
//! of 25 starts on a loaded machine; asked again, in 105 of 105).

use super::connection::x11_err;
use super::window_tools::{atom, cardinals};
use crate::DesktopError;
use crate::sandbox::Programs;
use crate::wm::{WINDOW_MANAGERS, find};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt, CreateWindowAux, EventMask, WindowClass,
};

/// How long a window manager may take to announce itself and answer a request.
const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// Whether an EWMH window manager runs on `display`.
pub fn running(display: &str) -> Result<bool, DesktopError> {
    let (conn, screen) = x11rb::connect(Some(display)).map_err(x11_err)?;
    let root = conn.setup().roots[screen].root;
    let check = atom(&conn, "_NET_SUPPORTING_WM_CHECK")?;
    Ok(!cardinals(&conn, root, check, AtomEnum::WINDOW)?.is_empty())
}

/// Waits until the window manager on `display` answers a `_NET_REQUEST_FRAME_EXTENTS` (it sets
/// `_NET_FRAME_EXTENTS` on an unmapped probe window): its event loop runs, so a program mapped
/// from now on is handled as on a desktop. A manager that does not list the request in
/// `_NET_SUPPORTED` cannot be asked: it counts as ready. `false` at the deadline.
fn answers_requests(display: &str, deadline: Instant) -> Result<bool, DesktopError> {
    let (conn, screen) = x11rb::connect(Some(display)).map_err(x11_err)?;
    let root = conn.setup().roots[screen].root;
    let request = atom(&conn, "_NET_REQUEST_FRAME_EXTENTS")?;
    let supported = atom(&conn, "_NET_SUPPORTED")?;
    if !cardinals(&conn, root, supported, AtomEnum::ATOM)?.contains(&request) {
        return Ok(true);
    }
    let extents = atom(&conn, "_NET_FRAME_EXTENTS")?;
    let probe = conn.generate_id().map_err(x11_err)?;
    conn.create_window(
        0,
        probe,
        root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &CreateWindowAux::new(),
    )
    .map_err(x11_err)?;
    let msg = ClientMessageEvent::new(32, probe, request, [0u32; 5]);
    let mask = EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY;
    // asked again every 100 ms (10 polls): a manager still starting drops what came before
    let mut asked = 0;
    let answered = loop {
        if asked % 10 == 0 {
            conn.send_event(false, root, mask, msg).map_err(x11_err)?;
            conn.flush().map_err(x11_err)?;
        }
        asked += 1;
        if !cardinals(&conn, probe, extents, AtomEnum::CARDINAL)?.is_empty() {
            break true;
        }
        if Instant::now() >= deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    conn.destroy_window(probe).map_err(x11_err)?;
    conn.flush().map_err(x11_err)?;
    Ok(answered)
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
    if !answers_requests(display, deadline)? {
        return Err(DesktopError::Sandbox(format!(
            "--wm: {wm} announced itself but did not answer _NET_REQUEST_FRAME_EXTENTS within {}s, \
             so the programs launched next would not get the focus: try `DISPLAY={display} {wm}` \
             by hand to see what it says, or leave --wm out",
            READY_TIMEOUT.as_secs()
        )));
    }
    Ok(wm)
}
