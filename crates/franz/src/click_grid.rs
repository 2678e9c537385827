//! Calibration: a self-test of the whole chain from a model's point to the pixel a click
//! arrives at (`franz calibrate`, and a short version in `franz doctor`). The witness window
//! (crates/desktop/src/witness.rs) covers a monitor; a grid of targets (corners included) in
//! 0..1000 of the working area is clicked through the executor a command that acts builds
//! (`input_commands::executor`, the core builder's: crop, mapping, policy), and each target's
//! error is the distance from the pixel the geometry says (`WorkArea::to_screen`) to where the witness saw the press.
//! A target whose click the safety policy refused (the built-in `work_area` rule: the test
//! offset took it outside the working area) is reported as refused, never as 0 px, and fails
//! the calibration; every target is tried (the refusals do not stop it).

use crate::input_commands;
use franz_core::action::{Action, ActionKind, ActionResult, ErrorKind};
use franz_core::config::Settings;
use franz_core::executor::MotionProfile;
use franz_core::geometry::{NORM_MAX, NormPoint, WorkArea};
use franz_desktop::{Desktop, Monitor, PixelPoint};

/// The largest error (in pixels) a calibration accepts.
pub const MAX_ERROR_PX: f64 = 1.0;

/// One target of the grid.
#[derive(Debug, Clone)]
pub struct Target {
    pub norm: NormPoint,
    /// Where the click should arrive, in root pixels.
    pub want: PixelPoint,
    /// Where it arrived (`None`: it never did).
    pub got: Option<PixelPoint>,
    /// Why the safety policy refused its click (it was never sent).
    pub refused: Option<String>,
}

impl Target {
    /// The distance in pixels; infinite when the click never arrived or was refused.
    pub fn error(&self) -> f64 {
        match self.got {
            Some(g) if self.refused.is_none() => {
                let (dx, dy) = ((g.x - self.want.x) as f64, (g.y - self.want.y) as f64);
                (dx * dx + dy * dy).sqrt()
            }
            _ => f64::INFINITY,
        }
    }
}

/// The targets of one monitor.
#[derive(Debug, Clone)]
pub struct MonitorReport {
    pub area: WorkArea,
    pub targets: Vec<Target>,
    /// The monitor's DPI, where the OS tells it (Windows).
    pub dpi: Option<u32>,
}

impl MonitorReport {
    /// The target with the largest error (a refused one first).
    pub fn worst(&self) -> Option<&Target> {
        self.targets
            .iter()
            .find(|t| t.refused.is_some())
            .or_else(|| {
                self.arrived()
                    .max_by(|a, b| a.error().total_cmp(&b.error()))
            })
            .or_else(|| self.targets.iter().find(|t| t.got.is_none()))
    }

    /// The targets whose click was sent.
    fn arrived(&self) -> impl Iterator<Item = &Target> {
        self.targets.iter().filter(|t| t.refused.is_none())
    }

    /// The largest error of the clicks that were sent (infinite when one never arrived).
    pub fn max_error(&self) -> f64 {
        self.arrived().map(Target::error).fold(0.0, f64::max)
    }

    /// How many targets the safety policy refused.
    pub fn refused(&self) -> usize {
        self.targets.iter().filter(|t| t.refused.is_some()).count()
    }

    pub fn passed(&self) -> bool {
        !self.targets.is_empty() && self.refused() == 0 && self.max_error() <= MAX_ERROR_PX
    }
}

/// An `n` x `n` grid in 0..1000, corners included (`n` >= 2).
pub fn grid(n: u32) -> Vec<NormPoint> {
    let n = n.max(2) as i32;
    let at = |i: i32| i * NORM_MAX / (n - 1);
    (0..n)
        .flat_map(|j| (0..n).map(move |i| NormPoint::new(at(i), at(j))))
        .collect()
}

/// Clicks the grid of `n` x `n` on `monitor` with the witness window over it and reads where
/// each click arrived. `display` is the X display (Linux; ignored on Windows). `offset` (test
/// only) shifts every click by that many pixels: a deliberately wrong mapping.
pub fn measure(
    desktop: &mut dyn Desktop,
    display: Option<&str>,
    config: &Settings,
    monitor: &Monitor,
    n: u32,
    offset: PixelPoint,
) -> anyhow::Result<MonitorReport> {
    let mut config = config.clone();
    let c = &mut config.effective.config;
    c.motion = MotionProfile::Fast;
    // every target is tried: a refusal is reported per target, it does not stop calibration
    c.policy.policy_violations_max = u32::MAX;
    config.policy = franz_core::policy::Policy::new(&c.policy)?;
    let mut executor = input_commands::executor(&config, monitor.rect)?.with_pixel_offset(offset);
    let area = executor.area();
    let points = grid(n);
    let actions: Vec<Action> = points
        .iter()
        .map(|p| {
            Action::from(ActionKind::Click {
                x: Some(p.x),
                y: Some(p.y),
            })
        })
        .collect();
    let mut refused = Vec::new();
    let (got, dpi) = witness::click_and_watch(display, monitor.rect, || {
        let results = executor
            .execute(desktop, &actions)
            .map_err(input_commands::fatal)?;
        refused = results.iter().map(refusal).collect();
        Ok(refused.iter().filter(|r| r.is_none()).count())
    })?;
    let mut got = got.into_iter();
    let targets = points
        .iter()
        .zip(refused.into_iter().chain(std::iter::repeat(None)))
        .map(|(p, refused)| Target {
            norm: *p,
            want: area.to_screen(*p),
            got: if refused.is_some() { None } else { got.next() },
            refused,
        })
        .collect();
    Ok(MonitorReport { area, targets, dpi })
}

/// The rule that refused a click (`policy_denied`), if it was refused.
fn refusal(r: &ActionResult) -> Option<String> {
    match r {
        ActionResult::Error(e) if e.kind == ErrorKind::PolicyDenied => Some(e.message.clone()),
        _ => None,
    }
}

/// The witness window of this OS over a monitor while `click` runs (it says how many clicks
/// it sent): where the left presses arrived (in order), and the monitor's DPI where the OS
/// tells it.
mod witness {
    use franz_desktop::witness::PressWitness;
    use franz_desktop::{PixelPoint, PixelRect};
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(10);

    pub fn click_and_watch(
        display: Option<&str>,
        rect: PixelRect,
        click: impl FnOnce() -> anyhow::Result<usize>,
    ) -> anyhow::Result<(Vec<PixelPoint>, Option<u32>)> {
        let witness = PressWitness::open(display, rect)?;
        let n = click()?;
        Ok((witness.wait_presses(n, WAIT), witness.dpi()))
    }
}

/// Where the click of a target went, for a line of the report.
pub fn describe(t: &Target) -> String {
    if let Some(why) = &t.refused {
        return format!(
            "target {} -> pixel ({}, {}): refused, the click was not sent: {why}",
            t.norm, t.want.x, t.want.y
        );
    }
    match t.got {
        Some(g) => format!(
            "target {} -> pixel ({}, {}): arrived at ({}, {}), error {:.1} px",
            t.norm,
            t.want.x,
            t.want.y,
            g.x,
            g.y,
            t.error()
        ),
        None => format!(
            "target {} -> pixel ({}, {}): the click never arrived",
            t.norm, t.want.x, t.want.y
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_has_its_corners_and_errors_are_distances() {
        let g = grid(5);
        assert_eq!(g.len(), 25);
        for c in [(0, 0), (1000, 0), (0, 1000), (1000, 1000), (500, 500)] {
            assert!(g.contains(&NormPoint::new(c.0, c.1)), "{c:?}");
        }
        let t = Target {
            norm: NormPoint::new(0, 0),
            want: PixelPoint::new(10, 10),
            got: Some(PixelPoint::new(13, 14)),
            refused: None,
        };
        assert_eq!(t.error(), 5.0);
        let missing = Target {
            got: None,
            ..t.clone()
        };
        assert!(missing.error().is_infinite());
        // a refused target is the worst, never 0 px, and fails the calibration
        let refused = Target {
            got: None,
            refused: Some("work_area".into()),
            ..t.clone()
        };
        let report = MonitorReport {
            area: franz_core::geometry::Crop::FULL
                .work_area(franz_desktop::PixelRect::new(0, 0, 100, 100))
                .unwrap(),
            targets: vec![t, refused],
            dpi: None,
        };
        assert_eq!(report.max_error(), 5.0);
        assert_eq!(report.refused(), 1);
        assert!(report.worst().unwrap().refused.is_some());
        assert!(!report.passed());
    }
}
