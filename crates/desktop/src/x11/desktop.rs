//! The X11 desktop: capture through x11rb (MIT-SHM, else GetImage), monitors through RandR,
//! the cursor through XFixes; input through enigo (`input.rs`, opened on first use by
//! `deferred_input.rs`).
//!
//! - [`X11Desktop::open`] connects to `DesktopOptions::display`, else `$DISPLAY`
//!   ([`resolve_display`] says what happens without one: Wayland and no-display errors that
//!   name `--sandbox`). It sets no environment variable, and its input connects to the same
//!   display by name (see `deferred_input`): `$DISPLAY` is read at open only, when no
//!   display is given.
//! - Capture reads the selected monitor's rect of the root window. MIT-SHM is tried first,
//!   with one segment reused by every capture; GetImage is the fallback when the server has no
//!   SHM, cannot attach our segment (a remote display), when SHM fails later, or when
//!   `FRANZ_X11_NO_SHM=1`. [`Desktop::describe`] says which one runs.
//! - Only 24/32-bit TrueColor visuals stored as 32 bits per pixel are read; others fail at open.

use super::connection::{self, Opened, resolve_display};
use super::deferred_input::DeferredInput;
use super::shm::ShmSegment;
use super::{cursor, getimage, monitors, window_at, window_tools};
use crate::{
    CursorImage, Desktop, DesktopError, DesktopOptions, Frame, FrameView, Input, Monitor,
    PixelPoint, PixelRect, WindowInfo,
};
use std::ffi::OsStr;
use x11rb::protocol::xproto::Window;
use x11rb::rust_connection::RustConnection;

/// How to read pixels from the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureMethod {
    /// MIT-SHM when it works, else GetImage.
    Auto,
    /// Always GetImage.
    GetImage,
}

impl CaptureMethod {
    /// The method `FRANZ_X11_NO_SHM` asks for: set to anything but empty, `0` or `false`,
    /// it forces GetImage.
    pub fn from_env_value(no_shm: Option<&OsStr>) -> CaptureMethod {
        match no_shm.and_then(OsStr::to_str).map(str::trim) {
            None | Some("" | "0" | "false") => CaptureMethod::Auto,
            Some(_) => CaptureMethod::GetImage,
        }
    }
}

/// Where capture reads from now.
enum Path {
    Shm(ShmSegment),
    /// GetImage, and why (for `describe`).
    GetImage(String),
}

/// One monitor of an X display.
pub struct X11Desktop {
    conn: RustConnection,
    root: Window,
    display: String,
    monitors: Vec<Monitor>,
    selected: usize,
    path: Path,
    xfixes: bool,
    input: DeferredInput,
}

impl X11Desktop {
    /// Opens the display of `options` (else `$DISPLAY`), honouring `FRANZ_X11_NO_SHM`.
    pub fn open(options: &DesktopOptions) -> Result<Self, DesktopError> {
        let display = resolve_display(
            options.display.as_deref(),
            std::env::var_os("DISPLAY").as_deref(),
            std::env::var_os("WAYLAND_DISPLAY").as_deref(),
        )?;
        let method = CaptureMethod::from_env_value(std::env::var_os("FRANZ_X11_NO_SHM").as_deref());
        Self::open_display(&display, options.monitor, method)
    }

    /// Opens `display` (e.g. `:3`), reading the environment for nothing.
    pub fn open_display(
        display: &str,
        monitor: Option<usize>,
        method: CaptureMethod,
    ) -> Result<Self, DesktopError> {
        let Opened { conn, screen } = connection::connect(display)?;
        let monitors = monitors::list(&conn, &screen)?;
        let selected = crate::select_monitor(&monitors, monitor)?;
        let rect = monitors[selected].rect;
        let path = match method {
            CaptureMethod::GetImage => Path::GetImage("FRANZ_X11_NO_SHM is set".into()),
            CaptureMethod::Auto => open_shm(&conn, screen.root, rect)?,
        };
        let xfixes = cursor::init_xfixes(&conn)?;
        let desktop = X11Desktop {
            conn,
            root: screen.root,
            display: display.to_string(),
            monitors,
            selected,
            path,
            xfixes,
            input: DeferredInput::new(display),
        };
        tracing::info!(desktop = desktop.describe(), "opened");
        Ok(desktop)
    }

    /// `"shm"` or `"getimage"`: how the next capture reads pixels.
    pub fn capture_method(&self) -> &'static str {
        match self.path {
            Path::Shm(_) => "shm",
            Path::GetImage(_) => "getimage",
        }
    }
}

/// Sets up SHM for captures of `rect`, or says why GetImage it is.
fn open_shm(conn: &RustConnection, root: Window, rect: PixelRect) -> Result<Path, DesktopError> {
    let size = rect.width as usize * rect.height as usize * 4;
    let mut seg = match ShmSegment::attach(conn, size) {
        Ok(seg) => seg,
        Err(reason) => {
            tracing::info!(reason, "MIT-SHM unavailable: capturing with GetImage");
            return Ok(Path::GetImage(reason));
        }
    };
    if seg.verify(conn, root, rect)? {
        Ok(Path::Shm(seg))
    } else {
        seg.detach(conn);
        let reason = "the server attached a different segment (remote display?)".to_string();
        tracing::info!(reason, "MIT-SHM unusable: capturing with GetImage");
        Ok(Path::GetImage(reason))
    }
}

/// `rect` as the types of an X image request.
pub(super) fn request_rect(rect: PixelRect) -> Result<(i16, i16, u16, u16), DesktopError> {
    let bad = || DesktopError::Capture(format!("rect {rect:?} is outside X11's coordinate range"));
    Ok((
        i16::try_from(rect.x).map_err(|_| bad())?,
        i16::try_from(rect.y).map_err(|_| bad())?,
        u16::try_from(rect.width).map_err(|_| bad())?,
        u16::try_from(rect.height).map_err(|_| bad())?,
    ))
}

impl Desktop for X11Desktop {
    fn monitor(&self) -> &Monitor {
        &self.monitors[self.selected]
    }

    fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }

    fn capture(&mut self) -> Result<Frame, DesktopError> {
        let mut frame = None;
        self.capture_view(&mut |v| {
            frame = Some(Frame::from_bgrx(v.width, v.height, v.data, v.stride));
        })?;
        frame.ok_or_else(|| DesktopError::Capture("the capture lent no pixels".into()))
    }

    fn capture_view(&mut self, with: &mut dyn FnMut(FrameView<'_>)) -> Result<(), DesktopError> {
        let rect = self.monitors[self.selected].rect;
        // a fn, not a closure: each call lends its own borrow
        fn view(rect: PixelRect, data: &[u8]) -> FrameView<'_> {
            FrameView {
                width: rect.width,
                height: rect.height,
                stride: rect.width as usize * 4,
                data,
            }
        }
        if let Path::Shm(seg) = &mut self.path {
            let failed = match seg.get_image(&self.conn, self.root, rect) {
                Ok(bytes) => {
                    with(view(rect, bytes));
                    None
                }
                Err(e) => Some(e),
            };
            let Some(e) = failed else {
                return Ok(());
            };
            tracing::warn!(error = %e, "MIT-SHM capture failed: switching to GetImage");
            seg.detach(&self.conn);
            self.path = Path::GetImage(format!("SHM capture failed: {e}"));
        }
        let bytes = getimage::get_image(&self.conn, self.root, rect)?;
        with(view(rect, &bytes));
        Ok(())
    }

    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        if !self.xfixes {
            return Ok(None);
        }
        cursor::cursor_image(&self.conn).map(Some)
    }

    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        cursor::pointer(&self.conn, self.root)
    }

    fn window_at(&mut self, p: PixelPoint) -> Result<Option<crate::PointedWindow>, DesktopError> {
        window_at::window_at(&self.conn, self.root, p)
    }

    fn input(&mut self) -> &mut dyn Input {
        &mut self.input
    }

    fn describe(&self) -> String {
        let m = &self.monitors[self.selected];
        let how = match &self.path {
            Path::Shm(_) => "MIT-SHM".to_string(),
            Path::GetImage(why) => format!("GetImage ({why})"),
        };
        format!(
            "x11 {} monitor {} {:?} {}x{}+{}+{}, capture: {how}",
            self.display, m.index, m.name, m.rect.width, m.rect.height, m.rect.x, m.rect.y
        )
    }

    fn windows(&mut self) -> Result<Vec<WindowInfo>, DesktopError> {
        window_tools::list(&self.conn, self.root)
    }

    fn focus_window(&mut self, id: u64) -> Result<(), DesktopError> {
        window_tools::focus(&self.conn, self.root, id)
    }
}

impl Drop for X11Desktop {
    fn drop(&mut self) {
        if let Path::Shm(seg) = &self.path {
            seg.detach(&self.conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_shm_env_values() {
        let m = |v: &str| CaptureMethod::from_env_value(Some(OsStr::new(v)));
        assert_eq!(CaptureMethod::from_env_value(None), CaptureMethod::Auto);
        assert_eq!(m(""), CaptureMethod::Auto);
        assert_eq!(m("0"), CaptureMethod::Auto);
        assert_eq!(m("false"), CaptureMethod::Auto);
        assert_eq!(m("1"), CaptureMethod::GetImage);
        assert_eq!(m("yes"), CaptureMethod::GetImage);
    }

    #[test]
    fn request_rect_range() {
        assert_eq!(
            request_rect(PixelRect::new(10, 20, 1920, 1080)).unwrap(),
            (10, 20, 1920, 1080)
        );
        assert!(request_rect(PixelRect::new(0, 0, 70_000, 10)).is_err());
    }
}
