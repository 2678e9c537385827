//! A turn's actions drawn over its screenshot as SVG, for the report's turns and its player.
//! The SVG's coordinates are the screenshot's own pixels, each point mapped from 0..1000 as
//! everywhere else (`ImageSize::to_pixel`, docs/coordinates.md), so a mark sits on the pixel
//! the action aimed at whatever size the page shows the image at.
//!
//! Performed actions are solid (left button orange, right blue, middle purple); failed,
//! refused and never reached ones grey and dashed. A drag is an arrow from start to end, a
//! scroll an arrow in its direction. Each mark carries the action's number in the list beside
//! it. Only numbers and franz's own shapes are written here, never model text.

use crate::action::{Action, ActionKind, ActionResult};
use crate::geometry::{ImageSize, NormPoint};
use franz_desktop::{Button, ScrollDirection};
use std::fmt::Write as _;

const LEFT: &str = "#ff8c00";
const RIGHT: &str = "#1e90ff";
const MIDDLE: &str = "#a040ff";
const NOT_DONE: &str = "#8a8a8a";

/// `<svg class="marks">` over an image of `size`, one `<g class="mark">` per action with a
/// point; `None` when no action has one (typing, keys, waiting, done).
pub fn svg(size: ImageSize, actions: &[Action], results: &[ActionResult]) -> Option<String> {
    let unit = (size.width.max(size.height) as f32 / 100.0).max(2.0);
    let mut body = String::new();
    for (i, a) in actions.iter().enumerate() {
        let Some((x, y)) = a.kind.point() else {
            continue;
        };
        let done = results.get(i).is_some_and(ActionResult::is_ok);
        let colour = if done { colour(&a.kind) } else { NOT_DONE };
        let (px, py) = size.to_pixel(NormPoint::new(x, y));
        let _ = write!(
            body,
            "<g class=\"mark\" data-index=\"{}\" data-action=\"{}\" data-x=\"{px}\" data-y=\"{py}\" data-done=\"{done}\" stroke=\"{colour}\"{}>",
            i + 1,
            a.kind.name(),
            if done {
                ""
            } else {
                " stroke-dasharray=\"4 3\""
            }
        );
        target(&mut body, (px as f32, py as f32), unit, rings(&a.kind));
        if let Some(end) = arrow_end(&a.kind, size, (px as f32, py as f32), unit) {
            arrow(&mut body, (px as f32, py as f32), end, unit, colour);
        }
        let _ = write!(
            body,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{:.1}\" fill=\"#fff\" stroke=\"#000\" stroke-width=\"{:.1}\" stroke-dasharray=\"none\" paint-order=\"stroke\">{}</text></g>",
            px as f32 + 1.6 * unit,
            py as f32 - 1.6 * unit,
            3.0 * unit,
            0.5 * unit,
            i + 1
        );
    }
    (!body.is_empty()).then(|| {
        format!(
            "<svg class=\"marks\" viewBox=\"0 0 {} {}\" preserveAspectRatio=\"none\" aria-hidden=\"true\" fill=\"none\" stroke-width=\"{:.1}\">{body}</svg>",
            size.width,
            size.height,
            0.35 * unit
        )
    })
}

fn colour(kind: &ActionKind) -> &'static str {
    match kind {
        ActionKind::RightClick { .. } => RIGHT,
        ActionKind::MiddleClick { .. } => MIDDLE,
        ActionKind::MouseDown { button, .. } | ActionKind::MouseUp { button, .. } => match button {
            Button::Right => RIGHT,
            Button::Middle => MIDDLE,
            Button::Left => LEFT,
        },
        _ => LEFT,
    }
}

/// One ring per click (a double click two), none for a move.
fn rings(kind: &ActionKind) -> usize {
    match kind {
        ActionKind::Move { .. } => 0,
        ActionKind::DoubleClick { .. } => 2,
        ActionKind::TripleClick { .. } => 3,
        _ => 1,
    }
}

/// A crosshair at `(x, y)` and `rings` circles around it.
fn target(h: &mut String, (x, y): (f32, f32), unit: f32, rings: usize) {
    let arm = 2.2 * unit;
    let _ = write!(
        h,
        "<path d=\"M{:.1} {y:.1}H{:.1}M{x:.1} {:.1}V{:.1}\"/>",
        x - arm,
        x + arm,
        y - arm,
        y + arm
    );
    for k in 0..rings {
        let r = 1.2 * unit + k as f32 * 0.7 * unit;
        let _ = write!(h, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\"/>");
    }
}

/// Where an arrow from the action's point ends: a drag's end, or a scroll's direction.
fn arrow_end(
    kind: &ActionKind,
    size: ImageSize,
    from: (f32, f32),
    unit: f32,
) -> Option<(f32, f32)> {
    match *kind {
        ActionKind::Drag { x2, y2, .. } => {
            let (x, y) = size.to_pixel(NormPoint::new(x2, y2));
            Some((x as f32, y as f32))
        }
        ActionKind::Scroll { direction, .. } => {
            let d = 8.0 * unit;
            let (dx, dy) = match direction {
                ScrollDirection::Up => (0.0, -d),
                ScrollDirection::Down => (0.0, d),
                ScrollDirection::Left => (-d, 0.0),
                ScrollDirection::Right => (d, 0.0),
            };
            Some((from.0 + dx, from.1 + dy))
        }
        _ => None,
    }
}

/// A line from `a` to `b` with a filled head at `b`.
fn arrow(h: &mut String, a: (f32, f32), b: (f32, f32), unit: f32, colour: &str) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-3);
    let (ux, uy) = (dx / len, dy / len);
    let head = 2.0 * unit;
    let base = (b.0 - ux * head, b.1 - uy * head);
    let (l, r) = (
        (base.0 - uy * head * 0.6, base.1 + ux * head * 0.6),
        (base.0 + uy * head * 0.6, base.1 - ux * head * 0.6),
    );
    let _ = write!(
        h,
        "<path class=\"arrow\" d=\"M{:.1} {:.1}L{:.1} {:.1}\"/><path d=\"M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z\" fill=\"{colour}\" stroke=\"none\"/>",
        a.0, a.1, base.0, base.1, b.0, b.1, l.0, l.1, r.0, r.1
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::{ActionError, ErrorKind};

    fn click(x: i32, y: i32) -> Action {
        ActionKind::Click {
            x: Some(x),
            y: Some(y),
        }
        .into()
    }

    #[test]
    fn marks_sit_on_the_mapped_pixel_in_the_images_own_size() {
        let size = ImageSize::new(1280, 720);
        let drag: Action = ActionKind::Drag {
            x: Some(0),
            y: Some(0),
            x2: 1000,
            y2: 1000,
        }
        .into();
        let svg = svg(
            size,
            &[click(500, 500), drag],
            &[ActionResult::ok(), ActionResult::ok()],
        )
        .unwrap();
        assert!(svg.contains("viewBox=\"0 0 1280 720\""), "{svg}");
        let (px, py) = size.to_pixel(NormPoint::new(500, 500));
        assert!(
            svg.contains(&format!(
                "data-index=\"1\" data-action=\"click\" data-x=\"{px}\" data-y=\"{py}\" data-done=\"true\""
            )),
            "{svg}"
        );
        // the drag's arrow head points at the last pixel
        assert!(svg.contains("<path d=\"M1279.0 719.0L"), "{svg}");
    }

    #[test]
    fn failed_actions_are_grey_and_actions_without_a_point_draw_nothing() {
        let size = ImageSize::new(100, 100);
        let failed = ActionResult::Error(ActionError::new(ErrorKind::ExecutionFailed, "no"));
        let svg = svg(size, &[click(10, 10)], &[failed]).unwrap();
        assert!(svg.contains("data-done=\"false\" stroke=\"#8a8a8a\" stroke-dasharray"));
        let typed: Action = ActionKind::Type {
            text: "<b>hi</b>".into(),
        }
        .into();
        assert_eq!(super::svg(size, &[typed], &[ActionResult::ok()]), None);
    }
}
