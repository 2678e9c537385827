//! Exact placement: every pointer action lands on the pixel the docs/coordinates.md formula gives,
//! as seen by the witness window, with and without a crop, at two screen sizes. Also key combos and
//! dry-run, on the same window.

#![cfg(target_os = "linux")]

use crate::common;

use common::{InputDesktop, TIMEOUT, sandbox};
use franz_core::executor::{ExecConfig, Executor, MotionProfile};
use franz_core::{Action, ActionResult, Crop, ErrorKind, NormPoint, WorkArea};
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind as K, state};
use franz_desktop::{PixelPoint, PixelRect};
use serde_json::json;

fn act(v: serde_json::Value) -> Action {
    serde_json::from_value(v).unwrap()
}

fn presses(ev: &[WitnessEvent], kind: K) -> Vec<(u8, PixelPoint)> {
    ev.iter()
        .filter(|e| e.is(kind))
        .map(|e| (e.detail, e.at))
        .collect()
}

struct Rig {
    _sandbox: franz_desktop::sandbox::Sandbox,
    witness: Witness,
    desktop: InputDesktop,
    area: WorkArea,
}

fn rig(w: u32, h: u32, crop: Crop) -> Rig {
    let sb = sandbox(w, h);
    let screen = PixelRect::new(0, 0, w, h);
    let witness = Witness::open(sb.display(), screen).unwrap();
    let desktop = InputDesktop::open(&sb, w, h);
    Rig {
        _sandbox: sb,
        witness,
        desktop,
        area: crop.work_area(screen).unwrap(),
    }
}

impl Rig {
    fn px(&self, x: i32, y: i32) -> PixelPoint {
        self.area.to_screen(NormPoint::new(x, y))
    }
    /// Runs one action and waits until `done` holds on the witness's events.
    fn run(
        &mut self,
        ex: &mut Executor,
        a: serde_json::Value,
        done: impl Fn(&[WitnessEvent]) -> bool,
    ) -> Vec<WitnessEvent> {
        self.witness.clear();
        let r = ex.execute(&mut self.desktop, &[act(a.clone())]).unwrap();
        assert!(r[0].is_ok(), "{a}: {r:?}");
        let (ok, ev) = self.witness.wait_for(done, TIMEOUT);
        assert!(ok, "{a}: {ev:?}");
        ev
    }
}

fn n_released(n: usize) -> impl Fn(&[WitnessEvent]) -> bool {
    move |e: &[WitnessEvent]| e.iter().filter(|e| e.is(K::ButtonRelease)).count() >= n
}

fn check_all_pointer_actions(w: u32, h: u32, crop: Crop, profile: MotionProfile) {
    let mut r = rig(w, h, crop);
    let mut ex = Executor::new(r.area, ExecConfig::with_profile(profile), false);

    for (ty, button, clicks) in [
        ("click", 1, 1),
        ("right_click", 3, 1),
        ("middle_click", 2, 1),
        ("double_click", 1, 2),
        ("triple_click", 1, 3),
    ] {
        let (x, y) = (137 + 100 * clicks as i32, 911 - 50 * button as i32);
        let p = r.px(x, y);
        let ev = r.run(
            &mut ex,
            json!({"type": ty, "x": x, "y": y}),
            n_released(clicks),
        );
        assert_eq!(
            presses(&ev, K::ButtonPress),
            vec![(button, p); clicks],
            "{ty}"
        );
        assert_eq!(
            presses(&ev, K::ButtonRelease),
            vec![(button, p); clicks],
            "{ty}"
        );
    }

    // move: the last motion is at the exact pixel, no button
    let p = r.px(333, 777);
    let ev = r.run(&mut ex, json!({"type": "move", "x": 333, "y": 777}), |e| {
        e.iter().any(|e| e.is(K::Motion) && e.at == p)
    });
    assert!(presses(&ev, K::ButtonPress).is_empty());
    assert_eq!(ev.iter().rfind(|e| e.is(K::Motion)).unwrap().at, p);

    // drag: press at the start, motions inside the area, release at the end
    let (s, e) = (r.px(100, 150), r.px(900, 850));
    let ev = r.run(
        &mut ex,
        json!({"type": "drag", "x": 100, "y": 150, "x2": 900, "y2": 850}),
        n_released(1),
    );
    let i_press = ev.iter().position(|e| e.is(K::ButtonPress)).unwrap();
    let i_release = ev.iter().position(|e| e.is(K::ButtonRelease)).unwrap();
    assert_eq!((ev[i_press].detail, ev[i_press].at), (1, s));
    assert_eq!((ev[i_release].detail, ev[i_release].at), (1, e));
    let held: Vec<&WitnessEvent> = ev[i_press..i_release]
        .iter()
        .filter(|e| e.is(K::Motion))
        .collect();
    assert!(held.len() >= 2, "{ev:?}");
    assert!(held.iter().all(|m| r.area.contains(m.at)), "{held:?}");
    assert_eq!(held.last().unwrap().at, e);

    // mouse_down / mouse_up in one turn (nothing stays held across turns), with another
    // button and another place
    let (d, u) = (r.px(420, 240), r.px(610, 380));
    r.witness.clear();
    let res = ex
        .execute(
            &mut r.desktop,
            &[
                act(json!({"type": "mouse_down", "x": 420, "y": 240, "button": "right"})),
                act(json!({"type": "mouse_up", "x": 610, "y": 380, "button": "right"})),
            ],
        )
        .unwrap();
    assert!(res.iter().all(ActionResult::is_ok), "{res:?}");
    let (ok, ev) = r.witness.wait_for(n_released(1), TIMEOUT);
    assert!(ok, "{ev:?}");
    assert_eq!(presses(&ev, K::ButtonPress), vec![(3, d)]);
    assert_eq!(presses(&ev, K::ButtonRelease), vec![(3, u)]);
    assert!(ev.iter().any(|e| e.is(K::Motion) && e.at == u));

    // scroll in each direction: buttons 4-7, one press per notch, at the point
    for (dir, button, amount) in [
        ("up", 4, 3),
        ("down", 5, 2),
        ("left", 6, 1),
        ("right", 7, 4),
    ] {
        let p = r.px(555, 444);
        let ev = r.run(
            &mut ex,
            json!({"type": "scroll", "x": 555, "y": 444, "direction": dir, "amount": amount}),
            n_released(amount),
        );
        assert_eq!(
            presses(&ev, K::ButtonPress),
            vec![(button, p); amount],
            "{dir}"
        );
    }

    // out of range: refused by the work_area rule before any input (no clamping), and so is
    // a click at the pointer while the pointer is outside the area
    r.witness.clear();
    let mut refused = vec![json!({"type": "click", "x": 1500, "y": -20})];
    let r0 = r.area.rect;
    if r0.x > 5 {
        use franz_desktop::Desktop;
        r.desktop
            .input()
            .move_to(PixelPoint::new(r0.x - 3, r0.y + 10))
            .unwrap();
        r.desktop.input().sync().unwrap();
        refused.push(json!({"type": "click"}));
    }
    for a in refused {
        let res = ex.execute(&mut r.desktop, &[act(a.clone())]).unwrap();
        let ActionResult::Error(e) = &res[0] else {
            panic!("{a}: {res:?}")
        };
        assert_eq!(e.kind, ErrorKind::PolicyDenied, "{a}: {e:?}");
        assert!(
            e.message.contains("(work_area: click "),
            "{a}: {}",
            e.message
        );
    }
    // a sentinel click: the only press the witness saw
    let sentinel = r.px(500, 500);
    let ev = r.run(
        &mut ex,
        json!({"type": "click", "x": 500, "y": 500}),
        n_released(1),
    );
    assert_eq!(presses(&ev, K::ButtonPress), vec![(1, sentinel)]);
}

#[test]
fn exact_placement_full_screen_800x600() {
    check_all_pointer_actions(800, 600, Crop::FULL, MotionProfile::Fast);
}

#[test]
fn exact_placement_cropped_800x600() {
    check_all_pointer_actions(
        800,
        600,
        "250,250,750,750".parse().unwrap(),
        MotionProfile::Fast,
    );
}

#[test]
fn exact_placement_full_screen_1366x768() {
    check_all_pointer_actions(1366, 768, Crop::FULL, MotionProfile::Fast);
}

#[test]
fn exact_placement_cropped_1366x768_human_motion() {
    check_all_pointer_actions(
        1366,
        768,
        "100,50,700,950".parse().unwrap(),
        MotionProfile::Human,
    );
}

#[test]
fn key_combos_arrive_as_key_events() {
    let mut r = rig(640, 480, Crop::FULL);
    let mut ex = Executor::new(r.area, ExecConfig::with_profile(MotionProfile::Fast), false);
    // The witness has the focus; keep the pointer over it too.
    ex.execute(
        &mut r.desktop,
        &[act(json!({"type": "move", "x": 500, "y": 500}))],
    )
    .unwrap();

    let keys = |ev: &[WitnessEvent]| -> Vec<(K, u32, u16)> {
        ev.iter()
            .filter(|e| matches!(e.kind, K::KeyPress | K::KeyRelease))
            .map(|e| (e.kind, e.keysym, e.state & 0xff))
            .collect()
    };
    let key_events = |n: usize| {
        move |e: &[WitnessEvent]| {
            e.iter()
                .filter(|e| matches!(e.kind, K::KeyPress | K::KeyRelease))
                .count()
                >= n
        }
    };
    let (ctrl, shift, alt) = (0xffe3, 0xffe1, 0xffe9);
    let ev = r.run(
        &mut ex,
        json!({"type": "key", "keys": "ctrl+c"}),
        key_events(4),
    );
    assert_eq!(
        keys(&ev),
        vec![
            (K::KeyPress, ctrl, 0),
            (K::KeyPress, 'c' as u32, state::CONTROL),
            (K::KeyRelease, 'c' as u32, state::CONTROL),
            (K::KeyRelease, ctrl, state::CONTROL),
        ]
    );

    let ev = r.run(
        &mut ex,
        json!({"type": "key", "keys": "Shift Alt T"}),
        key_events(6),
    );
    let sa = state::SHIFT | state::MOD1_ALT;
    assert_eq!(
        keys(&ev),
        vec![
            (K::KeyPress, shift, 0),
            (K::KeyPress, alt, state::SHIFT),
            (K::KeyPress, 't' as u32, sa),
            (K::KeyRelease, 't' as u32, sa),
            (K::KeyRelease, alt, sa),
            (K::KeyRelease, shift, state::SHIFT),
        ]
    );

    // an unknown key is an error for the model, naming the key; nothing is sent
    let res = ex
        .execute(
            &mut r.desktop,
            &[act(json!({"type": "key", "keys": "ctrl+warpdrive"}))],
        )
        .unwrap();
    match &res[0] {
        ActionResult::Error(e) => {
            assert_eq!(e.kind, ErrorKind::InvalidKey);
            assert!(e.message.contains("warpdrive"), "{}", e.message);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn dry_run_sends_nothing() {
    let mut r = rig(800, 600, "100,100,900,900".parse().unwrap());
    let script: Vec<Action> = [
        json!({"type": "move", "x": 10, "y": 10}),
        json!({"type": "click", "x": 500, "y": 500}),
        json!({"type": "double_click", "x": 600, "y": 500}),
        json!({"type": "drag", "x": 100, "y": 100, "x2": 800, "y2": 900}),
        json!({"type": "scroll", "direction": "down", "amount": 5}),
        json!({"type": "mouse_down", "button": "middle"}),
        json!({"type": "key", "keys": "ctrl+shift+t"}),
        json!({"type": "type", "text": "Grüße"}),
        json!({"type": "wait", "seconds": 30}),
        json!({"type": "click", "x": 2000, "y": 0}),
    ]
    .into_iter()
    .map(act)
    .collect();
    let config = ExecConfig {
        max_actions_per_turn: 20,
        ..ExecConfig::with_profile(MotionProfile::Human)
    };
    let mut dry = Executor::new(r.area, config, true);
    let started = std::time::Instant::now();
    let res = dry.execute(&mut r.desktop, &script).unwrap();
    assert!(started.elapsed().as_secs() < 30, "dry-run must not wait");
    assert!(res[..9].iter().all(ActionResult::is_ok), "{res:?}");
    // results as if executed: the click outside 0..1000 is refused (work_area)
    assert!(
        matches!(&res[9], ActionResult::Error(e) if e.kind == ErrorKind::PolicyDenied),
        "{res:?}"
    );

    // A real sentinel click: it must be the first thing the witness ever saw.
    let sentinel = r.px(250, 750);
    let mut real = Executor::new(r.area, ExecConfig::with_profile(MotionProfile::Fast), false);
    real.execute(
        &mut r.desktop,
        &[act(json!({"type": "click", "x": 250, "y": 750}))],
    )
    .unwrap();
    let (ok, ev) = r.witness.wait_for(n_released(1), TIMEOUT);
    assert!(ok, "{ev:?}");
    assert!(ev.iter().all(|e| e.at == sentinel), "{ev:?}");
    assert_eq!(ev[0].kind, K::Motion);
}
