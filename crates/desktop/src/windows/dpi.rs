//! Per-monitor DPI awareness, set before anything is measured.
//!
//! A process that is not DPI aware gets virtualized coordinates on a scaled monitor (125% at
//! 1080p): GDI captures and `SendInput` would then disagree with the physical pixels. franz
//! asks for `PER_MONITOR_AWARE_V2` (Windows 10 1703+) and falls back to `PER_MONITOR_AWARE`
//! where that call fails (Wine 8 rejects V2).

use windows_sys::Win32::UI::HiDpi::{
    DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE, DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2,
    DPI_AWARENESS_PER_MONITOR_AWARE, GetAwarenessFromDpiAwarenessContext,
    GetThreadDpiAwarenessContext, SetProcessDpiAwarenessContext,
};

/// Makes this process per-monitor DPI aware (V2, else V1). Returns whether the thread is
/// per-monitor aware afterwards; calling it again is harmless.
pub fn set_dpi_awareness() -> bool {
    // SAFETY: plain calls with constant arguments.
    unsafe {
        if SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2) == 0
            && SetProcessDpiAwarenessContext(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE) == 0
        {
            tracing::debug!("SetProcessDpiAwarenessContext failed (already set?)");
        }
    }
    is_per_monitor_aware()
}

/// Whether the calling thread is per-monitor DPI aware (V1 or V2).
pub fn is_per_monitor_aware() -> bool {
    // SAFETY: no arguments; the context is only passed back to the OS.
    unsafe {
        GetAwarenessFromDpiAwarenessContext(GetThreadDpiAwarenessContext())
            == DPI_AWARENESS_PER_MONITOR_AWARE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dpi_awareness_is_per_monitor_after_startup() {
        assert!(set_dpi_awareness());
        // SAFETY: plain queries.
        let awareness =
            unsafe { GetAwarenessFromDpiAwarenessContext(GetThreadDpiAwarenessContext()) };
        assert_eq!(awareness, DPI_AWARENESS_PER_MONITOR_AWARE);
    }
}
