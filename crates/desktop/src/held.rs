//! What a display holds down right now, as its server sees it: the pointer buttons, the
//! modifiers and every pressed key. The tests use it to check that franz leaves no button or
//! key down after any ending of a turn or a run. X11 only (`x11/held.rs`).

pub use crate::platform::held_state;

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
