//! Stop requests on Unix: SIGINT (Ctrl+C), SIGTERM and SIGHUP, each named, through tokio's
//! signal handlers on a thread of their own (unlike the `ctrlc` crate's, they say which signal
//! came).

use crate::DesktopError;
use crate::platform::StopSignal;
use tokio::signal::unix::{SignalKind, signal};

const SIGINT: StopSignal = StopSignal {
    name: "SIGINT",
    again: "Ctrl+C",
};
const SIGTERM: StopSignal = StopSignal {
    name: "SIGTERM",
    again: "send it",
};
const SIGHUP: StopSignal = StopSignal {
    name: "SIGHUP",
    again: "send it",
};

/// Calls `on_stop` for every SIGINT, SIGTERM and SIGHUP, on a thread of its own. The handlers
/// are registered before this returns, so that no signal is missed.
pub fn listen_for_stop(on_stop: fn(StopSignal)) -> Result<(), DesktopError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let listen = |kind| rt.block_on(async { signal(kind) });
    let mut int = listen(SignalKind::interrupt())?;
    let mut term = listen(SignalKind::terminate())?;
    let mut hup = listen(SignalKind::hangup())?;
    std::thread::Builder::new()
        .name("franz-signals".into())
        .spawn(move || {
            rt.block_on(async move {
                loop {
                    tokio::select! {
                        _ = int.recv() => on_stop(SIGINT),
                        _ = term.recv() => on_stop(SIGTERM),
                        _ = hup.recv() => on_stop(SIGHUP),
                    }
                }
            })
        })?;
    Ok(())
}
