//! Unit tests of the overlay: geometry of marks and heat, trail ageing, buffer checks.
//! Golden images live in `crates/core/tests/overlay_golden.rs`.

use super::*;

fn grey(w: u32, h: u32) -> Vec<u8> {
    [40u8, 40, 40, 255].repeat((w * h) as usize)
}

fn px(data: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [data[i], data[i + 1], data[i + 2], data[i + 3]]
}

fn turn(actions: Vec<ActionKind>) -> TurnFeedback {
    TurnFeedback {
        actions: actions.into_iter().map(Action::from).collect(),
        bboxes: vec![],
    }
}

fn click(x: i32, y: i32) -> ActionKind {
    ActionKind::Click {
        x: Some(x),
        y: Some(y),
    }
}

#[test]
fn rejects_a_buffer_of_the_wrong_size() {
    let o = Overlay::new(OverlayConfig::default()).unwrap();
    let mut data = vec![0u8; 10];
    let err = o.draw(4, 4, &mut data, &o.history()).unwrap_err();
    assert!(matches!(err, OverlayError::BadBuffer { len: 10, .. }));
}

#[test]
fn disabled_or_empty_history_leaves_the_image_alone() {
    let (w, h) = (64, 48);
    let mut h1 = FeedbackHistory::new(4);
    h1.push(turn(vec![click(500, 500)]));
    let off = Overlay::new(OverlayConfig {
        enabled: false,
        ..OverlayConfig::default()
    })
    .unwrap();
    let mut data = grey(w, h);
    off.draw(w, h, &mut data, &h1).unwrap();
    assert_eq!(data, grey(w, h));
    let on = Overlay::new(OverlayConfig::default()).unwrap();
    on.draw(w, h, &mut data, &FeedbackHistory::new(4)).unwrap();
    assert_eq!(data, grey(w, h));
}

#[test]
fn a_left_click_is_a_red_crosshair_with_orange_heat_at_the_mapped_pixel() {
    let (w, h) = (201, 101);
    let mut cfg = OverlayConfig::default();
    cfg.labels.enabled = false;
    let o = Overlay::new(cfg).unwrap();
    let mut hist = o.history();
    hist.push(turn(vec![click(500, 500)]));
    let mut data = grey(w, h);
    o.draw(w, h, &mut data, &hist).unwrap();
    // (500,500) maps to pixel (100,50); the crosshair arm 10 px right is red
    let arm = px(&data, w, 110, 50);
    assert!(arm[0] > 200 && arm[1] < 80 && arm[2] < 80, "{arm:?}");
    // off the marks but inside the heat: orange tint (red > green > blue)
    let glow = px(&data, w, 104, 46);
    assert!(glow[0] > glow[1] && glow[1] > glow[2], "{glow:?}");
    // far away: untouched and opaque
    assert_eq!(px(&data, w, 5, 5), [40, 40, 40, 255]);
    assert!(data.chunks_exact(4).all(|p| p[3] == 255));
}

#[test]
fn history_keeps_capacity_and_trail_fades_older_turns() {
    let mut hist = FeedbackHistory::new(2);
    for x in [100, 500, 900] {
        hist.push(turn(vec![click(x, 500)]));
    }
    assert_eq!(hist.len(), 2);
    let mut cfg = OverlayConfig::default();
    cfg.marks.enabled = false;
    cfg.labels.enabled = false;
    let o = Overlay::new(cfg).unwrap();
    let (w, h) = (401, 101);
    let mut data = grey(w, h);
    o.draw(w, h, &mut data, &hist).unwrap();
    let at = |x| px(&data, w, x, 50)[0];
    assert_eq!(at(40), 40, "the dropped turn leaves no heat");
    assert!(at(360) > at(200) && at(200) > 40, "newest is hottest");
}

#[test]
fn drag_heat_is_pulled_toward_the_midpoint_with_age() {
    let k = ActionKind::Drag {
        x: Some(0),
        y: Some(0),
        x2: 1000,
        y2: 500,
    };
    assert_eq!(heat_points(&k, 1.0), vec![(0, 0), (1000, 500)]);
    assert_eq!(heat_points(&k, 0.5), vec![(250, 125), (750, 375)]);
    let k = ActionKind::Drag {
        x: None,
        y: None,
        x2: 10,
        y2: 20,
    };
    assert_eq!(heat_points(&k, 0.5), vec![(10, 20)]);
    assert!(heat_points(&ActionKind::Type { text: "x".into() }, 1.0).is_empty());
}

#[test]
fn labels_name_index_and_coordinates() {
    let id = |x: i32, y: i32| (x as f32, y as f32);
    assert_eq!(label(2, &click(5, 6), &id, 10).1, "2 click 5,6");
    assert_eq!(
        label(
            1,
            &ActionKind::Type {
                text: "hello world".into()
            },
            &id,
            6
        )
        .1,
        "1 type \"hello…\""
    );
    assert_eq!(
        label(
            3,
            &ActionKind::Key {
                keys: "ctrl+s".into()
            },
            &id,
            6
        )
        .0,
        None
    );
    let d = ActionKind::Drag {
        x: Some(1),
        y: Some(2),
        x2: 3,
        y2: 4,
    };
    assert_eq!(
        label(1, &d, &id, 6),
        (Some((3.0, 4.0)), "1 drag 1,2→3,4".to_string())
    );
}

#[test]
fn only_executed_actions_are_drawn_on_the_next_screenshot() {
    use crate::action::{ActionError, ErrorKind};
    let (w, h) = (201, 101);
    let o = Overlay::new(OverlayConfig::default()).unwrap();
    let clicks: Vec<Action> = vec![click(500, 500).into(), click(100, 100).into()];
    let rejected = ActionResult::Error(ActionError::new(ErrorKind::Rejected, "the user rejected"));
    let failed = ActionResult::Error(ActionError::new(ErrorKind::ExecutionFailed, "no X server"));
    let draw = |results: &[ActionResult]| {
        let mut hist = o.history();
        hist.push(TurnFeedback::executed(&clicks, results, &[]));
        let mut data = grey(w, h);
        o.draw(w, h, &mut data, &hist).unwrap();
        data
    };
    // the crosshair arm of (500,500), 10 px right of pixel (100,50)
    let red = |data: &[u8]| {
        let p = px(data, w, 110, 50);
        p[0] > 200 && p[1] < 80 && p[2] < 80
    };
    let none_ran = draw(&[rejected.clone(), rejected]);
    assert_eq!(
        none_ran,
        grey(w, h),
        "a rejected turn leaves no mark at all"
    );
    assert_eq!(
        draw(std::slice::from_ref(&failed)),
        grey(w, h),
        "a failed click is not drawn"
    );
    assert!(
        red(&draw(&[ActionResult::ok()])),
        "an executed click is drawn"
    );
    // the first ran, the second failed: only the first is drawn (no heat near (20,10))
    let first = draw(&[ActionResult::ok(), failed]);
    assert!(red(&first));
    assert_eq!(px(&first, w, 20, 10), [40, 40, 40, 255]);
    // a fatal stop before the second action: it has no result and is not drawn either
    assert_eq!(draw(&[ActionResult::ok()]), first);
}

#[test]
fn a_long_press_is_drawn_like_a_left_click_and_a_hold_key_gets_a_label() {
    let (w, h) = (201, 101);
    let mut cfg = OverlayConfig::default();
    cfg.labels.enabled = false;
    let o = Overlay::new(cfg).unwrap();
    let draw = |kind: ActionKind| {
        let mut hist = FeedbackHistory::new(4);
        hist.push(turn(vec![kind]));
        let mut data = grey(w, h);
        o.draw(w, h, &mut data, &hist).unwrap();
        data
    };
    let pressed = draw(ActionKind::LongPress {
        x: Some(500),
        y: Some(500),
        seconds: 2.0,
    });
    assert_ne!(pressed, grey(w, h));
    assert_eq!(pressed, draw(click(500, 500)));
    let (_, text) = label(
        0,
        &ActionKind::HoldKey {
            keys: "shift".into(),
            seconds: 2.0,
        },
        &|x, y| (x as f32, y as f32),
        40,
    );
    assert_eq!(text, "0 hold_key shift 2s");
}

#[test]
fn the_generation_changes_exactly_when_what_is_drawn_changes() {
    let mut hist = FeedbackHistory::new(2);
    let g0 = hist.generation();
    hist.push(turn(vec![click(500, 500)]));
    let g1 = hist.generation();
    assert_ne!(g1, g0, "a first turn is drawn");
    hist.push(turn(vec![click(500, 500)]));
    let g2 = hist.generation();
    assert_ne!(g2, g1, "two turns are drawn where one was");
    // full of the same turn: the same again changes nothing drawn
    hist.push(turn(vec![click(500, 500)]));
    assert_eq!(hist.generation(), g2);
    hist.push(turn(vec![click(10, 10)]));
    let g3 = hist.generation();
    assert_ne!(g3, g2);
    hist.push(turn(vec![click(10, 10)]));
    assert_ne!(hist.generation(), g3, "[a, b] became [b, b]");
    hist.clear();
    assert_ne!(hist.generation(), g3);
    let cleared = hist.generation();
    hist.clear();
    assert_eq!(
        hist.generation(),
        cleared,
        "clearing an empty history changes nothing"
    );
}
