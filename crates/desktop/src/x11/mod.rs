//! The X11 backend: capture through x11rb (MIT-SHM, else GetImage), monitors through RandR,
//! the cursor through XFixes; input through enigo.
//!
//! TODO(foundation issue): capture, monitors, cursor.

use crate::{
    CursorImage, Desktop, DesktopError, DesktopOptions, EnigoInput, Frame, Input, Monitor,
    PixelPoint,
};

pub struct X11Desktop {
    monitors: Vec<Monitor>,
    selected: usize,
    input: EnigoInput,
}

impl X11Desktop {
    pub fn open(_options: &DesktopOptions) -> Result<Self, DesktopError> {
        Err(DesktopError::Unsupported(
            "X11 capture (not yet built)".into(),
        ))
    }
}

impl Desktop for X11Desktop {
    fn monitor(&self) -> &Monitor {
        &self.monitors[self.selected]
    }
    fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }
    fn capture(&mut self) -> Result<Frame, DesktopError> {
        Err(DesktopError::Unsupported(
            "X11 capture (not yet built)".into(),
        ))
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        Ok(None)
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        Err(DesktopError::Unsupported(
            "X11 pointer (not yet built)".into(),
        ))
    }
    fn input(&mut self) -> &mut dyn Input {
        &mut self.input
    }
    fn describe(&self) -> String {
        "x11".into()
    }
}
