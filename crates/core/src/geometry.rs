//! Coordinates: the model's 0..1000 space, the working area, and pixels.
//!
//! The formulas are documented in docs/coordinates.md and shared with the panel's JavaScript:
//! - working area from a crop `x1,y1,x2,y2` (0..1000 of the screen):
//!   `left = round(x1 * W / 1000)`, `right = round(x2 * W / 1000)` (exclusive), likewise in y;
//! - a normalized value n on an axis starting at pixel P0, L pixels long: `P0 + round(n * (L - 1) / 1000)`;
//! - the inverse for pixel p of an axis of L pixels: `round(p * 1000 / (L - 1))`.
//!
//! Rounding is half-up, done in integers (`(a + b/2) / b`), which is what JavaScript's
//! `Math.round` does for these non-negative values, so Rust and the panel agree on every pixel.

use franz_desktop::{PixelPoint, PixelRect};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The largest model-facing coordinate.
pub const NORM_MAX: i32 = 1000;

/// `round(a / b)` half-up, for a >= 0 and b > 0.
fn div_round(a: i64, b: i64) -> i64 {
    (a + b / 2) / b
}

/// A point in the model's space: 0..=1000 on each axis of the working area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NormPoint {
    pub x: i32,
    pub y: i32,
}

impl NormPoint {
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }

    /// The point clamped into 0..=1000, and whether it had to be.
    pub fn clamped(self) -> (NormPoint, bool) {
        let c = NormPoint::new(self.x.clamp(0, NORM_MAX), self.y.clamp(0, NORM_MAX));
        (c, c != self)
    }

    pub fn in_range(self) -> bool {
        (0..=NORM_MAX).contains(&self.x) && (0..=NORM_MAX).contains(&self.y)
    }
}

impl fmt::Display for NormPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// Maps a normalized value (clamped to 0..=1000) onto an axis of `len` pixels starting at `p0`.
pub fn norm_to_axis(n: i32, p0: i32, len: u32) -> i32 {
    let n = n.clamp(0, NORM_MAX) as i64;
    let span = (len.max(1) - 1) as i64;
    p0 + div_round(n * span, NORM_MAX as i64) as i32
}

/// Maps pixel `p` (clamped into the axis) of an axis of `len` pixels to 0..=1000.
pub fn axis_to_norm(p: i32, len: u32) -> i32 {
    let span = (len.max(1) - 1) as i64;
    if span == 0 {
        return 0;
    }
    let p = (p as i64).clamp(0, span);
    div_round(p * NORM_MAX as i64, span) as i32
}

/// The working area as a crop of the screen, in 0..1000 of the whole screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Crop {
    pub x1: u32,
    pub y1: u32,
    pub x2: u32,
    pub y2: u32,
}

impl Crop {
    /// The whole screen.
    pub const FULL: Crop = Crop {
        x1: 0,
        y1: 0,
        x2: 1000,
        y2: 1000,
    };

    pub fn new(x1: u32, y1: u32, x2: u32, y2: u32) -> Result<Self, GeometryError> {
        if x1 >= x2 || y1 >= y2 || x2 > 1000 || y2 > 1000 {
            return Err(GeometryError::BadCrop(format!("{x1},{y1},{x2},{y2}")));
        }
        Ok(Self { x1, y1, x2, y2 })
    }

    pub fn is_full(&self) -> bool {
        *self == Crop::FULL
    }

    /// The working area in pixels of a screen (or monitor) `screen`.
    pub fn work_area(&self, screen: PixelRect) -> Result<WorkArea, GeometryError> {
        let (w, h) = (screen.width as i64, screen.height as i64);
        let left = div_round(self.x1 as i64 * w, 1000);
        let right = div_round(self.x2 as i64 * w, 1000);
        let top = div_round(self.y1 as i64 * h, 1000);
        let bottom = div_round(self.y2 as i64 * h, 1000);
        if right <= left || bottom <= top {
            return Err(GeometryError::EmptyWorkArea {
                crop: *self,
                width: screen.width,
                height: screen.height,
            });
        }
        Ok(WorkArea {
            rect: PixelRect::new(
                screen.x + left as i32,
                screen.y + top as i32,
                (right - left) as u32,
                (bottom - top) as u32,
            ),
        })
    }
}

impl Default for Crop {
    fn default() -> Self {
        Crop::FULL
    }
}

impl fmt::Display for Crop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{},{}", self.x1, self.y1, self.x2, self.y2)
    }
}

impl FromStr for Crop {
    type Err = GeometryError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<u32> = s
            .split(',')
            .map(|p| p.trim().parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| GeometryError::BadCrop(s.to_string()))?;
        match parts[..] {
            [x1, y1, x2, y2] => Crop::new(x1, y1, x2, y2),
            _ => Err(GeometryError::BadCrop(s.to_string())),
        }
    }
}

/// The part of the screen the agent sees and may act in, in root pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkArea {
    pub rect: PixelRect,
}

impl WorkArea {
    /// The screen pixel of a model point (clamped into the area).
    pub fn to_screen(&self, p: NormPoint) -> PixelPoint {
        PixelPoint::new(
            norm_to_axis(p.x, self.rect.x, self.rect.width),
            norm_to_axis(p.y, self.rect.y, self.rect.height),
        )
    }

    /// The model point of a screen pixel (clamped into the area).
    pub fn to_norm(&self, p: PixelPoint) -> NormPoint {
        NormPoint::new(
            axis_to_norm(p.x - self.rect.x, self.rect.width),
            axis_to_norm(p.y - self.rect.y, self.rect.height),
        )
    }

    pub fn contains(&self, p: PixelPoint) -> bool {
        self.rect.contains(p)
    }
}

/// The size of the image sent to the model; it shows the whole working area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ImageSize {
    pub width: u32,
    pub height: u32,
}

impl ImageSize {
    pub const fn new(width: u32, height: u32) -> Self {
        Self { width, height }
    }

    /// The image pixel of a model point.
    pub fn to_pixel(&self, p: NormPoint) -> (i32, i32) {
        (
            norm_to_axis(p.x, 0, self.width),
            norm_to_axis(p.y, 0, self.height),
        )
    }

    /// The model point of an image pixel, for models that answer in pixels.
    pub fn to_norm(&self, x: i32, y: i32) -> NormPoint {
        NormPoint::new(axis_to_norm(x, self.width), axis_to_norm(y, self.height))
    }
}

impl fmt::Display for ImageSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl FromStr for ImageSize {
    type Err = GeometryError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || GeometryError::BadSize(s.to_string());
        let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
        let w: u32 = w.trim().parse().map_err(|_| bad())?;
        let h: u32 = h.trim().parse().map_err(|_| bad())?;
        if w == 0 || h == 0 || w > 16384 || h > 16384 {
            return Err(bad());
        }
        Ok(ImageSize::new(w, h))
    }
}

/// How the image size is chosen (docs/coordinates.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub enum SizeRule {
    /// Exactly this size.
    Exact(ImageSize),
    /// Uniform scale of the working area, in percent.
    Scale(f64),
    /// Fit inside the box, keep the aspect ratio, never upscale.
    Fit(ImageSize),
    /// The working area's own size.
    #[default]
    Native,
    /// A fixed point of a model family's `smart_resize` ([`SmartResize`]),
    /// within `budget` pixels (0: the family's `max_pixels`).
    Smart { rule: SmartResize, budget: u64 },
}

/// Screen sizes people have, width x height (laptops, desktops, ultrawides, 4K): the
/// observation pipeline and `franz screenshot`/`franz run` are tested at each of them
/// (docs/architecture.md).
pub const COMMON_SCREENS: [(u32, u32); 14] = [
    (1280, 720),
    (1280, 800),
    (1366, 768),
    (1440, 900),
    (1536, 864),
    (1600, 900),
    (1680, 1050),
    (1920, 1080),
    (1920, 1200),
    (2560, 1080),
    (2560, 1440),
    (2880, 1800),
    (3440, 1440),
    (3840, 2160),
];

impl SizeRule {
    /// The model default: fit inside 1536x864.
    pub const MODEL_DEFAULT: SizeRule = SizeRule::Fit(ImageSize::new(1536, 864));

    /// The image size for a working area of `w` x `h` pixels.
    pub fn resolve(&self, w: u32, h: u32) -> ImageSize {
        let scaled = |f: f64| {
            ImageSize::new(
                ((w as f64 * f).round() as u32).max(1),
                ((h as f64 * f).round() as u32).max(1),
            )
        };
        match *self {
            SizeRule::Exact(s) => s,
            SizeRule::Native => ImageSize::new(w, h),
            SizeRule::Scale(pct) => scaled(pct / 100.0),
            SizeRule::Smart { rule, budget } => rule.send_size(w, h, budget),
            SizeRule::Fit(b) => {
                let f = (b.width as f64 / w as f64).min(b.height as f64 / h as f64);
                if f >= 1.0 {
                    ImageSize::new(w, h)
                } else {
                    scaled(f)
                }
            }
        }
    }
}

/// A box given by a model, in 0..1000, corners ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NormBox {
    pub x1: i32,
    pub y1: i32,
    pub x2: i32,
    pub y2: i32,
}

impl NormBox {
    /// A box from two corners in any order: inverted corners are swapped.
    pub fn from_corners(x1: i32, y1: i32, x2: i32, y2: i32) -> Self {
        Self {
            x1: x1.min(x2),
            y1: y1.min(y2),
            x2: x1.max(x2),
            y2: y1.max(y2),
        }
    }

    /// The box's point: its center (half-up).
    pub fn center(&self) -> NormPoint {
        NormPoint::new(
            div_round(self.x1 as i64 + self.x2 as i64, 2) as i32,
            div_round(self.y1 as i64 + self.y2 as i64, 2) as i32,
        )
    }
}

/// A target as models give it: the designs' three box forms (docs/coordinates.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `[x, y]`
    Point(NormPoint),
    /// `[x1, y1, x2, y2]` or `[[x1, y1], [x2, y2]]`
    Box(NormBox),
}

impl Target {
    /// The point to act on: the point itself, or the box's center.
    pub fn point(&self) -> NormPoint {
        match self {
            Target::Point(p) => *p,
            Target::Box(b) => b.center(),
        }
    }

    /// Reads `[x,y]`, `[x1,y1,x2,y2]` or `[[x1,y1],[x2,y2]]` from numbers already extracted.
    /// `[-1,-1]` and empty or all-zero boxes are errors, not clicks.
    pub fn from_numbers(nums: &[f64]) -> Result<Target, GeometryError> {
        let r = |v: f64| v.round() as i32;
        if nums.iter().any(|v| !v.is_finite()) {
            return Err(GeometryError::BadTarget(format!("{nums:?}")));
        }
        match nums {
            [x, y] => {
                if *x < 0.0 && *y < 0.0 {
                    return Err(GeometryError::NoTarget(shown(nums)));
                }
                Ok(Target::Point(NormPoint::new(r(*x), r(*y))))
            }
            [x1, y1, x2, y2] => {
                if nums.iter().all(|v| *v == 0.0) || nums.iter().all(|v| *v < 0.0) {
                    return Err(GeometryError::NoTarget(shown(nums)));
                }
                Ok(Target::Box(NormBox::from_corners(
                    r(*x1),
                    r(*y1),
                    r(*x2),
                    r(*y2),
                )))
            }
            [] => Err(GeometryError::NoTarget("[]".into())),
            _ => Err(GeometryError::BadTarget(format!("{nums:?}"))),
        }
    }

    /// Reads a JSON target in any of the three forms; numbers may be strings.
    pub fn from_json(v: &serde_json::Value) -> Result<Target, GeometryError> {
        let mut nums = Vec::new();
        collect_numbers(v, &mut nums, 0)?;
        Target::from_numbers(&nums)
    }
}

/// The numbers of a JSON target in any of the forms [`Target::from_json`] reads, unrounded.
/// Numbers as a model wrote them, for messages: `[-5, -7]`, `[0.5, 2]`.
fn shown(nums: &[f64]) -> String {
    let parts: Vec<String> = nums
        .iter()
        .map(|v| {
            if v.fract() == 0.0 && v.abs() < 1e15 {
                format!("{}", *v as i64)
            } else {
                v.to_string()
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The numbers written in a string, in order: `"[640, 360]"`, `"(640,360)"`, `"640 360"`,
/// `"<point>5 7</point>"`, `"(1e-308, 5e2)"` (an exponent belongs to its number). `Err` with
/// the piece that is no number (`1.2.3`).
pub fn numbers_in(s: &str) -> Result<Vec<f64>, String> {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let signed = matches!(b[i], b'-' | b'+') && (digit(i + 1) || b.get(i + 1) == Some(&b'.'));
        if !(b[i].is_ascii_digit() || b[i] == b'.' || signed) {
            i += 1;
            continue;
        }
        let start = i;
        i += usize::from(signed);
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        // an exponent only when digits follow: the `e` of `box_end` is no exponent
        if matches!(b.get(i), Some(b'e' | b'E')) {
            let j = i + 1 + usize::from(matches!(b.get(i + 1), Some(b'-' | b'+')));
            if digit(j) {
                i = j;
                while digit(i) {
                    i += 1;
                }
            }
        }
        let t = &s[start..i];
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => out.push(v),
            Ok(_) | Err(_) if t == "." => {}
            _ => return Err(t.to_string()),
        }
    }
    Ok(out)
}

pub fn target_numbers(v: &serde_json::Value) -> Result<Vec<f64>, GeometryError> {
    let mut nums = Vec::new();
    collect_numbers(v, &mut nums, 0)?;
    Ok(nums)
}

fn collect_numbers(
    v: &serde_json::Value,
    out: &mut Vec<f64>,
    depth: usize,
) -> Result<(), GeometryError> {
    use serde_json::Value;
    let bad = || GeometryError::BadTarget(v.to_string());
    if depth > 2 || out.len() > 4 {
        return Err(bad());
    }
    match v {
        Value::Number(n) => out.push(n.as_f64().ok_or_else(bad)?),
        Value::String(s) => out.extend(numbers_in(s).map_err(|_| bad())?),
        Value::Array(items) => {
            for item in items {
                collect_numbers(item, out, depth + 1)?;
            }
        }
        Value::Object(map) => {
            // {"x":..,"y":..} or {"x1":..,"y1":..,"x2":..,"y2":..}
            let keys: &[&str] = if map.contains_key("x1") {
                &["x1", "y1", "x2", "y2"]
            } else {
                &["x", "y"]
            };
            for k in keys {
                collect_numbers(map.get(*k).ok_or_else(bad)?, out, depth + 1)?;
            }
        }
        _ => return Err(bad()),
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeometryError {
    #[error(
        "bad crop {0:?}: expected x1,y1,x2,y2 in 0..1000 of the screen with x1 < x2 and y1 < y2, e.g. 250,250,750,750"
    )]
    BadCrop(String),
    #[error("crop {crop} leaves no pixels on a {width}x{height} screen: widen it")]
    EmptyWorkArea { crop: Crop, width: u32, height: u32 },
    #[error("bad size {0:?}: expected WxH with both between 1 and 16384, e.g. 1536x864")]
    BadSize(String),
    #[error("bad coordinate {0}: expected [x, y], [x1, y1, x2, y2] or [[x1, y1], [x2, y2]]")]
    BadTarget(String),
    #[error(
        "no target: {0} is not a place to act ([-1, -1], a point with both values negative and an empty or all-zero box mean none); give a point on the screen"
    )]
    NoTarget(String),
}

// `smart_resize`, ported exactly from the families' reference code (qwen-vl-utils 0.0.14
// `vision_process.py` and ui-tars 0.5.1 `ui_tars/action_parser.py`, identical there): the size
// a Qwen-VL-style processor resizes an image to. franz sends images this function leaves
// unchanged, so that no server resamples them.

/// The reference code refuses images whose sides differ by more than this ratio.
pub const MAX_RATIO: f64 = 200.0;

/// A family's resize rule: sides multiples of `factor`, area within `min_pixels..=max_pixels`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SmartResize {
    pub factor: u32,
    pub min_pixels: u64,
    pub max_pixels: u64,
}

/// Python's `round(x)`: half to even.
fn py_round(x: f64) -> f64 {
    x.round_ties_even()
}

impl SmartResize {
    /// `smart_resize(height, width)` as `(width, height)`; `None` where the reference raises
    /// (a side of 0, or a ratio over [`MAX_RATIO`]).
    pub fn resize(&self, width: u32, height: u32) -> Option<ImageSize> {
        let (h, w) = (height as f64, width as f64);
        let f = self.factor.max(1) as f64;
        if width == 0 || height == 0 || h.max(w) / h.min(w) > MAX_RATIO {
            return None;
        }
        let mut h_bar = f.max(py_round(h / f) * f);
        let mut w_bar = f.max(py_round(w / f) * f);
        if h_bar * w_bar > self.max_pixels as f64 {
            let beta = ((h * w) / self.max_pixels as f64).sqrt();
            h_bar = (h / beta / f).floor() * f;
            w_bar = (w / beta / f).floor() * f;
        } else if h_bar * w_bar < self.min_pixels as f64 {
            let beta = (self.min_pixels as f64 / (h * w)).sqrt();
            h_bar = (h * beta / f).ceil() * f;
            w_bar = (w * beta / f).ceil() * f;
        }
        Some(ImageSize::new(w_bar as u32, h_bar as u32))
    }

    /// Whether the reference leaves `size` unchanged.
    pub fn is_fixed_point(&self, size: ImageSize) -> bool {
        self.resize(size.width, size.height) == Some(size)
    }

    /// The image franz sends for a working area of `width` x `height`: the reference's own
    /// result with `max_pixels` lowered to the pixel budget, which is a fixed point of the
    /// rule with the family's `max_pixels` (each side a multiple of the factor, the area
    /// within the bounds). Falls back to one factor square for an area the reference refuses.
    pub fn send_size(&self, width: u32, height: u32, budget: u64) -> ImageSize {
        let budget = if budget == 0 {
            self.max_pixels
        } else {
            budget.clamp(self.min_pixels, self.max_pixels)
        };
        let within = SmartResize {
            max_pixels: budget,
            ..*self
        };
        match within.resize(width, height) {
            Some(s) => self.nearest_fixed_point(s),
            None => ImageSize::new(self.factor, self.factor),
        }
    }

    /// The next smaller image the family keeps, about 3/4 of `size` on each side (9/16 of its
    /// pixels): for keeping a request inside a small context (the shrink step of
    /// crates/core/src/engine/context_fit.rs). `None` below `min_pixels`.
    pub fn next_smaller(&self, size: ImageSize) -> Option<ImageSize> {
        let area = size.width as u64 * size.height as u64;
        let target = area * 9 / 16;
        if target < self.min_pixels {
            return None;
        }
        let next = self.send_size(size.width, size.height, target);
        ((next.width as u64 * next.height as u64) < area).then_some(next)
    }

    /// The fixed point nearest `size`: what the reference makes of it, applied again until
    /// it no longer changes (a size below `min_pixels` can take two steps).
    pub fn nearest_fixed_point(&self, size: ImageSize) -> ImageSize {
        let mut s = size;
        for _ in 0..8 {
            match self.resize(s.width, s.height) {
                Some(next) if next == s => return s,
                Some(next) => s = next,
                None => return ImageSize::new(self.factor, self.factor),
            }
        }
        s
    }
}

#[cfg(test)]
#[path = "geometry_tests.rs"]
mod tests;
