//! macOS: the desktop through xcap (capture) and enigo (input). No window tools, elements or
//! press witness yet: those answer "not supported" (`unsupported/`).

mod desktop;
mod input;

use crate::{Desktop, DesktopError, DesktopOptions};

pub use crate::unsupported::{PressWitness, open_elements};
pub use input::EnigoInput;

pub(crate) fn open(options: &DesktopOptions) -> Result<Box<dyn Desktop + Send>, DesktopError> {
    Ok(Box::new(desktop::MacDesktop::open(options)?))
}

/// Nothing to prepare on macOS.
pub(crate) fn prepare_process() {}
