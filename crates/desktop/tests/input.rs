//! EnigoInput against the witness window on a private Xvfb: pointer, buttons, scroll, keys
//! and exact text, each checked on the events the window received.

#![cfg(target_os = "linux")]

use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind, state};
use franz_desktop::{
    Button, EnigoInput, Input, Key, NamedKey, PixelPoint, PixelRect, Press, ScrollDirection,
};
use std::time::Duration;

const T: Duration = Duration::from_secs(10);

fn setup() -> (Sandbox, Witness, EnigoInput) {
    let sandbox = Sandbox::start(&SandboxOptions {
        width: 800,
        height: 600,
        launch: vec![],
    })
    .unwrap();
    let witness = Witness::open(sandbox.display(), PixelRect::new(100, 50, 400, 300)).unwrap();
    let input = EnigoInput::with_display(Some(sandbox.display())).unwrap();
    (sandbox, witness, input)
}

fn count(events: &[WitnessEvent], kind: WitnessKind) -> usize {
    events.iter().filter(|e| e.is(kind)).count()
}

#[test]
fn pointer_buttons_and_scroll_arrive_where_sent() {
    let (_sb, w, mut input) = setup();
    let p = PixelPoint::new(123, 77);
    input.move_to(p).unwrap();
    input.button(Button::Right, Press::Click).unwrap();
    input.scroll(ScrollDirection::Left, 2).unwrap();
    input.sync().unwrap();
    let (ok, ev) = w.wait_for(|e| count(e, WitnessKind::ButtonRelease) == 3, T);
    assert!(ok, "{ev:?}");
    assert!(ev.iter().any(|e| e.is(WitnessKind::Motion) && e.at == p));
    let presses: Vec<(u8, PixelPoint)> = ev
        .iter()
        .filter(|e| e.is(WitnessKind::ButtonPress))
        .map(|e| (e.detail, e.at))
        .collect();
    assert_eq!(presses, vec![(3, p), (6, p), (6, p)]);
    assert_eq!(input.location().unwrap(), p);
    assert_eq!(w.pointer().unwrap(), p);
}

#[test]
fn keys_and_unicode_text_reach_the_window() {
    let (_sb, w, mut input) = setup();
    input.move_to(PixelPoint::new(200, 200)).unwrap();
    for k in [Key::Named(NamedKey::Ctrl), Key::Char('c')] {
        input.key(k, Press::Down).unwrap();
    }
    for k in [Key::Char('c'), Key::Named(NamedKey::Ctrl)] {
        input.key(k, Press::Up).unwrap();
    }
    input.sync().unwrap();
    let (ok, ev) = w.wait_for(|e| count(e, WitnessKind::KeyRelease) == 2, T);
    assert!(ok, "{ev:?}");
    let keys: Vec<WitnessEvent> = ev.into_iter().filter(|e| e.keysym != 0).collect();
    assert_eq!(keys[0].keysym, 0xffe3); // Control_L
    assert_eq!(
        (keys[1].keysym, keys[1].kind),
        (0x63, WitnessKind::KeyPress)
    );
    assert_eq!(keys[1].state & state::CONTROL, state::CONTROL);

    w.clear();
    input.text("Aü你").unwrap();
    input.sync().unwrap();
    let (ok, ev) = w.wait_for(|e| count(e, WitnessKind::KeyRelease) == 4, T);
    assert!(ok, "{ev:?}");
    let syms: Vec<u32> = ev
        .iter()
        .filter(|e| e.is(WitnessKind::KeyPress))
        .map(|e| e.keysym)
        .collect();
    // Shift, then `a` (level 0 of the A key), then the bound keysyms.
    assert_eq!(syms, vec![0xffe1, 0x61, 0xfc, 0x0100_4f60]);
}

#[test]
fn held_state_reports_buttons_and_keys_down_until_released() {
    let (sb, _w, mut input) = setup();
    let held = || franz_desktop::held::held_state(sb.display()).unwrap();
    assert!(held().is_empty(), "{:?}", held());
    input.move_to(PixelPoint::new(200, 200)).unwrap();
    input.key(Key::Named(NamedKey::Ctrl), Press::Down).unwrap();
    input.button(Button::Left, Press::Down).unwrap();
    input.sync().unwrap();
    let down = held();
    assert_eq!(down.buttons, vec![1], "{down:?}");
    assert_eq!(down.keycodes.len(), 1, "{down:?}");
    assert_ne!(down.modifiers & state::CONTROL, 0, "{down:?}");
    assert!(!down.is_empty());
    input.button(Button::Left, Press::Up).unwrap();
    input.key(Key::Named(NamedKey::Ctrl), Press::Up).unwrap();
    input.sync().unwrap();
    assert!(held().is_empty(), "{:?}", held());
    // input from a client that goes away stays held: releasing it is franz's job (this is
    // what makes a franz that exits with a button down leave it down)
    input.button(Button::Right, Press::Down).unwrap();
    input.sync().unwrap();
    drop(input);
    assert_eq!(held().buttons, vec![3]);
}
