//! The top-level windows of an X display with their class, title and place on the screen
//! ([`crate::top_windows`]).

use crate::{DesktopError, TopWindow};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, MapState, Window};

fn x11(e: &dyn std::fmt::Display) -> DesktopError {
    DesktopError::X11(e.to_string())
}

/// The viewable top-level windows of `display`, bottom to top (stacking order), leaving out
/// windows of one pixel or less (toolkits' hidden helper windows). A window
/// manager's frames are looked through: where a child of the root has no `WM_CLASS`, its
/// first child that has one is reported instead.
pub fn top_windows(display: &str) -> Result<Vec<TopWindow>, DesktopError> {
    let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| x11(&e))?;
    let root = conn.setup().roots[screen].root;
    let tree = conn
        .query_tree(root)
        .map_err(|e| x11(&e))?
        .reply()
        .map_err(|e| x11(&e))?;
    let mut out = Vec::new();
    for w in tree.children {
        let viewable = conn
            .get_window_attributes(w)
            .map_err(|e| x11(&e))?
            .reply()
            .is_ok_and(|a| a.map_state == MapState::VIEWABLE);
        if !viewable {
            continue;
        }
        if let Some(info) = describe(&conn, root, w)?
            && info.width > 1
            && info.height > 1
        {
            out.push(info);
        }
    }
    Ok(out)
}

/// `w` (or, for a window manager frame, its first child with a `WM_CLASS`) as a [`TopWindow`].
fn describe(
    conn: &impl Connection,
    root: Window,
    w: Window,
) -> Result<Option<TopWindow>, DesktopError> {
    let mut target = w;
    let mut class = read_class(conn, w)?;
    if class.is_none() {
        let kids = conn
            .query_tree(w)
            .map_err(|e| x11(&e))?
            .reply()
            .map(|t| t.children)
            .unwrap_or_default();
        for k in kids {
            if let Some(c) = read_class(conn, k)? {
                target = k;
                class = Some(c);
                break;
            }
        }
    }
    let (instance, class) = class.unwrap_or_default();
    let Ok(geo) = conn.get_geometry(target).map_err(|e| x11(&e))?.reply() else {
        return Ok(None);
    };
    let Ok(at) = conn
        .translate_coordinates(target, root, 0, 0)
        .map_err(|e| x11(&e))?
        .reply()
    else {
        return Ok(None);
    };
    Ok(Some(TopWindow {
        id: target,
        instance,
        class,
        title: read_title(conn, target)?,
        x: at.dst_x as i32,
        y: at.dst_y as i32,
        width: geo.width as u32,
        height: geo.height as u32,
    }))
}

fn read_class(conn: &impl Connection, w: Window) -> Result<Option<(String, String)>, DesktopError> {
    let reply = conn
        .get_property(false, w, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 256)
        .map_err(|e| x11(&e))?
        .reply();
    let Ok(reply) = reply else { return Ok(None) };
    if reply.value.is_empty() {
        return Ok(None);
    }
    let mut parts = reply
        .value
        .split(|b| *b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned());
    let instance = parts.next().unwrap_or_default();
    let class = parts.next().unwrap_or_default();
    Ok(Some((instance, class)))
}

fn read_title(conn: &impl Connection, w: Window) -> Result<String, DesktopError> {
    let atom = |name: &[u8]| -> Result<u32, DesktopError> {
        Ok(conn
            .intern_atom(false, name)
            .map_err(|e| x11(&e))?
            .reply()
            .map_err(|e| x11(&e))?
            .atom)
    };
    let net_name = atom(b"_NET_WM_NAME")?;
    let utf8 = atom(b"UTF8_STRING")?;
    for (prop, kind) in [
        (net_name, utf8),
        (AtomEnum::WM_NAME.into(), AtomEnum::ANY.into()),
    ] {
        if let Ok(r) = conn
            .get_property(false, w, prop, kind, 0, 1024)
            .map_err(|e| x11(&e))?
            .reply()
            && !r.value.is_empty()
        {
            return Ok(String::from_utf8_lossy(&r.value).into_owned());
        }
    }
    Ok(String::new())
}
