//! Input on X11 through enigo (XTest). The one thing enigo cannot do exactly is typing
//! characters that are not on the keyboard map: `keyboard.rs` binds them up front and the
//! keycodes are then tapped through enigo (`raw`). See that module for why.

use super::keyboard::KeyBinder;
use crate::enigo_keys::{self, direction, input_err};
use crate::{Button, DesktopError, Input, Key, NamedKey, PixelPoint, Press, ScrollDirection};
use enigo::{Direction, Keyboard, Mouse};

/// `Input` through enigo, with exact Unicode typing.
pub struct EnigoInput {
    enigo: enigo::Enigo,
    keyboard: KeyBinder,
}

impl EnigoInput {
    /// Input on `$DISPLAY`.
    pub fn new() -> Result<Self, DesktopError> {
        Self::with_display(None)
    }

    /// Input on a given X display (`:3`), which then reads no `$DISPLAY`.
    pub fn with_display(display: Option<&str>) -> Result<Self, DesktopError> {
        Ok(Self {
            enigo: enigo_keys::start(display)?,
            keyboard: KeyBinder::connect(display)?,
        })
    }

    /// Where the pointer is, as enigo sees it.
    pub fn location(&self) -> Result<PixelPoint, DesktopError> {
        let (x, y) = self.enigo.location().map_err(input_err)?;
        Ok(PixelPoint::new(x, y))
    }
}

/// The enigo key of a named key on X11.
fn named_key(k: NamedKey) -> Result<enigo::Key, DesktopError> {
    use enigo::Key as E;
    Ok(match k {
        NamedKey::Insert => E::Insert,
        // The context-menu key: keysym Menu.
        NamedKey::Menu => E::LMenu,
        NamedKey::PrintScreen => E::PrintScr,
        NamedKey::F(21) => E::F21,
        NamedKey::F(22) => E::F22,
        NamedKey::F(23) => E::F23,
        NamedKey::F(24) => E::F24,
        other => enigo_keys::common_key(other)?,
    })
}

impl Input for EnigoInput {
    fn move_to(&mut self, p: PixelPoint) -> Result<(), DesktopError> {
        self.enigo
            .move_mouse(p.x, p.y, enigo::Coordinate::Abs)
            .map_err(input_err)
    }

    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError> {
        self.enigo
            .button(enigo_keys::button(button), direction(press))
            .map_err(input_err)
    }

    fn scroll(&mut self, direction: ScrollDirection, notches: u32) -> Result<(), DesktopError> {
        let (len, axis) = enigo_keys::wheel(direction, notches);
        self.enigo.scroll(len, axis).map_err(input_err)
    }

    fn key(&mut self, key: Key, press: Press) -> Result<(), DesktopError> {
        match key {
            Key::Named(k) => self
                .enigo
                .key(named_key(k)?, direction(press))
                .map_err(input_err),
            Key::Char(c) => {
                let stroke = self.keyboard.stroke_for_key(c)?;
                self.enigo
                    .raw(u16::from(stroke.keycode), direction(press))
                    .map_err(input_err)
            }
        }
    }

    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        let enigo = &mut self.enigo;
        self.keyboard.type_text(text, |stroke| {
            if stroke.shift {
                enigo
                    .key(enigo::Key::Shift, Direction::Press)
                    .map_err(input_err)?;
            }
            let tapped = enigo
                .raw(u16::from(stroke.keycode), Direction::Click)
                .map_err(input_err);
            if stroke.shift {
                enigo
                    .key(enigo::Key::Shift, Direction::Release)
                    .map_err(input_err)?;
            }
            tapped
        })
    }

    fn sync(&mut self) -> Result<(), DesktopError> {
        // enigo itself waits for a reply after each X11 call; this round trip covers our own
        // connection (keyboard bindings) and makes the guarantee explicit.
        self.keyboard.sync()
    }
}
