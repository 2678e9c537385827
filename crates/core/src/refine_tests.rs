//! The crop and its mapping (docs/refine.md): a point a model writes on the crop maps back to
//! the screen exactly as the families' reference code maps a point on an image of the crop,
//! at many screen sizes, in every built-in profile's space, crops at the screen's edges too.

use super::*;
use crate::observe::{ImageFormat, RgbaImage};
use crate::profile::{self, Profile};
use proptest::prelude::*;

/// Screens people have, and odd ones.
const SCREENS: [(u32, u32); 11] = [
    (1920, 1080),
    (1600, 900),
    (2560, 1440),
    (3840, 2160),
    (1366, 768),
    (1280, 800),
    (1280, 720),
    (3440, 1440),
    (1001, 777),
    (999, 1999),
    (641, 479),
];

/// A screenshot of the crop `rect` at `size`, as [`crop_shot`] makes it (no pixels needed).
fn shot(rect: PixelRect, size: ImageSize) -> Screenshot {
    Screenshot {
        work_area: WorkArea { rect },
        area: crate::observe::ObservedArea::whole(WorkArea { rect }),
        size,
        image: RgbaImage {
            width: size.width,
            height: size.height,
            data: Vec::new(),
        },
        encoded: Vec::new(),
        format: ImageFormat::Png,
        data_url: String::new(),
        timings: StageTimings::default(),
        change: Default::default(),
        reused: false,
    }
}

/// The families' formula in whole numbers: `P0 + min(L - 1, round(v * L / S))` rounding half
/// up, for v = `a / d` (d = 1 for pixels and 0..1000, 10000 for fractions with four decimals).
fn oracle(a: i64, d: i64, s: i64, p0: i32, len: u32) -> i32 {
    let len = len as i64;
    let t = (2 * a * len + d * s).div_euclid(2 * d * s);
    p0 + t.clamp(0, len - 1) as i32
}

/// franz's own rule for 0..1000 points: `P0 + round(n * (L - 1) / 1000)`, half up.
fn franz_oracle(n: i64, p0: i32, len: u32) -> i32 {
    let l1 = len as i64 - 1;
    p0 + (2 * n * l1 + 1000).div_euclid(2000) as i32
}

/// A click the model wrote at `v` (numerators over `d`) of the extent `s`, as the parser
/// gives it under `p`.
fn click(p: &Profile, v: (i64, i64), d: i64, s: (i64, i64)) -> Action {
    let of = ImageSize::new(s.0 as u32, s.1 as u32);
    let at = [v.0 as f64 / d as f64, v.1 as f64 / d as f64];
    let n = norm_point(at, of);
    let mut a: Action = ActionKind::Click {
        x: Some(n.x),
        y: Some(n.y),
    }
    .into();
    if p.coords.space().is_some() {
        a.exact = Some(Exact {
            at: Some([Num(at[0]), Num(at[1])]),
            to: None,
            of: [Num(s.0 as f64), Num(s.1 as f64)],
        });
    }
    a
}

/// Checks one point `v` on the crop of `screen` around `p` under profile `prof`.
fn check(prof: &Profile, screen: (u32, u32), p: PixelPoint, v: (f64, f64)) {
    let area = PixelRect::new(0, 0, screen.0, screen.1);
    let rect = crop_box(area, p, DEFAULT_CROP);
    let size = prof.size_rule(0).resolve(rect.width, rect.height);
    let space = prof.coords.space();
    let (s, d) = match space {
        Some(crate::exact_target::Space::Pixels) => ((size.width as i64, size.height as i64), 1),
        Some(crate::exact_target::Space::Relative) => ((1, 1), 10_000),
        Some(crate::exact_target::Space::Norm1000) => {
            let m = prof.norm_max.unwrap_or(1000) as i64;
            ((m, m), 1)
        }
        None => ((1000, 1000), 1),
    };
    let a = (
        (v.0 * (s.0 * d) as f64) as i64,
        (v.1 * (s.1 * d) as f64) as i64,
    );
    let action = click(prof, a, d, s);
    let got = crop_point(&action, &shot(rect, size)).unwrap();
    let want = match space {
        Some(_) => (
            oracle(a.0, d, s.0, rect.x, rect.width),
            oracle(a.1, d, s.1, rect.y, rect.height),
        ),
        None => (
            franz_oracle(a.0, rect.x, rect.width),
            franz_oracle(a.1, rect.y, rect.height),
        ),
    };
    assert_eq!(
        (got.x, got.y),
        want,
        "{} on {screen:?}: crop {rect:?} sent {size}, model wrote {a:?}/{d} of {s:?}",
        prof.name
    );
    // the refined point stands for the action as the executor maps it through the screen
    let mut moved = action.clone();
    retarget(&mut moved, &WorkArea { rect: area }, got, None);
    assert_eq!(
        Fence::new(WorkArea { rect: area }).targets(&moved).0,
        Some(got)
    );
}

#[test]
fn the_crop_keeps_its_size_inside_the_screen() {
    for (w, h) in SCREENS {
        let area = PixelRect::new(0, 0, w, h);
        let cw = (w as f64 / 3.0).round() as u32;
        let ch = (h as f64 / 3.0).round() as u32;
        for p in [
            PixelPoint::new(0, 0),
            PixelPoint::new(w as i32 - 1, h as i32 - 1),
            PixelPoint::new(w as i32 / 2, h as i32 / 2),
            PixelPoint::new(3, h as i32 - 2),
        ] {
            let r = crop_box(area, p, DEFAULT_CROP);
            assert_eq!((r.width, r.height), (cw, ch), "{w}x{h} at {p:?}");
            assert!(r.x >= 0 && r.y >= 0 && r.right() <= w as i32 && r.bottom() <= h as i32);
            assert!(r.contains(p), "{r:?} misses {p:?}");
        }
        // centred where the screen allows it
        let mid = crop_box(area, PixelPoint::new(w as i32 / 2, h as i32 / 2), 0.25);
        assert!((mid.x + mid.width as i32 / 2 - w as i32 / 2).abs() <= 1);
    }
    // a working area away from the origin (a crop, a second monitor)
    let area = PixelRect::new(1920, 100, 1280, 700);
    let r = crop_box(area, PixelPoint::new(1925, 795), 0.5);
    assert_eq!(r, PixelRect::new(1920, 450, 640, 350));
}

#[test]
fn every_profile_maps_crop_points_exactly_at_every_screen_and_edge() {
    let profiles = profile::builtin();
    let values = [
        (0.0, 0.0),
        (1.0, 1.0),
        (0.5, 0.5),
        (0.0005, 0.9995),
        (0.333, 0.667),
    ];
    for prof in &profiles {
        for (w, h) in SCREENS {
            for p in [
                PixelPoint::new(0, 0),
                PixelPoint::new(w as i32 - 1, h as i32 - 1),
                PixelPoint::new(w as i32 / 2, 7),
                PixelPoint::new(w as i32 / 3, h as i32 / 2),
            ] {
                for v in values {
                    check(prof, (w, h), p, v);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_point_on_any_crop_maps_as_the_families_do(
        w in 320u32..4000, h in 240u32..2400,
        px in 0.0f64..1.0, py in 0.0f64..1.0,
        vx in 0.0f64..=1.0, vy in 0.0f64..=1.0,
        which in 0usize..64,
    ) {
        let profiles = profile::builtin();
        let prof = &profiles[which % profiles.len()];
        let p = PixelPoint::new((px * w as f64) as i32, (py * h as f64) as i32);
        check(prof, (w, h), p, (vx, vy));
    }
}

#[test]
fn a_point_outside_the_crop_or_without_one_is_refused() {
    let rect = PixelRect::new(100, 200, 640, 360);
    let s = shot(rect, ImageSize::new(640, 360));
    let mut a: Action = ActionKind::Click {
        x: Some(500),
        y: Some(1001),
    }
    .into();
    assert!(crop_point(&a, &s).unwrap_err().contains("outside the crop"));
    a.exact = Some(Exact {
        at: Some([Num(700.0), Num(10.0)]),
        to: None,
        of: [Num(640.0), Num(360.0)],
    });
    assert!(crop_point(&a, &s).unwrap_err().contains("outside the crop"));
    let at_pointer: Action = ActionKind::Click { x: None, y: None }.into();
    assert!(
        crop_point(&at_pointer, &s)
            .unwrap_err()
            .contains("no point")
    );
    let mut element: Action = ActionKind::Click {
        x: Some(1),
        y: Some(1),
    }
    .into();
    element.element = Some(3);
    assert!(crop_point(&element, &s).is_err());
}

#[test]
fn the_crop_is_cut_from_the_full_resolution_frame_with_the_masks() {
    // a 200x100 BGRA frame whose every pixel says where it is
    let (w, h) = (200u32, 100u32);
    let mut data = vec![0u8; (w * h * 4) as usize];
    for y in 0..h {
        for x in 0..w {
            let i = ((y * w + x) * 4) as usize;
            data[i..i + 4].copy_from_slice(&[(x % 256) as u8, y as u8, 7, 255]);
        }
    }
    let frame = FrameView {
        width: w,
        height: h,
        stride: (w * 4) as usize,
        data: &data,
    };
    let observe = ObserveConfig {
        size: crate::geometry::SizeRule::MODEL_DEFAULT,
        mask: vec!["0,0,100,100".parse().unwrap()],
        ..ObserveConfig::default()
    };
    let rect = crop_box(
        PixelRect::new(0, 0, w, h),
        PixelPoint::new(199, 0),
        DEFAULT_CROP,
    );
    let s = crop_shot(frame, PixelPoint::new(0, 0), rect, &observe).unwrap();
    assert_eq!(rect, PixelRect::new(133, 0, 67, 33));
    assert_eq!((s.size.width, s.size.height), (67, 33), "full resolution");
    assert_eq!(s.work_area.rect, rect);
    // RGBA at the crop's (0, 10): the frame's (133, 10), BGRA swizzled
    let i = ((10 * 67) * 4) as usize;
    assert_eq!(&s.image.data[i..i + 4], &[7, 10, 133, 255]);
    // a mask over the crop's area blacks it out there too
    let masked = crop_shot(
        frame,
        PixelPoint::new(0, 0),
        PixelRect::new(0, 0, 40, 20),
        &observe,
    )
    .unwrap();
    assert_eq!(&masked.image.data[0..3], &[0, 0, 0]);
}

#[test]
fn crop_sizes_are_read_and_bad_ones_refused() {
    assert!((parse_crop("1/3").unwrap() - DEFAULT_CROP).abs() < 1e-12);
    assert_eq!(parse_crop(" 0.5 ").unwrap(), 0.5);
    assert_eq!(parse_crop("1").unwrap(), 1.0);
    for bad in ["0", "2", "1/0", "a third", "-0.3", "0.01", "NaN"] {
        let e = parse_crop(bad).unwrap_err();
        assert!(e.contains("from 0.05 to 1"), "{bad}: {e}");
    }
}

/// An asker whose request is empty and whose reading is given.
struct Given(Result<Action, String>);

impl PointAsker for Given {
    fn request(&mut self, _: &str, _: &Screenshot) -> ChatRequest {
        ChatRequest::new("m", Vec::new())
    }
    fn read(&mut self, _: &Reply, _: &Screenshot) -> Result<Action, String> {
        self.0.clone()
    }
}

#[test]
fn a_failed_refinement_keeps_the_first_point_and_a_stop_stops() {
    let rect = PixelRect::new(100, 200, 640, 360);
    let s = shot(rect, ImageSize::new(640, 360));
    let from = PixelPoint::new(400, 380);
    let good: Action = ActionKind::Click {
        x: Some(500),
        y: Some(500),
    }
    .into();
    let mut ok = |_: &ChatRequest| Ok::<_, AskFailure<&str>>(Reply::text("x"));
    let r = refine_point(from, &s, "t", &mut Given(Ok(good)), &mut ok).unwrap();
    assert_eq!(r.to, PixelPoint::new(100 + 320, 200 + 180));
    assert_eq!(r.error, None);
    assert!((r.distance() - 20.0).abs() < 1e-9);
    let r = refine_point(from, &s, "t", &mut Given(Err("garbage".into())), &mut ok).unwrap();
    assert_eq!((r.to, r.distance()), (from, 0.0));
    assert!(r.error.unwrap().contains("garbage"));
    let mut failed = |_: &ChatRequest| Err(AskFailure::Failed("HTTP 500".into()));
    let r = refine_point::<&str>(from, &s, "t", &mut Given(Err(String::new())), &mut failed);
    assert!(r.unwrap().error.unwrap().contains("HTTP 500"));
    let mut stop = |_: &ChatRequest| Err(AskFailure::Stop("stopped"));
    let r = refine_point(from, &s, "t", &mut Given(Err(String::new())), &mut stop);
    assert_eq!(r.unwrap_err(), "stopped");
}

#[test]
fn a_retargeted_drag_keeps_its_other_end() {
    let area = WorkArea {
        rect: PixelRect::new(0, 0, 1920, 1080),
    };
    let mut drag: Action = ActionKind::Drag {
        x: Some(100),
        y: Some(100),
        x2: 900,
        y2: 900,
    }
    .into();
    let fence = Fence::new(area);
    let (_, end) = fence.targets(&drag);
    retarget(&mut drag, &area, PixelPoint::new(5, 6), end);
    assert_eq!(fence.targets(&drag), (Some(PixelPoint::new(5, 6)), end));
}
