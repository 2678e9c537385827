//! What reading a reply costs, and what stops it.
//!
//! Every reader of the parser is linear in the reply's length (docs/architecture.md, "The
//! parser"): each scanning function reports the bytes it looks at with [`charge`], so tests can
//! check that the work grows in proportion to the reply (`bytes_read` before and after), and
//! `franz bench parse` measures it. A reader never scans the text again from the start for
//! each brace, call or delta.
//!
//! The parser runs on the engine's thread. [`watching`] tells the readers on this thread which
//! cancellation token and deadline stop them: [`charge`] looks at both every
//! [`CHECK_EVERY`] bytes and then says stop, and the readers return at once with what they
//! have. The caller throws such a partial reading away (it was stopped).

use crate::cancel::Cancel;
use std::cell::{Cell, RefCell};
use std::time::Instant;

/// How many bytes of work pass between two looks at the token and the clock.
pub const CHECK_EVERY: u64 = 64 * 1024;

struct Watch {
    cancel: Cancel,
    deadline: Option<Instant>,
    /// The byte count at which to look again.
    next_check: u64,
    stopped: bool,
}

thread_local! {
    static READ: Cell<u64> = const { Cell::new(0) };
    static WATCH: RefCell<Option<Watch>> = const { RefCell::new(None) };
}

/// The bytes the readers on this thread have looked at so far.
pub fn bytes_read() -> u64 {
    READ.with(Cell::get)
}

/// Counts `n` bytes looked at; false once the watched token is set or the deadline passed:
/// the reader stops there.
pub(crate) fn charge(n: usize) -> bool {
    let total = READ.with(|r| {
        let t = r.get().saturating_add(n as u64);
        r.set(t);
        t
    });
    WATCH.with(|w| {
        let mut w = w.borrow_mut();
        let Some(w) = w.as_mut() else { return true };
        if !w.stopped && total >= w.next_check {
            w.next_check = total + CHECK_EVERY;
            w.stopped = w.cancel.is_cancelled() || w.deadline.is_some_and(|d| Instant::now() >= d);
        }
        !w.stopped
    })
}

/// Whether the readers on this thread were told to stop (always false outside a watch): what
/// they read since is partial.
pub fn stopped() -> bool {
    WATCH.with(|w| w.borrow().as_ref().is_some_and(|w| w.stopped))
}

/// Runs `f` on this thread so that `cancel` or `deadline` stop the readers it calls; after a
/// parse inside, [`stopped`] says whether that parse is partial. The engine runs a whole run
/// so.
pub fn watching<T>(cancel: &Cancel, deadline: Option<Instant>, f: impl FnOnce() -> T) -> T {
    let watch = Watch {
        cancel: cancel.clone(),
        deadline,
        next_check: bytes_read(),
        stopped: false,
    };
    let outer = WATCH.with(|w| w.borrow_mut().replace(watch));
    let out = f();
    WATCH.with(|w| *w.borrow_mut() = outer);
    out
}

/// Runs `f` (a parse) as [`watching`] does; returns its result, or `None` when it was stopped
/// (the result is partial and is dropped).
pub fn watched<T>(cancel: &Cancel, deadline: Option<Instant>, f: impl FnOnce() -> T) -> Option<T> {
    watching(cancel, deadline, || {
        let out = f();
        (!stopped() && !cancel.is_cancelled()).then_some(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_token_stops_the_readers_and_drops_the_result() {
        let cancel = Cancel::new();
        let before = bytes_read();
        let out = watched(&cancel, None, || {
            assert!(charge(10));
            cancel.cancel();
            // the next look comes after CHECK_EVERY bytes
            (0..(CHECK_EVERY / 1024 + 2)).all(|_| charge(1024))
        });
        assert_eq!(out, None);
        assert!(bytes_read() > before);
        assert!(charge(1), "outside a watch nothing stops");
        let done = watched(&Cancel::new(), None, || charge(CHECK_EVERY as usize * 3));
        assert_eq!(done, Some(true));
    }

    #[test]
    fn a_passed_deadline_stops_the_readers() {
        let out = watched(&Cancel::new(), Some(Instant::now()), || {
            (0..4).all(|_| charge(CHECK_EVERY as usize))
        });
        assert_eq!(out, None);
    }
}
