//! The pointer position, and mouse buttons and wheels that carry their point: each event is one
//! `SendInput` mouse event that moves (absolute) and presses in one.

use crate::{Button, DesktopError, PixelPoint, Press};
use windows_sys::Win32::Foundation::POINT;
use windows_sys::Win32::UI::Input::KeyboardAndMouse::{
    INPUT, INPUT_0, INPUT_MOUSE, MOUSEEVENTF_ABSOLUTE, MOUSEEVENTF_HWHEEL, MOUSEEVENTF_LEFTDOWN,
    MOUSEEVENTF_LEFTUP, MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP, MOUSEEVENTF_MOVE,
    MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP, MOUSEEVENTF_WHEEL, MOUSEINPUT, SendInput,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    GetCursorPos, GetSystemMetrics, SM_CXSCREEN, SM_CYSCREEN, WHEEL_DELTA,
};

/// The pointer position in physical screen pixels.
pub fn pointer() -> Result<PixelPoint, DesktopError> {
    let mut p = POINT { x: 0, y: 0 };
    // SAFETY: `p` is a valid out pointer.
    if unsafe { GetCursorPos(&mut p) } == 0 {
        return Err(DesktopError::Capture("GetCursorPos failed".into()));
    }
    Ok(PixelPoint::new(p.x, p.y))
}

/// Presses and/or releases `button` at `p`: each event is one `SendInput` mouse event that
/// moves (absolute) and presses in one, so the press lands on `p` even when something moved
/// the pointer in between (under Wine, a late X motion event can put it back on its previous
/// spot between a move and a plain press, even between the two halves of one click).
pub fn button_at(p: PixelPoint, button: Button, press: Press) -> Result<(), DesktopError> {
    let (down, up) = match button {
        Button::Left => (MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_LEFTUP),
        Button::Right => (MOUSEEVENTF_RIGHTDOWN, MOUSEEVENTF_RIGHTUP),
        Button::Middle => (MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_MIDDLEUP),
    };
    match press {
        Press::Down => mouse_at(p, &[(down, 0)]),
        Press::Up => mouse_at(p, &[(up, 0)]),
        Press::Click => mouse_at(p, &[(down, 0), (up, 0)]),
    }
}

/// Turns the wheel at `p` by `notches` (positive: down or right), moving there in the same
/// event (see `button_at`).
pub fn wheel_at(p: PixelPoint, notches: i32, horizontal: bool) -> Result<(), DesktopError> {
    let delta = notches.saturating_mul(WHEEL_DELTA as i32);
    let event = if horizontal {
        (MOUSEEVENTF_HWHEEL, delta)
    } else {
        // Windows: a positive vertical delta turns the wheel away from the user (up).
        (MOUSEEVENTF_WHEEL, delta.saturating_neg())
    };
    mouse_at(p, &[event])
}

/// Sends one absolute move to `p` combined with each `(flags, mouseData)`, in one call.
fn mouse_at(p: PixelPoint, events: &[(u32, i32)]) -> Result<(), DesktopError> {
    // SAFETY: plain queries.
    let (w, h) = unsafe { (GetSystemMetrics(SM_CXSCREEN), GetSystemMetrics(SM_CYSCREEN)) };
    let (dx, dy) = (absolute(p.x, w), absolute(p.y, h));
    let inputs: Vec<INPUT> = events
        .iter()
        .map(|&(flags, data)| INPUT {
            r#type: INPUT_MOUSE,
            Anonymous: INPUT_0 {
                mi: MOUSEINPUT {
                    dx,
                    dy,
                    // mouseData is a DWORD that carries signed wheel deltas.
                    mouseData: data as u32,
                    dwFlags: MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | flags,
                    time: 0,
                    dwExtraInfo: 0,
                },
            },
        })
        .collect();
    // SAFETY: `inputs` holds `inputs.len()` valid INPUTs of the size given.
    let sent = unsafe {
        SendInput(
            inputs.len() as u32,
            inputs.as_ptr(),
            size_of::<INPUT>() as i32,
        )
    };
    if sent as usize != inputs.len() {
        return Err(DesktopError::Input(format!(
            "SendInput sent {sent} of {} mouse events",
            inputs.len()
        )));
    }
    Ok(())
}

/// A pixel on a screen axis of `len` pixels in `SendInput`'s absolute units (0..=65535 over
/// pixels 0..=len-1, rounded), the same mapping enigo uses for its moves.
fn absolute(v: i32, len: i32) -> i32 {
    let (v, last) = (i64::from(v), i64::from(len.max(2) - 1));
    ((v * 65535 + last / 2 * v.signum()) / last) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_units_span_the_screen() {
        assert_eq!(absolute(0, 1280), 0);
        assert_eq!(absolute(1279, 1280), 65535);
        assert_eq!(absolute(640, 1280), (640 * 65535 + 639) / 1279);
    }
}
