//! The top-level windows of an X display with their class, title and place on the screen, for
//! callers that find a window by name (`franz bench tasks` resolves golden-trajectory locators
//! and checks window titles with it). X11 only (`x11/top_windows.rs`): elsewhere
//! [`top_windows`] answers [`crate::DesktopError::NeedsX11`]. The window tools' list is
//! [`crate::WindowInfo`].

pub use crate::platform::top_windows;

/// One viewable top-level window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopWindow {
    pub id: u32,
    /// `WM_CLASS`: the instance name and the class name (e.g. `xterm`, `XTerm`).
    pub instance: String,
    pub class: String,
    /// `_NET_WM_NAME`, else `WM_NAME`.
    pub title: String,
    /// The window's top-left corner on the screen, and its size, in pixels.
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

impl TopWindow {
    /// Whether `class` names this window's class or instance (case-insensitive, whole word)
    /// and `title` is part of its title (case-insensitive); `None` matches anything.
    pub fn matches(&self, class: Option<&str>, title: Option<&str>) -> bool {
        let class_ok = class.is_none_or(|c| {
            c.eq_ignore_ascii_case(&self.class) || c.eq_ignore_ascii_case(&self.instance)
        });
        let title_ok = title.is_none_or(|t| self.title.to_lowercase().contains(&t.to_lowercase()));
        class_ok && title_ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_class_or_instance_and_part_of_the_title() {
        let w = TopWindow {
            id: 1,
            instance: "xterm".into(),
            class: "XTerm".into(),
            title: "Hello World".into(),
            x: 0,
            y: 0,
            width: 10,
            height: 10,
        };
        assert!(w.matches(Some("xterm"), None));
        assert!(w.matches(Some("XTERM"), Some("world")));
        assert!(!w.matches(Some("Zenity"), None));
        assert!(!w.matches(None, Some("bye")));
        assert!(w.matches(None, None));
    }
}
