//! A desktop with no OS behind it, for tests and benchmarks: a blank screen of a given size
//! that records every input it is sent. Clones of its [`FakeLog`] read what it got while the
//! desktop itself is lent to an engine (on another thread, too), and can move its pointer the
//! way a person at the desk would ([`FakeLog::move_pointer`]).

use crate::{
    Button, CursorImage, Desktop, DesktopError, Frame, Input, Key, Monitor, PixelPoint, PixelRect,
    Press, ScrollDirection,
};
use std::sync::{Arc, Mutex, MutexGuard};

/// One input the fake desktop was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    Move(PixelPoint),
    Button(Button, Press),
    Scroll(ScrollDirection, u32),
    Key(Key, Press),
    Text(String),
}

#[derive(Debug)]
struct Record {
    sent: Vec<Sent>,
    captures: usize,
    /// Where the pointer is (set by `move_to` and by [`FakeLog::move_pointer`]).
    pointer: PixelPoint,
}

impl Default for Record {
    fn default() -> Self {
        Record {
            sent: Vec::new(),
            captures: 0,
            pointer: PixelPoint::new(0, 0),
        }
    }
}

/// What a [`FakeDesktop`] was sent and how often it was captured.
#[derive(Debug, Clone, Default)]
pub struct FakeLog {
    record: Arc<Mutex<Record>>,
}

impl FakeLog {
    fn lock(&self) -> MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every input so far, in order.
    pub fn sent(&self) -> Vec<Sent> {
        self.lock().sent.clone()
    }

    pub fn captures(&self) -> usize {
        self.lock().captures
    }

    /// Moves the pointer as a person would (not recorded as input sent by franz).
    pub fn move_pointer(&self, p: PixelPoint) {
        self.lock().pointer = p;
    }

    /// The buttons and keys down after everything sent so far, as the OS would see them.
    pub fn held(&self) -> Vec<Sent> {
        let mut down: Vec<Sent> = Vec::new();
        for s in self.lock().sent.iter() {
            match s {
                Sent::Button(_, Press::Down) | Sent::Key(_, Press::Down) => down.push(s.clone()),
                Sent::Button(b, Press::Up) => down.retain(|d| *d != Sent::Button(*b, Press::Down)),
                Sent::Key(k, Press::Up) => down.retain(|d| *d != Sent::Key(*k, Press::Down)),
                _ => {}
            }
        }
        down
    }
}

/// A blank screen that records input.
#[derive(Debug)]
pub struct FakeDesktop {
    monitors: Vec<Monitor>,
    log: FakeLog,
}

impl FakeDesktop {
    /// One monitor of `width` x `height` at the origin, the pointer in its middle.
    pub fn new(width: u32, height: u32) -> Self {
        let log = FakeLog::default();
        log.move_pointer(PixelPoint::new(width as i32 / 2, height as i32 / 2));
        Self {
            monitors: vec![Monitor {
                index: 0,
                name: "fake".into(),
                rect: PixelRect::new(0, 0, width, height),
                primary: true,
            }],
            log,
        }
    }

    /// A handle on what this desktop is sent.
    pub fn log(&self) -> FakeLog {
        self.log.clone()
    }

    fn push(&self, s: Sent) {
        self.log.lock().sent.push(s);
    }
}

impl Desktop for FakeDesktop {
    fn monitor(&self) -> &Monitor {
        &self.monitors[0]
    }
    fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }
    fn capture(&mut self) -> Result<Frame, DesktopError> {
        self.log.lock().captures += 1;
        let r = self.monitors[0].rect;
        let stride = r.width as usize * 4;
        // mid grey, opaque
        let mut data = vec![128u8; stride * r.height as usize];
        data.iter_mut().skip(3).step_by(4).for_each(|a| *a = 255);
        Ok(Frame {
            width: r.width,
            height: r.height,
            stride,
            data,
        })
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        Ok(None)
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        Ok(self.log.lock().pointer)
    }
    fn input(&mut self) -> &mut dyn Input {
        self
    }
    fn describe(&self) -> String {
        "fake desktop (no OS)".into()
    }
}

impl Input for FakeDesktop {
    fn move_to(&mut self, p: PixelPoint) -> Result<(), DesktopError> {
        let mut record = self.log.lock();
        record.pointer = p;
        record.sent.push(Sent::Move(p));
        Ok(())
    }
    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError> {
        self.push(Sent::Button(button, press));
        Ok(())
    }
    fn scroll(&mut self, direction: ScrollDirection, notches: u32) -> Result<(), DesktopError> {
        self.push(Sent::Scroll(direction, notches));
        Ok(())
    }
    fn key(&mut self, key: Key, press: Press) -> Result<(), DesktopError> {
        self.push(Sent::Key(key, press));
        Ok(())
    }
    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        self.push(Sent::Text(text.into()));
        Ok(())
    }
    fn sync(&mut self) -> Result<(), DesktopError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_input_and_captures_a_blank_screen() {
        let mut d = FakeDesktop::new(64, 32);
        let log = d.log();
        let f = d.capture().unwrap();
        assert_eq!((f.width, f.height, f.data.len()), (64, 32, 64 * 32 * 4));
        assert_eq!(&f.data[..4], &[128, 128, 128, 255]);
        d.input().move_to(PixelPoint::new(3, 4)).unwrap();
        d.input().button(Button::Left, Press::Down).unwrap();
        assert_eq!(d.pointer().unwrap(), PixelPoint::new(3, 4));
        assert_eq!(log.captures(), 1);
        assert_eq!(log.held(), [Sent::Button(Button::Left, Press::Down)]);
        d.input().button(Button::Left, Press::Up).unwrap();
        assert!(log.held().is_empty());
        assert_eq!(log.sent().len(), 3);
        log.move_pointer(PixelPoint::new(0, 0));
        assert_eq!(d.pointer().unwrap(), PixelPoint::new(0, 0));
        assert_eq!(log.sent().len(), 3);
    }
}
