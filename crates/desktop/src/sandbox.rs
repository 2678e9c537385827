//! The sandbox: a private Xvfb desktop on a free display number, with programs launched on it,
//! that is always stopped; and [`Programs`] launched on any X display, stopped on drop. X11
//! only (`x11/sandbox.rs`): elsewhere [`Sandbox::start`] and [`Programs::launch`] answer
//! [`crate::DesktopError::NeedsX11`].

pub use crate::platform::{Programs, Sandbox, viewable_windows};

/// What to start.
#[derive(Debug, Clone)]
pub struct SandboxOptions {
    pub width: u32,
    pub height: u32,
    /// Shell commands to start on the display, in order.
    pub launch: Vec<String>,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self {
            width: 1920,
            height: 1080,
            launch: Vec::new(),
        }
    }
}
