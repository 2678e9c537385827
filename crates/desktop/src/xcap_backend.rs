//! Windows and macOS: capture through xcap (GDI `BitBlt` on Windows), input through enigo
//! (`SendInput` on Windows). On Windows the cursor and the pointer come from Win32 directly
//! (`win32`), and the process is made per-monitor DPI aware before anything is measured, so
//! monitor rects, captured pixels and input coordinates are all physical pixels.

use crate::{
    CursorImage, Desktop, DesktopError, DesktopOptions, EnigoInput, Frame, Input, Monitor,
    PixelPoint, PixelRect,
};

pub struct XcapDesktop {
    monitors: Vec<Monitor>,
    screens: Vec<xcap::Monitor>,
    selected: usize,
    input: EnigoInput,
}

// SAFETY: a session moves its desktop onto the engine's thread, so the desktop must be Send.
// What keeps `XcapDesktop` from being Send is the raw `HMONITOR` inside `xcap::Monitor`: a
// monitor handle is an opaque identifier of a display monitor, valid in every thread of the
// process (it is not a GDI object owned by a thread, and `GetMonitorInfoW` accepts it from any
// thread). The desktop is used by one thread at a time (it is moved, never shared).
#[cfg(windows)]
unsafe impl Send for XcapDesktop {}

fn xcap_err(e: xcap::XCapError) -> DesktopError {
    DesktopError::Capture(e.to_string())
}

impl XcapDesktop {
    pub fn open(options: &DesktopOptions) -> Result<Self, DesktopError> {
        #[cfg(windows)]
        if !crate::win32::set_dpi_awareness() {
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
        let selected = match options.monitor {
            Some(i) if i < monitors.len() => i,
            Some(requested) => {
                return Err(DesktopError::NoSuchMonitor {
                    requested,
                    count: monitors.len(),
                });
            }
            None => monitors.iter().position(|m| m.primary).unwrap_or(0),
        };
        Ok(Self {
            monitors,
            screens,
            selected,
            input: EnigoInput::new()?,
        })
    }
}

impl Desktop for XcapDesktop {
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
        // xcap hands out RGBA; frames are BGRA.
        let mut data = image.into_raw();
        for px in data.chunks_exact_mut(4) {
            px.swap(0, 2);
            px[3] = 255;
        }
        Ok(Frame {
            width,
            height,
            stride: width as usize * 4,
            data,
        })
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        #[cfg(windows)]
        {
            crate::win32::cursor()
        }
        #[cfg(not(windows))]
        {
            Ok(None)
        }
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        #[cfg(windows)]
        {
            crate::win32::pointer()
        }
        #[cfg(not(windows))]
        {
            self.input.location()
        }
    }
    fn input(&mut self) -> &mut dyn Input {
        &mut self.input
    }
    fn describe(&self) -> String {
        if cfg!(windows) {
            "windows (xcap GDI capture, enigo SendInput)".into()
        } else {
            "xcap".into()
        }
    }
    #[cfg(windows)]
    fn window_at(&mut self, p: PixelPoint) -> Result<Option<crate::PointedWindow>, DesktopError> {
        crate::win32::window_at(p)
    }
    #[cfg(windows)]
    fn windows(&mut self) -> Result<Vec<crate::WindowInfo>, DesktopError> {
        Ok(crate::win_windows::list())
    }
    #[cfg(windows)]
    fn focus_window(&mut self, id: u64) -> Result<(), DesktopError> {
        crate::win_windows::focus(id)
    }
}
