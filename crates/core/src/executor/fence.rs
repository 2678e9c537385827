//! The working-area fence: every point an action acts at is inside the working area.
//!
//! The fence is the safety policy's built-in deny rule `work_area` (crates/core/src/policy.rs,
//! [`Fence::refusal`]): a pointer action whose model point lies outside 0..1000 (1001 too:
//! franz does not guess what was meant), whose exact target lies outside the model's space,
//! that acts "at the pointer" while the pointer is outside the area, or whose final pixel
//! lies outside the area, is refused before any input, like any other deny rule. The mapping
//! below still clamps (with an `outside_work_area` warning) as a last line: only a pointer
//! moved by hand between the check and the action reaches it. Since the area is a rectangle
//! and both ends of a drag are fenced, the whole drag path stays inside it.

use crate::action::Warning;
use crate::exact_target::{Exact, Num};
use crate::geometry::{NormPoint, WorkArea};
use franz_desktop::PixelPoint;

/// The warning kind for a clamped point.
pub const OUTSIDE_WORK_AREA: &str = "outside_work_area";

/// The name of the built-in deny rule the fence is (`franz policy check` and refusals say it).
pub const WORK_AREA_RULE: &str = "work_area";

/// Maps model points to screen pixels inside the working area.
#[derive(Debug, Clone, Copy)]
pub struct Fence {
    pub area: WorkArea,
}

impl Fence {
    pub fn new(area: WorkArea) -> Self {
        Fence { area }
    }

    /// The pixel of a model point, clamped into the area, with a warning if it had to be.
    pub fn point(&self, x: i32, y: i32, what: &str) -> (PixelPoint, Option<Warning>) {
        let asked = NormPoint::new(x, y);
        let (clamped, outside) = asked.clamped();
        let p = self.area.to_screen(clamped);
        let warning = outside.then(|| Warning {
            kind: OUTSIDE_WORK_AREA.into(),
            message: format!(
                "{what} {asked} is outside the working area (0..1000): clamped to {clamped}"
            ),
        });
        (p, warning)
    }

    /// The pixel of an exact target `p` of `e` (docs/coordinates.md, "Exact targets"), with
    /// a warning if a value lay outside 0..=S and was clamped.
    pub fn exact(&self, e: &Exact, p: [Num; 2], what: &str) -> (PixelPoint, Option<Warning>) {
        let inside = |v: Num, s: Num| (0.0..=s.0).contains(&v.0);
        let outside = !(inside(p[0], e.of[0]) && inside(p[1], e.of[1]));
        let warning = outside.then(|| Warning {
            kind: OUTSIDE_WORK_AREA.into(),
            message: format!(
                "{what} ({}, {}) is outside the model's space (0..{} x 0..{}): clamped",
                p[0], p[1], e.of[0], e.of[1]
            ),
        });
        (e.to_screen(&self.area, p), warning)
    }

    /// The screen pixels an action acts at, as the executor maps them: its point and a drag's
    /// end (`None` for "at the pointer" or an action without a point).
    pub fn targets(&self, action: &crate::Action) -> (Option<PixelPoint>, Option<PixelPoint>) {
        let e = action.exact;
        let at = action
            .kind
            .point()
            .map(|(x, y)| match e.and_then(|e| e.at.map(|p| (e, p))) {
                Some((e, p)) => self.exact(&e, p, "").0,
                None => self.point(x, y, "").0,
            });
        let to = match &action.kind {
            crate::ActionKind::Drag { x2, y2, .. } => {
                Some(match e.and_then(|e| e.to.map(|p| (e, p))) {
                    Some((e, p)) => self.exact(&e, p, "").0,
                    None => self.point(*x2, *y2, "").0,
                })
            }
            _ => None,
        };
        (at, to)
    }

    /// The built-in `work_area` deny rule: why `kind` (with its exact target, acting at
    /// `pointer` where it has no point) would act outside the working area, or `None` when it
    /// would not. An action at the pointer whose pointer is not known (dry-run) is not judged.
    pub fn refusal(
        &self,
        kind: &crate::ActionKind,
        exact: Option<Exact>,
        pointer: Option<PixelPoint>,
    ) -> Option<String> {
        if !kind.is_pointer() {
            return None;
        }
        let name = kind.name();
        let start = match (kind.point(), exact.and_then(|e| e.at.map(|p| (e, p)))) {
            (Some(_), Some((e, p))) => exact_outside(&e, p),
            (Some((x, y)), None) => point_outside(x, y),
            (None, _) => pointer.and_then(|p| self.pixel_outside(p)),
        };
        let end = match kind {
            crate::ActionKind::Drag { x2, y2, .. } => {
                match exact.and_then(|e| e.to.map(|p| (e, p))) {
                    Some((e, p)) => exact_outside(&e, p),
                    None => point_outside(*x2, *y2),
                }
            }
            _ => None,
        };
        let (what, why) = match (start, end) {
            (Some(why), _) => (name.to_string(), why),
            (None, Some(why)) => (format!("{name} end"), why),
            (None, None) => return None,
        };
        Some(format!("{WORK_AREA_RULE}: {what} {why}"))
    }

    /// Why a final pixel lies outside the working area (`work_area`), or `None`.
    pub fn pixel_refusal(&self, p: PixelPoint, what: &str) -> Option<String> {
        let r = self.area.rect;
        let inside = (r.x..r.right()).contains(&p.x) && (r.y..r.bottom()).contains(&p.y);
        (!inside).then(|| {
            format!(
                "{WORK_AREA_RULE}: {what} lands at pixel ({}, {}), outside the working area ({}x{} at {},{})",
                p.x, p.y, r.width, r.height, r.x, r.y
            )
        })
    }

    fn pixel_outside(&self, p: PixelPoint) -> Option<String> {
        self.pixel_refusal(p, "").map(|_| {
            format!(
                "at the pointer, pixel ({}, {}), which is outside the working area: move into it first",
                p.x, p.y
            )
        })
    }

    /// A screen pixel (the pointer) moved into the area, with a warning if it had to be.
    pub fn pixel(&self, p: PixelPoint, what: &str) -> (PixelPoint, Option<Warning>) {
        let r = self.area.rect;
        let q = PixelPoint::new(
            p.x.clamp(r.x, r.right() - 1),
            p.y.clamp(r.y, r.bottom() - 1),
        );
        let warning = (q != p).then(|| Warning {
            kind: OUTSIDE_WORK_AREA.into(),
            message: format!(
                "{what}: the pointer at pixel ({}, {}) is outside the working area: acted at {}",
                p.x,
                p.y,
                self.area.to_norm(q)
            ),
        });
        (q, warning)
    }
}

/// Why a model point lies outside 0..1000, or `None`.
fn point_outside(x: i32, y: i32) -> Option<String> {
    let p = NormPoint::new(x, y);
    p.clamped().1.then(|| {
        format!("at {p} is outside the working area (0..1000 on each axis): give a point inside it")
    })
}

/// Why an exact target lies outside the model's space, or `None`.
fn exact_outside(e: &Exact, p: [Num; 2]) -> Option<String> {
    let inside = |v: Num, s: Num| (0.0..=s.0).contains(&v.0);
    (!(inside(p[0], e.of[0]) && inside(p[1], e.of[1]))).then(|| {
        format!(
            "at ({}, {}) is outside the model's space (0..{} x 0..{}): give a point inside it",
            p[0], p[1], e.of[0], e.of[1]
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Crop;
    use franz_desktop::PixelRect;

    fn fence() -> Fence {
        let screen = PixelRect::new(0, 0, 1920, 1080);
        Fence::new(
            Crop::new(250, 250, 750, 750)
                .unwrap()
                .work_area(screen)
                .unwrap(),
        )
    }

    #[test]
    fn inside_points_map_by_the_formula() {
        let f = fence();
        // area: x 480..1440 (960 wide), y 270..810 (540 high)
        assert_eq!(f.point(0, 0, "click"), (PixelPoint::new(480, 270), None));
        assert_eq!(f.point(1000, 1000, "click").0, PixelPoint::new(1439, 809));
        assert_eq!(
            f.point(500, 500, "click").0,
            PixelPoint::new(480 + 480, 270 + 270)
        );
    }

    #[test]
    fn outside_points_are_clamped_with_a_warning() {
        let f = fence();
        let (p, w) = f.point(1200, -5, "click");
        assert_eq!(p, PixelPoint::new(1439, 270));
        let w = w.unwrap();
        assert_eq!(w.kind, OUTSIDE_WORK_AREA);
        assert!(w.message.contains("(1200, -5)"), "{}", w.message);

        let (q, w) = f.pixel(PixelPoint::new(5, 900), "drag start");
        assert_eq!(q, PixelPoint::new(480, 809));
        assert!(w.is_some());
        assert_eq!(
            f.pixel(PixelPoint::new(600, 300), "x"),
            (PixelPoint::new(600, 300), None)
        );
    }

    #[test]
    fn the_work_area_rule_refuses_every_way_out() {
        use crate::ActionKind as K;
        let f = fence();
        let click = |x, y| K::Click {
            x: Some(x),
            y: Some(y),
        };
        assert_eq!(f.refusal(&click(1000, 0), None, None), None);
        // 1001 is refused, not clamped: franz does not guess
        let r = f.refusal(&click(1001, 500), None, None).unwrap();
        assert!(r.starts_with("work_area: click at (1001, 500)"), "{r}");
        let drag = K::Drag {
            x: Some(10),
            y: Some(10),
            x2: 10,
            y2: -1,
        };
        let r = f.refusal(&drag, None, None).unwrap();
        assert!(r.starts_with("work_area: drag end at (10, -1)"), "{r}");
        // at the pointer: judged where the pointer is, not judged when it is not known
        let at_pointer = K::Click { x: None, y: None };
        assert_eq!(f.refusal(&at_pointer, None, None), None);
        assert_eq!(
            f.refusal(&at_pointer, None, Some(PixelPoint::new(600, 300))),
            None
        );
        let r = f
            .refusal(&at_pointer, None, Some(PixelPoint::new(5, 5)))
            .unwrap();
        assert!(r.contains("at the pointer, pixel (5, 5)"), "{r}");
        // an exact target outside the model's space
        let e = Exact {
            at: Some([Num(1281.0), Num(3.0)]),
            to: None,
            of: [Num(1280.0), Num(800.0)],
        };
        let r = f.refusal(&click(1000, 4), Some(e), None).unwrap();
        assert!(
            r.contains("outside the model's space (0..1280 x 0..800)"),
            "{r}"
        );
        // no pointer, no rule
        assert_eq!(f.refusal(&K::Observe, None, None), None);
        // a final pixel
        assert_eq!(f.pixel_refusal(PixelPoint::new(1439, 809), "click"), None);
        let r = f
            .pixel_refusal(PixelPoint::new(1440, 809), "click")
            .unwrap();
        assert!(r.contains("pixel (1440, 809)"), "{r}");
    }
}
