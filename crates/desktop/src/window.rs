//! Top-level windows as the window tools see them (`list_windows`, `focus_window`).
//!
//! The X11 implementation is `x11/window_tools.rs`, the Windows one `windows/window_tools.rs`; other
//! backends answer "not supported" through the [`crate::Desktop`] trait's defaults.

use crate::PixelRect;
use serde::{Deserialize, Serialize};

/// One top-level window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowInfo {
    /// The OS's id of the window (an X11 window id, a Win32 HWND).
    pub id: u64,
    pub title: String,
    /// The application: WM_CLASS's class on X11 (e.g. `XTerm`), the process name elsewhere.
    pub application: String,
    /// Where it is, in root (virtual screen) pixels.
    pub bounds: PixelRect,
    /// Whether it has the keyboard focus (is the active window).
    pub focused: bool,
}

/// The windows `pattern` names: those whose id is `pattern` (decimal or `0x` hex) or whose
/// title or application contains it, ignoring case. Exact title matches come first.
pub fn matching<'a>(windows: &'a [WindowInfo], pattern: &str) -> Vec<&'a WindowInfo> {
    let p = pattern.trim().to_lowercase();
    let id = p
        .strip_prefix("0x")
        .map(|h| u64::from_str_radix(h, 16).ok())
        .unwrap_or_else(|| p.parse::<u64>().ok());
    let mut found: Vec<&WindowInfo> = windows
        .iter()
        .filter(|w| {
            Some(w.id) == id
                || w.title.to_lowercase().contains(&p)
                || w.application.to_lowercase().contains(&p)
        })
        .collect();
    found.sort_by_key(|w| w.title.to_lowercase() != p);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(id: u64, title: &str, app: &str) -> WindowInfo {
        WindowInfo {
            id,
            title: title.into(),
            application: app.into(),
            bounds: PixelRect::new(0, 0, 10, 10),
            focused: false,
        }
    }

    #[test]
    fn matches_by_id_title_and_application() {
        let ws = [w(0x20, "notes - editor", "Gedit"), w(7, "notes", "XTerm")];
        let ids = |p: &str| matching(&ws, p).iter().map(|w| w.id).collect::<Vec<_>>();
        assert_eq!(ids("NOTES"), vec![7, 0x20], "the exact title first");
        assert_eq!(ids("0x20"), vec![0x20]);
        assert_eq!(ids("32"), vec![0x20]);
        assert_eq!(ids("xterm"), vec![7]);
        assert!(ids("calculator").is_empty());
    }
}
