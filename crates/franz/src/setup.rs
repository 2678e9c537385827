//! Turning the global flags into a live desktop: the sandbox (when asked for), launched
//! programs, the monitor, and the handling of the signals that stop franz (SIGINT, SIGTERM,
//! SIGHUP; Ctrl+C on Windows) shared by every command.

use crate::cli::GlobalArgs;
use crate::exit::{self, Exit};
use crate::terminal::errln;
use anyhow::Context;
use franz_core::cancel::Cancel;
use franz_desktop::sandbox::{Programs, Sandbox, SandboxOptions};
use franz_desktop::{Desktop, DesktopOptions, StopSignal};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: LazyLock<Cancel> = LazyLock::new(Cancel::new);

/// The token a signal sets: whatever waits on it (the engine, the executor, the model call)
/// wakes at once, and what it cuts short names the signal (`interrupted (SIGTERM)`).
pub fn interrupt_flag() -> Cancel {
    INTERRUPTED.clone()
}

/// Installs the signal handlers: the first SIGINT (Ctrl+C), SIGTERM or SIGHUP sets the cancel
/// token for that signal, which stops a run at once (every sleep, action pause and model call
/// wakes on it); a second one exits at once (children die with us through PDEATHSIG).
pub fn install_interrupt_handler() {
    if let Err(e) = franz_desktop::listen_for_stop(stop_for) {
        tracing::warn!("cannot install the signal handlers: {e}");
    }
}

/// A stop for `signal` (its `again`: how a person sends it again).
fn stop_for(signal: StopSignal) {
    let StopSignal { name, again } = signal;
    if INTERRUPTED.cancel_again(name) {
        errln!("franz: {name} again, exiting now");
        std::process::exit(exit::INTERRUPTED as i32);
    }
    errln!("franz: {name}: stopping now ({again} again to exit at once)");
}

/// Whether a signal came.
pub fn interrupted() -> bool {
    INTERRUPTED.is_cancelled()
}

/// The error a command returns when a signal stops it (`interrupted (SIGTERM)`).
pub fn interrupted_error() -> anyhow::Error {
    Exit(exit::INTERRUPTED, INTERRUPTED.interrupted()).into()
}

/// A desktop to work on, and the sandbox behind it, if any. The desktop is dropped first,
/// then the sandbox stops Xvfb and every launched program.
///
/// The desktop opens its display by name (capture and input alike): `DISPLAY` is read once,
/// here at open, when there is no sandbox, and never set; programs a command starts get the
/// display in their own environment ([`OpenDesktop::display`]).
#[allow(dead_code)] // fields are held for their Drop; `display` is for later commands
pub struct OpenDesktop {
    pub desktop: Box<dyn Desktop + Send>,
    /// The X display the desktop is on, as read at open (`None` off X11).
    display: Option<String>,
    /// Programs `--launch` started on the user's own display (no sandbox).
    pub programs: Option<Programs>,
    pub sandbox: Option<Sandbox>,
}

/// What keeps a desktop alive once it moved to a session's engine: the sandbox and the
/// launched programs (stopped when this drops).
#[allow(dead_code)] // held for its Drop
pub struct Keep {
    programs: Option<Programs>,
    sandbox: Option<Sandbox>,
}

#[allow(dead_code)]
impl OpenDesktop {
    /// The desktop, to move to an engine, and what must outlive it.
    pub fn into_parts(self) -> (Box<dyn Desktop + Send>, Keep) {
        let keep = Keep {
            programs: self.programs,
            sandbox: self.sandbox,
        };
        (self.desktop, keep)
    }

    /// The X display in use, for programs a command starts itself (pass it in the child's
    /// environment: franz's own `DISPLAY` may name another display).
    pub fn display(&self) -> Option<String> {
        self.display.clone()
    }
}

/// What works on a Wayland session that has an X display (XWayland), and what to do.
pub const XWAYLAND_NOTE: &str = "this is a Wayland session: franz captures and drives it through XWayland, so it sees and controls only XWayland (X11) applications; native Wayland windows are not in its screenshots and get none of its input. Start the application under XWayland (e.g. GDK_BACKEND=x11, QT_QPA_PLATFORM=xcb), log in to an X11 session, or pass --sandbox to work on a private desktop";

static WAYLAND_NOTED: AtomicBool = AtomicBool::new(false);

/// The XWayland note, once per process: `Some` the first time on a Wayland session with an X
/// display and no `--sandbox`, for the caller to show.
pub fn take_wayland_note(g: &GlobalArgs) -> Option<&'static str> {
    let applies = g.sandbox.is_none()
        && franz_desktop::env_display().is_some()
        && franz_desktop::wayland_session();
    (applies && !WAYLAND_NOTED.swap(true, Ordering::SeqCst)).then_some(XWAYLAND_NOTE)
}

/// A desktop that cannot be opened, said the way the session needs: on Wayland, what works
/// there (XWayland applications, or `--sandbox`) instead of a bare connection error.
fn desktop_error(g: &GlobalArgs, e: franz_desktop::DesktopError) -> anyhow::Error {
    let has_display = franz_desktop::env_display().is_some();
    let msg = match (
        g.sandbox.is_none() && franz_desktop::wayland_session(),
        has_display,
    ) {
        (true, false) => franz_desktop::DesktopError::WaylandOnly.to_string(),
        (true, true) => format!(
            "{e}. This is a Wayland session: franz works only with XWayland applications (is XWayland running on that DISPLAY?), or pass --sandbox to work on a private desktop"
        ),
        (false, _) => e.to_string(),
    };
    Exit(exit::USAGE, msg).into()
}

/// What in the configuration calls for a window manager on the sandbox: grounding (`marks`
/// or `list`: the accessibility tree and window lookups want real focus and stacking) or the
/// window tools (`list_windows`, `focus_window`) the tools strategy offers.
pub fn wm_wanted_by(c: &franz_core::config::Config) -> Option<String> {
    use franz_core::config::Choice;
    if c.grounding != franz_core::grounding::Grounding::None {
        return Some(format!("grounding {}", c.grounding.name()));
    }
    (c.strategy == franz_core::strategy::StrategyName::Tools)
        .then(|| "the window tools of the tools strategy".to_string())
}

/// Whether the sandbox runs a window manager, and why (for `franz config`): `--wm`; `--no-wm`;
/// else on a sandbox by default when `wanted_by` (what the command uses: grounding, window
/// tools) asks for one.
pub fn wm_choice(g: &GlobalArgs, wanted_by: Option<&str>) -> (bool, String) {
    match (g.wm, g.no_wm, g.sandbox.is_some(), wanted_by) {
        (true, _, _, _) => (true, "flag --wm".into()),
        (_, true, _, _) => (false, "flag --no-wm".into()),
        (_, _, false, _) => (
            false,
            "no --sandbox: your own desktop has its window manager".into(),
        ),
        (_, _, true, Some(why)) => (
            true,
            format!("default: --sandbox with {why} (--no-wm turns it off)"),
        ),
        (_, _, true, None) => (
            false,
            "default: --sandbox without grounding or window tools (--wm turns it on)".into(),
        ),
    }
}

/// `g` with `--wm` on where it is the default ([`wm_choice`]).
pub fn with_default_wm(g: &GlobalArgs, wanted_by: Option<&str>) -> GlobalArgs {
    let mut g = g.clone();
    g.wm = wm_choice(&g, wanted_by).0;
    g
}

/// Opens the desktop the global flags describe.
pub fn open_desktop(g: &GlobalArgs) -> anyhow::Result<OpenDesktop> {
    if let Some(note) = take_wayland_note(g) {
        errln!("franz: note: {note}");
    }
    let x11_flags = [
        (g.sandbox.is_some(), "--sandbox (a private Xvfb desktop)"),
        (!g.launch.is_empty(), "--launch (programs on an X display)"),
    ];
    for (_, flag) in x11_flags.iter().filter(|(given, _)| *given) {
        franz_desktop::needs_x11(flag).map_err(|e| Exit(exit::USAGE, e.to_string()))?;
    }
    if g.wm && g.sandbox.is_none() {
        let msg = "--wm starts a window manager on the sandbox only: add --sandbox, or leave --wm out (your own desktop has its window manager)";
        return Err(Exit(exit::USAGE, msg.into()).into());
    }
    let sandbox = start_sandbox(g)?;
    // Without a sandbox, --launch starts programs on the user's display, stopped afterwards.
    let programs = match (&sandbox, g.launch.is_empty()) {
        (None, false) => Some(launch_on_own_display(g)?),
        _ => None,
    };
    let display = match &sandbox {
        Some(s) => Some(s.display().to_string()),
        None => franz_desktop::env_display(),
    };
    let options = DesktopOptions {
        display: display.clone(),
        monitor: g.monitor,
    };
    let desktop = franz_desktop::open(&options).map_err(|e| desktop_error(g, e))?;
    Ok(OpenDesktop {
        desktop,
        display,
        programs,
        sandbox,
    })
}

/// The sandbox `--sandbox` asks for, with its window manager (`--wm`) and `--launch` programs.
fn start_sandbox(g: &GlobalArgs) -> anyhow::Result<Option<Sandbox>> {
    let Some(size) = g.sandbox else {
        return Ok(None);
    };
    // with --wm the window manager runs first, then the programs
    let launch = if g.wm { vec![] } else { g.launch.clone() };
    let mut s = Sandbox::start(&SandboxOptions {
        width: size.width,
        height: size.height,
        launch,
    })
    .context("cannot start the sandbox")?;
    if g.wm {
        let display = s.display().to_string();
        franz_desktop::wm::start(s.programs(), &display)
            .context("cannot start the window manager")?;
        s.programs()
            .launch_all(&g.launch)
            .context("cannot launch programs")?;
    }
    // DISPLAY stays as it is: the desktop opens the sandbox's display by name and
    // launched programs get it in their own environment (`Programs::launch`).
    Ok(Some(s))
}

/// The `--launch` programs started on the user's own display.
fn launch_on_own_display(g: &GlobalArgs) -> anyhow::Result<Programs> {
    let display = franz_desktop::env_display().ok_or_else(|| {
        let msg = if franz_desktop::wayland_session() {
            franz_desktop::DesktopError::WaylandOnly.to_string()
        } else {
            "--launch needs a display: set DISPLAY or add --sandbox".into()
        };
        Exit(exit::USAGE, msg)
    })?;
    let mut p = Programs::new(&display);
    p.launch_all(&g.launch).context("cannot launch programs")?;
    Ok(p)
}
