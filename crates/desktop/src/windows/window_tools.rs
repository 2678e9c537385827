//! Top-level windows on Windows, for the window tools (`list_windows`, `focus_window`) and the
//! element walk (`uia.rs`).
//!
//! - List: `EnumWindows` (top of the Z order first), keeping the windows a person can see:
//!   visible, not cloaked (a suspended store app's window is visible but cloaked), not a tool
//!   window (`WS_EX_TOOLWINDOW`), with a title and a size. The application is the owning
//!   process's image name (`notepad.exe`), as `window_at.rs` names it.
//! - Focused: `GetForegroundWindow` (or the window that owns it).
//! - Focus: `SetForegroundWindow`, which Windows refuses to a process that did not receive the
//!   last input (the foreground lock). franz lifts the lock the usual ways: it sends one
//!   zero-length mouse move (`SendInput`: now this process had the last input; the ALT-key
//!   version of that trick opens the menu bar of the window it activates), attaches its input
//!   to the foreground and the target threads (`AttachThreadInput`), and allows any process to
//!   take the foreground (`AllowSetForegroundWindow(ASFW_ANY)`). Then it checks
//!   `GetForegroundWindow`: a refusal is an error, not a silent no-op.

use crate::{DesktopError, PixelRect, WindowInfo};
use std::time::{Duration, Instant};
use windows_sys::Win32::Foundation::{HWND, LPARAM, RECT};
use windows_sys::Win32::System::Threading::{AttachThreadInput, GetCurrentThreadId};
use windows_sys::Win32::UI::Input::KeyboardAndMouse::{
    INPUT, INPUT_0, INPUT_MOUSE, MOUSEEVENTF_MOVE, MOUSEINPUT, SendInput, SetFocus,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    ASFW_ANY, AllowSetForegroundWindow, BringWindowToTop, EnumWindows, GA_ROOTOWNER, GWL_EXSTYLE,
    GetAncestor, GetForegroundWindow, GetWindowLongW, GetWindowRect, GetWindowTextW,
    GetWindowThreadProcessId, IsIconic, IsWindow, IsWindowVisible, SW_RESTORE, SetForegroundWindow,
    ShowWindow, WS_EX_TOOLWINDOW,
};
use windows_sys::core::BOOL;

unsafe extern "system" fn push(hwnd: HWND, list: LPARAM) -> BOOL {
    // SAFETY: `list` is the `&mut Vec<HWND>` `all_top_levels` passes.
    unsafe { (*(list as *mut Vec<HWND>)).push(hwnd) };
    1
}

/// Every top-level window, top of the Z order first.
fn all_top_levels() -> Vec<HWND> {
    let mut list: Vec<HWND> = Vec::new();
    // SAFETY: `push` only appends to `list`, which outlives the call.
    unsafe { EnumWindows(Some(push), &raw mut list as LPARAM) };
    list
}

/// A window's title (`GetWindowTextW`).
pub(crate) fn title(hwnd: HWND) -> String {
    let mut buf = [0u16; 512];
    // SAFETY: `buf` holds `buf.len()` units; a dead window gives 0.
    let n = unsafe { GetWindowTextW(hwnd, buf.as_mut_ptr(), buf.len() as i32) };
    String::from_utf16_lossy(&buf[..n.clamp(0, buf.len() as i32) as usize])
}

/// A window's rect on the screen (`GetWindowRect`), `None` for a dead window or an empty one.
pub(crate) fn rect(hwnd: HWND) -> Option<PixelRect> {
    let mut r = RECT {
        left: 0,
        top: 0,
        right: 0,
        bottom: 0,
    };
    // SAFETY: `r` is a valid out pointer.
    if unsafe { GetWindowRect(hwnd, &mut r) } == 0 {
        return None;
    }
    let (w, h) = (r.right - r.left, r.bottom - r.top);
    (w > 0 && h > 0).then(|| PixelRect::new(r.left, r.top, w as u32, h as u32))
}

/// Whether DWM hides the window although it is "visible" (Windows 8+; never under Wine).
fn cloaked(hwnd: HWND) -> bool {
    use windows::Win32::Graphics::Dwm::{DWMWA_CLOAKED, DwmGetWindowAttribute};
    let mut value = 0u32;
    // SAFETY: `value` is a valid out buffer of the size given.
    let got = unsafe {
        DwmGetWindowAttribute(
            windows::Win32::Foundation::HWND(hwnd),
            DWMWA_CLOAKED,
            (&raw mut value).cast(),
            size_of::<u32>() as u32,
        )
    };
    got.is_ok() && value != 0
}

/// The top-level windows a person can see and pick, top of the Z order first: visible, not
/// cloaked, not tool windows, titled, bigger than one pixel.
pub(crate) fn top_levels() -> Vec<HWND> {
    all_top_levels()
        .into_iter()
        .filter(|&h| {
            // SAFETY: plain queries; a window that went away answers 0.
            let (visible, ex) =
                unsafe { (IsWindowVisible(h) != 0, GetWindowLongW(h, GWL_EXSTYLE)) };
            visible
                && ex as u32 & WS_EX_TOOLWINDOW == 0
                && !cloaked(h)
                && rect(h).is_some_and(|r| r.width > 1 && r.height > 1)
                && !title(h).is_empty()
        })
        .collect()
}

/// The process image name (`notepad.exe`) of the window's owner, empty when it cannot be read.
fn application(hwnd: HWND) -> String {
    let mut pid = 0u32;
    // SAFETY: `pid` is a valid out pointer.
    unsafe { GetWindowThreadProcessId(hwnd, &mut pid) };
    let image = super::window_at::process_image(pid).unwrap_or_default();
    image.rsplit(['\\', '/']).next().unwrap_or("").to_string()
}

/// The foreground window (the one with the keyboard focus; null when there is none).
fn foreground() -> HWND {
    // SAFETY: plain query.
    unsafe { GetForegroundWindow() }
}

/// The top-level windows, bottom of the stack first (the [`crate::Desktop::windows`] order).
pub fn list() -> Vec<WindowInfo> {
    let fg = foreground();
    let mut out: Vec<WindowInfo> = top_levels()
        .into_iter()
        .filter_map(|h| {
            Some(WindowInfo {
                id: h as usize as u64,
                title: title(h),
                application: application(h),
                bounds: rect(h)?,
                focused: h == fg,
            })
        })
        .collect();
    out.reverse();
    out
}

/// One zero-length relative mouse move: this process then had the last input event, one of
/// the conditions under which Windows lets it set the foreground window.
fn last_input_is_ours() {
    let input = INPUT {
        r#type: INPUT_MOUSE,
        Anonymous: INPUT_0 {
            mi: MOUSEINPUT {
                dx: 0,
                dy: 0,
                mouseData: 0,
                dwFlags: MOUSEEVENTF_MOVE,
                time: 0,
                dwExtraInfo: 0,
            },
        },
    };
    // SAFETY: one valid INPUT of the size given.
    unsafe { SendInput(1, &input, size_of::<INPUT>() as i32) };
}

/// Brings window `id` to the front with the keyboard focus; an error when Windows refuses.
pub fn focus(id: u64) -> Result<(), DesktopError> {
    let hwnd = id as usize as HWND;
    // SAFETY: plain query on any value.
    if id == 0 || unsafe { IsWindow(hwnd) } == 0 {
        return Err(DesktopError::Input(format!(
            "{id:#x} is not a window (it may have closed): list the windows again"
        )));
    }
    // SAFETY: plain calls on a window handle; attached threads are detached before returning.
    unsafe {
        if IsIconic(hwnd) != 0 {
            ShowWindow(hwnd, SW_RESTORE);
        }
        let me = GetCurrentThreadId();
        let fg_thread = GetWindowThreadProcessId(GetForegroundWindow(), std::ptr::null_mut());
        let target_thread = GetWindowThreadProcessId(hwnd, std::ptr::null_mut());
        let attached: Vec<u32> = [fg_thread, target_thread]
            .into_iter()
            .filter(|&t| t != 0 && t != me)
            .filter(|&t| AttachThreadInput(me, t, 1) != 0)
            .collect();
        AllowSetForegroundWindow(ASFW_ANY);
        last_input_is_ours();
        SetForegroundWindow(hwnd);
        BringWindowToTop(hwnd);
        if !attached.is_empty() {
            SetFocus(hwnd);
        }
        for t in attached {
            AttachThreadInput(me, t, 0);
        }
    }
    // The switch can complete asynchronously (under Wine, through the X server).
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let fg = foreground();
        // SAFETY: plain query.
        if fg == hwnd || unsafe { GetAncestor(fg, GA_ROOTOWNER) } == hwnd {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(DesktopError::Input(format!(
                "Windows did not bring {:?} to the front (the foreground window is {:?}): the foreground lock held",
                title(hwnd),
                title(fg)
            )));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
