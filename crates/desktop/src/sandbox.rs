//! The sandbox: a private Xvfb on a free display number, with programs launched on it, that
//! is always stopped.
//!
//! - The display number comes from Xvfb itself (`-displayfd`), so parallel sandboxes never race
//!   for a number, and `start` returns only once the server accepts connections.
//! - Every child (Xvfb and each launched program) gets `PR_SET_PDEATHSIG`, so it dies with
//!   franz even when franz is killed outright (SIGKILL, or SIGINT with no handler). The signal
//!   fires when the *thread* that spawned the child exits: start sandboxes from a thread that
//!   lives as long as they do (normally the main thread).
//! - `Drop` stops launched programs (their whole process group) and then Xvfb: SIGTERM, a short
//!   grace period, then SIGKILL.

use crate::DesktopError;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What to start.
#[derive(Debug, Clone)]
pub struct SandboxOptions {
    pub width: u32,
    pub height: u32,
    /// Shell commands to start on the display, in order.
    pub launch: Vec<String>,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self {
            width: 1920,
            height: 1080,
            launch: Vec::new(),
        }
    }
}

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
        let mut cmd = Command::new("Xvfb");
        cmd.args(["-displayfd", "1", "-nolisten", "tcp", "-screen", "0"])
            .arg(format!("{}x{}x24", options.width, options.height))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        die_with_parent(&mut cmd);
        let mut xvfb = cmd.spawn().map_err(|e| {
            DesktopError::Sandbox(format!(
                "cannot start Xvfb ({e}): install it (Debian/Ubuntu: apt-get install xvfb)"
            ))
        })?;
        let name = match read_display(&mut xvfb) {
            Ok(d) => d,
            Err(e) => {
                let _ = xvfb.kill();
                let _ = xvfb.wait();
                return Err(e);
            }
        };
        tracing::info!(
            display = name.as_str(),
            width = options.width,
            height = options.height,
            "sandbox started"
        );
        let mut sandbox = Sandbox {
            programs: Programs::new(&name),
            xvfb,
        };
        sandbox.programs.launch_all(&options.launch)?;
        Ok(sandbox)
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

/// Reads the display number Xvfb writes to its stdout once it accepts connections.
fn read_display(xvfb: &mut Child) -> Result<String, DesktopError> {
    let stdout = xvfb
        .stdout
        .take()
        .ok_or_else(|| DesktopError::Sandbox("Xvfb has no stdout".into()))?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(START_TIMEOUT).unwrap_or_default();
    match line.trim().parse::<u32>() {
        Ok(n) => Ok(format!(":{n}")),
        Err(_) => {
            let _ = xvfb.kill();
            let mut err = String::new();
            if let Some(mut e) = xvfb.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no output");
            Err(DesktopError::Sandbox(format!(
                "Xvfb did not start within {START_TIMEOUT:?}: {last}"
            )))
        }
    }
}

/// SIGTERM (to the whole group when `group`), a grace period, then SIGKILL; always reaps.
fn terminate(child: &mut Child, group: bool) {
    if let Ok(Some(_)) = child.try_wait() {
        if group {
            // the leader is gone; its group may not be
            let _ = killpg(Pid::from_raw(child.id() as i32), Signal::SIGKILL);
        }
        return;
    }
    let pid = Pid::from_raw(child.id() as i32);
    let _ = if group {
        killpg(pid, Signal::SIGTERM)
    } else {
        kill(pid, Signal::SIGTERM)
    };
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            if group {
                let _ = killpg(pid, Signal::SIGKILL);
            }
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = if group {
        killpg(pid, Signal::SIGKILL)
    } else {
        kill(pid, Signal::SIGKILL)
    };
    let _ = child.wait();
}
