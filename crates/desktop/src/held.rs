//! What an X display holds down right now, as the server sees it: the pointer buttons and
//! modifiers of `QueryPointer`'s mask and every pressed key of `QueryKeymap`. The tests use it
//! to check that franz leaves no button or key down after any ending of a turn or a run.

use crate::DesktopError;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt as _;

/// Buttons and keys down on a display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldState {
    /// Pointer buttons down (1 left, 2 middle, 3 right, 4-5 wheel).
    pub buttons: Vec<u8>,
    /// The modifier bits of the pointer's mask (X11 `KeyButMask`: 1 shift, 4 control,
    /// 8 mod1/alt, ...), locks included (2 caps lock, usually 16 num lock).
    pub modifiers: u16,
    /// Keycodes of every key down, modifier keys included.
    pub keycodes: Vec<u8>,
}

impl HeldState {
    /// No button and no key down (a lock that is on is not a key down).
    pub fn is_empty(&self) -> bool {
        self.buttons.is_empty() && self.keycodes.is_empty()
    }
}

/// Asks the X server of `display` (e.g. `:3`) what is held down now.
pub fn held_state(display: &str) -> Result<HeldState, DesktopError> {
    let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| DesktopError::NoDisplay {
        display: display.to_string(),
        reason: e.to_string(),
    })?;
    let x = |e: &dyn std::fmt::Display| DesktopError::X11(e.to_string());
    let root = conn
        .setup()
        .roots
        .get(screen)
        .ok_or_else(|| x(&format!("display {display} has no screen {screen}")))?
        .root;
    let pointer = conn
        .query_pointer(root)
        .map_err(|e| x(&e))?
        .reply()
        .map_err(|e| x(&e))?;
    let keymap = conn
        .query_keymap()
        .map_err(|e| x(&e))?
        .reply()
        .map_err(|e| x(&e))?;
    let mask = u16::from(pointer.mask);
    let buttons = (1..=5u8).filter(|b| mask & (0x80 << b) != 0).collect();
    let keycodes = keymap
        .keys
        .iter()
        .enumerate()
        .flat_map(|(byte, bits)| {
            (0..8u8)
                .filter(move |bit| bits & (1 << bit) != 0)
                .map(move |bit| (byte * 8) as u8 + bit)
        })
        .collect();
    Ok(HeldState {
        buttons,
        modifiers: mask & 0xff,
        keycodes,
    })
}
