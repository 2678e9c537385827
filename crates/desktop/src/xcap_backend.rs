//! Windows and macOS: capture through xcap, input through enigo.
//!
//! TODO(windows issue).

use crate::{
    CursorImage, Desktop, DesktopError, DesktopOptions, EnigoInput, Frame, Input, Monitor,
    PixelPoint,
};

pub struct XcapDesktop {
    monitors: Vec<Monitor>,
    selected: usize,
    input: EnigoInput,
}

impl XcapDesktop {
    pub fn open(_options: &DesktopOptions) -> Result<Self, DesktopError> {
        Err(DesktopError::Unsupported(
            "xcap capture (not yet built)".into(),
        ))
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
        Err(DesktopError::Unsupported(
            "xcap capture (not yet built)".into(),
        ))
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        Ok(None)
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        Err(DesktopError::Unsupported("pointer (not yet built)".into()))
    }
    fn input(&mut self) -> &mut dyn Input {
        &mut self.input
    }
    fn describe(&self) -> String {
        "xcap".into()
    }
}
