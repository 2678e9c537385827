//! The OS boundary of franz: everything that touches a real screen, mouse or keyboard.
//!
//! One public API, one folder per OS, picked in `platform.rs` (the only file besides the `mod`
//! lines below that names an OS), as enigo and xcap do:
//! - `x11/`: Linux/X11. Capture through x11rb + MIT-SHM (plain GetImage where SHM is missing),
//!   monitors through RandR, the cursor through XFixes; input through enigo (XTest) with exact
//!   Unicode typing; the window tools; elements through AT-SPI2; and the X11 tools that work on
//!   a display by name: the Xvfb [`sandbox`], the [`witness`] window, [`wm`], [`held`] and
//!   [`top_windows`].
//! - `windows/`: Win32. Capture through xcap (GDI); input through enigo (`SendInput`) with
//!   presses that carry their point; the cursor, DPI awareness, the window tools, elements
//!   through UI Automation (Win32 controls where it gives nothing) and the press witness.
//! - `macos/`: capture through xcap, input through enigo; no window tools or elements yet.
//! - `unix/`: what every Unix shares: the stop signals.
//! - `unsupported/`: what a system lacks, with the same API: every call is an error that says
//!   what is missing (the X11 tools off Linux; everything on a system with no backend).
//!
//! The top level is OS-free: the traits, pixel types, frames, errors, the fake desktop, enigo's
//! names for keys, and the public face of each OS part. Everything here speaks screen pixels;
//! normalized 0..1000 coordinates live in `franz-core`. The sandbox and the witness are library
//! code because `franz demo`, `franz doctor` and `franz calibrate` use them, and tests use the
//! same code.

// Library code never unwraps what a user or a model can influence; tests may.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod elements;
mod enigo_keys;
mod error;
pub mod fake;
mod frame;
pub mod held;
mod platform;
pub mod sandbox;
mod top_windows;
mod types;
mod window;
pub mod witness;
pub mod wm;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(unix)]
mod unix;
#[cfg(not(target_os = "linux"))]
mod unsupported;
#[cfg(windows)]
mod windows;
#[cfg(target_os = "linux")]
pub mod x11;

pub use error::DesktopError;
pub use frame::{CursorImage, Frame, FrameView};
pub use platform::{
    EnigoInput, HAS_X11, StopSignal, env_display, listen_for_stop, needs_x11, open,
    prepare_process, running_as_root, wayland_session,
};
pub use top_windows::{TopWindow, top_windows};
pub use types::{
    Button, Key, NamedKey, PixelPoint, PixelRect, PointedWindow, Press, ScrollDirection,
};
pub use window::{WindowInfo, matching as matching_windows};

/// What a backend needs to open a desktop.
#[derive(Debug, Clone, Default)]
pub struct DesktopOptions {
    /// The X display (`:99`); `None` means `$DISPLAY`. Ignored off Linux.
    pub display: Option<String>,
    /// Which monitor to use; `None` means the primary one.
    pub monitor: Option<usize>,
}

/// A monitor as the OS reports it, in root (virtual screen) pixels.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Monitor {
    pub index: usize,
    pub name: String,
    pub rect: PixelRect,
    pub primary: bool,
}

/// The index of the monitor to use: `requested`, else the primary, else the first.
pub(crate) fn select_monitor(
    monitors: &[Monitor],
    requested: Option<usize>,
) -> Result<usize, DesktopError> {
    match requested {
        Some(i) if i < monitors.len() => Ok(i),
        Some(i) => Err(DesktopError::NoSuchMonitor {
            requested: i,
            count: monitors.len(),
        }),
        None => Ok(monitors.iter().position(|m| m.primary).unwrap_or(0)),
    }
}

/// Capture and input for one monitor of one desktop.
///
/// Every point is in root pixels: the monitor's rect says where the monitor sits.
pub trait Desktop {
    /// The monitor this desktop captures and acts on.
    fn monitor(&self) -> &Monitor;
    /// Every monitor of the display.
    fn monitors(&self) -> &[Monitor];
    /// Captures the whole monitor, without the cursor.
    fn capture(&mut self) -> Result<Frame, DesktopError>;
    /// Captures the whole monitor and lends the pixels to `with` where the backend has them,
    /// with no copy (the observation pipeline reads the X server's shared memory directly).
    /// The default captures a [`Frame`] and lends that.
    fn capture_view(&mut self, with: &mut dyn FnMut(FrameView<'_>)) -> Result<(), DesktopError> {
        let frame = self.capture()?;
        with(frame.view());
        Ok(())
    }
    /// The cursor's image and hotspot position, if the platform can tell.
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError>;
    /// Where the pointer is now.
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError>;
    /// Mouse and keyboard.
    fn input(&mut self) -> &mut dyn Input;
    /// A short name of the backend and how it captures, for logs and `franz doctor`.
    fn describe(&self) -> String;
    /// The application window under root pixel `p` (the safety policy's
    /// `allow_only_windows`); `None` over the bare desktop.
    fn window_at(&mut self, p: PixelPoint) -> Result<Option<PointedWindow>, DesktopError> {
        let _ = p;
        Err(DesktopError::Unsupported(
            "finding the window under a point on this backend".into(),
        ))
    }
    /// The top-level windows, bottom of the stack first (`list_windows`).
    fn windows(&mut self) -> Result<Vec<WindowInfo>, DesktopError> {
        Err(DesktopError::Unsupported(format!(
            "listing windows on {}",
            self.describe()
        )))
    }
    /// Brings window `id` (a [`WindowInfo::id`]) to the front with the focus (`focus_window`).
    fn focus_window(&mut self, id: u64) -> Result<(), DesktopError> {
        let _ = id;
        Err(DesktopError::Unsupported(format!(
            "focusing windows on {}",
            self.describe()
        )))
    }
}

/// Mouse and keyboard injection. The same code (enigo) on every OS.
pub trait Input {
    fn move_to(&mut self, p: PixelPoint) -> Result<(), DesktopError>;
    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError>;
    fn scroll(&mut self, direction: ScrollDirection, notches: u32) -> Result<(), DesktopError>;
    fn key(&mut self, key: Key, press: Press) -> Result<(), DesktopError>;
    /// Types text exactly, any Unicode.
    fn text(&mut self, text: &str) -> Result<(), DesktopError>;
    /// Returns once the OS has taken every event sent so far.
    fn sync(&mut self) -> Result<(), DesktopError>;
}
