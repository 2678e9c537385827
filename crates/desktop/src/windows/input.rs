//! Input on Windows through enigo (`SendInput`), with three Windows specifics: buttons and the
//! wheel carry their point (`mouse.rs`), a move waits until the pointer is there, and a
//! character is pressed with its own key on the current layout (`key_for_char`).

use super::mouse;
use crate::enigo_keys::{self, direction, input_err};
use crate::{Button, DesktopError, Input, Key, NamedKey, PixelPoint, Press, ScrollDirection};
use enigo::{Direction, Keyboard, Mouse};

/// `Input` through enigo.
pub struct EnigoInput {
    enigo: enigo::Enigo,
    /// Where the last `move_to` put the pointer; buttons are pressed there.
    at: Option<PixelPoint>,
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
            at: None,
        })
    }

    /// Where the pointer is, as enigo sees it.
    pub fn location(&self) -> Result<PixelPoint, DesktopError> {
        let (x, y) = self.enigo.location().map_err(input_err)?;
        Ok(PixelPoint::new(x, y))
    }

    /// A character's own key on the current layout ([`key_for_char`]), pressed with the
    /// modifiers the layout needs for it and released in reverse (`!` is shift+`1` on a US
    /// keyboard). enigo's `Key::Unicode` sends the layout's answer whole as the virtual key,
    /// shift state included (`0x131` for `!`), which is no key; a character on no key goes as
    /// Unicode (VK_PACKET), typed once.
    fn char_key(&mut self, c: char, press: Press) -> Result<(), DesktopError> {
        let Some((vk, state)) = key_for_char(c) else {
            // enigo types such a character whole (down and up) on every call, a release
            // included: once, on the press.
            if press == Press::Up {
                return Ok(());
            }
            return self
                .enigo
                .key(enigo::Key::Unicode(c), Direction::Click)
                .map_err(input_err);
        };
        let mods: Vec<enigo::Key> = [
            (1, enigo::Key::Shift),
            (2, enigo::Key::Control),
            (4, enigo::Key::Alt),
        ]
        .into_iter()
        .filter(|(bit, _)| state & bit != 0)
        .map(|(_, k)| k)
        .collect();
        let key = enigo::Key::Other(u32::from(vk));
        if press != Press::Up {
            for m in &mods {
                self.enigo.key(*m, Direction::Press).map_err(input_err)?;
            }
            self.enigo.key(key, Direction::Press).map_err(input_err)?;
        }
        if press != Press::Down {
            self.enigo.key(key, Direction::Release).map_err(input_err)?;
            for m in mods.iter().rev() {
                self.enigo.key(*m, Direction::Release).map_err(input_err)?;
            }
        }
        Ok(())
    }
}

/// The virtual key that types `c` on the keyboard layout of the foreground window and the
/// modifiers it needs with it (`VkKeyScanExW`'s shift state: 1 shift, 2 ctrl, 4 alt; AltGr is
/// ctrl+alt), e.g. `VK_1` with shift for `!` on a US keyboard; `None` when no key types `c`.
pub fn key_for_char(c: char) -> Option<(u16, u8)> {
    use windows_sys::Win32::UI::Input::KeyboardAndMouse::{GetKeyboardLayout, VkKeyScanExW};
    use windows_sys::Win32::UI::WindowsAndMessaging::{
        GetForegroundWindow, GetWindowThreadProcessId,
    };
    let mut units = [0u16; 2];
    let [unit] = *c.encode_utf16(&mut units) else {
        return None;
    };
    // SAFETY: plain queries; a null window gives thread 0, the calling thread's layout.
    let scan = unsafe {
        let thread = GetWindowThreadProcessId(GetForegroundWindow(), std::ptr::null_mut());
        VkKeyScanExW(unit, GetKeyboardLayout(thread))
    };
    let (vk, state) = ((scan as u16) & 0xff, ((scan as u16) >> 8) as u8);
    // -1 in both bytes: no key; states beyond shift, ctrl and alt (kana, ...): not pressable here.
    (vk != 0xff && state & !7 == 0).then_some((vk, state))
}

/// The enigo key of a named key on Windows.
fn named_key(k: NamedKey) -> Result<enigo::Key, DesktopError> {
    use enigo::Key as E;
    Ok(match k {
        NamedKey::Insert => E::Insert,
        // The context-menu key: VK_APPS.
        NamedKey::Menu => E::Other(0x5D),
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
            .map_err(input_err)?;
        // Wait (briefly) until the pointer is there, so that a button pressed next cannot land
        // on the old spot (seen under Wine, where the move is applied late).
        self.at = Some(p);
        for _ in 0..50 {
            if mouse::pointer()? == p {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(())
    }

    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError> {
        // The press carries the point it belongs to (see `mouse::button_at`).
        if let Some(p) = self.at {
            return mouse::button_at(p, button, press);
        }
        self.enigo
            .button(enigo_keys::button(button), direction(press))
            .map_err(input_err)
    }

    fn scroll(&mut self, direction: ScrollDirection, notches: u32) -> Result<(), DesktopError> {
        let (len, axis) = enigo_keys::wheel(direction, notches);
        // The wheel turns at the point it belongs to (see `mouse::button_at`).
        if let Some(p) = self.at {
            return mouse::wheel_at(p, len, axis == enigo::Axis::Horizontal);
        }
        self.enigo.scroll(len, axis).map_err(input_err)
    }

    fn key(&mut self, key: Key, press: Press) -> Result<(), DesktopError> {
        match key {
            Key::Named(k) => self
                .enigo
                .key(named_key(k)?, direction(press))
                .map_err(input_err),
            Key::Char(c) => self.char_key(c, press),
        }
    }

    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        self.enigo.text(text).map_err(input_err)
    }

    fn sync(&mut self) -> Result<(), DesktopError> {
        Ok(())
    }
}
