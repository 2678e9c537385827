//! The X11 desktop's input: enigo on the desktop's own display, created on first use.
//!
//! enigo's X11 backend (the default `x11rb` feature) takes the display by name:
//! `enigo::Settings::x11_display` goes to `x11rb::connect(Some(name))`, which reads no
//! environment variable for it (`DISPLAY` is only its fallback when no name is given). So
//! each desktop's input opens its own connection to the display it captures
//! ([`EnigoInput::with_display`], which also gives the keyboard binder that name), nothing
//! reads or sets `DISPLAY` here, and several desktops on several displays work in one
//! process at once (`crates/core/tests/two_sessions.rs`).
//!
//! enigo is created on the first input call, not at open, so capture-only users (tests,
//! `franz screenshot`) open no input connection at all.

use super::input::EnigoInput;
use crate::{Button, DesktopError, Input, Key, PixelPoint, Press, ScrollDirection};

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
            self.inner = Some(EnigoInput::with_display(Some(&self.display))?);
        }
        self.inner
            .as_mut()
            .ok_or_else(|| DesktopError::Input("enigo is not available".into()))
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
