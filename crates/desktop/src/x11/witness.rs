//! The X11 witness window ([`crate::witness`]): a small x11rb window that logs every pointer and
//! key event it receives, with root pixel coordinates, buttons (4-7 are scroll notches), keysyms
//! and the modifier state; and the press witness on X11, which is this window.
//!
//! [`Witness::open_counter`] opens one that also repaints a click counter (the count in binary,
//! eight 16x16 squares at its centre) on every left click: a screen that changes where it is
//! clicked, for the loop breaker's tests.
//!
//! `Witness::open` returns once the window is mapped and viewable (it waits for the first
//! Expose) and holds the keyboard focus. A thread reads events into a shared log that callers
//! inspect with [`Witness::events`] or wait on with [`Witness::wait_for`].

use crate::witness::{WitnessEvent, WitnessKind};
use crate::{DesktopError, PixelPoint, PixelRect};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt as _, CreateWindowAux, EventMask, InputFocus,
    PropMode, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

type Log = Arc<(Mutex<Vec<WitnessEvent>>, Condvar)>;

/// The window and its event thread; both end on drop.
pub struct Witness {
    conn: Arc<RustConnection>,
    window: u32,
    rect: PixelRect,
    log: Log,
    thread: Option<JoinHandle<()>>,
}

fn x_err(e: impl std::fmt::Display) -> DesktopError {
    DesktopError::X11(e.to_string())
}

/// Which witness window [`Witness::open_with`] opens.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Counter,
    Application,
}

impl Witness {
    /// Opens a witness window at `rect` (root pixels) on `display`, mapped, viewable and
    /// focused.
    pub fn open(display: &str, rect: PixelRect) -> Result<Witness, DesktopError> {
        Self::open_with(display, rect, Kind::Plain)
    }

    /// A witness window that also repaints a counter of left clicks at its centre.
    pub fn open_counter(display: &str, rect: PixelRect) -> Result<Witness, DesktopError> {
        Self::open_with(display, rect, Kind::Counter)
    }

    /// A witness that is an application window as the window tools see it (`windows()`,
    /// `observe_area`): not override-redirect, with the `WM_CLASS` `franz-witness`. Without a
    /// window manager it stays at `rect`; with one, the manager may move it.
    pub fn open_window(display: &str, rect: PixelRect) -> Result<Witness, DesktopError> {
        Self::open_with(display, rect, Kind::Application)
    }

    fn open_with(display: &str, rect: PixelRect, kind: Kind) -> Result<Witness, DesktopError> {
        let (conn, screen_num) =
            x11rb::connect(Some(display)).map_err(|e| DesktopError::NoDisplay {
                display: display.to_string(),
                reason: e.to_string(),
            })?;
        let screen = &conn.setup().roots[screen_num];
        let root = screen.root;
        let window = conn.generate_id().map_err(x_err)?;
        let mask = EventMask::POINTER_MOTION
            | EventMask::BUTTON_PRESS
            | EventMask::BUTTON_RELEASE
            | EventMask::KEY_PRESS
            | EventMask::KEY_RELEASE
            | EventMask::EXPOSURE
            | EventMask::STRUCTURE_NOTIFY;
        let aux = CreateWindowAux::new()
            .background_pixel(0x00ff_ffff)
            // no window manager moves it (an application window is the manager's to place)
            .override_redirect(u32::from(kind != Kind::Application))
            .event_mask(mask);
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            window,
            root,
            clamp16(rect.x),
            clamp16(rect.y),
            clamp16u(rect.width),
            clamp16u(rect.height),
            0,
            WindowClass::INPUT_OUTPUT,
            x11rb::COPY_FROM_PARENT,
            &aux,
        )
        .map_err(x_err)?;
        conn.change_property8(
            PropMode::REPLACE,
            window,
            AtomEnum::WM_NAME,
            AtomEnum::STRING,
            b"franz witness",
        )
        .map_err(x_err)?;
        if kind == Kind::Application {
            conn.change_property8(
                PropMode::REPLACE,
                window,
                AtomEnum::WM_CLASS,
                AtomEnum::STRING,
                b"franz-witness\0FranzWitness\0",
            )
            .map_err(x_err)?;
        }
        conn.map_window(window).map_err(x_err)?;
        conn.flush().map_err(x_err)?;
        // Viewable once the server sends Expose (after MapNotify).
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match conn.poll_for_event().map_err(x_err)? {
                Some(Event::Expose(e)) if e.window == window => break,
                Some(_) => {}
                None if Instant::now() > deadline => {
                    return Err(DesktopError::X11(
                        "the witness window was never exposed".into(),
                    ));
                }
                None => std::thread::sleep(Duration::from_millis(2)),
            }
        }
        conn.set_input_focus(InputFocus::POINTER_ROOT, window, x11rb::CURRENT_TIME)
            .map_err(x_err)?;
        conn.sync().map_err(x_err)?;

        let counter = if kind == Kind::Counter {
            Some(Counter::new(&conn, window, rect)?)
        } else {
            None
        };
        let conn = Arc::new(conn);
        let log: Log = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let thread = {
            let (conn, log) = (Arc::clone(&conn), Arc::clone(&log));
            std::thread::Builder::new()
                .name("witness".into())
                .spawn(move || read_events(&conn, window, &log, counter))
                .map_err(DesktopError::Io)?
        };
        Ok(Witness {
            conn,
            window,
            rect,
            log,
            thread: Some(thread),
        })
    }

    /// Where the window is, in root pixels.
    pub fn rect(&self) -> PixelRect {
        self.rect
    }

    /// Gives the window the keyboard focus again.
    pub fn focus(&self) -> Result<(), DesktopError> {
        self.conn
            .set_input_focus(InputFocus::POINTER_ROOT, self.window, x11rb::CURRENT_TIME)
            .map_err(x_err)?;
        self.conn.sync().map_err(x_err)
    }

    /// Where the pointer is now, in root pixels.
    pub fn pointer(&self) -> Result<PixelPoint, DesktopError> {
        let r = self
            .conn
            .query_pointer(self.window)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok(PixelPoint::new(r.root_x.into(), r.root_y.into()))
    }

    /// Every event so far.
    pub fn events(&self) -> Vec<WitnessEvent> {
        self.log.0.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// Forgets the events so far.
    pub fn clear(&self) {
        if let Ok(mut v) = self.log.0.lock() {
            v.clear();
        }
    }

    /// Waits until `done(events)` holds, or `timeout` passes; returns the events either way
    /// and whether it held.
    pub fn wait_for(
        &self,
        done: impl Fn(&[WitnessEvent]) -> bool,
        timeout: Duration,
    ) -> (bool, Vec<WitnessEvent>) {
        let deadline = Instant::now() + timeout;
        let (lock, cond) = &*self.log;
        let Ok(mut events) = lock.lock() else {
            return (false, Vec::new());
        };
        loop {
            if done(&events) {
                return (true, events.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                return (false, events.clone());
            }
            events = match cond.wait_timeout(events, deadline - now) {
                Ok((e, _)) => e,
                Err(_) => return (false, Vec::new()),
            };
        }
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        // Wake the reader with a message to our own window, then close.
        let quit = ClientMessageEvent::new(32, self.window, AtomEnum::NOTICE, [0u32; 5]);
        let _ = self
            .conn
            .send_event(false, self.window, EventMask::NO_EVENT, quit);
        let _ = self.conn.destroy_window(self.window);
        let _ = self.conn.flush();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The X11 witness window as far as left presses go (`franz calibrate`, `franz doctor`).
pub struct PressWitness(Witness);

impl PressWitness {
    /// Opens a witness window over `rect` on `display`, which X11 needs.
    pub fn open(display: Option<&str>, rect: PixelRect) -> Result<PressWitness, DesktopError> {
        let display = display.ok_or_else(|| DesktopError::NoDisplay {
            display: "(none)".into(),
            reason: "no X display was given".into(),
        })?;
        Witness::open(display, rect).map(PressWitness)
    }

    /// Waits until `n` left presses arrived or `timeout` passed; where the presses landed.
    pub fn wait_presses(&self, n: usize, timeout: Duration) -> Vec<PixelPoint> {
        let presses = |ev: &[WitnessEvent]| {
            ev.iter()
                .filter(|e| e.is(WitnessKind::ButtonPress))
                .map(|e| e.at)
                .collect::<Vec<_>>()
        };
        let (_, events) = self.0.wait_for(|ev| presses(ev).len() >= n, timeout);
        presses(&events)
    }

    /// The monitor's DPI, which X11 does not tell.
    pub fn dpi(&self) -> Option<u32> {
        None
    }
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}
fn clamp16u(v: u32) -> u16 {
    v.clamp(1, u16::MAX as u32) as u16
}

/// The keyboard map, for keysyms of key events.
struct KeyMap {
    min: u8,
    per: usize,
    syms: Vec<u32>,
}

impl KeyMap {
    fn read(conn: &RustConnection) -> Option<KeyMap> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let r = conn
            .get_keyboard_mapping(min, max - min + 1)
            .ok()?
            .reply()
            .ok()?;
        Some(KeyMap {
            min,
            per: r.keysyms_per_keycode.max(1) as usize,
            syms: r.keysyms,
        })
    }
    fn keysym(&self, keycode: u8) -> u32 {
        let i = keycode.saturating_sub(self.min) as usize * self.per;
        self.syms.get(i).copied().unwrap_or(0)
    }
}

/// The click counter's drawing state: two GCs (black, white) and the window's size.
struct Counter {
    window: u32,
    black: u32,
    white: u32,
    width: u32,
    height: u32,
    count: u32,
}

impl Counter {
    const SIDE: u16 = 16;

    fn new(conn: &RustConnection, window: u32, rect: PixelRect) -> Result<Counter, DesktopError> {
        use x11rb::protocol::xproto::CreateGCAux;
        let black = conn.generate_id().map_err(x_err)?;
        conn.create_gc(black, window, &CreateGCAux::new().foreground(0))
            .map_err(x_err)?;
        let white = conn.generate_id().map_err(x_err)?;
        conn.create_gc(white, window, &CreateGCAux::new().foreground(0x00ff_ffff))
            .map_err(x_err)?;
        Ok(Counter {
            window,
            black,
            white,
            width: rect.width,
            height: rect.height,
            count: 0,
        })
    }

    /// Counts a click and paints the count: bit i is square i, black when set.
    fn click(&mut self, conn: &RustConnection) {
        use x11rb::protocol::xproto::Rectangle;
        self.count += 1;
        let side = Self::SIDE as i32;
        let x0 = self.width as i32 / 2 - 4 * (side + 4);
        let y0 = self.height as i32 / 2 - side / 2;
        for bit in 0..8 {
            let gc = if self.count & (1 << bit) != 0 {
                self.black
            } else {
                self.white
            };
            let r = Rectangle {
                x: clamp16(x0 + (7 - bit) * (side + 4)),
                y: clamp16(y0),
                width: Self::SIDE,
                height: Self::SIDE,
            };
            let _ = conn.poly_fill_rectangle(self.window, gc, &[r]);
        }
        let _ = conn.flush();
    }
}

fn read_events(conn: &RustConnection, window: u32, log: &Log, mut counter: Option<Counter>) {
    let mut keymap = KeyMap::read(conn);
    loop {
        let Ok(event) = conn.wait_for_event() else {
            return;
        };
        let seen = Instant::now();
        let e = match event {
            Event::ClientMessage(m) if m.window == window => return,
            Event::DestroyNotify(d) if d.window == window => return,
            Event::MappingNotify(_) => {
                keymap = KeyMap::read(conn);
                continue;
            }
            Event::MotionNotify(e) => ev(
                WitnessKind::Motion,
                e.root_x,
                e.root_y,
                0,
                0,
                e.state.into(),
                seen,
            ),
            Event::ButtonPress(e) => {
                if let (Some(c), 1) = (counter.as_mut(), e.detail) {
                    c.click(conn);
                }
                ev(
                    WitnessKind::ButtonPress,
                    e.root_x,
                    e.root_y,
                    e.detail,
                    0,
                    e.state.into(),
                    seen,
                )
            }
            Event::ButtonRelease(e) => ev(
                WitnessKind::ButtonRelease,
                e.root_x,
                e.root_y,
                e.detail,
                0,
                e.state.into(),
                seen,
            ),
            Event::KeyPress(e) => {
                let sym = keymap.as_ref().map_or(0, |k| k.keysym(e.detail));
                ev(
                    WitnessKind::KeyPress,
                    e.root_x,
                    e.root_y,
                    e.detail,
                    sym,
                    e.state.into(),
                    seen,
                )
            }
            Event::KeyRelease(e) => {
                let sym = keymap.as_ref().map_or(0, |k| k.keysym(e.detail));
                ev(
                    WitnessKind::KeyRelease,
                    e.root_x,
                    e.root_y,
                    e.detail,
                    sym,
                    e.state.into(),
                    seen,
                )
            }
            _ => continue,
        };
        let (lock, cond) = &**log;
        if let Ok(mut v) = lock.lock() {
            v.push(e);
        }
        cond.notify_all();
    }
}

fn ev(
    kind: WitnessKind,
    x: i16,
    y: i16,
    detail: u8,
    keysym: u32,
    state: u16,
    seen: Instant,
) -> WitnessEvent {
    WitnessEvent {
        kind,
        at: PixelPoint::new(x.into(), y.into()),
        detail,
        keysym,
        state,
        seen,
    }
}
