//! Interactive elements from the accessibility tree: what `franz elements` lists and the
//! grounding layer numbers.
//!
//! One trait, [`Elements`], with one source per OS: AT-SPI2 over D-Bus on Linux
//! (`x11/atspi.rs`); UI Automation on Windows, with the Win32 child controls where it gives
//! nothing (`windows/uia.rs`, `windows/hwnd.rs`); on other systems [`open`] says "not supported
//! yet". Everything is in screen pixels.

use crate::{DesktopError, PixelRect};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The default time budget of one collection.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(150);

/// One visible, enabled, interactive element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    /// The accessibility role, AT-SPI's name, lower case with `_`: `button`, `check_box`, `text`.
    pub role: String,
    pub name: String,
    /// Notable states: `focused`, `checked`, `editable`, `selected`...
    pub states: Vec<String>,
    /// Where it is, in root (virtual screen) pixels.
    pub bounds: PixelRect,
}

/// What one collection found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collected {
    pub elements: Vec<Element>,
    /// How long it took.
    pub elapsed_ms: u64,
    /// Whether the budget ran out before the whole tree was read (the rest was skipped).
    pub truncated: bool,
    /// Accessible objects not visited because the budget ran out (0 when complete).
    pub skipped: usize,
}

/// A source of elements.
pub trait Elements {
    /// The visible, enabled, interactive elements on screen, read within `budget`.
    fn collect(&mut self, budget: Duration) -> Result<Collected, DesktopError>;
}

/// Opens this OS's element source.
pub fn open() -> Result<Box<dyn Elements + Send>, DesktopError> {
    crate::platform::open_elements()
}
