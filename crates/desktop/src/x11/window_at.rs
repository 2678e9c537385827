//! The window under a point, with or without a window manager: the topmost mapped child of the
//! root window at the point, then down through its children to the first window that has a
//! `WM_CLASS` (a reparenting window manager's frame has none; its client has). Used by the
//! safety policy's `allow_only_windows` (crates/core/src/policy.rs); grounding may reuse it.

use super::connection::x11_err;
use crate::{DesktopError, PixelPoint, PointedWindow};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, Window};

/// How deep the search goes below the root (frames nest a few levels at most).
const MAX_DEPTH: usize = 16;

/// The application window under root pixel `p`, if any: `None` over the bare root.
pub fn window_at(
    conn: &impl Connection,
    root: Window,
    p: PixelPoint,
) -> Result<Option<PointedWindow>, DesktopError> {
    let (x, y) = (clamp16(p.x), clamp16(p.y));
    let mut parent = root;
    let mut first = None;
    for _ in 0..MAX_DEPTH {
        let r = conn
            .translate_coordinates(root, parent, x, y)
            .map_err(x11_err)?
            .reply()
            .map_err(x11_err)?;
        let child = r.child;
        if child == x11rb::NONE {
            break;
        }
        first.get_or_insert(child);
        if let Some(info) = describe(conn, child)? {
            return Ok(Some(info));
        }
        parent = child;
    }
    // a top-level window without WM_CLASS (override-redirect, a bare frame): its title, if any
    match first {
        Some(w) => Ok(Some(PointedWindow {
            id: w as u64,
            class: String::new(),
            instance: String::new(),
            title: title(conn, w)?,
        })),
        None => Ok(None),
    }
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

/// The window's class and title when it has a `WM_CLASS`.
fn describe(conn: &impl Connection, w: Window) -> Result<Option<PointedWindow>, DesktopError> {
    let class = conn
        .get_property(false, w, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 1024)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    if class.value.is_empty() {
        return Ok(None);
    }
    let mut parts = class
        .value
        .split(|b| *b == 0)
        .map(|s| String::from_utf8_lossy(s).into_owned());
    let instance = parts.next().unwrap_or_default();
    let class = parts.next().unwrap_or_default();
    Ok(Some(PointedWindow {
        id: w as u64,
        class,
        instance,
        title: title(conn, w)?,
    }))
}

/// `_NET_WM_NAME` (UTF-8), else `WM_NAME`.
fn title(conn: &impl Connection, w: Window) -> Result<String, DesktopError> {
    let net = conn
        .intern_atom(false, b"_NET_WM_NAME")
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?
        .atom;
    let utf8 = conn
        .intern_atom(false, b"UTF8_STRING")
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?
        .atom;
    for (prop, ty) in [
        (net, utf8),
        (AtomEnum::WM_NAME.into(), AtomEnum::ANY.into()),
    ] {
        let r = conn
            .get_property(false, w, prop, ty, 0, 4096)
            .map_err(x11_err)?
            .reply()
            .map_err(x11_err)?;
        if !r.value.is_empty() {
            return Ok(String::from_utf8_lossy(&r.value).into_owned());
        }
    }
    Ok(String::new())
}
