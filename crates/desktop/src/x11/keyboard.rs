//! Exact Unicode typing on X11: every keysym a string needs is bound to a spare keycode
//! *before* the string is typed, and a keycode is never rebound while a client may still be
//! reading events for it.
//!
//! Why: XTest sends keycodes, not characters. A character that is not on the keyboard map
//! needs a keycode bound to its keysym (ChangeKeyboardMapping). A client (xterm, a browser)
//! turns a keycode into a character only when it *processes* the key event, using the map as
//! it is at that moment (it refetches the map after a MappingNotify). enigo's `text()` binds
//! each missing character on the fly and rebinds keycodes as it goes, so when the client lags
//! behind, an earlier key event is read with a later binding and characters are lost or
//! swapped: typing 200 characters into xterm lost some in most runs.
//!
//! What this module does instead:
//! - Characters at level 0 of the current map use their keycode as is; level 1 (uppercase,
//!   `!`, ...) use it with Shift held; everything else (ü, 你, ½, ...) is bound to one of the
//!   keycodes that were empty when we connected, both levels set to the keysym, so no
//!   modifier is involved.
//! - A string is split into segments whose missing keysyms all fit into the spare keycodes
//!   at once (usually the whole string is one segment: ~19 spares in a stock Xvfb keymap).
//!   Every binding of a segment is sent, then one round trip (GetInputFocus) makes sure the
//!   server has applied them (and queued the MappingNotify) before the first key event.
//! - Bindings stay in place across calls (a cache, least recently used evicted first). A
//!   keycode typed in the last [`REBIND_GRACE`] is not rebound until the grace has passed: a
//!   round trip proves the *server* has the events, not that the *client* has read them, so
//!   this delay is the only guard there is, and it is paid only when a text needs more
//!   distinct unusual characters than there are spare keycodes.
//! - On drop, the spare keycodes are emptied again, after the same grace.

use crate::DesktopError;
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

/// How long a keycode stays bound after it was last typed, before it may be rebound.
pub(crate) const REBIND_GRACE: Duration = Duration::from_millis(250);

const NO_SYMBOL: u32 = 0;
const XK_RETURN: u32 = 0xff0d;
const XK_TAB: u32 = 0xff09;
const XK_BACKSPACE: u32 = 0xff08;

/// One key to tap: a keycode, with Shift held or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stroke {
    pub keycode: u8,
    pub shift: bool,
}

/// A spare keycode and what we bound to it.
#[derive(Debug, Clone)]
struct Spare {
    keycode: u8,
    keysym: Option<u32>,
    last_used: Option<Instant>,
}

/// The keyboard map and our bindings on spare keycodes.
pub(crate) struct KeyBinder {
    conn: RustConnection,
    min_keycode: u8,
    max_keycode: u8,
    per_keycode: usize,
    map: Vec<u32>,
    spares: Vec<Spare>,
}

fn x_err(e: impl std::fmt::Display) -> DesktopError {
    DesktopError::X11(e.to_string())
}

/// The keysym that types `c`.
pub(crate) fn keysym_for(c: char) -> Result<u32, DesktopError> {
    let cp = c as u32;
    Ok(match c {
        '\n' | '\r' => XK_RETURN,
        '\t' => XK_TAB,
        '\u{8}' => XK_BACKSPACE,
        _ if c.is_control() => {
            return Err(DesktopError::Input(format!(
                "cannot type the control character U+{cp:04X}"
            )));
        }
        // Latin-1 keysyms equal their code points; the rest are 0x01000000 + code point.
        _ if (0x20..=0x7e).contains(&cp) || (0xa0..=0xff).contains(&cp) => cp,
        _ => 0x0100_0000 + cp,
    })
}

impl KeyBinder {
    /// Connects to `display` (`None`: `$DISPLAY`) and notes which keycodes are empty.
    pub(crate) fn connect(display: Option<&str>) -> Result<Self, DesktopError> {
        let (conn, _) = x11rb::connect(display).map_err(|e| DesktopError::NoDisplay {
            display: display.unwrap_or("$DISPLAY").to_string(),
            reason: e.to_string(),
        })?;
        let setup = conn.setup();
        let (min_keycode, max_keycode) = (setup.min_keycode, setup.max_keycode);
        let mut binder = KeyBinder {
            conn,
            min_keycode,
            max_keycode,
            per_keycode: 1,
            map: Vec::new(),
            spares: Vec::new(),
        };
        binder.refresh_map()?;
        binder.spares = (min_keycode..=max_keycode)
            .filter(|&k| binder.syms_of(k).iter().all(|&s| s == NO_SYMBOL))
            .map(|keycode| Spare {
                keycode,
                keysym: None,
                last_used: None,
            })
            .collect();
        tracing::debug!(spares = binder.spares.len(), "keyboard map read");
        Ok(binder)
    }

    /// One round trip: returns once the server has processed every request sent so far.
    pub(crate) fn sync(&self) -> Result<(), DesktopError> {
        self.conn
            .get_input_focus()
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        Ok(())
    }

    fn refresh_map(&mut self) -> Result<(), DesktopError> {
        let count = self.max_keycode - self.min_keycode + 1;
        let reply = self
            .conn
            .get_keyboard_mapping(self.min_keycode, count)
            .map_err(x_err)?
            .reply()
            .map_err(x_err)?;
        self.per_keycode = reply.keysyms_per_keycode.max(1) as usize;
        self.map = reply.keysyms;
        Ok(())
    }

    fn syms_of(&self, keycode: u8) -> &[u32] {
        let i = (keycode - self.min_keycode) as usize * self.per_keycode;
        self.map.get(i..i + self.per_keycode).unwrap_or(&[])
    }

    /// Where `keysym` sits on the map outside our spares: level 0 (plain) or level 1 (Shift).
    fn on_map(&self, keysym: u32, allow_shift: bool) -> Option<Stroke> {
        let levels: &[usize] = if allow_shift { &[0, 1] } else { &[0] };
        for &level in levels {
            for keycode in self.min_keycode..=self.max_keycode {
                if self.spares.iter().any(|s| s.keycode == keycode) {
                    continue;
                }
                if self.syms_of(keycode).get(level) == Some(&keysym) {
                    return Some(Stroke {
                        keycode,
                        shift: level == 1,
                    });
                }
            }
        }
        None
    }

    fn bound(&self, keysym: u32) -> Option<u8> {
        self.spares
            .iter()
            .find(|s| s.keysym == Some(keysym))
            .map(|s| s.keycode)
    }

    /// The stroke for one key of a combo: never with Shift (that would change the combo), so a
    /// character only reachable with Shift is bound to a spare keycode.
    pub(crate) fn stroke_for_key(&mut self, c: char) -> Result<Stroke, DesktopError> {
        self.refresh_map()?;
        let keysym = keysym_for(c)?;
        if let Some(s) = self.on_map(keysym, false) {
            return Ok(s);
        }
        if self.bound(keysym).is_none() {
            self.bind_all(&[keysym], &[])?;
        }
        let keycode = self.bound(keysym).ok_or_else(|| no_room(1))?;
        self.mark_used(&[keycode]);
        Ok(Stroke {
            keycode,
            shift: false,
        })
    }

    /// Types `text` exactly: plans strokes, binds what is missing segment by segment, and
    /// calls `tap` for each stroke in order.
    pub(crate) fn type_text(
        &mut self,
        text: &str,
        mut tap: impl FnMut(Stroke) -> Result<(), DesktopError>,
    ) -> Result<(), DesktopError> {
        self.refresh_map()?;
        let syms: Vec<u32> = text.chars().map(keysym_for).collect::<Result<_, _>>()?;
        let mut i = 0;
        while i < syms.len() {
            // Grow the segment while its missing keysyms and the bindings it reuses fit.
            let mut need: Vec<u32> = Vec::new();
            let mut pinned: Vec<u8> = Vec::new();
            let mut j = i;
            while j < syms.len() {
                let s = syms[j];
                if self.on_map(s, true).is_some() || need.contains(&s) {
                } else if let Some(k) = self.bound(s) {
                    if !pinned.contains(&k) {
                        if need.len() + pinned.len() >= self.spares.len() {
                            break;
                        }
                        pinned.push(k);
                    }
                } else {
                    if need.len() + pinned.len() >= self.spares.len() {
                        break;
                    }
                    need.push(s);
                }
                j += 1;
            }
            if j == i {
                return Err(no_room(self.spares.len()));
            }
            self.bind_all(&need, &pinned)?;
            let mut used = Vec::new();
            for &s in &syms[i..j] {
                let stroke = match self.on_map(s, true) {
                    Some(st) => st,
                    None => Stroke {
                        keycode: self.bound(s).ok_or_else(|| no_room(self.spares.len()))?,
                        shift: false,
                    },
                };
                tap(stroke)?;
                if stroke_is_spare(&self.spares, stroke.keycode) {
                    used.push(stroke.keycode);
                }
            }
            self.mark_used(&used);
            i = j;
        }
        Ok(())
    }

    /// Binds each keysym of `need` to a spare keycode not in `pinned`, least recently used
    /// first, waiting out [`REBIND_GRACE`] for a keycode typed too recently; then syncs.
    fn bind_all(&mut self, need: &[u32], pinned: &[u8]) -> Result<(), DesktopError> {
        if need.is_empty() {
            return Ok(());
        }
        for &keysym in need {
            let victim = self
                .spares
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    !pinned.contains(&s.keycode) && !need.contains(&s.keysym.unwrap_or(0))
                })
                .min_by_key(|(_, s)| (s.keysym.is_some(), s.last_used))
                .map(|(i, _)| i)
                .ok_or_else(|| no_room(self.spares.len()))?;
            if let Some(t) = self.spares[victim].last_used {
                let ready = t + REBIND_GRACE;
                let now = Instant::now();
                if ready > now {
                    std::thread::sleep(ready - now);
                }
            }
            let keycode = self.spares[victim].keycode;
            // Both levels set: a single keysym would be split into lower/upper case.
            self.conn
                .change_keyboard_mapping(1, keycode, 2, &[keysym, keysym])
                .map_err(x_err)?;
            self.spares[victim].keysym = Some(keysym);
            self.spares[victim].last_used = None;
        }
        // The server applies the bindings (and queues MappingNotify to every client) before
        // it sees any key event we send after this reply.
        self.sync()
    }

    fn mark_used(&mut self, keycodes: &[u8]) {
        let now = Instant::now();
        for s in self.spares.iter_mut() {
            if keycodes.contains(&s.keycode) {
                s.last_used = Some(now);
            }
        }
    }
}

fn stroke_is_spare(spares: &[Spare], keycode: u8) -> bool {
    spares.iter().any(|s| s.keycode == keycode)
}

fn no_room(spares: usize) -> DesktopError {
    DesktopError::Input(format!(
        "no spare keycode to bind a character to (the keyboard map has {spares} empty keycodes)"
    ))
}

impl Drop for KeyBinder {
    fn drop(&mut self) {
        let last = self.spares.iter().filter_map(|s| s.last_used).max();
        if let Some(t) = last {
            let ready = t + REBIND_GRACE;
            let now = Instant::now();
            if ready > now {
                std::thread::sleep(ready - now);
            }
        }
        for s in self.spares.iter().filter(|s| s.keysym.is_some()) {
            let _ = self
                .conn
                .change_keyboard_mapping(1, s.keycode, 2, &[NO_SYMBOL, NO_SYMBOL]);
        }
        let _ = self.conn.flush();
        let _ = self.sync();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms() {
        assert_eq!(keysym_for('a').unwrap(), 0x61);
        assert_eq!(keysym_for('ü').unwrap(), 0xfc);
        assert_eq!(keysym_for('½').unwrap(), 0xbd);
        assert_eq!(keysym_for('你').unwrap(), 0x0100_4f60);
        assert_eq!(keysym_for('\n').unwrap(), XK_RETURN);
        assert!(keysym_for('\u{7}').is_err());
    }
}
