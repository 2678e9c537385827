//! The failsafe, as in PyAutoGUI: a person who slams the pointer into the top-left corner of
//! the screen stops franz.
//!
//! Before each action, and all through waits, holds, drags and typing, the real pointer is
//! read. If it sits on the top-left pixel of the screen
//! (root (0,0)) or of the monitor franz acts on, and franz did not put it there itself (its
//! own last move ended somewhere else), the run stops with [`Tripped`]; the CLI exits 4.

use franz_desktop::{PixelPoint, PixelRect};

/// The failsafe fired: the pointer was at `at` and franz had not put it there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "failsafe: the pointer is in the top-left corner of the screen (pixel {x}, {y}) and franz did not put it there, so franz stopped. Move the pointer away from the corner to run again; turn the failsafe off with failsafe = false in the configuration",
    x = at.x,
    y = at.y
)]
pub struct Tripped {
    pub at: PixelPoint,
}

/// Whether `pointer` is in a failsafe corner.
pub fn in_corner(pointer: PixelPoint, monitor: PixelRect) -> bool {
    pointer == PixelPoint::new(0, 0) || pointer == PixelPoint::new(monitor.x, monitor.y)
}

/// Checks the pointer before an action. `placed` is where franz last put the pointer.
pub fn check(
    pointer: PixelPoint,
    monitor: PixelRect,
    placed: Option<PixelPoint>,
) -> Result<(), Tripped> {
    if in_corner(pointer, monitor) && placed != Some(pointer) {
        return Err(Tripped { at: pointer });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trips_only_in_the_corner_and_only_when_franz_did_not_put_it_there() {
        let m = PixelRect::new(0, 0, 800, 600);
        let origin = PixelPoint::new(0, 0);
        assert_eq!(check(origin, m, None), Err(Tripped { at: origin }));
        assert_eq!(
            check(origin, m, Some(PixelPoint::new(5, 5))),
            Err(Tripped { at: origin })
        );
        assert_eq!(check(origin, m, Some(origin)), Ok(()));
        assert_eq!(check(PixelPoint::new(1, 0), m, None), Ok(()));
        // the corner of a second monitor counts too
        let m2 = PixelRect::new(800, 0, 800, 600);
        assert!(check(PixelPoint::new(800, 0), m2, None).is_err());
        let msg = Tripped { at: origin }.to_string();
        assert!(msg.contains("failsafe") && msg.contains("corner"), "{msg}");
    }
}
