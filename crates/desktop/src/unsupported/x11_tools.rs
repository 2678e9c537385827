//! The X11 tools on a system without X11: the same types and calls as `x11/`, each answering
//! [`DesktopError::NeedsX11`]. A [`Sandbox`] or a [`Witness`] is never made here; [`Programs`]
//! is an empty list that launches nothing.

use crate::held::HeldState;
use crate::sandbox::SandboxOptions;
use crate::witness::WitnessEvent;
use crate::{DesktopError, PixelPoint, PixelRect, TopWindow};
use std::convert::Infallible;
use std::process::Child;
use std::time::Duration;

fn needs_x11(what: &str) -> DesktopError {
    DesktopError::NeedsX11(what.to_string())
}

/// Never made: [`Sandbox::start`] says the sandbox needs X11.
pub struct Sandbox {
    never: Infallible,
}

impl Sandbox {
    pub fn start(options: &SandboxOptions) -> Result<Sandbox, DesktopError> {
        let _ = options;
        Err(needs_x11("the sandbox (a private Xvfb desktop)"))
    }
    pub fn display(&self) -> &str {
        match self.never {}
    }
    pub fn xvfb_pid(&self) -> u32 {
        match self.never {}
    }
    pub fn programs(&mut self) -> &mut Programs {
        match self.never {}
    }
    pub fn app_pids(&self) -> Vec<u32> {
        match self.never {}
    }
    pub fn launch(&mut self, command: &str) -> Result<u32, DesktopError> {
        let _ = command;
        match self.never {}
    }
    pub fn launch_piped(&mut self, command: &str) -> Result<Child, DesktopError> {
        let _ = command;
        match self.never {}
    }
    pub fn wait_for_windows(&self, count: usize, timeout: Duration) -> bool {
        let _ = (count, timeout);
        match self.never {}
    }
    pub fn stop(&mut self) {
        match self.never {}
    }
}

/// No programs, and none can be launched: there is no X display to launch them on.
pub struct Programs {
    display: String,
}

impl Programs {
    pub fn new(display: &str) -> Self {
        Self {
            display: display.to_string(),
        }
    }
    pub fn launch_all(&mut self, commands: &[String]) -> Result<(), DesktopError> {
        commands.iter().try_for_each(|c| self.launch(c).map(drop))
    }
    pub fn wait_for_windows(&self, count: usize, timeout: Duration) -> bool {
        let _ = (count, timeout);
        false
    }
    pub fn pids(&self) -> Vec<u32> {
        Vec::new()
    }
    pub fn launch(&mut self, command: &str) -> Result<u32, DesktopError> {
        Err(self.cannot_launch(command))
    }
    pub fn launch_piped(&mut self, command: &str) -> Result<Child, DesktopError> {
        Err(self.cannot_launch(command))
    }
    fn cannot_launch(&self, command: &str) -> DesktopError {
        needs_x11(&format!(
            "launching {command:?} on X display {}",
            self.display
        ))
    }
    pub fn stop(&mut self) {}
}

/// Never made: [`Witness::open`] says the X11 witness window needs X11.
pub struct Witness {
    never: Infallible,
}

impl Witness {
    pub fn open(display: &str, rect: PixelRect) -> Result<Witness, DesktopError> {
        let _ = (display, rect);
        Err(needs_x11("the X11 witness window"))
    }
    pub fn open_counter(display: &str, rect: PixelRect) -> Result<Witness, DesktopError> {
        Self::open(display, rect)
    }
    pub fn open_window(display: &str, rect: PixelRect) -> Result<Witness, DesktopError> {
        Self::open(display, rect)
    }
    pub fn rect(&self) -> PixelRect {
        match self.never {}
    }
    pub fn focus(&self) -> Result<(), DesktopError> {
        match self.never {}
    }
    pub fn pointer(&self) -> Result<PixelPoint, DesktopError> {
        match self.never {}
    }
    pub fn events(&self) -> Vec<WitnessEvent> {
        match self.never {}
    }
    pub fn clear(&self) {
        match self.never {}
    }
    pub fn wait_for(
        &self,
        done: impl Fn(&[WitnessEvent]) -> bool,
        timeout: Duration,
    ) -> (bool, Vec<WitnessEvent>) {
        let _ = (done, timeout);
        match self.never {}
    }
}

pub fn held_state(display: &str) -> Result<HeldState, DesktopError> {
    let _ = display;
    Err(needs_x11("asking a display what is held down"))
}

pub fn top_windows(display: &str) -> Result<Vec<TopWindow>, DesktopError> {
    let _ = display;
    Err(needs_x11("listing the windows of an X display"))
}

pub fn viewable_windows(display: &str) -> Result<usize, DesktopError> {
    let _ = display;
    Err(needs_x11("counting the windows of an X display"))
}

pub fn wm_running(display: &str) -> Result<bool, DesktopError> {
    let _ = display;
    Err(needs_x11("a window manager"))
}

pub fn wm_start(programs: &mut Programs, display: &str) -> Result<&'static str, DesktopError> {
    let _ = (programs, display);
    Err(needs_x11("a window manager (--wm)"))
}
