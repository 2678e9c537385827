//! The cursor as Windows draws it, for the screenshot's cursor overlay: its image (color,
//! alpha and monochrome cursors alike) and its hotspot position.

use crate::{CursorImage, DesktopError};
use std::ffi::c_void;
use windows_sys::Win32::Foundation::POINT;
use windows_sys::Win32::Graphics::Gdi::{
    BI_RGB, BITMAP, BITMAPINFO, BITMAPINFOHEADER, CreateCompatibleDC, CreateDIBSection,
    DIB_RGB_COLORS, DeleteDC, DeleteObject, GetObjectW, HBITMAP, SelectObject,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    CURSOR_SHOWING, CURSORINFO, DI_NORMAL, DrawIconEx, GetCursorInfo, GetIconInfo, HCURSOR,
    ICONINFO, IDC_ARROW, LoadCursorW,
};

/// Deletes a GDI object when dropped.
struct Gdi(*mut c_void);

impl Drop for Gdi {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: we own this object.
            unsafe { DeleteObject(self.0) };
        }
    }
}

/// The cursor as Windows draws it: its image (rendered with `DrawIconEx`, so color,
/// alpha and monochrome cursors all come out right) and its hotspot position. `None` when
/// the cursor is hidden.
pub fn cursor() -> Result<Option<CursorImage>, DesktopError> {
    let mut info = CURSORINFO {
        cbSize: size_of::<CURSORINFO>() as u32,
        flags: 0,
        hCursor: std::ptr::null_mut(),
        ptScreenPos: POINT { x: 0, y: 0 },
    };
    // SAFETY: `info` is a valid CURSORINFO with cbSize set.
    if unsafe { GetCursorInfo(&mut info) } == 0 {
        return Err(DesktopError::Capture("GetCursorInfo failed".into()));
    }
    if info.flags & CURSOR_SHOWING == 0 || info.hCursor.is_null() {
        return Ok(None);
    }
    // Another process's cursor handle cannot be read under Wine (real Windows shares them):
    // then the standard arrow stands in for it.
    let image = render_cursor(info.hCursor).or_else(|e| {
        tracing::debug!("cursor image: {e}; drawing the standard arrow");
        // SAFETY: loads a shared system cursor.
        render_cursor(unsafe { LoadCursorW(std::ptr::null_mut(), IDC_ARROW) })
    })?;
    Ok(image.map(|(xhot, yhot, width, height, rgba)| CursorImage {
        x: info.ptScreenPos.x,
        y: info.ptScreenPos.y,
        xhot,
        yhot,
        width,
        height,
        rgba,
    }))
}

/// Hotspot, size and straight RGBA of a cursor.
type Rendered = (u32, u32, u32, u32, Vec<u8>);

fn render_cursor(handle: HCURSOR) -> Result<Option<Rendered>, DesktopError> {
    // SAFETY: zeroed ICONINFO is a valid out value (integers and null handles).
    let mut icon: ICONINFO = unsafe { std::mem::zeroed() };
    // SAFETY: `icon` is a valid out pointer; a bad handle makes the call fail.
    if handle.is_null() || unsafe { GetIconInfo(handle, &mut icon) } == 0 {
        return Err(DesktopError::Capture("GetIconInfo failed".into()));
    }
    let (mask, color) = (Gdi(icon.hbmMask), Gdi(icon.hbmColor));
    // A monochrome cursor's mask holds the AND and XOR halves stacked: half its height.
    let (width, height) = match bitmap_size(color.0) {
        Some(size) => size,
        None => {
            let (w, h) = bitmap_size(mask.0)
                .ok_or_else(|| DesktopError::Capture("cursor without bitmaps".into()))?;
            (w, h / 2)
        }
    };
    if width == 0 || height == 0 {
        return Ok(None);
    }
    let on_black = render(handle, width, height, 0x00)?;
    let on_white = render(handle, width, height, 0xff)?;
    Ok(Some((
        icon.xHotspot,
        icon.yHotspot,
        width,
        height,
        unblend(&on_black, &on_white),
    )))
}

/// Width and height of a bitmap, `None` for a null handle.
fn bitmap_size(bitmap: HBITMAP) -> Option<(u32, u32)> {
    if bitmap.is_null() {
        return None;
    }
    // SAFETY: zeroed BITMAP is a valid out value.
    let mut bm: BITMAP = unsafe { std::mem::zeroed() };
    // SAFETY: `bm` is large enough for a BITMAP.
    let n = unsafe { GetObjectW(bitmap, size_of::<BITMAP>() as i32, (&raw mut bm).cast()) };
    (n != 0).then(|| (bm.bmWidth.unsigned_abs(), bm.bmHeight.unsigned_abs()))
}

/// Draws the cursor onto a `width` x `height` background of one gray level; BGRA bytes.
fn render(cursor: *mut c_void, width: u32, height: u32, bg: u8) -> Result<Vec<u8>, DesktopError> {
    let fail = |what: &str| DesktopError::Capture(format!("cursor image: {what} failed"));
    // SAFETY: zeroed BITMAPINFO is valid; the fields that matter are set below.
    let mut bmi: BITMAPINFO = unsafe { std::mem::zeroed() };
    bmi.bmiHeader = BITMAPINFOHEADER {
        biSize: size_of::<BITMAPINFOHEADER>() as u32,
        biWidth: width as i32,
        biHeight: -(height as i32), // top-down rows
        biPlanes: 1,
        biBitCount: 32,
        biCompression: BI_RGB,
        ..bmi.bmiHeader
    };
    // SAFETY: a memory DC needs no window; freed below.
    let dc = unsafe { CreateCompatibleDC(std::ptr::null_mut()) };
    if dc.is_null() {
        return Err(fail("CreateCompatibleDC"));
    }
    let mut bits: *mut c_void = std::ptr::null_mut();
    // SAFETY: `bmi` describes a 32-bit top-down DIB; `bits` receives its memory.
    let dib = Gdi(unsafe {
        CreateDIBSection(dc, &bmi, DIB_RGB_COLORS, &mut bits, std::ptr::null_mut(), 0)
    });
    let len = width as usize * height as usize * 4;
    let result = if dib.0.is_null() || bits.is_null() {
        Err(fail("CreateDIBSection"))
    } else {
        // SAFETY: `bits` points at the DIB's `len` bytes, alive while `dib` is.
        unsafe {
            std::ptr::write_bytes(bits.cast::<u8>(), bg, len);
            let old = SelectObject(dc, dib.0);
            let drawn = DrawIconEx(
                dc,
                0,
                0,
                cursor,
                width as i32,
                height as i32,
                0,
                std::ptr::null_mut(),
                DI_NORMAL,
            );
            SelectObject(dc, old);
            if drawn == 0 {
                Err(fail("DrawIconEx"))
            } else {
                Ok(std::slice::from_raw_parts(bits.cast::<u8>(), len).to_vec())
            }
        }
    };
    // SAFETY: the DC is ours and no longer has our bitmap selected.
    unsafe { DeleteDC(dc) };
    result
}

/// Recovers straight RGBA from the same image drawn on black and on white:
/// alpha = 255 - (white - black), color = black / alpha.
fn unblend(on_black: &[u8], on_white: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(on_black.len());
    for (b, w) in on_black.chunks_exact(4).zip(on_white.chunks_exact(4)) {
        let diff = (0..3).map(|i| w[i].saturating_sub(b[i])).max().unwrap_or(0);
        let alpha = 255 - diff;
        let straight = |c: u8| {
            if alpha == 0 {
                0
            } else {
                ((u32::from(c) * 255 + u32::from(alpha) / 2) / u32::from(alpha)).min(255) as u8
            }
        };
        out.extend_from_slice(&[straight(b[2]), straight(b[1]), straight(b[0]), alpha]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unblend_recovers_opaque_transparent_and_half() {
        // BGRA on black / on white: opaque red, transparent, 50% white.
        let black = [0, 0, 255, 0, 0, 0, 0, 0, 128, 128, 128, 0];
        let white = [0, 0, 255, 0, 255, 255, 255, 0, 255, 255, 255, 0];
        let rgba = unblend(&black, &white);
        assert_eq!(&rgba[0..4], &[255, 0, 0, 255]);
        assert_eq!(rgba[7], 0);
        assert_eq!(rgba[11], 128);
        assert_eq!(rgba[8], 255);
    }

    #[test]
    fn the_cursor_renders_with_its_hotspot_inside() {
        if let Some(c) = cursor().unwrap() {
            assert!(c.xhot < c.width && c.yhot < c.height);
            assert_eq!(c.rgba.len(), (c.width * c.height * 4) as usize);
            assert!(
                c.rgba.chunks_exact(4).any(|p| p[3] > 0),
                "cursor all transparent"
            );
        }
    }
}
