//! The window under a point (the safety policy's `allow_only_windows`), named by the process
//! that owns it.

use crate::{DesktopError, PixelPoint, PointedWindow};
use windows_sys::Win32::Foundation::POINT;

/// The top-level window under screen pixel `p` (`allow_only_windows`): `WindowFromPoint`, its
/// root (`GetAncestor(GA_ROOT)`), its title, and the image name of the process that owns it
/// (`QueryFullProcessImageNameW`) as `class` (e.g. `notepad.exe`) and `instance` (`notepad`).
/// `None` where there is no window (the desktop itself counts as a window: `explorer.exe`).
pub fn window_at(p: PixelPoint) -> Result<Option<PointedWindow>, DesktopError> {
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
    Ok(Some(PointedWindow {
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
