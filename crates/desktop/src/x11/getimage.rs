//! Plain GetImage capture: the pixels travel over the X connection. Works on every display,
//! remote ones included; a 1920x1080 frame is 8 MB through the socket, so it is the fallback
//! when MIT-SHM is missing (or `FRANZ_X11_NO_SHM=1`).

use super::connection::x11_err;
use crate::{DesktopError, PixelRect};
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, Window};
use x11rb::rust_connection::RustConnection;

/// The ZPixmap bytes of `rect` of `root`, 4 bytes per pixel, rows `rect.width * 4` apart.
pub(crate) fn get_image(
    conn: &RustConnection,
    root: Window,
    rect: PixelRect,
) -> Result<Vec<u8>, DesktopError> {
    let (x, y, w, h) = super::desktop::request_rect(rect)?;
    let reply = conn
        .get_image(ImageFormat::Z_PIXMAP, root, x, y, w, h, !0)
        .map_err(x11_err)?
        .reply()
        .map_err(x11_err)?;
    let len = rect.width as usize * rect.height as usize * 4;
    if reply.data.len() < len {
        return Err(DesktopError::Capture(format!(
            "GetImage returned {} bytes for {}x{} pixels at depth {}, expected {len}",
            reply.data.len(),
            rect.width,
            rect.height,
            reply.depth
        )));
    }
    Ok(reply.data)
}
