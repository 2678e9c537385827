//! Input through enigo, the same code on every OS (XTest on X11, SendInput on Windows).
//!
//! The human-mimetic executor lives in franz-core; this is the thin layer that turns one
//! `Input` call into enigo calls. On X11 one thing enigo cannot do exactly is typing
//! characters that are not on the keyboard map: `x11_keyboard` binds them up front and the
//! keycodes are then tapped through enigo (`raw`). See that module for why.

use crate::{Button, DesktopError, Input, Key, NamedKey, PixelPoint, Press, ScrollDirection};
use enigo::{Direction, Keyboard, Mouse};

/// `Input` through enigo.
pub struct EnigoInput {
    enigo: enigo::Enigo,
    #[cfg(target_os = "linux")]
    keyboard: crate::x11_keyboard::KeyBinder,
    /// Windows: where the last `move_to` put the pointer; buttons are pressed there.
    #[cfg(windows)]
    at: Option<PixelPoint>,
}

impl EnigoInput {
    /// Input on `$DISPLAY` (X11) or the session's desktop.
    pub fn new() -> Result<Self, DesktopError> {
        Self::with_display(None)
    }

    /// Input on a given X display (`:3`), which then reads no `$DISPLAY`; ignored off Linux.
    pub fn with_display(display: Option<&str>) -> Result<Self, DesktopError> {
        let settings = enigo::Settings {
            // enigo passes this as the XTest event delay: cadence is the executor's job.
            linux_delay: 0,
            x11_display: display.map(str::to_string),
            ..enigo::Settings::default()
        };
        let enigo = enigo::Enigo::new(&settings)
            .map_err(|e| DesktopError::Input(format!("cannot start enigo: {e}")))?;
        Ok(Self {
            enigo,
            #[cfg(target_os = "linux")]
            keyboard: crate::x11_keyboard::KeyBinder::connect(display)?,
            #[cfg(windows)]
            at: None,
        })
    }

    /// Where the pointer is, as enigo sees it.
    pub fn location(&self) -> Result<PixelPoint, DesktopError> {
        let (x, y) = self.enigo.location().map_err(input_err)?;
        Ok(PixelPoint::new(x, y))
    }
}

#[cfg(windows)]
impl EnigoInput {
    /// Windows: a character's own key on the current layout (`win32::key_for_char`), pressed
    /// with the modifiers the layout needs for it and released in reverse (`!` is shift+`1` on
    /// a US keyboard). enigo's `Key::Unicode` sends the layout's answer whole as the virtual
    /// key, shift state included (`0x131` for `!`), which is no key; a character on no key
    /// goes as Unicode (VK_PACKET), typed once.
    fn char_key(&mut self, c: char, press: Press) -> Result<(), DesktopError> {
        let Some((vk, state)) = crate::win32::key_for_char(c) else {
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

fn input_err(e: enigo::InputError) -> DesktopError {
    DesktopError::Input(e.to_string())
}

fn direction(press: Press) -> Direction {
    match press {
        Press::Down => Direction::Press,
        Press::Up => Direction::Release,
        Press::Click => Direction::Click,
    }
}

/// The enigo key of a named key.
fn named_key(k: NamedKey) -> Result<enigo::Key, DesktopError> {
    use enigo::Key as E;
    Ok(match k {
        NamedKey::F(n) => function_key(n)?,
        NamedKey::Up => E::UpArrow,
        NamedKey::Down => E::DownArrow,
        NamedKey::Left => E::LeftArrow,
        NamedKey::Right => E::RightArrow,
        NamedKey::Home => E::Home,
        NamedKey::End => E::End,
        NamedKey::PageUp => E::PageUp,
        NamedKey::PageDown => E::PageDown,
        #[cfg(not(target_os = "macos"))]
        NamedKey::Insert => E::Insert,
        #[cfg(target_os = "macos")]
        NamedKey::Insert => E::Help,
        NamedKey::Delete => E::Delete,
        NamedKey::Backspace => E::Backspace,
        NamedKey::Enter => E::Return,
        NamedKey::Tab => E::Tab,
        NamedKey::Esc => E::Escape,
        NamedKey::Space => E::Space,
        NamedKey::Ctrl => E::Control,
        NamedKey::Alt => E::Alt,
        NamedKey::Shift => E::Shift,
        NamedKey::Win => E::Meta,
        // The context-menu key: keysym Menu on X11, VK_APPS on Windows.
        #[cfg(all(unix, not(target_os = "macos")))]
        NamedKey::Menu => E::LMenu,
        #[cfg(windows)]
        NamedKey::Menu => E::Other(0x5D),
        #[cfg(target_os = "macos")]
        NamedKey::Menu => return Err(DesktopError::Unsupported("the menu key on macOS".into())),
        NamedKey::CapsLock => E::CapsLock,
        #[cfg(not(target_os = "macos"))]
        NamedKey::PrintScreen => E::PrintScr,
        #[cfg(target_os = "macos")]
        NamedKey::PrintScreen => {
            return Err(DesktopError::Unsupported("printscreen on macOS".into()));
        }
    })
}

fn function_key(n: u8) -> Result<enigo::Key, DesktopError> {
    use enigo::Key as E;
    const KEYS: [enigo::Key; 20] = [
        E::F1,
        E::F2,
        E::F3,
        E::F4,
        E::F5,
        E::F6,
        E::F7,
        E::F8,
        E::F9,
        E::F10,
        E::F11,
        E::F12,
        E::F13,
        E::F14,
        E::F15,
        E::F16,
        E::F17,
        E::F18,
        E::F19,
        E::F20,
    ];
    match n {
        1..=20 => Ok(KEYS[n as usize - 1]),
        #[cfg(not(target_os = "macos"))]
        21 => Ok(E::F21),
        #[cfg(not(target_os = "macos"))]
        22 => Ok(E::F22),
        #[cfg(not(target_os = "macos"))]
        23 => Ok(E::F23),
        #[cfg(not(target_os = "macos"))]
        24 => Ok(E::F24),
        _ => Err(DesktopError::Unsupported(format!("the key f{n} here"))),
    }
}

impl Input for EnigoInput {
    fn move_to(&mut self, p: PixelPoint) -> Result<(), DesktopError> {
        self.enigo
            .move_mouse(p.x, p.y, enigo::Coordinate::Abs)
            .map_err(input_err)?;
        // Windows: wait (briefly) until the pointer is there, so that a button pressed next
        // cannot land on the old spot (seen under Wine, where the move is applied late).
        #[cfg(windows)]
        {
            self.at = Some(p);
            for _ in 0..50 {
                if crate::win32::pointer()? == p {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        Ok(())
    }

    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError> {
        // Windows: the press carries the point it belongs to (see `win32::button_at`).
        #[cfg(windows)]
        if let Some(p) = self.at {
            return crate::win32::button_at(p, button, press);
        }
        let b = match button {
            Button::Left => enigo::Button::Left,
            Button::Right => enigo::Button::Right,
            Button::Middle => enigo::Button::Middle,
        };
        self.enigo.button(b, direction(press)).map_err(input_err)
    }

    fn scroll(&mut self, direction: ScrollDirection, notches: u32) -> Result<(), DesktopError> {
        let n = i32::try_from(notches).unwrap_or(i32::MAX);
        let (len, axis) = match direction {
            ScrollDirection::Up => (-n, enigo::Axis::Vertical),
            ScrollDirection::Down => (n, enigo::Axis::Vertical),
            ScrollDirection::Left => (-n, enigo::Axis::Horizontal),
            ScrollDirection::Right => (n, enigo::Axis::Horizontal),
        };
        // Windows: the wheel turns at the point it belongs to (see `win32::button_at`).
        #[cfg(windows)]
        if let Some(p) = self.at {
            return crate::win32::wheel_at(p, len, axis == enigo::Axis::Horizontal);
        }
        self.enigo.scroll(len, axis).map_err(input_err)
    }

    fn key(&mut self, key: Key, press: Press) -> Result<(), DesktopError> {
        match key {
            Key::Named(k) => self
                .enigo
                .key(named_key(k)?, direction(press))
                .map_err(input_err),
            #[cfg(target_os = "linux")]
            Key::Char(c) => {
                let stroke = self.keyboard.stroke_for_key(c)?;
                self.enigo
                    .raw(u16::from(stroke.keycode), direction(press))
                    .map_err(input_err)
            }
            #[cfg(windows)]
            Key::Char(c) => self.char_key(c, press),
            #[cfg(target_os = "macos")]
            Key::Char(c) => self
                .enigo
                .key(enigo::Key::Unicode(c), direction(press))
                .map_err(input_err),
        }
    }

    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        #[cfg(target_os = "linux")]
        {
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
        #[cfg(not(target_os = "linux"))]
        {
            self.enigo.text(text).map_err(input_err)
        }
    }

    fn sync(&mut self) -> Result<(), DesktopError> {
        // enigo itself waits for a reply after each X11 call; this round trip covers our own
        // connection (keyboard bindings) and makes the guarantee explicit.
        #[cfg(target_os = "linux")]
        {
            self.keyboard.sync()
        }
        #[cfg(not(target_os = "linux"))]
        {
            Ok(())
        }
    }
}
