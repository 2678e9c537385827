//! Executor rules that need no screen: validation results, the per-turn cap, dry-run never
//! touching the desktop (every desktop call panics here), and the configuration mapping.

use super::*;
use crate::config::ConfigBuilder;
use crate::geometry::Crop;
use franz_desktop::{CursorImage, Frame, Input, Monitor, PixelRect};
use serde_json::json;

/// A desktop that must never be called.
struct Untouchable(Vec<Monitor>);

impl Desktop for Untouchable {
    fn monitor(&self) -> &Monitor {
        panic!("dry-run asked for the monitor")
    }
    fn monitors(&self) -> &[Monitor] {
        &self.0
    }
    fn capture(&mut self) -> Result<Frame, DesktopError> {
        panic!("dry-run captured")
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        panic!("dry-run read the cursor")
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        panic!("dry-run read the pointer")
    }
    fn input(&mut self) -> &mut dyn Input {
        panic!("dry-run sent input")
    }
    fn describe(&self) -> String {
        "untouchable".into()
    }
}

fn actions(v: &[serde_json::Value]) -> Vec<Action> {
    v.iter()
        .map(|a| serde_json::from_value(a.clone()).unwrap())
        .collect()
}

fn dry() -> Executor {
    let area = Crop::FULL
        .work_area(PixelRect::new(0, 0, 800, 600))
        .unwrap();
    Executor::new(area, ExecConfig::default(), true)
}

#[test]
fn per_action_errors_go_back_to_the_model_and_dry_run_touches_nothing() {
    let script = actions(&[
        json!({"type": "type", "text": ""}),
        json!({"type": "key", "keys": "ctrl+nope"}),
        json!({"type": "click", "x": -1, "y": -1}),
        json!({"type": "scroll", "direction": "up", "amount": 0}),
        json!({"type": "click"}),
        json!({"type": "drag", "x2": 1001, "y2": 5}),
        json!({"type": "wait", "seconds": 60}),
        json!({"type": "done", "text": "ok"}),
        json!({"type": "observe"}),
        json!({"type": "click", "x": 1, "y": 1}),
    ]);
    let mut seen = Vec::new();
    let r = dry()
        .execute_with(&mut Untouchable(vec![]), &script, |i, _| seen.push(i))
        .unwrap();
    let kinds: Vec<Option<ErrorKind>> = r
        .iter()
        .map(|r| match r {
            ActionResult::Error(e) => Some(e.kind),
            ActionResult::Ok { .. } => None,
        })
        .collect();
    use ErrorKind::*;
    assert_eq!(
        kinds,
        [
            Some(EmptyText),
            Some(InvalidKey),
            Some(InvalidCoordinate),
            Some(InvalidValue),
            None,
            None,
            None,
            None,
            Some(TooManyActions),
            Some(TooManyActions),
        ]
    );
    assert_eq!(seen, (0..10).collect::<Vec<_>>());
    // the drag end was clamped, with a warning
    assert!(
        matches!(&r[5], ActionResult::Ok { warnings } if warnings[0].kind == "outside_work_area")
    );
}

#[test]
fn config_maps_to_the_executor() {
    let eff = ConfigBuilder::new()
        .env([
            ("FRANZ_MOTION".to_string(), "fast".to_string()),
            ("FRANZ_FAILSAFE".to_string(), "false".to_string()),
        ])
        .build()
        .unwrap();
    let c = ExecConfig::from_config(&eff.config);
    assert_eq!(c.motion, Motion::fast());
    assert!(!c.failsafe);
    assert_eq!(c.max_actions_per_turn, DEFAULT_MAX_ACTIONS_PER_TURN);
    assert_eq!(
        ExecConfig::from_config(&ConfigBuilder::new().build().unwrap().config),
        ExecConfig::default()
    );
}
