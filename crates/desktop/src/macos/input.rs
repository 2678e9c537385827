//! Input on macOS through enigo. Characters go as Unicode; the keys macOS lacks (the menu key,
//! print screen, F21-F24) are "not supported".

use crate::enigo_keys::{self, direction, input_err};
use crate::{Button, DesktopError, Input, Key, NamedKey, PixelPoint, Press, ScrollDirection};
use enigo::{Keyboard, Mouse};

/// `Input` through enigo.
pub struct EnigoInput {
    enigo: enigo::Enigo,
}

impl EnigoInput {
    /// Input on the session's desktop.
    pub fn new() -> Result<Self, DesktopError> {
        Self::with_display(None)
    }

    /// The same as [`EnigoInput::new`]: an X display name means nothing here.
    pub fn with_display(display: Option<&str>) -> Result<Self, DesktopError> {
        Ok(Self {
            enigo: enigo_keys::start(display)?,
        })
    }

    /// Where the pointer is, as enigo sees it.
    pub fn location(&self) -> Result<PixelPoint, DesktopError> {
        let (x, y) = self.enigo.location().map_err(input_err)?;
        Ok(PixelPoint::new(x, y))
    }
}

/// The enigo key of a named key on macOS.
fn named_key(k: NamedKey) -> Result<enigo::Key, DesktopError> {
    Ok(match k {
        NamedKey::Insert => enigo::Key::Help,
        NamedKey::Menu => return Err(DesktopError::Unsupported("the menu key on macOS".into())),
        NamedKey::PrintScreen => {
            return Err(DesktopError::Unsupported("printscreen on macOS".into()));
        }
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
        let key = match key {
            Key::Named(k) => named_key(k)?,
            Key::Char(c) => enigo::Key::Unicode(c),
        };
        self.enigo.key(key, direction(press)).map_err(input_err)
    }

    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        self.enigo.text(text).map_err(input_err)
    }

    fn sync(&mut self) -> Result<(), DesktopError> {
        Ok(())
    }
}
