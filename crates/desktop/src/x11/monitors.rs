//! Monitors through RandR 1.5 (`RRGetMonitors`), the same list `xrandr --listmonitors` shows.
//!
//! - Order: the server's, with the primary moved first (X.Org already sends it first), so
//!   monitor 0 is the primary one when there is one and `--monitor N` matches `xrandr`'s numbers.
//! - Rects are clipped to the root window: capture cannot read outside it.
//! - A server without RandR 1.5, or one that reports no monitors, gets one monitor covering the
//!   whole root window, named `screen`.

use super::connection::x11_err;
use crate::{DesktopError, Monitor, PixelRect};
use x11rb::connection::RequestConnection;
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, Screen};
use x11rb::rust_connection::RustConnection;

/// Every monitor of `screen`, primary first, indexed in that order.
pub(crate) fn list(conn: &RustConnection, screen: &Screen) -> Result<Vec<Monitor>, DesktopError> {
    let root = PixelRect::new(
        0,
        0,
        screen.width_in_pixels.into(),
        screen.height_in_pixels.into(),
    );
    let whole = || {
        vec![Monitor {
            index: 0,
            name: "screen".into(),
            rect: root,
            primary: true,
        }]
    };
    if !has_randr_1_5(conn)? {
        tracing::debug!("no RandR 1.5: one monitor for the whole screen");
        return Ok(whole());
    }
    let reply = conn
        .randr_get_monitors(screen.root, true)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    // Ask for every name first, then read the answers: one round trip, not one per monitor.
    let cookies = reply
        .monitors
        .iter()
        .map(|m| conn.get_atom_name(m.name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(x11_err)?;
    let mut monitors = Vec::new();
    for (info, cookie) in reply.monitors.iter().zip(cookies) {
        let name = cookie
            .reply()
            .map(|r| String::from_utf8_lossy(&r.name).into_owned())
            .unwrap_or_else(|_| format!("monitor-{}", monitors.len()));
        let rect = PixelRect::new(
            info.x.into(),
            info.y.into(),
            info.width.into(),
            info.height.into(),
        );
        let Some(rect) = intersect(rect, root) else {
            tracing::debug!(name, ?rect, "monitor outside the root window: skipped");
            continue;
        };
        monitors.push(Monitor {
            index: 0,
            name,
            rect,
            primary: info.primary,
        });
    }
    if monitors.is_empty() {
        return Ok(whole());
    }
    Ok(primary_first(monitors))
}

fn has_randr_1_5(conn: &RustConnection) -> Result<bool, DesktopError> {
    if conn
        .extension_information(randr::X11_EXTENSION_NAME)
        .map_err(x11_err)?
        .is_none()
    {
        return Ok(false);
    }
    let v = conn
        .randr_query_version(1, 5)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    Ok((v.major_version, v.minor_version) >= (1, 5))
}

/// Moves the primary monitors to the front (stable) and numbers them.
fn primary_first(mut monitors: Vec<Monitor>) -> Vec<Monitor> {
    monitors.sort_by_key(|m| !m.primary);
    for (i, m) in monitors.iter_mut().enumerate() {
        m.index = i;
    }
    monitors
}

/// The common part of two rects, if any.
fn intersect(a: PixelRect, b: PixelRect) -> Option<PixelRect> {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    let right = a.right().min(b.right());
    let bottom = a.bottom().min(b.bottom());
    (right > x && bottom > y).then(|| PixelRect::new(x, y, (right - x) as u32, (bottom - y) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mon(name: &str, x: i32, primary: bool) -> Monitor {
        Monitor {
            index: 99,
            name: name.into(),
            rect: PixelRect::new(x, 0, 100, 100),
            primary,
        }
    }

    #[test]
    fn primary_moves_first_and_indexes_follow() {
        let m = primary_first(vec![
            mon("a", 0, false),
            mon("b", 100, true),
            mon("c", 200, false),
        ]);
        let names: Vec<_> = m.iter().map(|m| (m.index, m.name.as_str())).collect();
        assert_eq!(names, [(0, "b"), (1, "a"), (2, "c")]);
    }

    #[test]
    fn select_defaults_to_primary_and_rejects_bad_index() {
        let m = vec![mon("a", 0, false), mon("b", 100, true)];
        assert_eq!(crate::select_monitor(&m, None).unwrap(), 1);
        assert_eq!(crate::select_monitor(&m, Some(0)).unwrap(), 0);
        let e = crate::select_monitor(&m, Some(2)).unwrap_err();
        assert!(matches!(
            e,
            DesktopError::NoSuchMonitor {
                requested: 2,
                count: 2
            }
        ));
        assert!(e.to_string().contains("0..2"), "{e}");
        let none_primary = vec![mon("a", 0, false)];
        assert_eq!(crate::select_monitor(&none_primary, None).unwrap(), 0);
    }

    #[test]
    fn intersect_clips_and_drops() {
        let root = PixelRect::new(0, 0, 1920, 1080);
        assert_eq!(
            intersect(PixelRect::new(1800, -10, 400, 100), root),
            Some(PixelRect::new(1800, 0, 120, 90))
        );
        assert_eq!(intersect(PixelRect::new(1920, 0, 10, 10), root), None);
    }
}
