//! A small EWMH window manager for the sandbox (`--wm`), so that focus and stacking behave as on
//! a desktop: the first of [`WINDOW_MANAGERS`] found on `PATH`, started before the programs.
//!
//! Ready means the manager has announced itself through `_NET_SUPPORTING_WM_CHECK` on the root
//! (`x11/wm.rs`; elsewhere [`start`] and [`running`] answer
//! [`crate::DesktopError::NeedsX11`]). `scripts/deps.sh` installs openbox.

pub use crate::platform::{wm_running as running, wm_start as start};

/// The window managers tried, in order: all set `_NET_SUPPORTING_WM_CHECK`.
pub const WINDOW_MANAGERS: &[&str] = &["openbox", "fluxbox", "xfwm4", "metacity", "icewm"];

/// The first installed window manager, if any.
pub fn find() -> Option<&'static str> {
    let path = std::env::var_os("PATH")?;
    WINDOW_MANAGERS
        .iter()
        .copied()
        .find(|wm| std::env::split_paths(&path).any(|d| d.join(wm).is_file()))
}
