//! Witness windows: windows that log the input they receive, so that `franz doctor`,
//! `franz calibrate` and the tests check input end to end, where it lands.
//!
//! - [`Witness`]: the X11 witness (`x11/witness.rs`), every pointer and key event with root
//!   pixel coordinates, buttons, keysyms and modifiers. Elsewhere `open` answers
//!   [`crate::DesktopError::NeedsX11`].
//! - [`PressWitness`]: this system's witness as far as left presses go: the X11 witness on
//!   Linux, a top-most Win32 window that also tells its monitor's DPI on Windows
//!   (`windows/witness.rs`); elsewhere `open` says there is none.
//!
//! `Witness::open` returns once the window is mapped and viewable (it waits for the first
//! Expose) and holds the keyboard focus. A thread reads events into a shared log that callers
//! inspect with `Witness::events` or wait on with `Witness::wait_for`.

use crate::PixelPoint;
use std::time::Instant;

pub use crate::platform::{PressWitness, Witness};

/// What kind of event the witness saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WitnessKind {
    Motion,
    ButtonPress,
    ButtonRelease,
    KeyPress,
    KeyRelease,
}

/// One event, in root pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct WitnessEvent {
    pub kind: WitnessKind,
    /// Where the pointer was, in root (screen) pixels.
    pub at: PixelPoint,
    /// The button (1 left, 2 middle, 3 right, 4-7 scroll up/down/left/right) or keycode.
    pub detail: u8,
    /// For key events: the keysym at level 0 of the key (unshifted), else 0.
    pub keysym: u32,
    /// The modifier and button state before the event (X11 `KeyButMask` bits).
    pub state: u16,
    /// When the witness read it.
    #[serde(skip)]
    pub seen: Instant,
}

impl WitnessEvent {
    pub fn is(&self, kind: WitnessKind) -> bool {
        self.kind == kind
    }
}

/// X11 modifier bits in [`WitnessEvent::state`].
pub mod state {
    pub const SHIFT: u16 = 1;
    pub const CONTROL: u16 = 4;
    pub const MOD1_ALT: u16 = 8;
}
