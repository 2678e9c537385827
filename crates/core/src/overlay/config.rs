//! The overlay's settings, every colour, size and trail knob, with the designs' defaults
//! (docs/designs.md).
//!
//! Names follow the vision loop's `UI_CONFIG` (`executed_heat.radius_scale`, `stops`,
//! `trail_turns`, `trail_shrink`, `bbox_heat.border`, `border_width`, `fill_stops`) and the
//! narrative design's drawing constants (crosshair size 20 and thickness 2, 2 px rings, arrows 3 px
//! thick with 15 px arms at 30°, left click red/green, right click blue/yellow, drag blue arrow
//! from yellow to green). The vision loop names its heat knobs but gives no numbers; the defaults
//! below are ours, picked to be visible without hiding the UI underneath: an orange glow about 54
//! px across on a 1536 px image, a 4-turn trail (the vision loop's own example) fading by 0.55 per
//! turn and shrinking by 0.75.
//!
//! Colours are written as CSS strings like the vision loop's: `"rgba(255, 140, 0, 0.6)"`,
//! `"rgb(..)"` or `"#rrggbb"` / `"#rrggbbaa"`.
//!
//! A run takes them from the `[overlay]` table of its config file or scenario (docs/config.md,
//! `config::ConfigBuilder`); what the table leaves out keeps these defaults.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A colour with straight (not premultiplied) alpha in 0..=1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Color {
    pub r: u8,
    pub g: u8,
    pub b: u8,
    pub a: f32,
}

impl Color {
    pub const fn rgba(r: u8, g: u8, b: u8, a: f32) -> Self {
        Self { r, g, b, a }
    }
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self::rgba(r, g, b, 1.0)
    }
    /// The same colour with its alpha multiplied by `f`.
    pub fn faded(self, f: f32) -> Self {
        Self {
            a: (self.a * f).clamp(0.0, 1.0),
            ..self
        }
    }
    pub(crate) fn skia(self) -> tiny_skia::Color {
        tiny_skia::Color::from_rgba8(
            self.r,
            self.g,
            self.b,
            (self.a.clamp(0.0, 1.0) * 255.0).round() as u8,
        )
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rgba({}, {}, {}, {})", self.r, self.g, self.b, self.a)
    }
}

impl FromStr for Color {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad =
            || format!("{s:?} is not a colour: give rgba(r, g, b, a), rgb(r, g, b) or #rrggbb[aa]");
        let t = s.trim();
        if let Some(hex) = t.strip_prefix('#') {
            let byte = |i: usize| {
                hex.get(i..i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(bad)
            };
            return match hex.len() {
                6 => Ok(Color::rgb(byte(0)?, byte(2)?, byte(4)?)),
                8 => Ok(Color::rgba(
                    byte(0)?,
                    byte(2)?,
                    byte(4)?,
                    byte(6)? as f32 / 255.0,
                )),
                _ => Err(bad()),
            };
        }
        let (body, want) = if let Some(b) = t.strip_prefix("rgba(") {
            (b, 4)
        } else if let Some(b) = t.strip_prefix("rgb(") {
            (b, 3)
        } else {
            return Err(bad());
        };
        let parts: Vec<&str> = body
            .strip_suffix(')')
            .ok_or_else(bad)?
            .split(',')
            .map(str::trim)
            .collect();
        if parts.len() != want {
            return Err(bad());
        }
        let ch = |p: &str| p.parse::<u8>().map_err(|_| bad());
        let a = if want == 4 {
            let a: f32 = parts[3].parse().map_err(|_| bad())?;
            if !(0.0..=1.0).contains(&a) {
                return Err(bad());
            }
            a
        } else {
            1.0
        };
        Ok(Color::rgba(ch(parts[0])?, ch(parts[1])?, ch(parts[2])?, a))
    }
}

impl Serialize for Color {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Color {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A gradient stop: position 0..=1 from the centre outwards, and its colour.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stop(pub f32, pub Color);

/// Every overlay setting. `enabled = false` is `--no-feedback`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OverlayConfig {
    pub enabled: bool,
    pub executed_heat: HeatConfig,
    pub bbox_heat: BboxHeatConfig,
    pub marks: MarksConfig,
    pub labels: LabelConfig,
}

/// docs/designs.md (vision loop): orange heat at action points, with a trail over recent turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeatConfig {
    pub enabled: bool,
    /// Radius as a fraction of the image's longer side.
    pub radius_scale: f32,
    pub stops: Vec<Stop>,
    /// Turns of heat kept: 1 is this turn only.
    pub trail_turns: usize,
    /// Per turn of age: radius factor, and how far drag ends are pulled toward their midpoint
    /// (1.0 turns shrinking off).
    pub trail_shrink: f32,
    /// Per turn of age: alpha factor.
    pub trail_fade: f32,
}

/// docs/designs.md (vision loop): blue heat over the boxes the model gave, with a border.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BboxHeatConfig {
    pub enabled: bool,
    pub border: Color,
    pub border_width: f32,
    pub fill_stops: Vec<Stop>,
}

/// docs/designs.md (narrative): marks for the last turn's actions. Sizes are pixels of the model's
/// image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MarksConfig {
    pub enabled: bool,
    /// Half the length of a crosshair arm.
    pub crosshair_size: f32,
    pub crosshair_thickness: f32,
    pub circle_radius: f32,
    pub ring_width: f32,
    pub arrow_thickness: f32,
    pub arrow_head_length: f32,
    pub arrow_head_angle_deg: f32,
    /// Left, double and triple click: crosshair and ring.
    pub left: Color,
    pub left_ring: Color,
    pub right: Color,
    pub right_ring: Color,
    pub middle: Color,
    pub middle_ring: Color,
    /// Move, scroll, mouse down/up: a ring.
    pub pointer: Color,
    pub drag_arrow: Color,
    pub drag_start: Color,
    pub drag_end: Color,
}

/// Labels: the action index and its coordinates, or a short text for `type` and `key`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LabelConfig {
    pub enabled: bool,
    pub font_px: f32,
    pub color: Color,
    pub background: Color,
    pub padding: f32,
    /// Longer typed text is cut with an ellipsis.
    pub max_chars: usize,
}

/// Every number of the overlay and its range (docs/config.md): a value outside is an error when
/// the configuration is resolved, not a drawing that never ends (`font_px = 1e30`).
pub const RANGES: &[(&str, f64, f64)] = &[
    ("executed_heat.radius_scale", 0.0, 1.0),
    ("executed_heat.trail_turns", 0.0, 100.0),
    ("executed_heat.trail_shrink", 0.0, 1.0),
    ("executed_heat.trail_fade", 0.0, 1.0),
    ("bbox_heat.border_width", 0.0, 50.0),
    ("marks.crosshair_size", 0.0, 200.0),
    ("marks.crosshair_thickness", 0.0, 50.0),
    ("marks.circle_radius", 0.0, 200.0),
    ("marks.ring_width", 0.0, 50.0),
    ("marks.arrow_thickness", 0.0, 50.0),
    ("marks.arrow_head_length", 0.0, 200.0),
    ("marks.arrow_head_angle_deg", 0.0, 90.0),
    ("labels.font_px", 1.0, 200.0),
    ("labels.padding", 0.0, 100.0),
    ("labels.max_chars", 0.0, 1000.0),
];

/// The most colour stops of a gradient (`stops`, `fill_stops`); each stop's position is 0 to 1.
pub const MAX_STOPS: usize = 16;

impl OverlayConfig {
    /// Each number with its key, in the order of [`RANGES`].
    fn numbers(&self) -> [(&'static str, f64); 15] {
        let (h, b, m, l) = (
            &self.executed_heat,
            &self.bbox_heat,
            &self.marks,
            &self.labels,
        );
        [
            ("executed_heat.radius_scale", h.radius_scale.into()),
            ("executed_heat.trail_turns", h.trail_turns as f64),
            ("executed_heat.trail_shrink", h.trail_shrink.into()),
            ("executed_heat.trail_fade", h.trail_fade.into()),
            ("bbox_heat.border_width", b.border_width.into()),
            ("marks.crosshair_size", m.crosshair_size.into()),
            ("marks.crosshair_thickness", m.crosshair_thickness.into()),
            ("marks.circle_radius", m.circle_radius.into()),
            ("marks.ring_width", m.ring_width.into()),
            ("marks.arrow_thickness", m.arrow_thickness.into()),
            ("marks.arrow_head_length", m.arrow_head_length.into()),
            ("marks.arrow_head_angle_deg", m.arrow_head_angle_deg.into()),
            ("labels.font_px", l.font_px.into()),
            ("labels.padding", l.padding.into()),
            ("labels.max_chars", l.max_chars as f64),
        ]
    }

    /// Every number within its range ([`RANGES`], [`MAX_STOPS`]); the first that is not, said
    /// with its key and range.
    pub fn check(&self) -> Result<(), String> {
        for ((key, v), (_, min, max)) in self.numbers().iter().zip(RANGES) {
            if !v.is_finite() || v < min || v > max {
                return Err(format!("{key} = {v} is out of range: give {min} to {max}"));
            }
        }
        for (key, stops) in [
            ("executed_heat.stops", &self.executed_heat.stops),
            ("bbox_heat.fill_stops", &self.bbox_heat.fill_stops),
        ] {
            if stops.len() > MAX_STOPS {
                return Err(format!(
                    "{key} has {} stops: give at most {MAX_STOPS}",
                    stops.len()
                ));
            }
            if let Some(Stop(p, _)) = stops.iter().find(|s| !(0.0..=1.0).contains(&s.0)) {
                return Err(format!("{key}: a stop at {p} is out of range: give 0 to 1"));
            }
        }
        Ok(())
    }
}

const ORANGE: (u8, u8, u8) = (255, 140, 0);
const HEAT_BLUE: (u8, u8, u8) = (0, 120, 255);

impl Default for OverlayConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            executed_heat: HeatConfig::default(),
            bbox_heat: BboxHeatConfig::default(),
            marks: MarksConfig::default(),
            labels: LabelConfig::default(),
        }
    }
}

impl Default for HeatConfig {
    fn default() -> Self {
        let (r, g, b) = ORANGE;
        Self {
            enabled: true,
            radius_scale: 0.035,
            stops: vec![
                Stop(0.0, Color::rgba(r, g, b, 0.65)),
                Stop(0.45, Color::rgba(r, g, b, 0.35)),
                Stop(1.0, Color::rgba(r, g, b, 0.0)),
            ],
            trail_turns: 4,
            trail_shrink: 0.75,
            trail_fade: 0.55,
        }
    }
}

impl Default for BboxHeatConfig {
    fn default() -> Self {
        let (r, g, b) = HEAT_BLUE;
        Self {
            enabled: true,
            border: Color::rgba(r, g, b, 0.9),
            border_width: 2.0,
            fill_stops: vec![
                Stop(0.0, Color::rgba(r, g, b, 0.30)),
                Stop(1.0, Color::rgba(r, g, b, 0.08)),
            ],
        }
    }
}

impl Default for MarksConfig {
    fn default() -> Self {
        // docs/designs.md (narrative): drawing.py constants
        let red = Color::rgb(255, 0, 0);
        let green = Color::rgb(0, 255, 0);
        let blue = Color::rgb(0, 150, 255);
        let yellow = Color::rgb(255, 255, 0);
        Self {
            enabled: true,
            crosshair_size: 20.0,
            crosshair_thickness: 2.0,
            circle_radius: 12.0,
            ring_width: 2.0,
            arrow_thickness: 3.0,
            arrow_head_length: 15.0,
            arrow_head_angle_deg: 30.0,
            left: red,
            left_ring: green,
            right: blue,
            right_ring: yellow,
            middle: Color::rgb(255, 0, 255),
            middle_ring: green,
            pointer: green,
            drag_arrow: blue,
            drag_start: yellow,
            drag_end: green,
        }
    }
}

impl Default for LabelConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            font_px: 14.0,
            color: Color::rgb(255, 255, 255),
            background: Color::rgba(0, 0, 0, 0.7),
            padding: 3.0,
            max_chars: 24,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse_in_css_forms_and_round_trip() {
        assert_eq!(
            "rgba(255, 140, 0, 0.5)".parse::<Color>().unwrap(),
            Color::rgba(255, 140, 0, 0.5)
        );
        assert_eq!("rgb(1,2,3)".parse::<Color>().unwrap(), Color::rgb(1, 2, 3));
        assert_eq!("#ff8000".parse::<Color>().unwrap(), Color::rgb(255, 128, 0));
        assert_eq!("#00000080".parse::<Color>().unwrap().a, 128.0 / 255.0);
        for bad in [
            "red",
            "rgba(1,2,3)",
            "rgb(300,0,0)",
            "#12345",
            "rgba(1,2,3,2)",
        ] {
            assert!(bad.parse::<Color>().is_err(), "{bad}");
        }
        let c = Color::rgba(0, 120, 255, 0.3);
        assert_eq!(c.to_string().parse::<Color>().unwrap(), c);
    }

    #[test]
    fn every_number_has_a_range_and_the_defaults_are_within_it() {
        let c = OverlayConfig::default();
        let keys: Vec<&str> = c.numbers().iter().map(|(k, _)| *k).collect();
        let ranged: Vec<&str> = RANGES.iter().map(|(k, _, _)| *k).collect();
        assert_eq!(keys, ranged);
        assert_eq!(c.check(), Ok(()));
        let mut big = c.clone();
        big.labels.font_px = 1e30;
        let e = big.check().unwrap_err();
        assert!(
            e.contains("labels.font_px = ") && e.contains("1 to 200"),
            "{e}"
        );
        let mut nan = c.clone();
        nan.marks.ring_width = f32::NAN;
        assert!(nan.check().unwrap_err().contains("marks.ring_width"));
        let mut stops = c;
        stops.executed_heat.stops[0].0 = 2.0;
        assert!(stops.check().unwrap_err().contains("executed_heat.stops"));
    }

    #[test]
    fn config_round_trips_through_toml_and_fills_defaults() {
        let c = OverlayConfig::default();
        let text = toml::to_string(&c).unwrap();
        assert!(text.contains("trail_turns = 4"), "{text}");
        assert!(text.contains("\"rgba(255, 0, 0, 1)\""), "{text}");
        let back: OverlayConfig = toml::from_str(&text).unwrap();
        assert_eq!(back, c);
        let partial: OverlayConfig =
            toml::from_str("[executed_heat]\ntrail_turns = 1\nstops = [[0.0, \"#ff0000\"]]\n")
                .unwrap();
        assert_eq!(partial.executed_heat.trail_turns, 1);
        assert_eq!(partial.executed_heat.stops.len(), 1);
        assert_eq!(partial.marks, MarksConfig::default());
    }
}
