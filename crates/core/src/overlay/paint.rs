//! tiny-skia primitives for the overlays: radial heat, box heat with a border, and the narrative
//! design's crosshair, ring and arrow. All coordinates are image pixels.

use super::config::{BboxHeatConfig, Color, Stop};
use tiny_skia::{
    FillRule, GradientStop, LineCap, Paint, PathBuilder, PixmapMut, Point, RadialGradient, Rect,
    Shader, SpreadMode, Stroke, Transform,
};

fn stops(stops: &[Stop], fade: f32) -> Vec<GradientStop> {
    stops
        .iter()
        .map(|Stop(pos, c)| GradientStop::new(pos.clamp(0.0, 1.0), c.faded(fade).skia()))
        .collect()
}

fn solid(color: Color) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(color.skia());
    p.anti_alias = true;
    p
}

/// A radial glow of `radius` at `(x, y)`, its stops' alpha multiplied by `fade`.
pub(crate) fn heat(pm: &mut PixmapMut<'_>, x: f32, y: f32, radius: f32, grad: &[Stop], fade: f32) {
    if radius < 0.5 || grad.is_empty() || fade <= 0.0 {
        return;
    }
    let c = Point::from_xy(x, y);
    let shader = if grad.len() == 1 {
        Some(Shader::SolidColor(grad[0].1.faded(fade).skia()))
    } else {
        RadialGradient::new(
            c,
            c,
            radius,
            stops(grad, fade),
            SpreadMode::Pad,
            Transform::identity(),
        )
    };
    let (Some(shader), Some(path)) = (shader, PathBuilder::from_circle(x, y, radius)) else {
        return;
    };
    let paint = Paint {
        shader,
        anti_alias: true,
        ..Paint::default()
    };
    pm.fill_path(
        &path,
        &paint,
        FillRule::Winding,
        Transform::identity(),
        None,
    );
}

/// Blue heat over a box: an elliptical gradient from its centre, then its border.
pub(crate) fn box_heat(
    pm: &mut PixmapMut<'_>,
    cfg: &BboxHeatConfig,
    x1: f32,
    y1: f32,
    x2: f32,
    y2: f32,
) {
    let (w, h) = ((x2 - x1).max(1.0), (y2 - y1).max(1.0));
    let Some(rect) = Rect::from_xywh(x1, y1, w, h) else {
        return;
    };
    if !cfg.fill_stops.is_empty() {
        // gradient space: the unit circle, stretched over the box's half-diagonal ellipse
        let t = Transform::from_row(
            w / 2.0 * std::f32::consts::SQRT_2,
            0.0,
            0.0,
            h / 2.0 * std::f32::consts::SQRT_2,
            x1 + w / 2.0,
            y1 + h / 2.0,
        );
        let shader = if cfg.fill_stops.len() == 1 {
            Some(Shader::SolidColor(cfg.fill_stops[0].1.skia()))
        } else {
            let o = Point::from_xy(0.0, 0.0);
            RadialGradient::new(o, o, 1.0, stops(&cfg.fill_stops, 1.0), SpreadMode::Pad, t)
        };
        if let Some(shader) = shader {
            let paint = Paint {
                shader,
                ..Paint::default()
            };
            pm.fill_rect(rect, &paint, Transform::identity(), None);
        }
    }
    if cfg.border_width > 0.0 {
        let path = PathBuilder::from_rect(rect);
        let stroke = Stroke {
            width: cfg.border_width,
            ..Stroke::default()
        };
        pm.stroke_path(
            &path,
            &solid(cfg.border),
            &stroke,
            Transform::identity(),
            None,
        );
    }
}

/// A polyline of `width` in `color` (the set-of-marks boxes).
pub(crate) fn polyline(pm: &mut PixmapMut<'_>, pts: &[(f32, f32)], color: Color, width: f32) {
    line(pm, pts, color, width, LineCap::Square);
}

fn line(pm: &mut PixmapMut<'_>, pts: &[(f32, f32)], color: Color, width: f32, cap: LineCap) {
    let mut pb = PathBuilder::new();
    let Some(&(x0, y0)) = pts.first() else {
        return;
    };
    pb.move_to(x0, y0);
    for &(x, y) in &pts[1..] {
        pb.line_to(x, y);
    }
    if let Some(path) = pb.finish() {
        let stroke = Stroke {
            width,
            line_cap: cap,
            ..Stroke::default()
        };
        pm.stroke_path(&path, &solid(color), &stroke, Transform::identity(), None);
    }
}

/// docs/designs.md (narrative): crosshair, two lines of half-length `size` and a centre dot.
pub(crate) fn crosshair(
    pm: &mut PixmapMut<'_>,
    x: f32,
    y: f32,
    size: f32,
    width: f32,
    color: Color,
) {
    line(
        pm,
        &[(x - size, y), (x + size, y)],
        color,
        width,
        LineCap::Butt,
    );
    line(
        pm,
        &[(x, y - size), (x, y + size)],
        color,
        width,
        LineCap::Butt,
    );
    dot(pm, x, y, width * 1.5, color);
}

/// A filled dot.
pub(crate) fn dot(pm: &mut PixmapMut<'_>, x: f32, y: f32, r: f32, color: Color) {
    if let Some(path) = PathBuilder::from_circle(x, y, r.max(0.5)) {
        pm.fill_path(
            &path,
            &solid(color),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

/// A hollow circle.
pub(crate) fn ring(pm: &mut PixmapMut<'_>, x: f32, y: f32, r: f32, width: f32, color: Color) {
    if let Some(path) = PathBuilder::from_circle(x, y, r.max(0.5)) {
        let stroke = Stroke {
            width,
            ..Stroke::default()
        };
        pm.stroke_path(&path, &solid(color), &stroke, Transform::identity(), None);
    }
}

/// docs/designs.md (narrative): arrow, a line with two arms of `head` pixels at `angle_deg` to it, at
/// the end.
#[allow(clippy::too_many_arguments)]
pub(crate) fn arrow(
    pm: &mut PixmapMut<'_>,
    (x1, y1): (f32, f32),
    (x2, y2): (f32, f32),
    width: f32,
    head: f32,
    angle_deg: f32,
    color: Color,
) {
    line(pm, &[(x1, y1), (x2, y2)], color, width, LineCap::Round);
    let back = (y1 - y2).atan2(x1 - x2);
    let a = angle_deg.to_radians();
    let arm = |t: f32| (x2 + head * t.cos(), y2 + head * t.sin());
    line(
        pm,
        &[arm(back + a), (x2, y2), arm(back - a)],
        color,
        width,
        LineCap::Round,
    );
}
