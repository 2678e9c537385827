//! The macOS desktop: capture through xcap, input through enigo (`input.rs`); the pointer as
//! enigo sees it, no cursor image.

use super::EnigoInput;
use crate::{
    CursorImage, Desktop, DesktopError, DesktopOptions, Frame, Input, Monitor, PixelPoint,
    PixelRect,
};

pub struct MacDesktop {
    monitors: Vec<Monitor>,
    screens: Vec<xcap::Monitor>,
    selected: usize,
    input: EnigoInput,
}

fn xcap_err(e: xcap::XCapError) -> DesktopError {
    DesktopError::Capture(e.to_string())
}

impl MacDesktop {
    pub fn open(options: &DesktopOptions) -> Result<Self, DesktopError> {
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

impl Desktop for MacDesktop {
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
        Ok(None)
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        self.input.location()
    }
    fn input(&mut self) -> &mut dyn Input {
        &mut self.input
    }
    fn describe(&self) -> String {
        "xcap".into()
    }
}
