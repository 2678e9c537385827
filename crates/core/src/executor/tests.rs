//! Executor rules that need no screen: validation results, the per-turn cap, dry-run never
//! touching the desktop (every desktop call panics here), the configuration mapping, and the
//! held input (a recording desktop: nothing stays down after any ending of a turn).

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
            Some(PolicyDenied),
            None,
            None,
            Some(TooManyActions),
            Some(TooManyActions),
        ]
    );
    assert_eq!(seen, (0..10).collect::<Vec<_>>());
    // the drag end outside 0..1000 was refused by the work_area rule, even in dry-run
    assert!(
        matches!(&r[5], ActionResult::Error(e) if e.message.contains("(work_area: drag end at (1001, 5)")),
        "{:?}",
        r[5]
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
    let c = eff.config.exec();
    assert_eq!(c.motion, Motion::fast());
    assert!(!c.failsafe);
    assert_eq!(c.max_actions_per_turn, DEFAULT_MAX_ACTIONS_PER_TURN);
    assert_eq!(
        ConfigBuilder::new().build().unwrap().config.exec(),
        ExecConfig::default()
    );
}

/// What the recording desktop was asked to do.
#[derive(Debug, Clone, PartialEq)]
enum Sent {
    Move(i32, i32),
    Button(Button, Press),
    Key(Key, Press),
    Text(String),
}

/// A desktop that records input. It can refuse one key, slam the pointer into the failsafe
/// corner (or set the Ctrl+C flag) as soon as a button goes down.
struct Recorder {
    monitors: Vec<Monitor>,
    at: PixelPoint,
    sent: Vec<Sent>,
    refuse: Option<Key>,
    slam_on_down: bool,
    /// Slams the pointer into the corner once this many characters were typed.
    slam_after_chars: Option<usize>,
    /// Slams the pointer into the corner after the first move franz makes.
    slam_on_move: bool,
    /// Wheel notches turned so far, and a token set once this many were.
    notches: u32,
    cancel_after_notches: Option<(u32, crate::cancel::Cancel)>,
    slammed: bool,
    interrupt_on_down: Option<crate::cancel::Cancel>,
}

impl Recorder {
    fn new() -> Recorder {
        Recorder {
            monitors: vec![Monitor {
                index: 0,
                name: "fake".into(),
                rect: PixelRect::new(0, 0, 800, 600),
                primary: true,
            }],
            at: PixelPoint::new(400, 300),
            sent: Vec::new(),
            refuse: None,
            slam_on_down: false,
            slam_after_chars: None,
            slam_on_move: false,
            notches: 0,
            cancel_after_notches: None,
            slammed: false,
            interrupt_on_down: None,
        }
    }

    /// The characters typed so far.
    fn typed(&self) -> usize {
        self.sent
            .iter()
            .map(|s| match s {
                Sent::Text(t) => t.chars().count(),
                _ => 0,
            })
            .sum()
    }

    /// The buttons and keys down after everything sent so far, as the OS would see them.
    fn down(&self) -> Vec<Sent> {
        let mut down: Vec<Sent> = Vec::new();
        for s in &self.sent {
            match s {
                Sent::Button(b, Press::Down) => down.push(Sent::Button(*b, Press::Down)),
                Sent::Key(k, Press::Down) => down.push(Sent::Key(*k, Press::Down)),
                Sent::Button(b, Press::Up) => down.retain(|d| *d != Sent::Button(*b, Press::Down)),
                Sent::Key(k, Press::Up) => down.retain(|d| *d != Sent::Key(*k, Press::Down)),
                _ => {}
            }
        }
        down
    }
}

impl Desktop for Recorder {
    fn monitor(&self) -> &Monitor {
        &self.monitors[0]
    }
    fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }
    fn capture(&mut self) -> Result<Frame, DesktopError> {
        Err(DesktopError::Unsupported("capture".into()))
    }
    fn cursor(&mut self) -> Result<Option<CursorImage>, DesktopError> {
        Ok(None)
    }
    fn pointer(&mut self) -> Result<PixelPoint, DesktopError> {
        Ok(if self.slammed {
            PixelPoint::new(0, 0)
        } else {
            self.at
        })
    }
    fn input(&mut self) -> &mut dyn Input {
        self
    }
    fn describe(&self) -> String {
        "recorder".into()
    }
}

impl Input for Recorder {
    fn move_to(&mut self, p: PixelPoint) -> Result<(), DesktopError> {
        self.at = p;
        self.sent.push(Sent::Move(p.x, p.y));
        self.slammed |= self.slam_on_move;
        Ok(())
    }
    fn button(&mut self, button: Button, press: Press) -> Result<(), DesktopError> {
        self.sent.push(Sent::Button(button, press));
        if press == Press::Down {
            self.slammed |= self.slam_on_down;
            if let Some(flag) = &self.interrupt_on_down {
                flag.cancel();
            }
        }
        Ok(())
    }
    fn scroll(&mut self, _: franz_desktop::ScrollDirection, n: u32) -> Result<(), DesktopError> {
        self.notches += n;
        if let Some((after, c)) = &self.cancel_after_notches
            && self.notches >= *after
        {
            c.cancel();
        }
        Ok(())
    }
    fn key(&mut self, key: Key, press: Press) -> Result<(), DesktopError> {
        if self.refuse == Some(key) && press == Press::Down {
            return Err(DesktopError::Input(format!("no keycode for {key:?}")));
        }
        self.sent.push(Sent::Key(key, press));
        Ok(())
    }
    fn text(&mut self, text: &str) -> Result<(), DesktopError> {
        self.sent.push(Sent::Text(text.into()));
        self.slammed |= self.slam_after_chars.is_some_and(|n| self.typed() >= n);
        Ok(())
    }
    fn sync(&mut self) -> Result<(), DesktopError> {
        Ok(())
    }
}

fn live() -> Executor {
    let area = Crop::FULL
        .work_area(PixelRect::new(0, 0, 800, 600))
        .unwrap();
    Executor::new(area, ExecConfig::with_profile(MotionProfile::Fast), false)
}

fn pressed(sent: &[Sent]) -> Vec<Sent> {
    sent.iter()
        .filter(|s| !matches!(s, Sent::Move(..)))
        .cloned()
        .collect()
}

use franz_desktop::NamedKey;
const CTRL: Key = Key::Named(NamedKey::Ctrl);
const SHIFT: Key = Key::Named(NamedKey::Shift);
const LEFT_DOWN: Sent = Sent::Button(Button::Left, Press::Down);
const LEFT_UP: Sent = Sent::Button(Button::Left, Press::Up);

#[test]
fn a_combo_that_fails_half_way_releases_the_modifiers_before_the_next_action() {
    let mut d = Recorder::new();
    d.refuse = Some(Key::Char('b'));
    let mut ex = live();
    let r = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "key", "keys": "ctrl+shift+b"}),
                json!({"type": "type", "text": "x"}),
            ]),
        )
        .unwrap();
    assert!(
        matches!(&r[0], ActionResult::Error(e) if e.kind == ErrorKind::ExecutionFailed),
        "{r:?}"
    );
    assert!(r[1].is_ok(), "{r:?}");
    assert_eq!(
        pressed(&d.sent),
        [
            Sent::Key(CTRL, Press::Down),
            Sent::Key(SHIFT, Press::Down),
            Sent::Key(SHIFT, Press::Up),
            Sent::Key(CTRL, Press::Up),
            Sent::Text("x".into()),
        ]
    );
    assert!(ex.held().is_empty());
}

#[test]
fn a_mouse_down_and_its_mouse_up_in_one_turn_are_a_manual_drag() {
    let mut d = Recorder::new();
    let mut ex = live();
    let r = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "mouse_down", "x": 100, "y": 100}),
                json!({"type": "move", "x": 500, "y": 500}),
                json!({"type": "mouse_up"}),
            ]),
        )
        .unwrap();
    assert!(r.iter().all(ActionResult::is_ok), "{r:?}");
    assert_eq!(pressed(&d.sent), [LEFT_DOWN, LEFT_UP]);
    // the pointer moved while the button was down
    let down = d.sent.iter().position(|s| *s == LEFT_DOWN).unwrap();
    let up = d.sent.iter().position(|s| *s == LEFT_UP).unwrap();
    assert!(
        d.sent[down..up].contains(&Sent::Move(400, 300)),
        "{:?}",
        d.sent
    );
}

#[test]
fn nothing_stays_held_after_a_turn_or_an_action_error() {
    // a mouse_down without its mouse_up: released when the turn ends
    let mut d = Recorder::new();
    let mut ex = live();
    let r = ex
        .execute(
            &mut d,
            &actions(&[json!({"type": "mouse_down", "button": "right"})]),
        )
        .unwrap();
    assert!(r[0].is_ok());
    assert_eq!(
        pressed(&d.sent),
        [
            Sent::Button(Button::Right, Press::Down),
            Sent::Button(Button::Right, Press::Up)
        ]
    );
    assert!(d.down().is_empty() && ex.held().is_empty());

    // an action error after a mouse_down: released at the error, before what follows
    let mut d = Recorder::new();
    let r = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "mouse_down", "x": 100, "y": 100}),
                json!({"type": "key", "keys": "ctrl+nope"}),
                json!({"type": "type", "text": "after"}),
            ]),
        )
        .unwrap();
    assert!(matches!(&r[1], ActionResult::Error(e) if e.kind == ErrorKind::InvalidKey));
    assert_eq!(
        pressed(&d.sent),
        [LEFT_DOWN, LEFT_UP, Sent::Text("after".into())]
    );
}

#[test]
fn long_press_and_hold_key_are_one_action_each_held_for_their_seconds() {
    let mut d = Recorder::new();
    let mut ex = live();
    let started = Instant::now();
    let r = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "long_press", "x": 500, "y": 500, "seconds": 0.2}),
                json!({"type": "hold_key", "keys": "ctrl+shift", "seconds": 0.2}),
            ]),
        )
        .unwrap();
    assert!(r.iter().all(ActionResult::is_ok), "{r:?}");
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(
        pressed(&d.sent),
        [
            LEFT_DOWN,
            LEFT_UP,
            Sent::Key(CTRL, Press::Down),
            Sent::Key(SHIFT, Press::Down),
            Sent::Key(SHIFT, Press::Up),
            Sent::Key(CTRL, Press::Up),
        ]
    );
    // pressed where it was asked
    assert_eq!(d.sent[0], Sent::Move(400, 300));
}

#[test]
fn the_failsafe_stops_a_long_word_between_characters_on_every_motion() {
    let word = "a".repeat(150);
    let cadenced = Motion {
        char_delay_ms: 1,
        ..Motion::fast()
    };
    for (name, motion) in [("fast", Motion::fast()), ("cadenced", cadenced)] {
        let mut d = Recorder::new();
        d.slam_after_chars = Some(5);
        let area = Crop::FULL
            .work_area(PixelRect::new(0, 0, 800, 600))
            .unwrap();
        let config = ExecConfig {
            motion,
            ..ExecConfig::with_profile(MotionProfile::Fast)
        };
        let mut ex = Executor::new(area, config, false);
        let err = ex
            .execute(&mut d, &actions(&[json!({"type": "type", "text": word})]))
            .unwrap_err();
        assert!(matches!(err, ExecError::Failsafe(_)), "{name}: {err}");
        // a slam after 5 characters stops the word at the next look: the next character, or
        // the end of the fast path's piece
        assert!(
            d.typed() <= 16,
            "{name}: {} of 150 characters typed",
            d.typed()
        );
    }
}

#[test]
fn a_cancel_stops_a_scroll_part_way_and_a_call_token_replaces_the_runs() {
    let call = crate::cancel::Cancel::new();
    let mut d = Recorder::new();
    d.cancel_after_notches = Some((5, call.clone()));
    let mut ex = live().with_cancel(crate::cancel::Cancel::new());
    ex.set_cancel(call);
    let results = ex
        .execute(
            &mut d,
            &actions(&[json!({"type": "scroll", "direction": "down", "amount": 100})]),
        )
        .unwrap();
    assert!(!results[0].is_ok(), "{results:?}");
    assert_eq!(d.notches, 5, "the wheel stopped at the cancel");
}

#[test]
fn the_failsafe_stops_a_stepped_move_and_a_drag_on_the_way() {
    let mut d = Recorder::new();
    d.slam_on_move = true;
    let area = Crop::FULL
        .work_area(PixelRect::new(0, 0, 800, 600))
        .unwrap();
    let stepped = Motion {
        move_steps: 10,
        ..Motion::fast()
    };
    let config = ExecConfig {
        motion: stepped,
        ..ExecConfig::with_profile(MotionProfile::Fast)
    };
    let mut ex = Executor::new(area, config, false);
    let err = ex
        .execute(
            &mut d,
            &actions(&[json!({"type": "drag", "x": 100, "y": 100, "x2": 900, "y2": 900})]),
        )
        .unwrap_err();
    assert!(matches!(err, ExecError::Failsafe(_)), "{err}");
    assert!(
        !d.sent.contains(&LEFT_DOWN),
        "the drag never pressed: {:?}",
        d.sent
    );
    let moves = d
        .sent
        .iter()
        .filter(|s| matches!(s, Sent::Move(..)))
        .count();
    assert_eq!(moves, 1, "the move stopped at the first step: {:?}", d.sent);
}

#[test]
fn the_failsafe_during_a_long_press_releases_the_button() {
    let mut d = Recorder::new();
    d.slam_on_down = true;
    let mut ex = live();
    let started = Instant::now();
    let err = ex
        .execute(
            &mut d,
            &actions(&[json!({"type": "long_press", "x": 500, "y": 500, "seconds": 30})]),
        )
        .unwrap_err();
    assert!(matches!(err, ExecError::Failsafe(_)), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(pressed(&d.sent), [LEFT_DOWN, LEFT_UP]);

    // the failsafe before the next action of the turn releases a mouse_down too
    let mut d = Recorder::new();
    d.slam_on_down = true;
    let err = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "mouse_down", "x": 500, "y": 500}),
                json!({"type": "click", "x": 100, "y": 100}),
            ]),
        )
        .unwrap_err();
    assert!(matches!(err, ExecError::Failsafe(_)), "{err}");
    assert_eq!(pressed(&d.sent), [LEFT_DOWN, LEFT_UP]);
    assert!(ex.held().is_empty());
}

#[test]
fn ctrl_c_during_a_long_press_releases_it_and_skips_the_rest_of_the_turn() {
    let flag = crate::cancel::Cancel::new();
    let mut d = Recorder::new();
    d.interrupt_on_down = Some(flag.clone());
    let mut ex = live().with_cancel(flag);
    let started = Instant::now();
    let r = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "long_press", "seconds": 30}),
                json!({"type": "click", "x": 1, "y": 1}),
            ]),
        )
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    match &r[..] {
        [ActionResult::Error(a), ActionResult::Error(b)] => {
            assert!(a.message.contains("interrupted"), "{a:?}");
            assert!(b.message.contains("not performed"), "{b:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(pressed(&d.sent), [LEFT_DOWN, LEFT_UP]);
}

#[test]
fn release_all_releases_what_a_turn_could_not_and_dry_run_holds_nothing() {
    // what is held outside a turn is released by release_all (the engine's call at the end)
    let mut d = Recorder::new();
    let mut ex = live();
    ex.button(&mut d, Button::Middle, Press::Down).ok();
    assert_eq!(ex.held(), [HeldItem::Button(Button::Middle)]);
    ex.release_all(&mut d).unwrap();
    assert!(ex.held().is_empty());
    assert_eq!(d.down(), []);
    ex.release_all(&mut Untouchable(vec![])).unwrap();

    let started = Instant::now();
    let r = dry()
        .execute(
            &mut Untouchable(vec![]),
            &actions(&[
                json!({"type": "long_press", "x": 5, "y": 5, "seconds": 60}),
                json!({"type": "hold_key", "keys": "shift", "seconds": 60}),
            ]),
        )
        .unwrap();
    assert!(r.iter().all(ActionResult::is_ok), "{r:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Runs `actions` with `motion` on a fake desktop, cancels 200 ms in, and returns the results,
/// how long the executor took after the cancel, and what the desktop got.
fn cancelled_after_200ms(
    motion: Motion,
    actions_json: &[serde_json::Value],
) -> (Vec<ActionResult>, Duration, franz_desktop::fake::FakeLog) {
    let cancel = crate::cancel::Cancel::new();
    let area = Crop::FULL
        .work_area(PixelRect::new(0, 0, 800, 600))
        .unwrap();
    let config = ExecConfig {
        motion,
        ..ExecConfig::default()
    };
    let mut ex = Executor::new(area, config, false).with_cancel(cancel.clone());
    let mut d = franz_desktop::fake::FakeDesktop::new(800, 600);
    let log = d.log();
    let (tx, rx) = std::sync::mpsc::channel();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        let at = Instant::now();
        cancel.cancel();
        tx.send(at).unwrap();
    });
    let results = ex.execute(&mut d, &actions(actions_json)).unwrap();
    let took = rx.recv().unwrap().elapsed();
    canceller.join().unwrap();
    assert!(ex.held().is_empty());
    (results, took, log)
}

#[test]
fn cancel_stops_a_long_human_paced_type_at_once() {
    // 2000 characters at 10 ms plus 50 ms a word: over 30 s uncancelled
    let text = "word ".repeat(400);
    let (results, took, log) = cancelled_after_200ms(
        Motion::human(),
        &[
            json!({"type": "type", "text": text}),
            json!({"type": "key", "keys": "enter"}),
        ],
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
    match &results[..] {
        [ActionResult::Error(a), ActionResult::Error(b)] => {
            assert!(a.message.contains("interrupted"), "{a:?}");
            assert!(b.message.contains("not performed"), "{b:?}");
        }
        other => panic!("{other:?}"),
    }
    let typed: usize = log
        .sent()
        .iter()
        .filter(|s| matches!(s, franz_desktop::fake::Sent::Text(_)))
        .count();
    assert!(typed > 0 && typed < 200, "typed {typed} characters");
}

#[test]
fn cancel_stops_a_stepped_drag_at_once_and_releases_the_button() {
    // 3000 steps of 10 ms: 30 s uncancelled
    let motion = Motion {
        drag_steps: 3000,
        drag_step_delay_ms: 10,
        ..Motion::fast()
    };
    let (results, took, log) = cancelled_after_200ms(
        motion,
        &[json!({"type": "drag", "x1": 100, "y1": 100, "x2": 900, "y2": 900})],
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(
        matches!(&results[..], [ActionResult::Error(e)] if e.message.contains("interrupted")),
        "{results:?}"
    );
    assert!(
        log.held().is_empty(),
        "the button went up: {:?}",
        log.held()
    );
    assert!(log.sent().contains(&franz_desktop::fake::Sent::Button(
        Button::Left,
        Press::Down
    )));
}

#[test]
fn cancel_ends_a_60_second_wait_at_once() {
    let (results, took, _) =
        cancelled_after_200ms(Motion::fast(), &[json!({"type": "wait", "seconds": 60})]);
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(
        matches!(&results[..], [ActionResult::Error(e)] if e.message.contains("interrupted")),
        "{results:?}"
    );
}

#[test]
fn the_failsafe_ends_a_long_wait_within_a_second_and_reports_the_wait() {
    let mut ex = live();
    let mut d = franz_desktop::fake::FakeDesktop::new(800, 600);
    let log = d.log();
    let script = actions(&[
        json!({"type": "wait", "seconds": 60}),
        json!({"type": "click", "x": 500, "y": 500}),
    ]);
    let (tx, rx) = std::sync::mpsc::channel();
    let person = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        log.move_pointer(PixelPoint::new(0, 0));
        tx.send((Instant::now(), log)).unwrap();
    });
    let mut reported = Vec::new();
    let err = ex
        .execute_with(&mut d, &script, |i, r| reported.push((i, r.clone())))
        .unwrap_err();
    let (slammed, log) = rx.recv().unwrap();
    let took = slammed.elapsed();
    person.join().unwrap();
    assert!(matches!(err, ExecError::Failsafe(_)), "{err}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    // the wait got its result, naming the failsafe; the click never ran
    match &reported[..] {
        [(0, ActionResult::Error(e))] => {
            assert!(
                e.message.contains("wait") && e.message.contains("failsafe"),
                "{e:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(log.sent().is_empty(), "{:?}", log.sent());
}

#[test]
fn an_exact_target_is_mapped_by_the_reference_rule_not_its_rounded_point() {
    let mut ex = dry();
    let mut desktop = Untouchable(Vec::new());
    let script = actions(&[
        json!({"type": "click", "x": 498, "y": 496, "exact": {"at": [641, 361], "of": [1288, 728]}}),
    ]);
    ex.execute(&mut desktop, &script).unwrap();
    // 641 * 800 / 1288 = 398.1 -> 398; 361 * 600 / 728 = 297.5.. -> 298
    assert_eq!(ex.placed, Some(PixelPoint::new(398, 298)));
    let script = actions(&[json!({"type": "click", "x": 498, "y": 496})]);
    ex.execute(&mut desktop, &script).unwrap();
    // the franz rule: round(498 * 799 / 1000) = 398, round(496 * 599 / 1000) = 297
    assert_eq!(ex.placed, Some(PixelPoint::new(398, 297)));
    let script = actions(&[
        json!({"type": "drag", "x": 0, "y": 0, "x2": 1000, "y2": 1000,
        "exact": {"at": [0, 0], "to": [1, 1], "of": [1, 1]}}),
    ]);
    ex.execute(&mut desktop, &script).unwrap();
    assert_eq!(ex.placed, Some(PixelPoint::new(799, 599)));
}

/// The marks of one element: a text entry at pixels (200, 100)..(400, 140) of the 800x600 area.
fn entry_marks(ex: &Executor) -> Vec<crate::grounding::Mark> {
    let entry = franz_desktop::elements::Element {
        role: "text".into(),
        name: "Name".into(),
        states: vec![],
        bounds: PixelRect::new(200, 100, 200, 40),
    };
    crate::grounding::marks(&[entry], ex.area())
}

#[test]
fn an_element_is_clicked_at_its_centre_and_type_clicks_it_first() {
    let mut d = Recorder::new();
    let mut ex = live();
    ex.set_marks(entry_marks(&ex));
    let r = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "click", "element": 1}),
                json!({"type": "type", "text": "Ada", "element": 1}),
            ]),
        )
        .unwrap();
    assert!(r.iter().all(ActionResult::is_ok), "{r:?}");
    let last_move_before = |n: usize| {
        d.sent[..n]
            .iter()
            .rev()
            .find_map(|s| match s {
                Sent::Move(x, y) => Some((*x, *y)),
                _ => None,
            })
            .unwrap()
    };
    let downs: Vec<usize> = (0..d.sent.len())
        .filter(|&i| {
            matches!(
                d.sent[i],
                Sent::Button(Button::Left, Press::Down | Press::Click)
            )
        })
        .collect();
    assert_eq!(downs.len(), 2, "{:?}", d.sent);
    for &i in &downs {
        let (x, y) = last_move_before(i);
        assert!((x - 300).abs() <= 1 && (y - 120).abs() <= 1, "({x}, {y})");
    }
    let typed = d.sent.iter().position(|s| *s == Sent::Text("Ada".into()));
    assert!(typed.is_some_and(|t| t > downs[1]), "{:?}", d.sent);
}

#[test]
fn an_unknown_element_is_an_error_and_no_input_is_sent() {
    let mut d = Recorder::new();
    let mut ex = live();
    ex.set_marks(entry_marks(&ex));
    let r = ex
        .execute(
            &mut d,
            &actions(&[
                json!({"type": "type", "text": "x"}),
                json!({"type": "click", "element": 9}),
            ]),
        )
        .unwrap();
    let ActionResult::Error(e) = &r[1] else {
        panic!("{r:?}")
    };
    assert!(e.message.contains("element 9 does not exist"), "{e:?}");
    assert!(matches!(&r[0], ActionResult::Error(e) if e.message.contains("not performed")));
    assert!(d.sent.is_empty(), "{:?}", d.sent);
    // without marks (grounding off) every reference is an error too
    ex.set_marks(Vec::new());
    let r = ex
        .execute(&mut d, &actions(&[json!({"type": "click", "element": 1})]))
        .unwrap();
    assert!(!r[0].is_ok() && d.sent.is_empty(), "{r:?}");
}
