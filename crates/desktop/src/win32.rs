//! The few Win32 calls franz makes itself (everything else goes through xcap and enigo):
//! per-monitor DPI awareness at startup, the pointer position, the cursor's image, and
//! mouse buttons and wheels that carry their point.
//!
//! DPI: a process that is not DPI aware gets virtualized coordinates on a scaled monitor
//! (125% at 1080p): GDI captures and `SendInput` would then disagree with the physical pixels.
//! franz asks for `PER_MONITOR_AWARE_V2` (Windows 10 1703+) and falls back to
//! `PER_MONITOR_AWARE` where that call fails (Wine 8 rejects V2).

use crate::{Button, CursorImage, DesktopError, PixelPoint, Press};
use std::ffi::c_void;
use windows_sys::Win32::Foundation::POINT;
use windows_sys::Win32::Graphics::Gdi::{
    BI_RGB, BITMAP, BITMAPINFO, BITMAPINFOHEADER, CreateCompatibleDC, CreateDIBSection,
    DIB_RGB_COLORS, DeleteDC, DeleteObject, GetObjectW, HBITMAP, SelectObject,
};
use windows_sys::Win32::UI::HiDpi::{
    DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE, DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2,
    DPI_AWARENESS_PER_MONITOR_AWARE, GetAwarenessFromDpiAwarenessContext,
    GetThreadDpiAwarenessContext, SetProcessDpiAwarenessContext,
};
use windows_sys::Win32::UI::Input::KeyboardAndMouse::{
    INPUT, INPUT_0, INPUT_MOUSE, MOUSEEVENTF_ABSOLUTE, MOUSEEVENTF_HWHEEL, MOUSEEVENTF_LEFTDOWN,
    MOUSEEVENTF_LEFTUP, MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP, MOUSEEVENTF_MOVE,
    MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP, MOUSEEVENTF_WHEEL, MOUSEINPUT, SendInput,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    CURSOR_SHOWING, CURSORINFO, DI_NORMAL, DrawIconEx, GetCursorInfo, GetCursorPos, GetIconInfo,
    GetSystemMetrics, HCURSOR, ICONINFO, IDC_ARROW, LoadCursorW, SM_CXSCREEN, SM_CYSCREEN,
    WHEEL_DELTA,
};

/// Makes this process per-monitor DPI aware (V2, else V1). Returns whether the thread is
/// per-monitor aware afterwards; calling it again is harmless.
pub fn set_dpi_awareness() -> bool {
    // SAFETY: plain calls with constant arguments.
    unsafe {
        if SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) == 0
            && SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE) == 0
        {
            tracing::debug!("SetProcessDpiAwarenessContext failed (already set?)");
        }
    }
    is_per_monitor_aware()
}

/// Whether the calling thread is per-monitor DPI aware (V1 or V2).
pub fn is_per_monitor_aware() -> bool {
    // SAFETY: no arguments; the context is only passed back to the OS.
    unsafe {
        GetAwarenessFromDpiAwarenessContext(GetThreadDpiAwarenessContext())
            == DPI_AWARENESS_PER_MONITOR_AWARE
    }
}

/// The pointer position in physical screen pixels.
pub fn pointer() -> Result<PixelPoint, DesktopError> {
    let mut p = POINT { x: 0, y: 0 };
    // SAFETY: `p` is a valid out pointer.
    if unsafe { GetCursorPos(&mut p) } == 0 {
        return Err(DesktopError::Capture("GetCursorPos failed".into()));
    }
    Ok(PixelPoint::new(p.x, p.y))
}

/// Presses and/or releases `button` at `p`: each event is one `SendInput` mouse event that
/// moves (absolute) and presses in one, so the press lands on `p` even when something moved
/// the pointer in between (under Wine, a late X motion event can put it back on its previous
/// spot between a move and a plain press, even between the two halves of one click).
pub fn button_at(p: PixelPoint, button: Button, press: Press) -> Result<(), DesktopError> {
    let (down, up) = match button {
        Button::Left => (MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP),
        Button::Right => (MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP),
        Button::Middle => (MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP),
    };
    match press {
        Press::Down => mouse_at(p, &[(down, 0)]),
        Press::Up => mouse_at(p, &[(up, 0)]),
        Press::Click => mouse_at(p, &[(down, 0), (up, 0)]),
    }
}

/// Turns the wheel at `p` by `notches` (positive: down or right), moving there in the same
/// event (see `button_at`).
pub fn wheel_at(p: PixelPoint, notches: i32, horizontal: bool) -> Result<(), DesktopError> {
    let delta = notches.saturating_mul(WHEEL_DELTA as i32);
    let event = if horizontal {
        (MOUSEEVENTF_HWHEEL, delta)
    } else {
        // Windows: a positive vertical delta turns the wheel away from the user (up).
        (MOUSEEVENTF_WHEEL, delta.saturating_neg())
    };
    mouse_at(p, &[event])
}

/// Sends one absolute move to `p` combined with each `(flags, mouseData)`, in one call.
fn mouse_at(p: PixelPoint, events: &[(u32, i32)]) -> Result<(), DesktopError> {
    // SAFETY: plain queries.
    let (w, h) = unsafe { (GetSystemMetrics(SM_CXSCREEN), GetSystemMetrics(SM_CYSCREEN)) };
    let (dx, dy) = (absolute(p.x, w), absolute(p.y, h));
    let inputs: Vec<INPUT> = events
        .iter()
        .map(|&(flags, data)| INPUT {
            r#type: INPUT_MOUSE,
            Anonymous: INPUT_0 {
                mi: MOUSEINPUT {
                    dx,
                    dy,
                    // mouseData is a DWORD that carries signed wheel deltas.
                    mouseData: data as u32,
                    dwFlags: MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | flags,
                    time: 0,
                    dwExtraInfo: 0,
                },
            },
        })
        .collect();
    // SAFETY: `inputs` holds `inputs.len()` valid INPUTs of the size given.
    let sent = unsafe {
        SendInput(
            inputs.len() as u32,
            inputs.as_ptr(),
            size_of::<INPUT>() as i32,
        )
    };
    if sent as usize != inputs.len() {
        return Err(DesktopError::Input(format!(
            "SendInput sent {sent} of {} mouse events",
            inputs.len()
        )));
    }
    Ok(())
}

/// A pixel on a screen axis of `len` pixels in `SendInput`'s absolute units (0..=65535 over
/// pixels 0..=len-1, rounded), the same mapping enigo uses for its moves.
fn absolute(v: i32, len: i32) -> i32 {
    let (v, last) = (i64::from(v), i64::from(len.max(2) - 1));
    ((v * 65535 + last / 2 * v.signum()) / last) as i32
}

/// The virtual key that types `c` on the keyboard layout of the foreground window and the
/// modifiers it needs with it (`VkKeyScanExW`'s shift state: 1 shift, 2 ctrl, 4 alt; AltGr is
/// ctrl+alt), e.g. `VK_1` with shift for `!` on a US keyboard; `None` when no key types `c`.
pub fn key_for_char(c: char) -> Option<(u16, u8)> {
    use windows_sys::Win32::UI::Input::KeyboardAndMouse::{GetKeyboardLayout, VkKeyScanExW};
    use windows_sys::Win32::UI::WindowsAndMessaging::{
        GetForegroundWindow, GetWindowThreadProcessId,
    };
    let mut units = [0u16; 2];
    let [unit] = *c.encode_utf16(&mut units) else {
        return None;
    };
    // SAFETY: plain queries; a null window gives thread 0, the calling thread's layout.
    let scan = unsafe {
        let thread = GetWindowThreadProcessId(GetForegroundWindow(), std::ptr::null_mut());
        VkKeyScanExW(unit, GetKeyboardLayout(thread))
    };
    let (vk, state) = ((scan as u16) & 0xff, ((scan as u16) >> 8) as u8);
    // -1 in both bytes: no key; states beyond shift, ctrl and alt (kana, ...): not pressable here.
    (vk != 0xff && state & !7 == 0).then_some((vk, state))
}

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

/// The top-level window under screen pixel `p` (`allow_only_windows`): `WindowFromPoint`, its
/// root (`GetAncestor(GA_ROOT)`), its title, and the image name of the process that owns it
/// (`QueryFullProcessImageNameW`) as `class` (e.g. `notepad.exe`) and `instance` (`notepad`).
/// `None` where there is no window (the desktop itself counts as a window: `explorer.exe`).
pub fn window_at(p: PixelPoint) -> Result<Option<crate::PointedWindow>, DesktopError> {
    use windows_sys::Win32::UI::WindowsAndMessaging::{
        GA_ROOT, GetAncestor, GetWindowTextW, GetWindowThreadProcessId, WindowFromPoint,
    };
    // SAFETY: plain queries; `buf` holds `buf.len()` units.
    let (hwnd, title, pid) = unsafe {
        let child = WindowFromPoint(POINT { x: p.x, y: p.y });
        if child.is_null() {
            return Ok(None);
        }
        let root = GetAncestor(child, GA_ROOT);
        let hwnd = if root.is_null() { child } else { root };
        let mut buf = [0u16; 512];
        let n = GetWindowTextW(hwnd, buf.as_mut_ptr(), buf.len() as i32);
        let title = String::from_utf16_lossy(&buf[..n.max(0) as usize]);
        let mut pid = 0u32;
        GetWindowThreadProcessId(hwnd, &mut pid);
        (hwnd, title, pid)
    };
    let image = process_image(pid).unwrap_or_default();
    let class = image.rsplit(['\\', '/']).next().unwrap_or("").to_string();
    let instance = class
        .rsplit_once('.')
        .map_or(class.as_str(), |(stem, _)| stem)
        .to_string();
    Ok(Some(crate::PointedWindow {
        id: hwnd as usize as u64,
        class,
        instance,
        title,
    }))
}

/// The full image path of process `pid`, where this process may ask.
pub(crate) fn process_image(pid: u32) -> Option<String> {
    use windows_sys::Win32::Foundation::CloseHandle;
    use windows_sys::Win32::System::Threading::{
        OpenProcess, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
        QueryFullProcessImageNameW,
    };
    // SAFETY: the handle is closed below; `buf` holds `len` units.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return None;
        }
        let mut buf = [0u16; 1024];
        let mut len = buf.len() as u32;
        let ok =
            QueryFullProcessImageNameW(process, PROCESS_NAME_WIN32, buf.as_mut_ptr(), &mut len);
        CloseHandle(process);
        (ok != 0).then(|| String::from_utf16_lossy(&buf[..len as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dpi_awareness_is_per_monitor_after_startup() {
        assert!(set_dpi_awareness());
        // SAFETY: plain queries.
        let awareness =
            unsafe { GetAwarenessFromDpiAwarenessContext(GetThreadDpiAwarenessContext()) };
        assert_eq!(awareness, DPI_AWARENESS_PER_MONITOR_AWARE);
    }

    #[test]
    fn absolute_units_span_the_screen() {
        assert_eq!(absolute(0, 1280), 0);
        assert_eq!(absolute(1279, 1280), 65535);
        assert_eq!(absolute(640, 1280), (640 * 65535 + 639) / 1279);
    }

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
