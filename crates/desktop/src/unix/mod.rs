//! What every Unix shares (Linux, macOS): the stop signals.

mod stop_signals;

pub use stop_signals::listen_for_stop;
