//! What every Unix shares (Linux, macOS): the stop signals and who the process runs as.

mod stop_signals;

pub use stop_signals::listen_for_stop;

/// Whether this process runs as the superuser (the owner of `/proc/self` is uid 0; where there
/// is no `/proc`, as on macOS, it answers false).
pub fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}
