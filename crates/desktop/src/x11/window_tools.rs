//! Top-level windows on X11: EWMH when a window manager runs, the root's children without one.
//!
//! - List: `_NET_CLIENT_LIST` (in stacking order when `_NET_CLIENT_LIST_STACKING` is there);
//!   without a window manager, the root's mapped children that carry `WM_CLASS` or a name.
//!   Titles from `_NET_WM_NAME` (UTF-8), else `WM_NAME`; the application is `WM_CLASS`'s class.
//! - Focused: `_NET_ACTIVE_WINDOW`, else the top-level holding the input focus.
//! - Focus: a `_NET_ACTIVE_WINDOW` client message to the root when a window manager says it
//!   supports it (`_NET_SUPPORTED`), else raise + `SetInputFocus` ourselves.

use super::connection::x11_err;
use crate::{DesktopError, PixelRect, WindowInfo};
use x11rb::CURRENT_TIME;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask,
    InputFocus, MapState, StackMode, Window,
};
use x11rb::rust_connection::RustConnection;

pub(crate) fn atom(conn: &RustConnection, name: &str) -> Result<Atom, DesktopError> {
    Ok(conn
        .intern_atom(false, name.as_bytes())
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?
        .atom)
}

/// The 32-bit values of `prop` on `win` (empty when it is not set).
pub(crate) fn cardinals(
    conn: &RustConnection,
    win: Window,
    prop: Atom,
    kind: AtomEnum,
) -> Result<Vec<u32>, DesktopError> {
    let reply = conn
        .get_property(false, win, prop, kind, 0, 4096)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    Ok(reply.value32().map(|v| v.collect()).unwrap_or_default())
}

fn bytes(conn: &RustConnection, win: Window, prop: Atom) -> Result<Vec<u8>, DesktopError> {
    let reply = conn
        .get_property(false, win, prop, AtomEnum::ANY, 0, 4096)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    Ok(reply.value)
}

/// Whether a window manager supports `_NET_ACTIVE_WINDOW` (it lists it in `_NET_SUPPORTED`).
fn wm_supports(conn: &RustConnection, root: Window, what: Atom) -> Result<bool, DesktopError> {
    let supported = atom(conn, "_NET_SUPPORTED")?;
    Ok(cardinals(conn, root, supported, AtomEnum::ATOM)?.contains(&what))
}

fn title(conn: &RustConnection, win: Window) -> Result<String, DesktopError> {
    let net = bytes(conn, win, atom(conn, "_NET_WM_NAME")?)?;
    let raw = if net.is_empty() {
        bytes(conn, win, AtomEnum::WM_NAME.into())?
    } else {
        net
    };
    Ok(String::from_utf8_lossy(&raw).into_owned())
}

/// `WM_CLASS` is "instance\0class\0": the class names the application.
fn class(conn: &RustConnection, win: Window) -> Result<String, DesktopError> {
    let raw = bytes(conn, win, AtomEnum::WM_CLASS.into())?;
    let mut parts = raw.split(|b| *b == 0).filter(|p| !p.is_empty());
    let instance = parts.next().unwrap_or_default();
    let class = parts.next().unwrap_or(instance);
    Ok(String::from_utf8_lossy(class).into_owned())
}

fn bounds(conn: &RustConnection, root: Window, win: Window) -> Result<PixelRect, DesktopError> {
    let g = conn
        .get_geometry(win)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    let at = conn
        .translate_coordinates(win, root, 0, 0)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    Ok(PixelRect::new(
        at.dst_x.into(),
        at.dst_y.into(),
        g.width.into(),
        g.height.into(),
    ))
}

/// The top-level windows, bottom of the stack first.
fn clients(conn: &RustConnection, root: Window) -> Result<Vec<Window>, DesktopError> {
    for name in ["_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST"] {
        let list = cardinals(conn, root, atom(conn, name)?, AtomEnum::WINDOW)?;
        if !list.is_empty() {
            return Ok(list);
        }
    }
    let tree = conn
        .query_tree(root)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    let mut out = Vec::new();
    for w in tree.children {
        let attrs = conn.get_window_attributes(w).map_err(x11_err)?.reply();
        let Ok(attrs) = attrs else { continue };
        if attrs.map_state != MapState::VIEWABLE || attrs.override_redirect {
            continue;
        }
        // a window that vanished between the query and now errs: it is skipped
        let named = |f: fn(&RustConnection, Window) -> Result<String, DesktopError>| {
            f(conn, w).is_ok_and(|s| !s.is_empty())
        };
        if named(class) || named(title) {
            out.push(w);
        }
    }
    Ok(out)
}

/// The window that has the focus: `_NET_ACTIVE_WINDOW`, else the input focus's top-level.
fn focused(conn: &RustConnection, root: Window, tops: &[Window]) -> Result<u32, DesktopError> {
    let active = cardinals(
        conn,
        root,
        atom(conn, "_NET_ACTIVE_WINDOW")?,
        AtomEnum::WINDOW,
    )?;
    if let Some(&w) = active.first().filter(|w| **w != 0) {
        return Ok(w);
    }
    let mut w = conn
        .get_input_focus()
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?
        .focus;
    for _ in 0..32 {
        if tops.contains(&w) || w == root || w == 0 || w == 1 {
            break;
        }
        w = conn
            .query_tree(w)
            .map_err(x11_err)?
            .reply()
            .map_err(x11_err)?
            .parent;
    }
    Ok(w)
}

/// Every top-level window, bottom of the stack first.
pub(crate) fn list(conn: &RustConnection, root: Window) -> Result<Vec<WindowInfo>, DesktopError> {
    let tops = clients(conn, root)?;
    let focus = focused(conn, root, &tops)?;
    let mut out = Vec::with_capacity(tops.len());
    for w in tops {
        // a window may vanish while we read it: skip it rather than fail the whole list
        let (Ok(bounds), Ok(title), Ok(application)) =
            (bounds(conn, root, w), title(conn, w), class(conn, w))
        else {
            continue;
        };
        out.push(WindowInfo {
            id: w.into(),
            title,
            application,
            bounds,
            focused: w == focus,
        });
    }
    Ok(out)
}

/// Brings window `id` to the front and gives it the focus; returns once the server has it.
pub(crate) fn focus(conn: &RustConnection, root: Window, id: u64) -> Result<(), DesktopError> {
    let win = Window::try_from(id)
        .map_err(|_| DesktopError::X11(format!("{id} is not an X11 window id")))?;
    let active = atom(conn, "_NET_ACTIVE_WINDOW")?;
    if wm_supports(conn, root, active)? {
        // source 2: a pager, which window managers obey without focus-stealing checks
        let msg = ClientMessageEvent::new(32, win, active, [2, CURRENT_TIME, 0, 0, 0]);
        let mask = EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY;
        conn.send_event(false, root, mask, msg).map_err(x11_err)?;
    } else {
        conn.map_window(win).map_err(x11_err)?;
        let above = ConfigureWindowAux::new().stack_mode(StackMode::ABOVE);
        conn.configure_window(win, &above).map_err(x11_err)?;
        conn.set_input_focus(InputFocus::PARENT, win, CURRENT_TIME)
            .map_err(x11_err)?;
    }
    conn.flush().map_err(x11_err)?;
    conn.get_input_focus()
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    Ok(())
}
