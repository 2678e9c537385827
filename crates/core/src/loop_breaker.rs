//! The loop breaker, for every strategy: a turn's actions that left the screen
//! unchanged around their target ([`FrameChange`] of the next observation), repeated turn
//! after turn (same kinds, targets within [`SAME_RADIUS`]), are a loop. After `loop_warn`
//! such turns in a row the model is told; after `loop_stop` the run ends.
//!
//! Waiting, finishing and reporting never count, nor do turns whose actions all failed.

use crate::action::{Action, ActionResult};
use crate::observe::FrameChange;

/// Targets this close (0..1000 units) are the same target.
pub const SAME_RADIUS: i32 = 25;
/// A change this close to a target (0..1000 units) is a change "around" it.
pub const AROUND: i32 = 100;

/// The thresholds (`loop_warn`, `loop_stop` in config/settings.rs); 0 turns one off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSettings {
    pub warn: u32,
    pub stop: u32,
}

impl Default for LoopSettings {
    fn default() -> Self {
        Self { warn: 2, stop: 5 }
    }
}

/// The loop breaker's settings (`loop_warn`, `loop_stop`, `unchanged_note`); the default is
/// the settings table's, the mapping `Config::loop_breaker` (`config/parts.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoopBreaker {
    pub loops: LoopSettings,
    /// Tell the model when nothing changed on screen after its last action.
    pub unchanged_note: bool,
}

/// What the model is told with `unchanged_note`.
pub const UNCHANGED_NOTE: &str = "Nothing changed on screen after your last action.";

/// The evidence of a loop.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeat {
    /// The repeated action(s), as the model gave them (JSON).
    pub action: String,
    /// The turns that performed it, oldest first.
    pub turns: Vec<u32>,
}

impl Repeat {
    pub fn count(&self) -> u32 {
        self.turns.len() as u32
    }

    /// What the model is told.
    pub fn note(&self) -> String {
        format!(
            "LOOP: your last {} actions ({} on turns {}) changed nothing on the screen around their target. Do not repeat it: try something different.",
            self.count(),
            self.action,
            join(&self.turns)
        )
    }

    /// The run's reason when it stops.
    pub fn reason(&self) -> String {
        format!(
            "loop: {} was repeated {} times (turns {}) without changing the screen around its target",
            self.action,
            self.count(),
            join(&self.turns)
        )
    }
}

fn join(turns: &[u32]) -> String {
    let t: Vec<String> = turns.iter().map(u32::to_string).collect();
    t.join(", ")
}

/// What the detector says before a turn's request.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// No loop (or fewer repeats than `loop_warn`); the count so far.
    Fine(u32),
    Warn(Repeat),
    Stop(Repeat),
}

impl Verdict {
    /// Repeats in a row so far.
    pub fn repeats(&self) -> u32 {
        match self {
            Verdict::Fine(n) => *n,
            Verdict::Warn(r) | Verdict::Stop(r) => r.count(),
        }
    }
}

#[derive(Debug, Default)]
pub struct LoopDetector {
    settings: LoopSettings,
    /// The repeated turn's actions and the turns so far.
    streak: Option<(Vec<Action>, Vec<u32>)>,
}

impl LoopDetector {
    pub fn new(settings: LoopSettings) -> Self {
        Self {
            settings,
            streak: None,
        }
    }

    /// Judges turn `turn`'s actions by the observation made after them.
    pub fn judge(
        &mut self,
        turn: u32,
        actions: &[Action],
        results: &[ActionResult],
        change: &FrameChange,
    ) -> Verdict {
        let performed: Vec<Action> = actions
            .iter()
            .zip(results)
            .filter(|(_, r)| r.is_ok())
            .map(|(a, _)| a.clone())
            .collect();
        if performed.is_empty()
            || performed.iter().any(|a| a.kind.is_bookkeeping())
            || changed(&performed, change)
        {
            self.streak = None;
            return Verdict::Fine(0);
        }
        match &mut self.streak {
            Some((same, turns)) if similar(same, &performed) => turns.push(turn),
            _ => self.streak = Some((performed, vec![turn])),
        }
        let Some((same, turns)) = &self.streak else {
            return Verdict::Fine(0);
        };
        let n = turns.len() as u32;
        let repeat = || Repeat {
            action: same
                .iter()
                .map(|a| serde_json::to_string(a).unwrap_or_else(|_| a.kind.name().into()))
                .collect::<Vec<_>>()
                .join(", "),
            turns: turns.clone(),
        };
        if self.settings.stop > 0 && n >= self.settings.stop {
            Verdict::Stop(repeat())
        } else if self.settings.warn > 0 && n >= self.settings.warn {
            Verdict::Warn(repeat())
        } else {
            Verdict::Fine(n)
        }
    }
}

/// Whether the screen changed around the actions' targets (anywhere, for actions without one).
fn changed(actions: &[Action], change: &FrameChange) -> bool {
    let targets: Vec<(i32, i32)> = actions.iter().filter_map(|a| a.kind.point()).collect();
    if targets.is_empty() {
        return change.changed;
    }
    targets.iter().any(|&(x, y)| change.near(x, y, AROUND))
}

/// The same kinds in the same order, with targets within [`SAME_RADIUS`] and the same other
/// arguments.
fn similar(a: &[Action], b: &[Action]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            if a.kind.name() != b.kind.name() {
                return false;
            }
            match (a.kind.point(), b.kind.point()) {
                (Some((x1, y1)), Some((x2, y2))) => {
                    (x1 - x2).abs() <= SAME_RADIUS && (y1 - y2).abs() <= SAME_RADIUS
                }
                (None, None) => a.kind == b.kind,
                _ => false,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionKind;
    use crate::geometry::NormBox;

    fn click(x: i32, y: i32) -> Vec<Action> {
        vec![
            ActionKind::Click {
                x: Some(x),
                y: Some(y),
            }
            .into(),
        ]
    }

    fn ok() -> Vec<ActionResult> {
        vec![ActionResult::ok()]
    }

    fn changed_at(x1: i32, y1: i32, x2: i32, y2: i32) -> FrameChange {
        let b = NormBox { x1, y1, x2, y2 };
        FrameChange {
            changed: true,
            identical: false,
            region: Some(b),
            boxes: vec![b],
        }
    }

    #[test]
    fn the_same_click_on_an_unchanged_screen_warns_then_stops() {
        let mut d = LoopDetector::new(LoopSettings::default());
        let still = FrameChange::default();
        assert_eq!(
            d.judge(1, &click(500, 500), &ok(), &still),
            Verdict::Fine(1)
        );
        // within the radius: the same target
        let v = d.judge(2, &click(510, 490), &ok(), &still);
        assert!(matches!(&v, Verdict::Warn(r) if r.turns == [1, 2]), "{v:?}");
        d.judge(3, &click(500, 500), &ok(), &still);
        d.judge(4, &click(500, 500), &ok(), &still);
        let v = d.judge(5, &click(500, 500), &ok(), &still);
        let Verdict::Stop(r) = v else { panic!("{v:?}") };
        assert!(r.reason().contains("turns 1, 2, 3, 4, 5"), "{}", r.reason());
        assert!(r.reason().contains("click"), "{}", r.reason());
    }

    #[test]
    fn a_change_around_the_target_or_another_action_resets_the_count() {
        let mut d = LoopDetector::new(LoopSettings::default());
        let still = FrameChange::default();
        d.judge(1, &click(500, 500), &ok(), &still);
        // a change far away (a clock) is no change around the target
        let far = changed_at(0, 0, 50, 20);
        assert!(matches!(
            d.judge(2, &click(500, 500), &ok(), &far),
            Verdict::Warn(_)
        ));
        // a counter repainted next to the target is
        let near = changed_at(520, 480, 560, 520);
        assert_eq!(d.judge(3, &click(500, 500), &ok(), &near), Verdict::Fine(0));
        d.judge(4, &click(500, 500), &ok(), &still);
        assert_eq!(
            d.judge(5, &click(800, 800), &ok(), &still),
            Verdict::Fine(1)
        );
        // failed actions and waits do not count
        let failed = vec![ActionResult::Error(crate::action::ActionError::new(
            crate::action::ErrorKind::InvalidValue,
            "y",
        ))];
        assert_eq!(
            d.judge(6, &click(800, 800), &failed, &still),
            Verdict::Fine(0)
        );
    }
}
