//! How input moves: the smoothstep cursor path and the timing of clicks, typing and drags.
//!
//! Two profiles:
//! - `human` (the default) follows the designs (docs/designs.md): a smoothstep path (FRANZ), a settle
//!   before a click (80-120 ms after actions in the tool-calling agents), 10 ms per typed character
//!   (`char_input_delay` of the commander/operator design), a longer pause after a space or
//!   newline, a drag in 15 steps, a delay between actions and a 0.3 s UI settle after the last.
//! - `fast` has no cosmetic delay at all: the pointer jumps, text is typed in one go, a drag
//!   still moves in a few steps (applications need motion to see a drag). For tests,
//!   benchmarks and users who want speed.

use franz_desktop::PixelPoint;
use serde::{Deserialize, Serialize};

/// A named set of [`Motion`] values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MotionProfile {
    Fast,
    #[default]
    Human,
}

impl std::str::FromStr for MotionProfile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fast" => Ok(MotionProfile::Fast),
            "human" => Ok(MotionProfile::Human),
            other => Err(format!(
                "unknown motion profile {other:?}: use fast or human"
            )),
        }
    }
}

/// Timing of input. Every delay is in milliseconds; 0 means none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Motion {
    /// Intermediate points of a pointer move (0: jump straight there).
    pub move_steps: u32,
    /// Pause after each intermediate point of a move.
    pub move_step_delay_ms: u64,
    /// Pause after the pointer arrives, before a button goes down.
    pub click_settle_ms: u64,
    /// Pause between the clicks of a double or triple click.
    pub click_interval_ms: u64,
    /// Pause after each typed character.
    pub char_delay_ms: u64,
    /// Extra pause after a typed space or newline.
    pub word_delay_ms: u64,
    /// Pause between the key events of a combo.
    pub key_delay_ms: u64,
    /// Intermediate moves of a drag, with the button held (at least 1).
    pub drag_steps: u32,
    /// Pause after each move of a drag.
    pub drag_step_delay_ms: u64,
    /// Pause between two actions.
    pub action_delay_ms: u64,
    /// Pause after the last action of a batch, for the UI to settle before a screenshot.
    pub ui_settle_ms: u64,
    /// Each typed character's pause varies at random by up to this much either way.
    pub char_jitter_ms: u64,
}

impl Default for Motion {
    fn default() -> Self {
        Motion::human()
    }
}

impl Motion {
    pub fn human() -> Self {
        Motion {
            move_steps: 20,
            move_step_delay_ms: 8,
            click_settle_ms: 80,
            click_interval_ms: 60,
            char_delay_ms: 10,
            word_delay_ms: 50,
            key_delay_ms: 5,
            drag_steps: 15,
            drag_step_delay_ms: 10,
            action_delay_ms: 100,
            ui_settle_ms: 300,
            char_jitter_ms: 5,
        }
    }

    pub fn fast() -> Self {
        Motion {
            move_steps: 0,
            move_step_delay_ms: 0,
            click_settle_ms: 0,
            click_interval_ms: 0,
            char_delay_ms: 0,
            word_delay_ms: 0,
            key_delay_ms: 0,
            drag_steps: 8,
            drag_step_delay_ms: 0,
            action_delay_ms: 0,
            ui_settle_ms: 0,
            char_jitter_ms: 0,
        }
    }

    pub fn of(profile: MotionProfile) -> Self {
        match profile {
            MotionProfile::Fast => Motion::fast(),
            MotionProfile::Human => Motion::human(),
        }
    }

    /// One typed character's pause: the cadence, varied at random by up to the jitter.
    pub fn char_pause_ms(&self) -> u64 {
        if self.char_jitter_ms == 0 {
            return self.char_delay_ms;
        }
        let j = self.char_jitter_ms as i64;
        let d = self.char_delay_ms as i64 + rand::random_range(-j..=j);
        d.max(0) as u64
    }

    /// Whether text can go out in one call (no per-character cadence).
    pub fn types_in_one_go(&self) -> bool {
        self.char_delay_ms == 0 && self.word_delay_ms == 0 && self.char_jitter_ms == 0
    }
}

/// `3t² - 2t³`: starts and ends slowly.
pub fn smoothstep(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The points of a smoothstep path from `from` to `to` in `steps` steps, ending exactly at
/// `to`, without repeats. Every point lies in the rectangle spanned by the two ends.
pub fn path(from: PixelPoint, to: PixelPoint, steps: u32) -> Vec<PixelPoint> {
    let steps = steps.max(1);
    let mut out: Vec<PixelPoint> = Vec::with_capacity(steps as usize);
    for i in 1..=steps {
        let s = smoothstep(f64::from(i) / f64::from(steps));
        let lerp =
            |a: i32, b: i32| (f64::from(a) + (f64::from(b) - f64::from(a)) * s).round() as i32;
        let p = if i == steps {
            to
        } else {
            PixelPoint::new(lerp(from.x, to.x), lerp(from.y, to.y))
        };
        if out.last() != Some(&p) && p != from {
            out.push(p);
        }
    }
    if out.last() != Some(&to) {
        out.push(to);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_ends_at_target_and_stays_in_the_box() {
        let (a, b) = (PixelPoint::new(10, 500), PixelPoint::new(900, 20));
        let p = path(a, b, 20);
        assert_eq!(*p.last().unwrap(), b);
        assert!(p.len() <= 20);
        for q in &p {
            assert!(
                (10..=900).contains(&q.x) && (20..=500).contains(&q.y),
                "{q:?}"
            );
        }
        // smoothstep: the first step is shorter than the middle one
        assert!((p[0].x - a.x) < (p[10].x - p[9].x));
        assert_eq!(path(a, a, 5), vec![a]);
        assert_eq!(path(a, b, 0), vec![b]);
    }

    #[test]
    fn profiles_parse_and_differ() {
        assert_eq!("Fast".parse::<MotionProfile>(), Ok(MotionProfile::Fast));
        assert!("slow".parse::<MotionProfile>().is_err());
        assert!(Motion::fast().types_in_one_go());
        assert!(!Motion::human().types_in_one_go());
        assert!(Motion::fast().drag_steps >= 1);
        let m: Motion = serde_json::from_str(r#"{"click_settle_ms": 5}"#).unwrap();
        assert_eq!(m.click_settle_ms, 5);
        assert_eq!(m.move_steps, Motion::human().move_steps);
    }
}
