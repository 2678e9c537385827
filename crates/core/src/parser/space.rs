//! The model's space a parse reads points in, and what becomes of a point outside it
//! (docs/coordinates.md, "Out-of-range values and "no target""), as the designs do: within 2%
//! of the space's extent past an edge (-20..1020 in 0..1000, a few pixels past the image) the
//! point is taken for the edge, with a note for the action's result; further out it is refused
//! as the model's error, with the likely cause named (a pixel answer under a 0..1000 profile
//! names `--profile` and `--coords`). So no action the parser gives has a coordinate outside
//! the model's space, and such a refusal is never one of the safety policy's.

use super::CoordMode;
use crate::exact_target::Num;
use crate::geometry::{ImageSize, NORM_MAX};

/// How far past an edge, as a fraction of the extent, a point is taken for the edge.
pub const MARGIN: f64 = 0.02;

/// What becomes of a point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    Inside,
    /// Taken for the edge: the point clamped, and the note for the action's result.
    Clamped([f64; 2], String),
    /// Refused: the error, with the likely cause.
    Refused(String),
}

/// The space of a coordinate mode: its largest value on each axis and how it is named.
#[derive(Debug, Clone, Copy)]
enum Space {
    /// 0..max on each axis (1000 or 999: `crate::exact_target::NORM_MAXES`).
    Norm(u32),
    Relative,
    /// Pixels of the image sent; `exact`: a family's space, whose last value is the side.
    Pixels {
        image: ImageSize,
        exact: bool,
    },
}

impl Space {
    fn of(coords: CoordMode) -> Space {
        match coords {
            CoordMode::Norm => Space::Norm(NORM_MAX as u32),
            CoordMode::Pixels(image) => Space::Pixels {
                image,
                exact: false,
            },
            CoordMode::Exact(s) if let Some(m) = crate::exact_target::norm_max_of(s) => {
                Space::Norm(m)
            }
            CoordMode::Exact(s) if s == ImageSize::new(1, 1) => Space::Relative,
            CoordMode::Exact(image) => Space::Pixels { image, exact: true },
        }
    }

    /// The largest value on each axis (the smallest is 0).
    fn max(self) -> [f64; 2] {
        match self {
            Space::Norm(m) => [m as f64; 2],
            Space::Relative => [1.0; 2],
            Space::Pixels { image, exact } => {
                let last = |side: u32| (if exact { side } else { side.max(1) - 1 }) as f64;
                [last(image.width), last(image.height)]
            }
        }
    }

    fn name(self) -> String {
        let [w, h] = self.max();
        match self {
            Space::Norm(m) => format!("0..{m}"),
            Space::Relative => "0..1".to_string(),
            Space::Pixels { image, .. } => format!(
                "the {}x{} image (x 0..{}, y 0..{})",
                image.width,
                image.height,
                Num(w),
                Num(h)
            ),
        }
    }

    /// Why a point `p` this far out was likely given.
    fn cause(self, p: [f64; 2]) -> String {
        let [w, h] = self.max();
        let over = p[0] > w || p[1] > h;
        let within_1000 = p.iter().all(|v| *v <= NORM_MAX as f64 * (1.0 + MARGIN));
        match self {
            _ if !over => "a negative value lies off the screen: give a point inside the image".into(),
            Space::Norm(_) => "values above 1000 look like pixels: if the model answers in pixels of the image, run with --coords pixels or the --profile of its family (e.g. qwen2.5-vl, ui-tars-1.5); else give a point in 0..1000".into(),
            Space::Pixels { image, .. } if within_1000 => format!(
                "the values look like 0..1000, not pixels of the {}x{} image: if the model answers in 0..1000, run with --coords norm or the --profile of its family (e.g. qwen3-vl, glm-4.5v); else give a pixel of the image",
                image.width, image.height
            ),
            Space::Pixels { image, .. } => format!(
                "the values look like pixels of the screen, not of the {}x{} image the model was sent: give a pixel of the image, or set --profile or --coords to the space the model answers in",
                image.width, image.height
            ),
            Space::Relative => "the values look like 0..1000 or pixels, not fractions 0..1: if the model answers in those, run with --coords norm or pixels or the --profile of its family; else give fractions such as 0.25".into(),
        }
    }
}

/// What becomes of the point `p` (in the model's units) of the action `what` under `coords`.
pub(crate) fn judge(coords: CoordMode, what: &str, p: [f64; 2]) -> Verdict {
    let space = Space::of(coords);
    let max = space.max();
    let inside = |i: usize| (0.0..=max[i]).contains(&p[i]);
    if inside(0) && inside(1) {
        return Verdict::Inside;
    }
    let near = |i: usize| {
        let m = max[i].max(1.0) * MARGIN;
        (-m..=max[i] + m).contains(&p[i])
    };
    let shown = format!("({}, {})", Num(p[0]), Num(p[1]));
    if near(0) && near(1) {
        let c = [p[0].clamp(0.0, max[0]), p[1].clamp(0.0, max[1])];
        return Verdict::Clamped(
            c,
            format!(
                "{what}: {shown} lies just past the edge of {} (within 2%): taken as ({}, {})",
                space.name(),
                Num(c[0]),
                Num(c[1])
            ),
        );
    }
    Verdict::Refused(format!(
        "{what}: {shown} is outside {}, more than 2% past its edge, so nothing was performed: {}",
        space.name(),
        space.cause(p)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_two_percent_is_the_edge_and_further_is_refused_with_the_cause() {
        assert_eq!(
            judge(CoordMode::Norm, "click", [500.0, 1000.0]),
            Verdict::Inside
        );
        let Verdict::Clamped(p, note) = judge(CoordMode::Norm, "click", [500.0, 1004.0]) else {
            panic!()
        };
        assert_eq!(p, [500.0, 1000.0]);
        assert!(
            note.contains("(500, 1004) lies just past the edge of 0..1000"),
            "{note}"
        );
        assert!(matches!(
            judge(CoordMode::Norm, "click", [-20.0, 1020.0]),
            Verdict::Clamped(..)
        ));
        let Verdict::Refused(e) = judge(CoordMode::Norm, "click", [500.0, 5000.0]) else {
            panic!()
        };
        assert!(
            e.contains("--profile") && e.contains("--coords pixels"),
            "{e}"
        );
        let Verdict::Refused(e) = judge(CoordMode::Norm, "click", [-21.0, 5.0]) else {
            panic!()
        };
        assert!(e.contains("negative"), "{e}");
        // pixels of a 1288x728 image: 0..1287, 2% is 25.76 px
        let px = CoordMode::Pixels(ImageSize::new(1288, 728));
        assert_eq!(judge(px, "click", [1287.0, 727.0]), Verdict::Inside);
        let Verdict::Clamped(p, _) = judge(px, "click", [1290.0, 730.0]) else {
            panic!()
        };
        assert_eq!(p, [1287.0, 727.0]);
        let Verdict::Refused(e) = judge(px, "click", [1920.0, 1080.0]) else {
            panic!()
        };
        assert!(e.contains("pixels of the screen"), "{e}");
        let small = CoordMode::Pixels(ImageSize::new(640, 400));
        let Verdict::Refused(e) = judge(small, "click", [900.0, 500.0]) else {
            panic!()
        };
        assert!(
            e.contains("look like 0..1000") && e.contains("--coords norm"),
            "{e}"
        );
        // a family's exact spaces: 0..S on each axis, S included
        let exact = CoordMode::Exact(ImageSize::new(1288, 728));
        assert_eq!(judge(exact, "click", [1288.0, 728.0]), Verdict::Inside);
        let rel = CoordMode::Exact(ImageSize::new(1, 1));
        assert!(matches!(
            judge(rel, "click", [1.01, 0.5]),
            Verdict::Clamped(..)
        ));
        let Verdict::Refused(e) = judge(rel, "click", [500.0, 300.0]) else {
            panic!()
        };
        assert!(e.contains("not fractions 0..1"), "{e}");
    }

    #[test]
    fn a_space_of_0_to_999_is_named_and_judged_as_its_own() {
        let n999 = CoordMode::Exact(ImageSize::new(999, 999));
        assert_eq!(judge(n999, "click", [999.0, 0.0]), Verdict::Inside);
        let Verdict::Clamped(p, note) = judge(n999, "click", [1000.0, 500.0]) else {
            panic!()
        };
        assert_eq!(p, [999.0, 500.0]);
        assert!(note.contains("past the edge of 0..999"), "{note}");
        let Verdict::Refused(e) = judge(n999, "click", [1920.0, 500.0]) else {
            panic!()
        };
        assert!(
            e.contains("outside 0..999") && e.contains("look like pixels"),
            "{e}"
        );
    }
}
