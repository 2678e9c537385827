//! What an X display holds down right now ([`crate::held`]): the pointer buttons and modifiers
//! of `QueryPointer`'s mask and every pressed key of `QueryKeymap`.

use crate::DesktopError;
use crate::held::HeldState;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt as _;

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
