//! Input through enigo, the same code on every OS (XTest on X11, SendInput on Windows).
//!
//! TODO(acting issue): the human-mimetic executor lives in franz-core; this is the thin layer
//! that turns one `Input` call into enigo calls.

use crate::{Button, DesktopError, Input, Key, PixelPoint, Press, ScrollDirection};

/// `Input` through enigo.
pub struct EnigoInput {
    enigo: enigo::Enigo,
}

impl EnigoInput {
    pub fn new() -> Result<Self, DesktopError> {
        let enigo = enigo::Enigo::new(&enigo::Settings::default())
            .map_err(|e| DesktopError::Input(format!("cannot start enigo: {e}")))?;
        Ok(Self { enigo })
    }
}

fn input_err(e: enigo::InputError) -> DesktopError {
    DesktopError::Input(e.to_string())
}

impl Input for EnigoInput {
    fn move_to(&mut self, p: PixelPoint) -> Result<(), DesktopError> {
        use enigo::Mouse;
        self.enigo
            .move_mouse(p.x, p.y, enigo::Coordinate::Abs)
            .map_err(input_err)
    }
    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError> {
        use enigo::Mouse;
        let b = match button {
            Button::Left => enigo::Button::Left,
            Button::Right => enigo::Button::Right,
            Button::Middle => enigo::Button::Middle,
        };
        let d = match press {
            Press::Down => enigo::Direction::Press,
            Press::Up => enigo::Direction::Release,
            Press::Click => enigo::Direction::Click,
        };
        self.enigo.button(b, d).map_err(input_err)
    }
    fn scroll(&mut self, direction: ScrollDirection, notches: u32) -> Result<(), DesktopError> {
        use enigo::Mouse;
        let n = notches as i32;
        let (len, axis) = match direction {
            ScrollDirection::Up => (-n, enigo::Axis::Vertical),
            ScrollDirection::Down => (n, enigo::Axis::Vertical),
            ScrollDirection::Left => (-n, enigo::Axis::Horizontal),
            ScrollDirection::Right => (n, enigo::Axis::Horizontal),
        };
        self.enigo.scroll(len, axis).map_err(input_err)
    }
    fn key(&mut self, _key: Key, _press: Press) -> Result<(), DesktopError> {
        Err(DesktopError::Unsupported("keys (not yet built)".into()))
    }
    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        use enigo::Keyboard;
        self.enigo.text(text).map_err(input_err)
    }
    fn sync(&mut self) -> Result<(), DesktopError> {
        Ok(())
    }
}
