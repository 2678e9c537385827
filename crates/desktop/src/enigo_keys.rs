//! enigo's side of franz's input, the same on every OS: starting enigo, and enigo's names for
//! franz's buttons, wheel turns and the keys every OS has. Each OS's `EnigoInput`
//! (`x11/input.rs`, `windows/input.rs`, `macos/input.rs`) adds what differs there: how a
//! character is typed exactly, the keys only some systems have, where a press lands.

use crate::{Button, DesktopError, NamedKey, Press, ScrollDirection};
use enigo::{Axis, Direction};

/// enigo on `display` (X11: `:3`; ignored elsewhere), with no delay of its own between events
/// (cadence is the executor's job).
pub(crate) fn start(display: Option<&str>) -> Result<enigo::Enigo, DesktopError> {
    let settings = enigo::Settings {
        // enigo passes this as the XTest event delay.
        linux_delay: 0,
        x11_display: display.map(str::to_string),
        ..enigo::Settings::default()
    };
    enigo::Enigo::new(&settings)
        .map_err(|e| DesktopError::Input(format!("cannot start enigo: {e}")))
}

pub(crate) fn input_err(e: enigo::InputError) -> DesktopError {
    DesktopError::Input(e.to_string())
}

pub(crate) fn direction(press: Press) -> Direction {
    match press {
        Press::Down => Direction::Press,
        Press::Up => Direction::Release,
        Press::Click => Direction::Click,
    }
}

pub(crate) fn button(button: Button) -> enigo::Button {
    match button {
        Button::Left => enigo::Button::Left,
        Button::Right => enigo::Button::Right,
        Button::Middle => enigo::Button::Middle,
    }
}

/// enigo's length and axis for `notches` wheel notches towards `direction` (negative: up or
/// left).
pub(crate) fn wheel(direction: ScrollDirection, notches: u32) -> (i32, Axis) {
    let n = i32::try_from(notches).unwrap_or(i32::MAX);
    match direction {
        ScrollDirection::Up => (-n, Axis::Vertical),
        ScrollDirection::Down => (n, Axis::Vertical),
        ScrollDirection::Left => (-n, Axis::Horizontal),
        ScrollDirection::Right => (n, Axis::Horizontal),
    }
}

/// The enigo key of a named key every OS has: F1-F20 and all but `Insert`, `Menu` and
/// `PrintScreen`, which each OS's input maps itself (enigo names them differently per OS, or
/// not at all). Those, and function keys past F20, are "not supported" here.
pub(crate) fn common_key(k: NamedKey) -> Result<enigo::Key, DesktopError> {
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
        NamedKey::CapsLock => E::CapsLock,
        NamedKey::Insert | NamedKey::Menu | NamedKey::PrintScreen => {
            return Err(DesktopError::Unsupported(format!("the key {k:?} here")));
        }
    })
}

/// F1-F20, which every OS has.
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
        _ => Err(DesktopError::Unsupported(format!("the key f{n} here"))),
    }
}
