//! Exact pointer targets: a model's answer kept in the model's own space, never rounded
//! through integer 0..1000 on its way to the screen (docs/coordinates.md, "Exact targets").
//!
//! A family profile (crates/core/src/profile/) reads a point as the value v the model wrote on
//! each axis of an extent S (the sent image's width/height for `pixels`, 1000 for `norm1000`,
//! 1 for `relative`), and maps it as the families' reference code does:
//! `screen = P0 + min(L - 1, round(v * L / S))`, half-up, exact at .5 boundaries.

use crate::geometry::{ImageSize, NORM_MAX, NormPoint, WorkArea};
use franz_desktop::PixelPoint;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A number written as a JSON integer when it is whole, else with its fraction, so that
/// integer-valued targets read exactly like franz's other coordinates.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Num(pub f64);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if !v.is_finite() {
            return Err(serde::de::Error::custom(
                "a coordinate must be a finite number",
            ));
        }
        Ok(Num(v))
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.fract() == 0.0 {
            write!(f, "{}", self.0 as i64)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// The normalized spaces a profile may state with `norm_max` (docs/coordinates.md, "Exact
/// targets"): 0..1000 (Qwen3-VL, GLM-4.5V) and 0..999 (EvoCUA, MAI-UI, GLM-4.6V), whose
/// reference code divides by 999.
pub const NORM_MAXES: [u32; 2] = [1000, 999];

/// The maximum of a normalized extent (`Some(999)` for 999x999); `None` for pixels or 0..1.
pub fn norm_max_of(extent: ImageSize) -> Option<u32> {
    NORM_MAXES
        .into_iter()
        .find(|m| extent == ImageSize::new(*m, *m))
}

/// The model's space on each axis: v runs over 0..=S.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Space {
    /// 0..1000 of the working area (Qwen3-VL, GLM-4.xV).
    Norm1000,
    /// Pixels of the image the model was sent (Qwen2.5-VL, UI-TARS-1.5, OpenAI, Anthropic).
    Pixels,
    /// 0..1 of the working area.
    Relative,
}

impl Space {
    pub const ALL: [Space; 3] = [Space::Norm1000, Space::Pixels, Space::Relative];

    pub fn as_str(self) -> &'static str {
        match self {
            Space::Norm1000 => "norm1000",
            Space::Pixels => "pixels",
            Space::Relative => "relative",
        }
    }

    /// The extent S on each axis for a model sent an image of `image`.
    pub fn extent(self, image: ImageSize) -> ImageSize {
        match self {
            Space::Norm1000 => ImageSize::new(NORM_MAX as u32, NORM_MAX as u32),
            Space::Pixels => image,
            Space::Relative => ImageSize::new(1, 1),
        }
    }

    /// The space called `s` (`norm` is `norm1000`).
    pub fn from_name(s: &str) -> Option<Space> {
        match s.trim().to_ascii_lowercase().as_str() {
            "norm1000" | "norm" => Some(Space::Norm1000),
            "pixels" => Some(Space::Pixels),
            "relative" => Some(Space::Relative),
            _ => None,
        }
    }
}

/// A pointer action's target(s) as the model gave them: `at` (and `to`, a drag's end) in
/// 0..=`of` on each axis. Carried by [`crate::Action`] next to the rounded 0..1000 point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Exact {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<[Num; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<[Num; 2]>,
    /// The extent S: `[width, height]` of the sent image, `[1000, 1000]` or `[1, 1]`.
    pub of: [Num; 2],
}

impl Exact {
    /// The screen pixel of `p` on `area`, by `P0 + min(L - 1, round(v * L / S))`; v is
    /// clamped into 0..=S first (the parser has already warned about it).
    pub fn to_screen(&self, area: &WorkArea, p: [Num; 2]) -> PixelPoint {
        let r = area.rect;
        PixelPoint::new(
            exact_axis(p[0].0, self.of[0].0, r.x, r.width),
            exact_axis(p[1].0, self.of[1].0, r.y, r.height),
        )
    }

    /// Whether the values are usable: finite, extents above 0.
    pub fn is_valid(&self) -> bool {
        let ok = |p: &[Num; 2]| p.iter().all(|n| n.0.is_finite());
        self.of.iter().all(|n| n.0.is_finite() && n.0 > 0.0)
            && self.at.as_ref().is_none_or(ok)
            && self.to.as_ref().is_none_or(ok)
    }
}

/// `P0 + min(L - 1, round(v * L / S))` with v clamped into 0..=S, rounding half-up.
///
/// The true value v * L / S of an integer v is a multiple of 1/S away from any .5 unless it is
/// exactly .5, and S is at most 16384, so adding a margin far below 1/S before flooring rounds
/// every exact .5 up whatever the floating-point error of the product.
pub fn exact_axis(v: f64, s: f64, p0: i32, len: u32) -> i32 {
    let s = if s.is_finite() && s > 0.0 { s } else { 1.0 };
    let v = if v.is_finite() { v.clamp(0.0, s) } else { 0.0 };
    let t = v * len as f64 / s;
    let px = (t + 0.5 + 1e-7).floor() as i64;
    p0 + px.clamp(0, len.max(1) as i64 - 1) as i32
}

/// The rounded 0..1000 point of a value v of an extent S on each axis (for display, overlays
/// and readers of the integer fields): `round(v * 1000 / S)`, half-up.
pub fn norm_of(v: f64, s: f64) -> i32 {
    let s = if s > 0.0 { s } else { 1.0 };
    ((v * NORM_MAX as f64 / s + 0.5 + 1e-7).floor() as i64).clamp(i32::MIN as i64, i32::MAX as i64)
        as i32
}

/// [`norm_of`] on both axes.
pub fn norm_point(v: [f64; 2], of: ImageSize) -> NormPoint {
    NormPoint::new(
        norm_of(v[0], of.width as f64),
        norm_of(v[1], of.height as f64),
    )
}

#[cfg(test)]
#[path = "exact_target_tests.rs"]
mod tests;
