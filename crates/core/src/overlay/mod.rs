//! Visual feedback burned into the screenshot the model sees next (the designs' central idea,
//! docs/designs.md): the vision loop's orange heat at action points with a fading trail over recent
//! turns, blue heat over the model's boxes, and labels; the narrative design's crosshairs, rings
//! and drag arrows.
//!
//! The observation pipeline calls [`Overlay::draw`] on the resized RGBA image before encoding.
//! It knows nothing of capture: it takes a buffer, its size, and a [`FeedbackHistory`] of the
//! last turns' actions and boxes in model coordinates (0..1000 of the image, mapped with
//! [`ImageSize::to_pixel`]). Layers, bottom to top: box heat, action heat (oldest turn first),
//! marks for the newest turn, labels for the newest turn.

mod config;
mod paint;
mod set_of_marks;
mod text;

pub use config::{
    BboxHeatConfig, Color, HeatConfig, LabelConfig, MAX_STOPS, MarksConfig, OverlayConfig, RANGES,
    Stop,
};

use crate::action::{Action, ActionKind, ActionResult};
use crate::geometry::{ImageSize, NormBox, NormPoint};
use ab_glyph::FontRef;
use franz_desktop::Button;
use std::collections::VecDeque;
use tiny_skia::PixmapMut;

#[derive(Debug, thiserror::Error)]
pub enum OverlayError {
    #[error("the overlay buffer holds {len} bytes, not {width}x{height} RGBA")]
    BadBuffer { width: u32, height: u32, len: usize },
    #[error("the embedded label font cannot be read")]
    Font,
    #[error("bad [overlay] setting: {0}")]
    OutOfRange(String),
}

/// What one turn did, for the overlay: its actions and the boxes the model gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnFeedback {
    pub actions: Vec<Action>,
    pub bboxes: Vec<NormBox>,
}

impl TurnFeedback {
    /// What a turn did: only the actions whose result is `ok` (performed, or simulated in a dry
    /// run) are drawn. Rejected, failed and never-reached actions are left out, so the next
    /// screenshot never shows a click that did not happen. The boxes are the model's own.
    pub fn executed(actions: &[Action], results: &[ActionResult], bboxes: &[NormBox]) -> Self {
        Self {
            actions: actions
                .iter()
                .zip(results)
                .filter(|(_, r)| r.is_ok())
                .map(|(a, _)| a.clone())
                .collect(),
            bboxes: bboxes.to_vec(),
        }
    }
}

/// The last turns' feedback, newest last; holds at most `capacity` turns.
#[derive(Debug, Clone)]
pub struct FeedbackHistory {
    turns: VecDeque<TurnFeedback>,
    capacity: usize,
    /// Bumped whenever what is drawn changes: equal generations draw the same overlay.
    generation: u64,
}

impl FeedbackHistory {
    pub fn new(capacity: usize) -> Self {
        Self {
            turns: VecDeque::new(),
            capacity: capacity.max(1),
            generation: 0,
        }
    }

    /// Adds the newest turn, dropping the oldest past capacity.
    pub fn push(&mut self, turn: TurnFeedback) {
        // a full history of turns equal to the new one stays the same
        let same = self.turns.len() == self.capacity && self.turns.iter().all(|t| *t == turn);
        if !same {
            self.generation += 1;
        }
        self.turns.push_back(turn);
        while self.turns.len() > self.capacity {
            self.turns.pop_front();
        }
    }

    pub fn clear(&mut self) {
        if !self.turns.is_empty() {
            self.generation += 1;
        }
        self.turns.clear();
    }

    /// Changes whenever the turns drawn change (and only then), so that an unchanged frame
    /// with the same overlay can be recognised without comparing the turns.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn len(&self) -> usize {
        self.turns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    /// Turns with their age: 0 is the newest. Oldest first.
    fn by_age(&self) -> impl Iterator<Item = (usize, &TurnFeedback)> {
        let n = self.turns.len();
        self.turns
            .iter()
            .enumerate()
            .map(move |(i, t)| (n - 1 - i, t))
    }

    fn newest(&self) -> Option<&TurnFeedback> {
        self.turns.back()
    }
}

/// Draws the overlays. Build once (it parses the font), draw every turn.
pub struct Overlay {
    config: OverlayConfig,
    font: FontRef<'static>,
}

impl Overlay {
    pub fn new(config: OverlayConfig) -> Result<Self, OverlayError> {
        config.check().map_err(OverlayError::OutOfRange)?;
        Ok(Self {
            config,
            font: text::font()?,
        })
    }

    pub fn config(&self) -> &OverlayConfig {
        &self.config
    }

    /// A history sized for this configuration's trail.
    pub fn history(&self) -> FeedbackHistory {
        FeedbackHistory::new(self.config.executed_heat.trail_turns)
    }

    /// Draws onto `data`, `width` x `height` tightly packed RGBA (opaque, as screenshots are).
    pub fn draw(
        &self,
        width: u32,
        height: u32,
        data: &mut [u8],
        history: &FeedbackHistory,
    ) -> Result<(), OverlayError> {
        let len = data.len();
        let bad = || OverlayError::BadBuffer { width, height, len };
        if len != width as usize * height as usize * 4 {
            return Err(bad());
        }
        let c = &self.config;
        if !c.enabled || history.is_empty() {
            return Ok(());
        }
        let size = ImageSize::new(width, height);
        let px = |x: i32, y: i32| {
            let (x, y) = size.to_pixel(NormPoint::new(x, y));
            (x as f32, y as f32)
        };
        let mut labels: Vec<(Option<(f32, f32)>, String)> = Vec::new();
        {
            let mut pm = PixmapMut::from_bytes(data, width, height).ok_or_else(bad)?;
            let newest = history.newest();
            if c.bbox_heat.enabled {
                for b in newest.map(|t| t.bboxes.as_slice()).unwrap_or_default() {
                    let (x1, y1) = px(b.x1, b.y1);
                    let (x2, y2) = px(b.x2, b.y2);
                    paint::box_heat(&mut pm, &c.bbox_heat, x1, y1, x2, y2);
                }
            }
            if c.executed_heat.enabled {
                let h = &c.executed_heat;
                let base = h.radius_scale * width.max(height) as f32;
                for (age, turn) in history.by_age() {
                    if age >= h.trail_turns.max(1) {
                        continue;
                    }
                    let shrink = h.trail_shrink.clamp(0.0, 1.0).powi(age as i32);
                    let fade = h.trail_fade.clamp(0.0, 1.0).powi(age as i32);
                    for a in &turn.actions {
                        for (x, y) in heat_points(&a.kind, shrink) {
                            let (x, y) = px(x, y);
                            paint::heat(&mut pm, x, y, base * shrink, &h.stops, fade);
                        }
                    }
                }
            }
            if let Some(turn) = newest {
                for (i, a) in turn.actions.iter().enumerate() {
                    if c.marks.enabled {
                        self.mark(&mut pm, &a.kind, &px);
                    }
                    if c.labels.enabled {
                        labels.push(label(i + 1, &a.kind, &px, c.labels.max_chars));
                    }
                }
            }
            self.label_backgrounds(&mut pm, &labels, width, height)
        }
        .into_iter()
        .zip(labels)
        .for_each(|(b, (_, s))| text::draw_text(data, width, height, &self.font, &c.labels, b, &s));
        Ok(())
    }

    /// Draws onto an observation image.
    pub fn draw_image(
        &self,
        image: &mut crate::observe::RgbaImage,
        history: &FeedbackHistory,
    ) -> Result<(), OverlayError> {
        self.draw(image.width, image.height, &mut image.data, history)
    }

    /// `image` with a dark strip added below it holding `text` on one line, in the labels'
    /// font and colour, cut with an ellipsis to fit (the run's animation, crate::report).
    pub fn with_caption(
        &self,
        image: &crate::observe::RgbaImage,
        text: &str,
    ) -> crate::observe::RgbaImage {
        let cfg = &self.config.labels;
        let (one, line_h) = text::measure(&self.font, cfg, "M");
        let (two, _) = text::measure(&self.font, cfg, "MM");
        let advance = (two - one).max(1.0);
        let strip = line_h.ceil() as u32 + 4;
        let (width, height) = (image.width, image.height + strip);
        let mut data = image.data.clone();
        data.resize(width as usize * height as usize * 4, 255);
        for px in data[image.data.len()..].chunks_exact_mut(4) {
            px.copy_from_slice(&[32, 32, 32, 255]);
        }
        let fits = ((width as f32 - 2.0 * cfg.padding) / advance)
            .floor()
            .max(1.0) as usize;
        let place = text::LabelBox {
            x: 0.0,
            y: image.height as f32 + 2.0,
            w: width as f32,
            h: line_h,
        };
        let line = text::shorten(text, fits);
        text::draw_text(&mut data, width, height, &self.font, cfg, place, &line);
        crate::observe::RgbaImage {
            width,
            height,
            data,
        }
    }

    fn mark(
        &self,
        pm: &mut PixmapMut<'_>,
        kind: &ActionKind,
        px: &impl Fn(i32, i32) -> (f32, f32),
    ) {
        let m = &self.config.marks;
        let click =
            |pm: &mut PixmapMut<'_>, (x, y): (f32, f32), cross: Color, ring: Color, n: usize| {
                paint::crosshair(pm, x, y, m.crosshair_size, m.crosshair_thickness, cross);
                for k in 0..n {
                    let r = m.circle_radius + k as f32 * (m.ring_width + 3.0);
                    paint::ring(pm, x, y, r, m.ring_width, ring);
                }
            };
        use ActionKind::*;
        match *kind {
            Click {
                x: Some(x),
                y: Some(y),
            }
            | LongPress {
                x: Some(x),
                y: Some(y),
                ..
            } => click(pm, px(x, y), m.left, m.left_ring, 1),
            DoubleClick {
                x: Some(x),
                y: Some(y),
            } => click(pm, px(x, y), m.left, m.left_ring, 2),
            TripleClick {
                x: Some(x),
                y: Some(y),
            } => click(pm, px(x, y), m.left, m.left_ring, 3),
            RightClick {
                x: Some(x),
                y: Some(y),
            } => click(pm, px(x, y), m.right, m.right_ring, 1),
            MiddleClick {
                x: Some(x),
                y: Some(y),
            } => click(pm, px(x, y), m.middle, m.middle_ring, 1),
            Drag { x, y, x2, y2 } => {
                let start = x.zip(y).map(|(x, y)| px(x, y));
                self.mark_drag(pm, start, px(x2, y2));
            }
            MouseDown {
                x: Some(x),
                y: Some(y),
                button,
            }
            | MouseUp {
                x: Some(x),
                y: Some(y),
                button,
            } => {
                let color = match button {
                    Button::Left => m.left,
                    Button::Right => m.right,
                    Button::Middle => m.middle,
                };
                let (x, y) = px(x, y);
                paint::ring(pm, x, y, m.circle_radius, m.ring_width, color);
            }
            Move {
                x: Some(x),
                y: Some(y),
            }
            | Scroll {
                x: Some(x),
                y: Some(y),
                ..
            } => {
                let (x, y) = px(x, y);
                paint::ring(pm, x, y, m.circle_radius, m.ring_width, m.pointer);
            }
            _ => {}
        }
    }

    /// A drag: an arrow from its start (when the model gave one) and a ring at its end.
    fn mark_drag(&self, pm: &mut PixmapMut<'_>, start: Option<(f32, f32)>, end: (f32, f32)) {
        let m = &self.config.marks;
        if let Some(start) = start {
            paint::arrow(
                pm,
                start,
                end,
                m.arrow_thickness,
                m.arrow_head_length,
                m.arrow_head_angle_deg,
                m.drag_arrow,
            );
            paint::dot(pm, start.0, start.1, m.circle_radius / 2.0, m.drag_start);
        }
        paint::ring(pm, end.0, end.1, m.circle_radius, m.ring_width, m.drag_end);
    }

    /// Measures and places the labels and draws their boxes; returns the boxes in order.
    fn label_backgrounds(
        &self,
        pm: &mut PixmapMut<'_>,
        labels: &[(Option<(f32, f32)>, String)],
        width: u32,
        height: u32,
    ) -> Vec<text::LabelBox> {
        let cfg = &self.config.labels;
        let (w, h) = (width as f32, height as f32);
        let mut stack_y = 0.0;
        let mut boxes = Vec::with_capacity(labels.len());
        for (anchor, s) in labels.iter() {
            let (lw, lh) = text::measure(&self.font, cfg, s);
            let b = match anchor {
                Some((x, y)) => text::place(*x, *y, lw, lh, w, h),
                None => {
                    // actions without a point (type, key, ...) stack at the top-left corner
                    let b = text::place(-14.0, stack_y - 14.0, lw, lh, w, h);
                    stack_y += lh + 2.0;
                    b
                }
            };
            text::draw_background(pm, cfg, b);
            boxes.push(b);
        }
        boxes
    }
}

/// Points that get heat, with drag ends pulled toward their midpoint by `shrink`.
fn heat_points(kind: &ActionKind, shrink: f32) -> Vec<(i32, i32)> {
    if let ActionKind::Drag {
        x: Some(x),
        y: Some(y),
        x2,
        y2,
    } = *kind
    {
        let (mx, my) = ((x + x2) as f32 / 2.0, (y + y2) as f32 / 2.0);
        let pull = |v: i32, m: f32| (m + (v as f32 - m) * shrink).round() as i32;
        return vec![(pull(x, mx), pull(y, my)), (pull(x2, mx), pull(y2, my))];
    }
    if let ActionKind::Drag { x2, y2, .. } = *kind {
        return vec![(x2, y2)];
    }
    kind.point().into_iter().collect()
}

/// The label for action number `n`: its index and coordinates, or a short text.
fn label(
    n: usize,
    kind: &ActionKind,
    px: &impl Fn(i32, i32) -> (f32, f32),
    max_chars: usize,
) -> (Option<(f32, f32)>, String) {
    match kind {
        ActionKind::Drag { x, y, x2, y2 } => {
            let from = match (x, y) {
                (Some(x), Some(y)) => format!("{x},{y}"),
                _ => "pointer".into(),
            };
            (Some(px(*x2, *y2)), format!("{n} drag {from}→{x2},{y2}"))
        }
        ActionKind::Type { text: t } => (
            None,
            format!("{n} type \"{}\"", text::shorten(t, max_chars)),
        ),
        ActionKind::Key { keys } => (None, format!("{n} key {}", text::shorten(keys, max_chars))),
        ActionKind::HoldKey { keys, seconds } => (
            None,
            format!("{n} hold_key {} {seconds}s", text::shorten(keys, max_chars)),
        ),
        k => match k.point() {
            Some((x, y)) => (Some(px(x, y)), format!("{n} {} {x},{y}", k.name())),
            None => (None, format!("{n} {}", k.name())),
        },
    }
}

#[cfg(test)]
mod tests;
