//! Windows (Win32): the desktop (xcap capture, enigo input), the cursor, per-monitor DPI
//! awareness, the window tools, the window under a point, the elements (UI Automation, the Win32
//! controls where it gives nothing), the press witness and Ctrl+C. The few Win32 calls franz
//! makes itself are here; everything else goes through xcap and enigo.

mod cursor;
mod desktop;
mod dpi;
mod hwnd;
mod input;
mod mouse;
mod stop_signals;
mod uia;
mod window_at;
mod window_tools;
mod witness;

use crate::elements::Elements;
use crate::{Desktop, DesktopError, DesktopOptions};

pub use input::EnigoInput;
pub use stop_signals::listen_for_stop;

/// Windows has no superuser in the Unix sense that Chromium's sandbox refuses.
pub fn running_as_root() -> bool {
    false
}
pub use witness::PressWitness;

pub(crate) fn open(options: &DesktopOptions) -> Result<Box<dyn Desktop + Send>, DesktopError> {
    Ok(Box::new(desktop::WindowsDesktop::open(options)?))
}

pub(crate) fn open_elements() -> Result<Box<dyn Elements + Send>, DesktopError> {
    Ok(Box::new(uia::Uia::open()?))
}

/// Physical pixels everywhere: per-monitor DPI awareness before any window, monitor or
/// coordinate is looked at.
pub(crate) fn prepare_process() {
    // Whether it worked is said when the desktop opens (`desktop.rs`), with logging set up.
    dpi::set_dpi_awareness();
}
