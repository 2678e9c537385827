//! Stop requests on Windows: Ctrl+C (and Ctrl+Break) at the console, through the `ctrlc` crate.

use crate::DesktopError;
use crate::platform::StopSignal;

/// Calls `on_stop` for every Ctrl+C, on `ctrlc`'s own thread.
pub fn listen_for_stop(on_stop: fn(StopSignal)) -> Result<(), DesktopError> {
    let signal = StopSignal {
        name: "Ctrl+C",
        again: "Ctrl+C",
    };
    ctrlc::set_handler(move || on_stop(signal)).map_err(|e| {
        DesktopError::Io(std::io::Error::other(format!(
            "cannot install the Ctrl+C handler: {e}"
        )))
    })
}
