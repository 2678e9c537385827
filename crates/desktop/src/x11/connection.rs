//! Which X display to open, opening it, and checking that its pixels are ones franz reads.
//!
//! - [`resolve_display`] is a pure function of the option and the environment, so the
//!   Wayland and no-display errors are tested without touching the process environment.
//! - [`connect`] opens the display and checks the root visual: franz reads 24-bit TrueColor
//!   (or 32-bit) pixels stored as 32 bits, least significant byte first, which is B, G, R, pad
//!   in memory: the BGRA layout of [`crate::Frame`]. Anything else is a clear error at open,
//!   not garbage at capture.

use crate::DesktopError;
use std::ffi::OsStr;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ImageOrder, Screen, VisualClass};
use x11rb::rust_connection::RustConnection;

/// Any x11rb error, as a message.
pub(crate) fn x11_err(e: impl std::fmt::Display) -> DesktopError {
    DesktopError::X11(e.to_string())
}

/// The display to open: the explicit option, else `$DISPLAY`.
///
/// `display_env` and `wayland_env` are the values of `DISPLAY` and `WAYLAND_DISPLAY`; an empty
/// value counts as unset. With no X display at all, a Wayland session gets
/// [`DesktopError::WaylandOnly`] and anything else [`DesktopError::NoDisplay`]; both messages
/// name `--sandbox`.
pub fn resolve_display(
    option: Option<&str>,
    display_env: Option<&OsStr>,
    wayland_env: Option<&OsStr>,
) -> Result<String, DesktopError> {
    if let Some(d) = option.filter(|d| !d.is_empty()) {
        return Ok(d.to_string());
    }
    if let Some(d) = set(display_env) {
        return d
            .to_str()
            .map(str::to_string)
            .ok_or_else(|| DesktopError::NoDisplay {
                display: d.to_string_lossy().into_owned(),
                reason: "DISPLAY is not valid UTF-8".into(),
            });
    }
    if set(wayland_env).is_some() {
        return Err(DesktopError::WaylandOnly);
    }
    Err(DesktopError::NoDisplay {
        display: "(none)".into(),
        reason: "DISPLAY is not set".into(),
    })
}

/// An open display and the screen franz works on.
pub(crate) struct Opened {
    pub conn: RustConnection,
    pub screen: Screen,
}

/// Opens `display` and checks that its root window's pixels are 32-bit BGRX.
pub(crate) fn connect(display: &str) -> Result<Opened, DesktopError> {
    let (conn, screen_num) =
        x11rb::connect(Some(display)).map_err(|e| DesktopError::NoDisplay {
            display: display.to_string(),
            reason: e.to_string(),
        })?;
    let screen = conn.setup().roots.get(screen_num).cloned().ok_or_else(|| {
        DesktopError::X11(format!("display {display} has no screen {screen_num}"))
    })?;
    check_pixel_format(conn.setup(), &screen)?;
    Ok(Opened { conn, screen })
}

/// Checks that root pixels are stored as B, G, R, pad bytes (ZPixmap, 32 bits per pixel, LSB first).
fn check_pixel_format(
    setup: &x11rb::protocol::xproto::Setup,
    screen: &Screen,
) -> Result<(), DesktopError> {
    let depth = screen.root_depth;
    let bpp = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == depth)
        .map(|f| f.bits_per_pixel);
    let visual = screen
        .allowed_depths
        .iter()
        .flat_map(|d| d.visuals.iter())
        .find(|v| v.visual_id == screen.root_visual);
    let masks = visual.map(|v| (v.class, v.red_mask, v.green_mask, v.blue_mask));
    let ok = matches!(depth, 24 | 32)
        && bpp == Some(32)
        && setup.image_byte_order == ImageOrder::LSB_FIRST
        && matches!(
            masks,
            Some((
                VisualClass::TRUE_COLOR | VisualClass::DIRECT_COLOR,
                0xff_0000,
                0xff00,
                0xff
            ))
        );
    if ok {
        return Ok(());
    }
    Err(DesktopError::Capture(format!(
        "unsupported root visual: depth {depth}, {} bits per pixel, byte order {:?}, masks {}; \
         franz captures 24-bit TrueColor stored as 32 bits (BGRX), e.g. Xvfb -screen 0 1920x1080x24",
        bpp.map_or("unknown".to_string(), |b| b.to_string()),
        setup.image_byte_order,
        masks.map_or("unknown".to_string(), |(_, r, g, b)| format!(
            "r {r:#x} g {g:#x} b {b:#x}"
        )),
    )))
}

/// A variable's value, with an empty one counting as unset.
fn set(v: Option<&OsStr>) -> Option<&OsStr> {
    v.filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn option_wins_over_environment() {
        assert_eq!(resolve_display(Some(":7"), os(":1"), None).unwrap(), ":7");
    }

    #[test]
    fn display_env_is_used_even_with_wayland() {
        // XWayland sets both: X11 works there.
        assert_eq!(
            resolve_display(None, os(":0"), os("wayland-0")).unwrap(),
            ":0"
        );
    }

    #[test]
    fn wayland_without_x_names_sandbox() {
        let e = resolve_display(None, None, os("wayland-0")).unwrap_err();
        assert!(matches!(e, DesktopError::WaylandOnly));
        assert!(e.to_string().contains("--sandbox"), "{e}");
        // An empty DISPLAY is no display.
        let e = resolve_display(Some(""), os(""), os("wayland-1")).unwrap_err();
        assert!(matches!(e, DesktopError::WaylandOnly));
    }

    #[test]
    fn nothing_at_all_names_sandbox() {
        let e = resolve_display(None, None, os("")).unwrap_err();
        assert!(matches!(e, DesktopError::NoDisplay { .. }));
        let msg = e.to_string();
        assert!(
            msg.contains("--sandbox") && msg.contains("DISPLAY"),
            "{msg}"
        );
    }
}
