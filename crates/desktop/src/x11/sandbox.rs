//! The sandbox on X11 ([`crate::sandbox`]): Xvfb on a free display number, programs launched
//! on a display.
//!
//! - Each sandbox gets a free display number (parallel sandboxes never share one), and `start`
//!   returns only once the server accepts connections and launched programs show windows.
//! - Every child (Xvfb and each launched program) gets `PR_SET_PDEATHSIG`, so it dies with
//!   franz even when franz is killed outright (SIGKILL, or SIGINT with no handler). The signal
//!   fires when the *thread* that spawned the child exits: start sandboxes from a thread that
//!   lives as long as they do (normally the main thread).
//! - `Drop` stops launched programs (their whole process group) and then Xvfb: SIGTERM, a short
//!   grace period, then SIGKILL.

use crate::DesktopError;
use crate::sandbox::SandboxOptions;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running private X server and the programs on it.
pub struct Sandbox {
    programs: Programs,
    xvfb: Child,
}

/// Programs launched on a display (a sandbox's or the user's own), each in its own process
/// group, all stopped on drop.
pub struct Programs {
    display: String,
    apps: Vec<Child>,
}

/// Sandboxes use display numbers from here up, clear of the usual desktop numbers.
const FIRST_DISPLAY: u32 = 20;
/// How long Xvfb may take to come up.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long `start` waits for launched programs to show their windows.
const WINDOW_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a stopped process gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_millis(1500);

/// Makes the child die with its parent thread.
fn die_with_parent(cmd: &mut Command) {
    // SAFETY: prctl is async-signal-safe and touches only the child's own state.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

impl Sandbox {
    /// Starts Xvfb at `width` x `height` and launches the programs on it.
    pub fn start(options: &SandboxOptions) -> Result<Sandbox, DesktopError> {
        // The display number is picked here: the first from :20 up with no lock file and no
        // socket. Starts are serialised across franz processes with a file lock, and a number
        // lost to a race with some other X server is skipped.
        let _guard = StartLock::acquire();
        let mut last_error = String::new();
        for n in FIRST_DISPLAY..FIRST_DISPLAY + 200 {
            if display_in_use(n) {
                continue;
            }
            match start_xvfb(n, options) {
                Ok(Some(xvfb)) => {
                    let name = format!(":{n}");
                    tracing::info!(display = name.as_str(), "sandbox started");
                    // the lock is for picking numbers only; programs start without it
                    drop(_guard);
                    let mut sandbox = Sandbox {
                        programs: Programs::new(&name),
                        xvfb,
                    };
                    sandbox.programs.launch_all(&options.launch)?;
                    return Ok(sandbox);
                }
                Ok(None) => continue, // lost the number to another server
                Err(e) => last_error = e.to_string(),
            }
        }
        Err(DesktopError::Sandbox(format!(
            "no Xvfb display could be started: {last_error}"
        )))
    }

    /// The display name, e.g. `:3`.
    pub fn display(&self) -> &str {
        &self.programs.display
    }

    /// The Xvfb process id.
    pub fn xvfb_pid(&self) -> u32 {
        self.xvfb.id()
    }

    /// The programs on the sandbox.
    pub fn programs(&mut self) -> &mut Programs {
        &mut self.programs
    }

    /// The process ids of launched programs.
    pub fn app_pids(&self) -> Vec<u32> {
        self.programs.pids()
    }

    /// Starts a shell command on the sandbox.
    pub fn launch(&mut self, command: &str) -> Result<u32, DesktopError> {
        self.programs.launch(command)
    }

    /// Launches a command with its stdout piped back; the caller owns and stops it.
    pub fn launch_piped(&mut self, command: &str) -> Result<Child, DesktopError> {
        self.programs.launch_piped(command)
    }

    /// Waits until at least `count` top-level windows are viewable.
    pub fn wait_for_windows(&self, count: usize, timeout: Duration) -> bool {
        self.programs.wait_for_windows(count, timeout)
    }

    /// Stops every launched program and the X server. Idempotent; `Drop` calls it.
    pub fn stop(&mut self) {
        self.programs.stop();
        terminate(&mut self.xvfb, false);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.stop();
        tracing::info!(display = self.programs.display.as_str(), "sandbox stopped");
    }
}

impl Programs {
    /// No programs yet, on `display`.
    pub fn new(display: &str) -> Self {
        Self {
            display: display.to_string(),
            apps: Vec::new(),
        }
    }

    /// Launches each command, then waits until each has had the chance to show a window.
    pub fn launch_all(&mut self, commands: &[String]) -> Result<(), DesktopError> {
        let before = viewable_windows(&self.display).unwrap_or(0);
        for cmd in commands {
            self.launch(cmd)?;
        }
        if !commands.is_empty() {
            self.wait_for_windows(before + commands.len(), WINDOW_TIMEOUT);
        }
        Ok(())
    }

    /// Waits until at least `count` top-level windows are viewable, so that a command that
    /// runs right after `--launch` sees the programs. Gives up quietly (with a warning) at the
    /// timeout: a program may have no window at all.
    pub fn wait_for_windows(&self, count: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            match viewable_windows(&self.display) {
                Ok(n) if n >= count => return true,
                Ok(_) | Err(_) if Instant::now() >= deadline => {
                    tracing::warn!(count, "launched programs did not all show a window in time");
                    return false;
                }
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// The process ids of launched programs (each leads its own process group).
    pub fn pids(&self) -> Vec<u32> {
        self.apps.iter().map(Child::id).collect()
    }

    /// Starts a shell command on the display, in its own process group.
    pub fn launch(&mut self, command: &str) -> Result<u32, DesktopError> {
        let mut cmd = Command::new("sh");
        // `exec` so that a simple command replaces the shell and keeps PDEATHSIG.
        cmd.arg("-c")
            .arg(format!("exec {command}"))
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        die_with_parent(&mut cmd);
        let child = cmd
            .spawn()
            .map_err(|e| DesktopError::Sandbox(format!("cannot launch {command:?}: {e}")))?;
        tracing::info!(command, pid = child.id(), "launched");
        let pid = child.id();
        self.apps.push(child);
        Ok(pid)
    }

    /// Launches a command with its stdout piped back, for callers that read what it prints.
    pub fn launch_piped(&mut self, command: &str) -> Result<Child, DesktopError> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("exec {command}"))
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        die_with_parent(&mut cmd);
        cmd.spawn()
            .map_err(|e| DesktopError::Sandbox(format!("cannot launch {command:?}: {e}")))
    }

    /// Stops every launched program. Idempotent; `Drop` calls it.
    pub fn stop(&mut self) {
        for app in self.apps.iter_mut().rev() {
            terminate(app, true);
        }
        self.apps.clear();
    }
}

impl Drop for Programs {
    fn drop(&mut self) {
        self.stop();
    }
}

/// An exclusive `flock` on a well-known file, held while one Xvfb starts.
struct StartLock(#[allow(dead_code)] Option<std::fs::File>);

impl StartLock {
    fn acquire() -> StartLock {
        let path = std::env::temp_dir().join("franz-xvfb-start.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .ok();
        if let Some(f) = &file {
            use std::os::fd::AsRawFd;
            // SAFETY: flock on an fd we own; released when the file is closed.
            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        }
        StartLock(file)
    }
}

/// How many top-level windows of the display are viewable (mapped, with mapped parents).
pub fn viewable_windows(display: &str) -> Result<usize, DesktopError> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{ConnectionExt, MapState};
    let x11 = |e: &dyn std::fmt::Display| DesktopError::X11(e.to_string());
    let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| x11(&e))?;
    let root = conn.setup().roots[screen].root;
    let tree = conn
        .query_tree(root)
        .map_err(|e| x11(&e))?
        .reply()
        .map_err(|e| x11(&e))?;
    let cookies: Vec<_> = tree
        .children
        .iter()
        .map(|w| conn.get_window_attributes(*w))
        .collect::<Result<_, _>>()
        .map_err(|e| x11(&e))?;
    let mut n = 0;
    for c in cookies {
        if let Ok(attr) = c.reply()
            && attr.map_state == MapState::VIEWABLE
        {
            n += 1;
        }
    }
    Ok(n)
}

/// Whether display `n` has a lock file or a socket already.
fn display_in_use(n: u32) -> bool {
    std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists()
        || std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
}

/// Starts Xvfb on display `n` and waits until it accepts connections. `Ok(None)` when the
/// server exited at once (the number was taken meanwhile).
fn start_xvfb(n: u32, options: &SandboxOptions) -> Result<Option<Child>, DesktopError> {
    let mut cmd = Command::new("Xvfb");
    cmd.arg(format!(":{n}"))
        // -noreset: an X server resets when its last client leaves, and clients that connect
        // during the reset fail with "Can't open display" (our own readiness probe is such a
        // last client).
        .args(["-noreset", "-nolisten", "tcp", "-screen", "0"])
        .arg(format!("{}x{}x24", options.width, options.height))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    die_with_parent(&mut cmd);
    let mut xvfb = cmd.spawn().map_err(|e| {
        DesktopError::Sandbox(format!(
            "cannot start Xvfb ({e}): install it (Debian/Ubuntu: apt-get install xvfb)"
        ))
    })?;
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(_)) = xvfb.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = xvfb.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            if err.contains("already active") || err.contains("lock") {
                return Ok(None);
            }
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no output");
            return Err(DesktopError::Sandbox(format!("Xvfb :{n} exited: {last}")));
        }
        if x11rb::connect(Some(&format!(":{n}"))).is_ok() {
            // stderr is no longer needed; drop the pipe so Xvfb never blocks on it
            drop(xvfb.stderr.take());
            return Ok(Some(xvfb));
        }
        if Instant::now() >= deadline {
            terminate(&mut xvfb, false);
            return Err(DesktopError::Sandbox(format!(
                "Xvfb :{n} did not accept connections within {START_TIMEOUT:?}"
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether the child has exited, without reaping it: while it is an unreaped zombie its pid
/// (and so its process-group id) cannot be reused, so signalling the group stays safe.
fn exited_unreaped(child: &Child) -> bool {
    // SAFETY: waitid with WNOWAIT only reads the child's state into `info`.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            child.id() as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        // rc == -1: already reaped (ECHILD) -- treat as exited
        rc == -1 || info.si_pid() != 0
    }
}

/// SIGTERM (to the whole group when `group`), a grace period, then SIGKILL; always reaps.
///
/// The child is reaped only after the last signal to its group: once reaped, its pid may be
/// reused at once (pid_max is small on some machines) and `killpg` could hit a stranger.
fn terminate(child: &mut Child, group: bool) {
    let pid = Pid::from_raw(child.id() as i32);
    let signal = |sig: Signal| {
        let _ = if group {
            killpg(pid, sig)
        } else {
            kill(pid, sig)
        };
    };
    if !exited_unreaped(child) {
        signal(Signal::SIGTERM);
        let deadline = Instant::now() + GRACE;
        while !exited_unreaped(child) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // the leader is gone or stubborn; the rest of its group goes now
    signal(Signal::SIGKILL);
    let _ = child.wait();
}
