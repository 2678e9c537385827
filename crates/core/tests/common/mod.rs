//! Test support: a private Xvfb with a desktop that acts through the real EnigoInput.
//!
//! `InputDesktop` is the X11 desktop minus screen capture (not needed to check input): its
//! pointer comes from the X server, its input is the production `EnigoInput`.

#![allow(dead_code)]

pub mod docs;

use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use franz_desktop::{
    CursorImage, Desktop, DesktopError, EnigoInput, Frame, Input, Monitor, PixelPoint, PixelRect,
};
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(15);

pub struct InputDesktop {
    monitors: Vec<Monitor>,
    input: EnigoInput,
}

impl InputDesktop {
    pub fn open(sandbox: &Sandbox, width: u32, height: u32) -> InputDesktop {
        InputDesktop {
            monitors: vec![Monitor {
                index: 0,
                name: "screen".into(),
                rect: PixelRect::new(0, 0, width, height),
                primary: true,
            }],
            input: EnigoInput::with_display(Some(sandbox.display())).unwrap(),
        }
    }
}

impl Desktop for InputDesktop {
    fn monitor(&self) -> &Monitor {
        &self.monitors[0]
    }
    fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }
    fn capture(&mut self) -> Result<Frame, DesktopError> {
        Err(DesktopError::Unsupported("capture in input tests".into()))
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        Ok(None)
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        self.input.location()
    }
    fn input(&mut self) -> &mut dyn Input {
        &mut self.input
    }
    fn describe(&self) -> String {
        "x11 input-only (tests)".into()
    }
}

pub fn sandbox(width: u32, height: u32) -> Sandbox {
    Sandbox::start(&SandboxOptions {
        width,
        height,
        launch: vec![],
    })
    .unwrap()
}

/// Polls `f` until it returns `Some`, or panics with `what` after the deadline.
pub fn poll<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Set in the child process that [`alone_in_process`] starts.
const ALONE: &str = "FRANZ_TEST_ALONE_IN_PROCESS";

/// For a test that changes what every thread of its process shares (an environment variable):
/// all tests of a crate run in one process (`tests/main.rs`), on parallel threads. Outside the
/// child this runs test `name` (its path in the test binary, `module::test`) again, alone in a
/// child process of this binary, asserts that it passed and returns false; in that child it
/// returns true, and the test goes on with its body.
pub fn alone_in_process(name: &str) -> bool {
    if std::env::var_os(ALONE).is_some() {
        return true;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(ALONE, "1")
        .output()
        .expect("run the test binary again");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}, alone in its process: {text}");
    assert!(text.contains("1 passed"), "{name} did not run: {text}");
    false
}
