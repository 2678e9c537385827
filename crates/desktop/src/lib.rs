//! The OS boundary of franz: everything that touches a real screen, mouse or keyboard.
//!
//! One trait, [`Desktop`], with one backend per OS:
//! - Linux/X11 (`x11`): capture through x11rb + MIT-SHM (plain GetImage where SHM is missing),
//!   monitors through RandR, the cursor through XFixes; input through enigo (XTest).
//! - Windows and macOS (`xcap_backend`): capture through xcap; input through enigo.
//!
//! Everything here speaks screen pixels. Normalized 0..1000 coordinates live in `franz-core`.
//! The Xvfb [`sandbox`] and the X11 [`witness`] window are here too: they are library code
//! because `franz demo` and `franz doctor` use them, and tests use the same code.

// Library code never unwraps what a user or a model can influence; tests may.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod elements;
mod error;
pub mod fake;
mod frame;
mod input;
mod types;
mod window;

#[cfg(target_os = "linux")]
pub mod held;
#[cfg(target_os = "linux")]
pub mod sandbox;
#[cfg(windows)]
pub mod win32;
#[cfg(windows)]
mod win_windows;
#[cfg(windows)]
pub mod win_witness;
#[cfg(target_os = "linux")]
pub mod windows;
#[cfg(target_os = "linux")]
pub mod witness;
#[cfg(target_os = "linux")]
pub mod wm;
#[cfg(target_os = "linux")]
pub mod x11;
#[cfg(target_os = "linux")]
mod x11_keyboard;
#[cfg(any(windows, target_os = "macos"))]
mod xcap_backend;

pub use error::DesktopError;
pub use frame::{CursorImage, Frame, FrameView};
pub use input::EnigoInput;
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

/// Opens the desktop of this OS. It can move to another thread (a session's engine runs on its
/// own): each opens its own display connection.
pub fn open(options: &DesktopOptions) -> Result<Box<dyn Desktop + Send>, DesktopError> {
    #[cfg(target_os = "linux")]
    {
        Ok(Box::new(x11::X11Desktop::open(options)?))
    }
    #[cfg(any(windows, target_os = "macos"))]
    {
        Ok(Box::new(xcap_backend::XcapDesktop::open(options)?))
    }
    #[cfg(not(any(target_os = "linux", windows, target_os = "macos")))]
    {
        let _ = options;
        Err(DesktopError::Unsupported("this operating system".into()))
    }
}
