//! Human-mimetic input (docs/designs.md (narrative): "smooth cursor trajectories (smoothstep
//! interpolation), realistic typing cadence, and natural inter-action delays"), as the witness
//! window sees it on a private Xvfb: a `human` move eases in and out, `human` typing follows
//! the cadence with jitter, and `fast` stays exact and quick.

#![cfg(target_os = "linux")]

use crate::common;

use common::{InputDesktop, TIMEOUT, sandbox};
use franz_core::executor::motion::Motion;
use franz_core::executor::{ExecConfig, Executor, MotionProfile};
use franz_core::{Action, Crop};
use franz_desktop::PixelRect;
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind as K};
use serde_json::json;
use std::time::Duration;

const W: u32 = 800;
const H: u32 = 600;

struct Rig {
    _sandbox: franz_desktop::sandbox::Sandbox,
    witness: Witness,
    desktop: InputDesktop,
}

fn rig() -> Rig {
    let sb = sandbox(W, H);
    let witness = Witness::open(sb.display(), PixelRect::new(0, 0, W, H)).unwrap();
    let desktop = InputDesktop::open(&sb, W, H);
    Rig {
        _sandbox: sb,
        witness,
        desktop,
    }
}

fn executor(motion: Motion) -> Executor {
    let area = Crop::FULL.work_area(PixelRect::new(0, 0, W, H)).unwrap();
    let config = ExecConfig {
        motion,
        failsafe: false,
        ..ExecConfig::with_profile(MotionProfile::Fast)
    };
    Executor::new(area, config, false)
}

impl Rig {
    /// Runs one action and waits until `done` holds on the witness's events.
    fn run(
        &mut self,
        ex: &mut Executor,
        a: serde_json::Value,
        done: impl Fn(&[WitnessEvent]) -> bool,
    ) -> Vec<WitnessEvent> {
        self.witness.clear();
        let action: Action = serde_json::from_value(a.clone()).unwrap();
        let r = ex.execute(&mut self.desktop, &[action]).unwrap();
        assert!(r[0].is_ok(), "{a}: {r:?}");
        let (ok, ev) = self.witness.wait_for(done, TIMEOUT);
        assert!(ok, "{a}: {ev:?}");
        ev
    }

    /// Puts the pointer at normalized (100, 100) at once.
    fn home(&mut self) {
        let mut fast = executor(Motion::fast());
        self.run(
            &mut fast,
            json!({"type": "move", "x": 100, "y": 100}),
            |e| e.iter().any(|e| e.is(K::Motion)),
        );
    }
}

fn motions(ev: &[WitnessEvent]) -> Vec<&WitnessEvent> {
    ev.iter().filter(|e| e.is(K::Motion)).collect()
}

fn arrived_at(x: i32, y: i32) -> impl Fn(&[WitnessEvent]) -> bool {
    move |e: &[WitnessEvent]| {
        e.iter()
            .any(|e| e.is(K::Motion) && (e.at.x, e.at.y) == (x, y))
    }
}

fn presses(n: usize) -> impl Fn(&[WitnessEvent]) -> bool {
    move |e: &[WitnessEvent]| e.iter().filter(|e| e.is(K::KeyPress)).count() >= n
}

/// The gaps between key presses, in milliseconds.
fn press_gaps(ev: &[WitnessEvent]) -> Vec<f64> {
    let t: Vec<_> = ev
        .iter()
        .filter(|e| e.is(K::KeyPress))
        .map(|e| e.seen)
        .collect();
    t.windows(2)
        .map(|w| (w[1] - w[0]).as_secs_f64() * 1000.0)
        .collect()
}

#[test]
fn a_human_move_eases_in_and_out() {
    let mut r = rig();
    r.home();
    let mut ex = executor(Motion::human());
    // normalized (900, 800) is pixel (719, 479) of 800x600
    let ev = r.run(
        &mut ex,
        json!({"type": "move", "x": 900, "y": 800}),
        arrived_at(719, 479),
    );
    let m = motions(&ev);
    assert!(
        m.len() >= 10,
        "the pointer jumped: {} motion events",
        m.len()
    );
    // the steps are equally spaced in time (move_step_delay_ms), so the distance of each step
    // is the speed: it must rise from a slow start and fall to a slow end
    let steps: Vec<f64> = m
        .windows(2)
        .map(|w| f64::from((w[1].at.x - w[0].at.x).pow(2) + (w[1].at.y - w[0].at.y).pow(2)).sqrt())
        .collect();
    let top = steps.iter().cloned().fold(0.0, f64::max);
    let peak = steps.iter().position(|s| *s == top).unwrap();
    assert!(
        peak > 0 && peak < steps.len() - 1,
        "no rise and fall: {steps:?}"
    );
    assert!(steps[0] < top / 2.0, "a fast start: {steps:?}");
    assert!(steps[steps.len() - 1] < top / 2.0, "a fast end: {steps:?}");
    let took = m[m.len() - 1].seen - m[0].seen;
    assert!(
        took >= Duration::from_millis(60),
        "too quick for 20 steps of 8 ms: {took:?}"
    );
}

#[test]
fn human_typing_follows_the_cadence_with_jitter() {
    let mut r = rig();
    r.home();
    let cadence = 40.0;
    let mut ex = executor(Motion {
        char_delay_ms: 40,
        char_jitter_ms: 20,
        word_delay_ms: 0,
        ..Motion::human()
    });
    let text = "abcdefghijklmnop";
    let ev = r.run(
        &mut ex,
        json!({"type": "type", "text": text}),
        presses(text.len()),
    );
    let gaps = press_gaps(&ev);
    assert_eq!(gaps.len(), text.len() - 1);
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let (lo, hi) = gaps
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), g| (lo.min(*g), hi.max(*g)));
    assert!(hi - lo >= 10.0, "the intervals do not vary: {gaps:?}");
    assert!(
        mean >= 0.8 * cadence && mean <= cadence + 100.0,
        "mean {mean} ms: {gaps:?}"
    );
}

#[test]
fn the_fast_profile_is_exact_and_quick() {
    let mut r = rig();
    r.home();
    let mut ex = executor(Motion::fast());
    let ev = r.run(
        &mut ex,
        json!({"type": "move", "x": 900, "y": 800}),
        arrived_at(719, 479),
    );
    assert!(motions(&ev).len() <= 2, "fast moved in steps: {ev:?}");
    let text = "abcdefghijklmnop";
    let ev = r.run(
        &mut ex,
        json!({"type": "type", "text": text}),
        presses(text.len()),
    );
    let gaps = press_gaps(&ev);
    let total: f64 = gaps.iter().sum();
    assert!(total < 16.0 * 20.0, "fast typing took {total} ms: {gaps:?}");
}
