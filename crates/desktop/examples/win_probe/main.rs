//! Test support for the Windows tests (built for `x86_64-pc-windows-gnu`, run under Wine by
//! `crates/franz/tests/wine.rs`): an independent witness of what franz sees and does, written
//! against plain Win32 (windows-sys), sharing no code with franz's capture or input.
//!
//! - `win_probe grab OUT.bgra`: BitBlt of the whole screen from the screen DC, written as
//!   `width u32 LE, height u32 LE, BGRA rows`; prints `W H CURSOR_X CURSOR_Y`.
//! - `win_probe witness X Y W H`: a top-most window at that screen rect that prints every
//!   mouse and key message it gets, one line each, with screen coordinates:
//!   `ready`, `ldown X Y`, `lup X Y`, `rdown`/`rup`/`mdown`/`mup X Y`, `drag X Y` (a move
//!   with the left button down), `wheel X Y DELTA`, `hwheel X Y DELTA`, `keydown VK`,
//!   `keyup VK`, `char CODEPOINT`. It exits after two minutes.
//! - `win_probe find TITLE`: `X Y W H TITLE` of the first visible top-level window whose title
//!   contains TITLE (exit status 1: none), so tests wait for another program's window.
//! - `win_probe combo LABEL`: `X Y W H SHOWN` of the ComboBox that follows the control
//!   captioned LABEL in any visible window (e.g. Notepad's `Encoding:` in its Save dialog),
//!   and the item it shows (exit status 1: none).
//! - `win_probe form X Y W H TITLE`: a normal window with real child controls (a label, an
//!   edit box, a check box, push buttons, a disabled one) that prints each control's class,
//!   `GetWindowRect` and text, then `active 0|1` when its activation changes and `clicked TEXT`
//!   per button click (the elements and window tools tests).
//! - `win_probe foreground`: `X Y W H TITLE` of `GetForegroundWindow` (exit status 1: none).
//! - `win_probe start-button`: `X Y W H` of the Start button of a Wine virtual desktop's
//!   taskbar (exit status 1: none).
//! - `win_probe menu`: `X Y W H ITEM|ITEM|...` of the open popup menu (exit status 1: none).
//! - `win_probe close-desktop`: posts WM_CLOSE to the desktop window (ends a Wine virtual
//!   desktop started by `explorer /desktop`).
//!
//! All are per-monitor DPI aware, so every number is a physical pixel.

#[cfg(windows)]
mod imp;

fn main() {
    #[cfg(windows)]
    std::process::exit(imp::main());
    #[cfg(not(windows))]
    {
        eprintln!("win_probe is Windows test support: build it for x86_64-pc-windows-gnu");
        std::process::exit(2);
    }
}
