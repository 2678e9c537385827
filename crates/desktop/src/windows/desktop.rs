//! The Windows desktop: capture through xcap (GDI `BitBlt`), input through enigo (`SendInput`,
//! `input.rs`); the cursor and the pointer from Win32 directly (`cursor.rs`, `mouse.rs`). The
//! process is made per-monitor DPI aware before anything is measured (`dpi.rs`), so monitor
//! rects, captured pixels and input coordinates are all physical pixels.

use super::{EnigoInput, cursor, dpi, mouse, window_at, window_tools};
use crate::{
    CursorImage, Desktop, DesktopError, DesktopOptions, Frame, Input, Monitor, PixelPoint,
    PixelRect, PointedWindow, WindowInfo,
};

pub struct WindowsDesktop {
    monitors: Vec<Monitor>,
    screens: Vec<xcap::Monitor>,
    selected: usize,
    input: EnigoInput,
}

// SAFETY: a session moves its desktop onto the engine's thread, so the desktop must be Send.
// What keeps `WindowsDesktop` from being Send is the raw `HMONITOR` inside `xcap::Monitor`: a
// monitor handle is an opaque identifier of a display monitor, valid in every thread of the
// process (it is not a GDI object owned by a thread, and `GetMonitorInfoW` accepts it from any
// thread). The desktop is used by one thread at a time (it is moved, never shared).
unsafe impl Send for WindowsDesktop {}

fn xcap_err(e: xcap::XCapError) -> DesktopError {
    DesktopError::Capture(e.to_string())
}

impl WindowsDesktop {
    pub fn open(options: &DesktopOptions) -> Result<Self, DesktopError> {
        if !dpi::set_dpi_awareness() {
            tracing::warn!("not per-monitor DPI aware: coordinates may be scaled");
        }
        let screens = xcap::Monitor::all().map_err(xcap_err)?;
        let mut monitors = Vec::with_capacity(screens.len());
        for (index, s) in screens.iter().enumerate() {
            monitors.push(Monitor {
                index,
                name: s.name().unwrap_or_else(|_| format!("monitor {index}")),
                rect: PixelRect::new(
                    s.x().map_err(xcap_err)?,
                    s.y().map_err(xcap_err)?,
                    s.width().map_err(xcap_err)?,
                    s.height().map_err(xcap_err)?,
                ),
                primary: s.is_primary().unwrap_or(false),
            });
        }
        if monitors.is_empty() {
            return Err(DesktopError::Capture("no monitor found".into()));
        }
        let selected = crate::select_monitor(&monitors, options.monitor)?;
        Ok(Self {
            monitors,
            screens,
            selected,
            input: EnigoInput::new()?,
        })
    }
}

impl Desktop for WindowsDesktop {
    fn monitor(&self) -> &Monitor {
        &self.monitors[self.selected]
    }
    fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }
    fn capture(&mut self) -> Result<Frame, DesktopError> {
        let image = self.screens[self.selected]
            .capture_image()
            .map_err(xcap_err)?;
        let (width, height) = image.dimensions();
        Ok(Frame::from_rgba(width, height, image.into_raw()))
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        cursor::cursor()
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        mouse::pointer()
    }
    fn input(&mut self) -> &mut dyn Input {
        &mut self.input
    }
    fn describe(&self) -> String {
        "windows (xcap GDI capture, enigo SendInput)".into()
    }
    fn window_at(&mut self, p: PixelPoint) -> Result<Option<PointedWindow>, DesktopError> {
        window_at::window_at(p)
    }
    fn windows(&mut self) -> Result<Vec<WindowInfo>, DesktopError> {
        Ok(window_tools::list())
    }
    fn focus_window(&mut self, id: u64) -> Result<(), DesktopError> {
        window_tools::focus(id)
    }
}
