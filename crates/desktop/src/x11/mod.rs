//! Linux/X11: the desktop (capture through x11rb + MIT-SHM, else GetImage; monitors through
//! RandR; the cursor through XFixes), input through enigo (XTest) with exact Unicode typing, the
//! window tools and the window under a point, the elements through AT-SPI2, and the X11 tools
//! that work on a display by name: the Xvfb sandbox, the witness window, the sandbox's window
//! manager, the held-input and top-window queries.
//!
//! The tests reach [`X11Desktop`] directly to pick a display and a capture method.

mod atspi;
mod connection;
mod cursor;
mod deferred_input;
mod desktop;
mod getimage;
mod held;
mod input;
mod keyboard;
mod monitors;
mod sandbox;
mod shm;
mod top_windows;
mod window_at;
mod window_tools;
mod witness;
mod wm;

pub use connection::resolve_display;
pub use desktop::{CaptureMethod, X11Desktop};

/// The desktop backend's entry points ([`crate::platform`] picks them).
pub(crate) mod backend {
    use super::{X11Desktop, atspi};
    use crate::elements::Elements;
    use crate::{Desktop, DesktopError, DesktopOptions};

    pub use super::input::EnigoInput;
    pub use super::witness::PressWitness;

    pub(crate) fn open(options: &DesktopOptions) -> Result<Box<dyn Desktop + Send>, DesktopError> {
        Ok(Box::new(X11Desktop::open(options)?))
    }

    pub(crate) fn open_elements() -> Result<Box<dyn Elements + Send>, DesktopError> {
        Ok(Box::new(atspi::Atspi::open()?))
    }

    /// Nothing to prepare on X11.
    pub(crate) fn prepare_process() {}
}

/// The X11 tools ([`crate::platform`] re-exports them).
pub(crate) mod tools {
    pub use super::held::held_state;
    pub use super::sandbox::{Programs, Sandbox, viewable_windows};
    pub use super::top_windows::top_windows;
    pub use super::witness::Witness;
    pub use super::wm::{running as wm_running, start as wm_start};
}
