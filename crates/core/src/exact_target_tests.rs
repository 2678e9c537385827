//! The exact mapping at the four reference screens, with and without a crop, first and last
//! pixels included (docs/coordinates.md, "Exact targets").

use super::*;
use crate::geometry::Crop;
use franz_desktop::PixelRect;

const SCREENS: [(u32, u32); 4] = [(1366, 768), (1920, 1080), (2560, 1440), (3840, 2160)];

fn area(w: u32, h: u32, crop: &str) -> WorkArea {
    crop.parse::<Crop>()
        .unwrap()
        .work_area(PixelRect::new(0, 0, w, h))
        .unwrap()
}

fn exact(of: (u32, u32)) -> Exact {
    Exact {
        at: None,
        to: None,
        of: [Num(of.0 as f64), Num(of.1 as f64)],
    }
}

fn px(e: &Exact, a: &WorkArea, x: f64, y: f64) -> (i32, i32) {
    let p = e.to_screen(a, [Num(x), Num(y)]);
    (p.x, p.y)
}

#[test]
fn first_and_last_pixels_full_screen() {
    for (w, h) in SCREENS {
        let a = area(w, h, "0,0,1000,1000");
        for of in [(1000, 1000), (w, h), (1, 1), (1288, 728)] {
            let e = exact(of);
            assert_eq!(px(&e, &a, 0.0, 0.0), (0, 0), "{w}x{h} of {of:?}");
            let (sw, sh) = (of.0 as f64, of.1 as f64);
            assert_eq!(px(&e, &a, sw, sh), (w as i32 - 1, h as i32 - 1));
            // beyond the extent: clamped onto the last pixel
            assert_eq!(px(&e, &a, sw * 2.0, -5.0), (w as i32 - 1, 0));
        }
        // pixels of a native-size image land on themselves
        let e = exact((w, h));
        for (x, y) in [(0, 0), (1, 1), (w / 2, h / 2), (w - 1, h - 1)] {
            assert_eq!(px(&e, &a, x as f64, y as f64), (x as i32, y as i32));
        }
    }
}

#[test]
fn first_and_last_pixels_with_a_crop() {
    for (w, h) in SCREENS {
        let a = area(w, h, "250,100,750,900");
        let r = a.rect;
        for of in [(1000, 1000), (r.width, r.height), (1, 1)] {
            let e = exact(of);
            assert_eq!(px(&e, &a, 0.0, 0.0), (r.x, r.y));
            assert_eq!(
                px(&e, &a, of.0 as f64, of.1 as f64),
                (r.right() - 1, r.bottom() - 1)
            );
        }
    }
}

#[test]
fn the_formula_and_its_half_boundaries() {
    // 1366 wide, norm1000: 500 * 1366 / 1000 = 683 exactly
    let a = area(1366, 768, "0,0,1000,1000");
    assert_eq!(px(&exact((1000, 1000)), &a, 500.0, 500.0), (683, 384));
    // 1 * 1366 / 1000 = 1.366 -> 1; 999 -> 1364.634 -> 1365
    assert_eq!(px(&exact((1000, 1000)), &a, 1.0, 999.0).0, 1);
    assert_eq!(px(&exact((1000, 1000)), &a, 999.0, 0.0).0, 1365);
    // an exact .5: 1920 wide area, 1280 image: v = 1 gives 1.5 -> 2 (half-up);
    // v = 3 gives 4.5 -> 5; 2560 wide, S = 1000: v = 1 gives 2.56 -> 3
    let b = area(1920, 1080, "0,0,1000,1000");
    assert_eq!(px(&exact((1280, 720)), &b, 1.0, 1.0), (2, 2));
    assert_eq!(px(&exact((1280, 720)), &b, 3.0, 3.0), (5, 5));
    // a crop 250,250,750,750 of 3840x2160: 1920x1080 at (960,540); relative 0.5 -> +960
    let c = area(3840, 2160, "250,250,750,750");
    assert_eq!(px(&exact((1, 1)), &c, 0.5, 0.5), (960 + 960, 540 + 540));
    // the franz rule would give 960 + round(500 * 1919 / 1000) = 960 + 960 (same here) but
    // at 999 it differs: franz 960 + 1917, exact min(1919, round(999 * 1920 / 1000)) = 1918
    assert_eq!(px(&exact((1000, 1000)), &c, 999.0, 0.0).0, 960 + 1918);
    assert_eq!(c.to_screen(NormPoint::new(999, 0)).x, 960 + 1917);
}

#[test]
fn every_half_boundary_rounds_up() {
    // v * L / S = k + 0.5 exactly when 2 * v * L = (2k + 1) * S: check every v of a few
    // sizes against integer arithmetic
    for (l, s) in [
        (1366u32, 1288u32),
        (1920, 1932),
        (3840, 1000),
        (2560, 1456),
        (455, 1000),
    ] {
        for v in 0..=s {
            let want = ((2 * v as u64 * l as u64 + s as u64) / (2 * s as u64)).min(l as u64 - 1);
            assert_eq!(
                exact_axis(v as f64, s as f64, 0, l) as u64,
                want,
                "v {v} L {l} S {s}"
            );
        }
    }
}

#[test]
fn numbers_are_integers_in_json_when_whole() {
    let e = Exact {
        at: Some([Num(640.0), Num(360.5)]),
        to: None,
        of: [Num(1280.0), Num(720.0)],
    };
    let j = serde_json::to_string(&e).unwrap();
    assert_eq!(j, r#"{"at":[640,360.5],"of":[1280,720]}"#);
    let back: Exact = serde_json::from_str(&j).unwrap();
    assert_eq!(back, e);
    assert!(serde_json::from_str::<Exact>(r#"{"at":[1,2],"of":["a",1]}"#).is_err());
}
