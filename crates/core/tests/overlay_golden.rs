//! Golden images of the overlay: a click, a drag, a 4-turn trail, boxes, and typed text / keys.
//!
//! Each case renders onto the same small synthetic screen and is compared with
//! `tests/fixtures/overlay/<name>.png`, pixel by pixel with a tolerance per channel (so a
//! different float rounding in tiny-skia or ab_glyph does not fail it; a moved or recoloured
//! mark does). Regenerate with `FRANZ_BLESS=1 cargo test -p franz-core --test integration overlay_golden::`
//! and look at the images before committing them.

use franz_core::action::{Action, ActionKind};
use franz_core::geometry::NormBox;
use franz_core::overlay::{FeedbackHistory, Overlay, OverlayConfig, TurnFeedback};
use std::path::PathBuf;

const W: u32 = 320;
const H: u32 = 180;
/// Largest allowed difference in any channel of any pixel.
const TOLERANCE: u8 = 12;

/// A fake desktop: a light window with a title bar and two buttons on a blue backdrop.
fn screen() -> Vec<u8> {
    let mut data = Vec::with_capacity((W * H * 4) as usize);
    for y in 0..H {
        for x in 0..W {
            let mut c = [30, 60 + (y / 3) as u8, 110, 255];
            if (20..300).contains(&x) && (15..165).contains(&y) {
                c = if y < 32 {
                    [70, 70, 80, 255]
                } else {
                    [235, 235, 235, 255]
                };
                if (40..110).contains(&x) && (120..145).contains(&y)
                    || (200..280).contains(&x) && (120..145).contains(&y)
                {
                    c = [200, 200, 210, 255];
                }
            }
            data.extend_from_slice(&c);
        }
    }
    data
}

fn act(kind: ActionKind) -> Action {
    kind.into()
}

fn click_at(x: i32, y: i32) -> Action {
    act(ActionKind::Click {
        x: Some(x),
        y: Some(y),
    })
}

fn render(turns: Vec<TurnFeedback>) -> Vec<u8> {
    let overlay = Overlay::new(OverlayConfig::default()).unwrap();
    let mut history: FeedbackHistory = overlay.history();
    for t in turns {
        history.push(t);
    }
    let mut data = screen();
    overlay.draw(W, H, &mut data, &history).unwrap();
    data
}

fn check(name: &str, got: &[u8]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/overlay")
        .join(format!("{name}.png"));
    if std::env::var_os("FRANZ_BLESS").is_some() {
        image::save_buffer(&path, got, W, H, image::ExtendedColorType::Rgba8).unwrap();
        return;
    }
    let want = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with FRANZ_BLESS=1)", path.display()))
        .to_rgba8();
    assert_eq!(want.dimensions(), (W, H), "{name}");
    let mut bad = Vec::new();
    for (i, (g, w)) in got
        .chunks_exact(4)
        .zip(want.as_raw().chunks_exact(4))
        .enumerate()
    {
        if g.iter().zip(w).any(|(a, b)| a.abs_diff(*b) > TOLERANCE) {
            bad.push((i as u32 % W, i as u32 / W, g.to_vec(), w.to_vec()));
        }
    }
    assert!(
        bad.is_empty(),
        "{name}: {} pixels differ beyond {TOLERANCE}; first (x, y, got, want): {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
}

#[test]
fn click() {
    let t = TurnFeedback {
        actions: vec![click_at(250, 750)],
        bboxes: vec![],
    };
    check("click", &render(vec![t]));
}

#[test]
fn right_and_double_click() {
    let t = TurnFeedback {
        actions: vec![
            act(ActionKind::RightClick {
                x: Some(250),
                y: Some(500),
            }),
            act(ActionKind::DoubleClick {
                x: Some(750),
                y: Some(500),
            }),
        ],
        bboxes: vec![],
    };
    check("right_double_click", &render(vec![t]));
}

#[test]
fn drag() {
    let t = TurnFeedback {
        actions: vec![act(ActionKind::Drag {
            x: Some(150),
            y: Some(300),
            x2: 800,
            y2: 700,
        })],
        bboxes: vec![],
    };
    check("drag", &render(vec![t]));
}

#[test]
fn trail_of_four_turns() {
    let turns = vec![
        TurnFeedback {
            actions: vec![click_at(150, 400)],
            bboxes: vec![],
        },
        TurnFeedback {
            actions: vec![act(ActionKind::Drag {
                x: Some(300),
                y: Some(250),
                x2: 550,
                y2: 250,
            })],
            bboxes: vec![],
        },
        TurnFeedback {
            actions: vec![click_at(650, 450)],
            bboxes: vec![],
        },
        TurnFeedback {
            actions: vec![click_at(850, 750)],
            bboxes: vec![],
        },
    ];
    check("trail", &render(turns));
}

#[test]
fn bboxes() {
    let t = TurnFeedback {
        actions: vec![],
        bboxes: vec![
            NormBox::from_corners(90, 650, 340, 800),
            NormBox::from_corners(600, 250, 900, 500),
        ],
    };
    check("bboxes", &render(vec![t]));
}

#[test]
fn typed_text_and_keys() {
    let t = TurnFeedback {
        actions: vec![
            act(ActionKind::Type {
                text: "hello, world: a long sentence".into(),
            }),
            act(ActionKind::Key {
                keys: "ctrl+s".into(),
            }),
        ],
        bboxes: vec![],
    };
    check("type_key", &render(vec![t]));
}
