//! What a system lacks, with the same API as where it exists: every call is an error that says
//! what is missing. The X11 tools everywhere but Linux (`x11_tools.rs`); the elements and the
//! press witness on macOS; the whole desktop on a system with no backend.

pub(crate) mod x11_tools;

#[cfg(not(windows))]
use crate::elements::Elements;
#[cfg(not(windows))]
use crate::{DesktopError, PixelPoint, PixelRect};
#[cfg(not(windows))]
use std::convert::Infallible;
#[cfg(not(windows))]
use std::time::Duration;

/// There is no source of accessibility elements here.
#[cfg(not(windows))]
pub(crate) fn open_elements() -> Result<Box<dyn Elements + Send>, DesktopError> {
    Err(DesktopError::Unsupported(
        "reading the accessibility tree on this system (not yet: Linux AT-SPI2 and Windows UI Automation only)".into(),
    ))
}

/// There is no press witness here: [`PressWitness::open`] says so.
#[cfg(not(windows))]
pub struct PressWitness {
    never: Infallible,
}

#[cfg(not(windows))]
impl PressWitness {
    pub fn open(display: Option<&str>, rect: PixelRect) -> Result<PressWitness, DesktopError> {
        let _ = (display, rect);
        Err(DesktopError::Unsupported(
            "a witness window on this system (X11 and Windows have one)".into(),
        ))
    }

    pub fn wait_presses(&self, n: usize, timeout: Duration) -> Vec<PixelPoint> {
        let _ = (n, timeout);
        match self.never {}
    }

    pub fn dpi(&self) -> Option<u32> {
        match self.never {}
    }
}

#[cfg(not(any(windows, target_os = "macos")))]
pub use no_backend::*;

/// A system with no desktop backend at all.
#[cfg(not(any(windows, target_os = "macos")))]
mod no_backend {
    use crate::{
        Button, Desktop, DesktopError, DesktopOptions, Input, Key, PixelPoint, Press,
        ScrollDirection,
    };
    use std::convert::Infallible;

    fn unsupported() -> DesktopError {
        DesktopError::Unsupported("this operating system".into())
    }

    pub(crate) fn open(options: &DesktopOptions) -> Result<Box<dyn Desktop + Send>, DesktopError> {
        let _ = options;
        Err(unsupported())
    }

    pub(crate) fn prepare_process() {}

    /// There is no input here: [`EnigoInput::new`] says so.
    pub struct EnigoInput {
        never: Infallible,
    }

    impl EnigoInput {
        pub fn new() -> Result<Self, DesktopError> {
            Err(unsupported())
        }
        pub fn with_display(display: Option<&str>) -> Result<Self, DesktopError> {
            let _ = display;
            Err(unsupported())
        }
        pub fn location(&self) -> Result<PixelPoint, DesktopError> {
            match self.never {}
        }
    }

    impl Input for EnigoInput {
        fn move_to(&mut self, _: PixelPoint) -> Result<(), DesktopError> {
            match self.never {}
        }
        fn button(&mut self, _: Button, _: Press) -> Result<(), DesktopError> {
            match self.never {}
        }
        fn scroll(&mut self, _: ScrollDirection, _: u32) -> Result<(), DesktopError> {
            match self.never {}
        }
        fn key(&mut self, _: Key, _: Press) -> Result<(), DesktopError> {
            match self.never {}
        }
        fn text(&mut self, _: &str) -> Result<(), DesktopError> {
            match self.never {}
        }
        fn sync(&mut self) -> Result<(), DesktopError> {
            match self.never {}
        }
    }

    /// No stop signals on a system that is neither Unix nor Windows.
    #[cfg(not(unix))]
    pub fn listen_for_stop(on_stop: fn(crate::platform::StopSignal)) -> Result<(), DesktopError> {
        let _ = on_stop;
        Err(DesktopError::Unsupported(
            "stop signals on this system".into(),
        ))
    }
}

/// No superuser is known here.
#[cfg(not(any(unix, windows)))]
pub fn running_as_root() -> bool {
    false
}
