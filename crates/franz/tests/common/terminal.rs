//! A franz command on a real pseudo-terminal (util-linux `script`), driven as a person drives
//! it: each prompt is waited for, then answered, never typed ahead (input typed before a prompt
//! can be lost or read by the wrong one). Every wait is bounded by [`HANG`]: a command that
//! outlives it is killed and the test fails with what the terminal showed, instead of hanging.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long one wait on the terminal may take before it counts as a hang: far above any run
/// these tests start, so that a slow, loaded machine is not mistaken for a wait that never ends.
pub const HANG: Duration = Duration::from_secs(300);

/// A command line running on a pseudo-terminal, its input open until [`Terminal::close_input`]
/// or [`Terminal::finish`].
pub struct Terminal {
    child: Child,
    input: Option<ChildStdin>,
    output: Receiver<Vec<u8>>,
    seen: Vec<u8>,
    /// Where the next [`Terminal::expect`] starts looking: just past the text it last found.
    from: usize,
}

impl Terminal {
    /// Starts the shell command line `line` under `script -qec`, which gives it a real
    /// pseudo-terminal; its output (stdout and stderr both) is read on a thread of its own.
    pub fn start(line: &str) -> Terminal {
        let mut child = Command::new("script")
            .args(["-qec", line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("util-linux script");
        let input = child.stdin.take();
        let mut out = child.stdout.take().expect("piped stdout");
        let (tx, output) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Terminal {
            child,
            input,
            output,
            seen: Vec::new(),
            from: 0,
        }
    }

    /// Everything the terminal has shown so far.
    pub fn shown(&self) -> String {
        String::from_utf8_lossy(&self.seen).into_owned()
    }

    /// Waits until `what` appears after the text the last `expect` found; returns everything
    /// shown so far. Panics (the command killed) if the output ends first or [`HANG`] passes.
    pub fn expect(&mut self, what: &str) -> String {
        let deadline = Instant::now() + HANG;
        loop {
            let found = self.seen[self.from..]
                .windows(what.len())
                .position(|w| w == what.as_bytes());
            if let Some(at) = found {
                self.from += at + what.len();
                return self.shown();
            }
            if !self.receive(deadline) {
                self.fail(&format!("{what:?} before the output ended"));
            }
        }
    }

    /// Types `text` (with its own newlines, or a control byte such as `"\x03"`).
    pub fn send(&mut self, text: &str) {
        let input = self.input.as_mut().expect("the terminal's input is open");
        input
            .write_all(text.as_bytes())
            .expect("write to the terminal");
        input.flush().expect("flush the terminal");
    }

    /// Ends the terminal's input (end of file for the command).
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// Waits for the output to end and the command to exit, the input left as it is (a test
    /// that wants end of file calls [`Terminal::close_input`] first); returns the exit code and
    /// everything shown.
    pub fn finish(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + HANG;
        while self.receive(deadline) {}
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for script") {
                return (status.code(), self.shown());
            }
            if Instant::now() >= deadline {
                self.fail("the command's exit after its output ended");
            }
            // the output has ended, so the exit is moments away: poll for it
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Receives one chunk of output; false when the output has ended. Past `deadline` the
    /// command is killed and the test fails.
    fn receive(&mut self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.output.recv_timeout(left) {
            Ok(bytes) => {
                self.seen.extend_from_slice(&bytes);
                true
            }
            Err(RecvTimeoutError::Disconnected) => false,
            Err(RecvTimeoutError::Timeout) => self.fail(&format!("progress within {HANG:?}")),
        }
    }

    fn fail(&mut self, waited_for: &str) -> ! {
        let _ = self.child.kill();
        let _ = self.child.wait();
        panic!(
            "the terminal showed no {waited_for} (command killed); it showed:\n{}",
            self.shown()
        );
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
