//! The X11 desktop's input: enigo, created on first use, and only for the right display.
//!
//! enigo connects to `$DISPLAY` (`EnigoInput::new` takes no display). `X11Desktop::open`
//! changes no environment variable (that would race other threads), so it cannot point enigo
//! at `DesktopOptions::display` itself. Instead:
//! - enigo is created on the first input call, not at open, so capture-only users (tests,
//!   `franz screenshot`) work without `$DISPLAY`;
//! - that first call checks that `$DISPLAY` names the display being captured, and refuses
//!   otherwise: input must never land on a different screen than the one the model sees.
//!
//! The CLI sets `DISPLAY` to the sandbox's display before opening, so both agree there.

use crate::{Button, DesktopError, EnigoInput, Input, Key, PixelPoint, Press, ScrollDirection};
use x11rb::reexports::x11rb_protocol::parse_display::parse_display;

pub(crate) struct DeferredInput {
    display: String,
    inner: Option<EnigoInput>,
}

impl DeferredInput {
    pub fn new(display: &str) -> Self {
        Self {
            display: display.to_string(),
            inner: None,
        }
    }

    fn get(&mut self) -> Result<&mut EnigoInput, DesktopError> {
        if self.inner.is_none() {
            let env = std::env::var("DISPLAY").unwrap_or_default();
            if !same_display(&env, &self.display) {
                return Err(DesktopError::Input(format!(
                    "input goes to $DISPLAY ({env:?}) but this desktop captures {}; \
                     set DISPLAY={} before opening it",
                    self.display, self.display
                )));
            }
            self.inner = Some(EnigoInput::new()?);
        }
        self.inner
            .as_mut()
            .ok_or_else(|| DesktopError::Input("enigo is not available".into()))
    }
}

/// Whether two display names reach the same X server (`:3` and `:3.0` do).
fn same_display(a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    match (parse_display(Some(a)), parse_display(Some(b))) {
        (Ok(a), Ok(b)) => a.host == b.host && a.protocol == b.protocol && a.display == b.display,
        _ => false,
    }
}

impl Input for DeferredInput {
    fn move_to(&mut self, p: PixelPoint) -> Result<(), DesktopError> {
        self.get()?.move_to(p)
    }
    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError> {
        self.get()?.button(button, press)
    }
    fn scroll(&mut self, direction: ScrollDirection, notches: u32) -> Result<(), DesktopError> {
        self.get()?.scroll(direction, notches)
    }
    fn key(&mut self, key: Key, press: Press) -> Result<(), DesktopError> {
        self.get()?.key(key, press)
    }
    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        self.get()?.text(text)
    }
    fn sync(&mut self) -> Result<(), DesktopError> {
        self.get()?.sync()
    }
}

#[cfg(test)]
mod tests {
    use super::same_display;

    #[test]
    fn display_names_compare_by_server() {
        assert!(same_display(":3", ":3.0"));
        assert!(same_display(":3", ":3"));
        assert!(!same_display(":3", ":4"));
        assert!(!same_display("", ":4"));
        assert!(!same_display("otherhost:3", ":3"));
    }
}
