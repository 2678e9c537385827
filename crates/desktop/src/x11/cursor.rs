//! The pointer: its position (core `QueryPointer`) and the image the server draws for it
//! (XFixes `GetCursorImage`), so the observation pipeline can paint the real cursor.

use super::connection::x11_err;
use crate::{CursorImage, DesktopError, PixelPoint};
use x11rb::connection::RequestConnection;
use x11rb::protocol::xfixes::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ConnectionExt as _, Window};
use x11rb::rust_connection::RustConnection;

/// Where the pointer is, in root pixels.
pub(crate) fn pointer(conn: &RustConnection, root: Window) -> Result<PixelPoint, DesktopError> {
    let r = conn
        .query_pointer(root)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    Ok(PixelPoint::new(r.root_x.into(), r.root_y.into()))
}

/// Announces the XFixes version we speak; the server answers XFixes requests only after that.
/// `false` when the server has no XFixes.
pub(crate) fn init_xfixes(conn: &RustConnection) -> Result<bool, DesktopError> {
    if conn
        .extension_information(xfixes::X11_EXTENSION_NAME)
        .map_err(x11_err)?
        .is_none()
    {
        return Ok(false);
    }
    conn.xfixes_query_version(4, 0)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    Ok(true)
}

/// The cursor's image, hotspot and position.
pub(crate) fn cursor_image(conn: &RustConnection) -> Result<CursorImage, DesktopError> {
    let r = conn
        .xfixes_get_cursor_image()
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    let (width, height) = (u32::from(r.width), u32::from(r.height));
    if r.cursor_image.len() != width as usize * height as usize {
        return Err(DesktopError::X11(format!(
            "cursor image has {} pixels for {width}x{height}",
            r.cursor_image.len()
        )));
    }
    Ok(CursorImage {
        x: r.x.into(),
        y: r.y.into(),
        xhot: r.xhot.into(),
        yhot: r.yhot.into(),
        width,
        height,
        rgba: r
            .cursor_image
            .iter()
            .flat_map(|&p| straight_rgba(p))
            .collect(),
    })
}

/// One premultiplied ARGB pixel (alpha in the top byte) as straight RGBA bytes.
fn straight_rgba(argb: u32) -> [u8; 4] {
    let [a, r, g, b] = argb.to_be_bytes();
    if a == 0 {
        return [0, 0, 0, 0];
    }
    let a16 = u16::from(a);
    let un = |c: u8| ((u16::from(c) * 255 + a16 / 2) / a16).min(255) as u8;
    [un(r), un(g), un(b), a]
}

#[cfg(test)]
mod tests {
    use super::straight_rgba;

    #[test]
    fn unpremultiplies() {
        assert_eq!(straight_rgba(0xff10_2030), [0x10, 0x20, 0x30, 0xff]);
        assert_eq!(straight_rgba(0x0000_0000), [0, 0, 0, 0]);
        // Half-transparent white is stored as 0x80 per channel.
        assert_eq!(straight_rgba(0x8080_8080), [255, 255, 255, 0x80]);
        // Half-transparent black stays black.
        assert_eq!(straight_rgba(0x8000_0000), [0, 0, 0, 0x80]);
        // Broken input (channel > alpha) saturates instead of wrapping.
        assert_eq!(straight_rgba(0x10ff_ffff), [255, 255, 255, 0x10]);
    }
}
