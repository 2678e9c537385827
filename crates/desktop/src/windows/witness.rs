//! The press witness on Windows ([`crate::witness::PressWitness`], `franz calibrate`): a
//! top-most Win32 popup over a screen rect, on its own thread, that logs where every left button
//! press arrived, in screen (physical) pixels, and tells the DPI of the monitor it is on. The
//! X11 witness is `x11/witness.rs`; the tests' independent witness is `examples/win_probe`.
//!
//! One witness at a time per process: the log is a static the window procedure writes.

use crate::{DesktopError, PixelPoint, PixelRect};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use windows_sys::Win32::Foundation::{HWND, LPARAM, LRESULT, POINT, WPARAM};
use windows_sys::Win32::Graphics::Gdi::{COLOR_WINDOW, ClientToScreen, HBRUSH, UpdateWindow};
use windows_sys::Win32::System::LibraryLoader::GetModuleHandleW;
use windows_sys::Win32::UI::HiDpi::GetDpiForWindow;
use windows_sys::Win32::UI::WindowsAndMessaging::{
    CreateWindowExW, DefWindowProcW, DispatchMessageW, GetMessageW, IDC_ARROW, LoadCursorW,
    PostMessageW, PostQuitMessage, RegisterClassW, SetForegroundWindow, TranslateMessage, WM_CLOSE,
    WM_DESTROY, WM_LBUTTONDOWN, WNDCLASSW, WS_EX_TOPMOST, WS_POPUP, WS_VISIBLE,
};

/// The left presses seen so far, and a signal for each new one.
static PRESSES: (Mutex<Vec<PixelPoint>>, Condvar) = (Mutex::new(Vec::new()), Condvar::new());

/// The window and its thread; both end on drop.
pub struct PressWitness {
    /// The window handle, as a number (an `HWND` may not cross threads).
    hwnd: isize,
    dpi: u32,
    thread: Option<JoinHandle<()>>,
}

fn wide(s: &str) -> Vec<u16> {
    s.encode_utf16().chain(Some(0)).collect()
}

unsafe extern "system" fn wndproc(hwnd: HWND, msg: u32, wparam: WPARAM, lparam: LPARAM) -> LRESULT {
    match msg {
        WM_LBUTTONDOWN => {
            let mut p = POINT {
                x: i32::from(lparam as u16 as i16),
                y: i32::from((lparam >> 16) as u16 as i16),
            };
            // SAFETY: `p` is a valid POINT; hwnd is the witness.
            unsafe { ClientToScreen(hwnd, &mut p) };
            let (log, signal) = &PRESSES;
            if let Ok(mut log) = log.lock() {
                log.push(PixelPoint::new(p.x, p.y));
            }
            signal.notify_all();
            0
        }
        WM_DESTROY => {
            // SAFETY: plain call.
            unsafe { PostQuitMessage(0) };
            0
        }
        // SAFETY: the default handler for everything else.
        _ => unsafe { DefWindowProcW(hwnd, msg, wparam, lparam) },
    }
}

/// Creates the window (on the calling thread, which then runs its message loop).
fn create(rect: PixelRect) -> Result<(isize, u32), DesktopError> {
    let class = wide("franz_witness");
    // SAFETY: a plain window class and window; every pointer outlives its call.
    unsafe {
        let instance = GetModuleHandleW(std::ptr::null());
        let wc = WNDCLASSW {
            style: 0,
            lpfnWndProc: Some(wndproc),
            cbClsExtra: 0,
            cbWndExtra: 0,
            hInstance: instance,
            hIcon: std::ptr::null_mut(),
            hCursor: LoadCursorW(std::ptr::null_mut(), IDC_ARROW),
            hbrBackground: (COLOR_WINDOW + 1) as usize as HBRUSH,
            lpszMenuName: std::ptr::null(),
            lpszClassName: class.as_ptr(),
        };
        // Fails harmlessly when a previous witness registered it.
        RegisterClassW(&wc);
        let hwnd = CreateWindowExW(
            WS_EX_TOPMOST,
            class.as_ptr(),
            class.as_ptr(),
            WS_POPUP | WS_VISIBLE,
            rect.x,
            rect.y,
            rect.width as i32,
            rect.height as i32,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            instance,
            std::ptr::null(),
        );
        if hwnd.is_null() {
            return Err(DesktopError::Unsupported(
                "the witness window (CreateWindowExW failed)".into(),
            ));
        }
        SetForegroundWindow(hwnd);
        UpdateWindow(hwnd);
        Ok((hwnd as isize, GetDpiForWindow(hwnd)))
    }
}

impl PressWitness {
    /// Opens a witness window over `rect` (screen pixels), shown and in front. `display` (an
    /// X display) means nothing here.
    pub fn open(display: Option<&str>, rect: PixelRect) -> Result<PressWitness, DesktopError> {
        let _ = display;
        if let Ok(mut log) = PRESSES.0.lock() {
            log.clear();
        }
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let made = create(rect);
            let ok = made.is_ok();
            let _ = tx.send(made);
            if ok {
                // SAFETY: the message loop of this thread's window, until WM_QUIT.
                unsafe {
                    let mut msg = std::mem::zeroed();
                    while GetMessageW(&mut msg, std::ptr::null_mut(), 0, 0) > 0 {
                        TranslateMessage(&msg);
                        DispatchMessageW(&msg);
                    }
                }
            }
        });
        let made = rx.recv_timeout(Duration::from_secs(10)).map_err(|_| {
            DesktopError::Unsupported("the witness window (it did not open in 10 s)".into())
        })?;
        let (hwnd, dpi) = made?;
        Ok(PressWitness {
            hwnd,
            dpi,
            thread: Some(thread),
        })
    }

    /// The DPI of the monitor the window is on (96 at 100%).
    pub fn dpi(&self) -> Option<u32> {
        Some(self.dpi)
    }

    /// Waits until `n` left presses arrived or `timeout` passed; the presses seen.
    pub fn wait_presses(&self, n: usize, timeout: Duration) -> Vec<PixelPoint> {
        let deadline = Instant::now() + timeout;
        let (log, signal) = &PRESSES;
        let Ok(mut seen) = log.lock() else {
            return Vec::new();
        };
        while seen.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match signal.wait_timeout(seen, left) {
                Ok((s, _)) => seen = s,
                Err(_) => return Vec::new(),
            }
        }
        seen.clone()
    }
}

impl Drop for PressWitness {
    fn drop(&mut self) {
        // SAFETY: posting to our own window; WM_CLOSE destroys it and ends its loop.
        unsafe { PostMessageW(self.hwnd as HWND, WM_CLOSE, 0, 0) };
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
