use super::*;
use franz_desktop::{PixelPoint, PixelRect};

const SCREENS: [(u32, u32); 3] = [(1366, 768), (1920, 1080), (3840, 2160)];
const CROPS: [Crop; 3] = [
    Crop::FULL,
    Crop {
        x1: 250,
        y1: 250,
        x2: 750,
        y2: 750,
    },
    Crop {
        x1: 0,
        y1: 100,
        x2: 333,
        y2: 1000,
    },
];

#[test]
fn first_and_last_pixels() {
    for (w, h) in SCREENS {
        let wa = Crop::FULL.work_area(PixelRect::new(0, 0, w, h)).unwrap();
        assert_eq!(wa.to_screen(NormPoint::new(0, 0)), PixelPoint::new(0, 0));
        assert_eq!(
            wa.to_screen(NormPoint::new(1000, 1000)),
            PixelPoint::new(w as i32 - 1, h as i32 - 1)
        );
        assert_eq!(wa.to_norm(PixelPoint::new(0, 0)), NormPoint::new(0, 0));
        assert_eq!(
            wa.to_norm(PixelPoint::new(w as i32 - 1, h as i32 - 1)),
            NormPoint::new(1000, 1000)
        );
    }
}

#[test]
fn crop_formula() {
    let wa = Crop::new(250, 250, 750, 750)
        .unwrap()
        .work_area(PixelRect::new(0, 0, 1920, 1080))
        .unwrap();
    assert_eq!(wa.rect, PixelRect::new(480, 270, 960, 540));
    assert_eq!(
        wa.to_screen(NormPoint::new(0, 0)),
        PixelPoint::new(480, 270)
    );
    assert_eq!(
        wa.to_screen(NormPoint::new(1000, 1000)),
        PixelPoint::new(480 + 959, 270 + 539)
    );
    // 1366 * 333 / 1000 = 454.878 -> 455
    let wa = Crop::new(0, 0, 333, 1000)
        .unwrap()
        .work_area(PixelRect::new(0, 0, 1366, 768))
        .unwrap();
    assert_eq!(wa.rect.width, 455);
    // a monitor that does not start at the origin
    let wa = Crop::FULL
        .work_area(PixelRect::new(1920, 0, 1280, 1024))
        .unwrap();
    assert_eq!(
        wa.to_screen(NormPoint::new(0, 1000)),
        PixelPoint::new(1920, 1023)
    );
}

#[test]
fn norm_round_trips_exactly() {
    // every normalized value maps to a pixel that maps back to itself when the axis has
    // at least 1001 pixels; on smaller axes the pixel round trip is exact instead
    for (w, h) in SCREENS {
        for crop in CROPS {
            let wa = crop.work_area(PixelRect::new(0, 0, w, h)).unwrap();
            for n in 0..=1000 {
                let p = wa.to_screen(NormPoint::new(n, n));
                assert!(wa.contains(p), "{n} -> {p:?} outside {wa:?}");
                let back = wa.to_screen(wa.to_norm(p));
                assert_eq!(back, p, "{w}x{h} {crop} n={n}");
            }
            for px in 0..wa.rect.width as i32 {
                let p = PixelPoint::new(wa.rect.x + px, wa.rect.y);
                let n = wa.to_norm(p);
                if wa.rect.width > 1001 {
                    // more pixels than values: the pixel comes back within half a step
                    let err = (wa.to_screen(n).x - p.x).abs() as f64;
                    assert!(
                        err <= (wa.rect.width - 1) as f64 / 2000.0 + 0.5,
                        "{w}x{h} {crop} px={px}"
                    );
                } else {
                    assert_eq!(wa.to_screen(n).x, p.x, "{w}x{h} {crop} px={px}");
                }
            }
        }
    }
}

#[test]
fn image_pixels_round_trip() {
    for size in [
        ImageSize::new(1536, 864),
        ImageSize::new(1366, 768),
        ImageSize::new(640, 360),
    ] {
        assert_eq!(size.to_pixel(NormPoint::new(0, 0)), (0, 0));
        assert_eq!(
            size.to_pixel(NormPoint::new(1000, 1000)),
            (size.width as i32 - 1, size.height as i32 - 1)
        );
        for px in 0..size.width as i32 {
            let n = size.to_norm(px, 0);
            let (bx, _) = size.to_pixel(n);
            assert!((bx - px).abs() <= 1, "{size} {px} -> {n} -> {bx}");
        }
    }
    // models answering in pixels: the image's last pixel is the working area's last pixel
    let size = ImageSize::new(1536, 864);
    assert_eq!(size.to_norm(1535, 863), NormPoint::new(1000, 1000));
    assert_eq!(size.to_norm(5000, -3), NormPoint::new(1000, 0));
}

#[test]
fn clamping_is_reported() {
    assert_eq!(
        NormPoint::new(1200, -5).clamped(),
        (NormPoint::new(1000, 0), true)
    );
    assert_eq!(
        NormPoint::new(10, 20).clamped(),
        (NormPoint::new(10, 20), false)
    );
    let wa = Crop::FULL
        .work_area(PixelRect::new(0, 0, 1920, 1080))
        .unwrap();
    assert_eq!(
        wa.to_screen(NormPoint::new(5000, 5000)),
        PixelPoint::new(1919, 1079)
    );
}

#[test]
fn size_rules() {
    assert_eq!(
        SizeRule::MODEL_DEFAULT.resolve(1920, 1080),
        ImageSize::new(1536, 864)
    );
    assert_eq!(
        SizeRule::MODEL_DEFAULT.resolve(3840, 2160),
        ImageSize::new(1536, 864)
    );
    assert_eq!(
        SizeRule::MODEL_DEFAULT.resolve(1366, 768),
        ImageSize::new(1366, 768),
        "never upscale"
    );
    assert_eq!(
        SizeRule::MODEL_DEFAULT.resolve(960, 540),
        ImageSize::new(960, 540)
    );
    assert_eq!(
        SizeRule::MODEL_DEFAULT.resolve(1000, 2000),
        ImageSize::new(432, 864)
    );
    assert_eq!(
        SizeRule::Scale(50.0).resolve(1920, 1080),
        ImageSize::new(960, 540)
    );
    assert_eq!(
        SizeRule::Exact(ImageSize::new(100, 50)).resolve(1920, 1080),
        ImageSize::new(100, 50)
    );
    assert_eq!(
        SizeRule::Native.resolve(1920, 1080),
        ImageSize::new(1920, 1080)
    );
}

#[test]
fn parsing_crop_and_size() {
    assert_eq!(
        "250,250,750,750".parse::<Crop>().unwrap(),
        Crop::new(250, 250, 750, 750).unwrap()
    );
    assert!("750,250,250,750".parse::<Crop>().is_err());
    assert!("0,0,1001,1000".parse::<Crop>().is_err());
    assert!("1,2,3".parse::<Crop>().is_err());
    assert_eq!(
        "1536x864".parse::<ImageSize>().unwrap(),
        ImageSize::new(1536, 864)
    );
    assert!("0x0".parse::<ImageSize>().is_err());
    assert!("axb".parse::<ImageSize>().is_err());
}

#[test]
fn box_forms() {
    use serde_json::json;
    let p = |v| Target::from_json(&v).map(|t| t.point());
    assert_eq!(p(json!([100, 200])), Ok(NormPoint::new(100, 200)));
    assert_eq!(p(json!([100, 200, 300, 400])), Ok(NormPoint::new(200, 300)));
    assert_eq!(
        p(json!([[100, 200], [300, 400]])),
        Ok(NormPoint::new(200, 300))
    );
    // inverted corners are swapped
    assert_eq!(
        Target::from_json(&json!([300, 400, 100, 200])).unwrap(),
        Target::Box(NormBox {
            x1: 100,
            y1: 200,
            x2: 300,
            y2: 400
        })
    );
    assert_eq!(p(json!("[640, 360]")), Ok(NormPoint::new(640, 360)));
    assert_eq!(
        p(json!({"x1": 0, "y1": 0, "x2": 10, "y2": 11})),
        Ok(NormPoint::new(5, 6))
    );
    assert_eq!(
        p(json!([-1, -1])),
        Err(GeometryError::NoTarget("[-1, -1]".into()))
    );
    assert_eq!(p(json!([])), Err(GeometryError::NoTarget("[]".into())));
    assert_eq!(
        p(json!([0, 0, 0, 0])),
        Err(GeometryError::NoTarget("[0, 0, 0, 0]".into()))
    );
    assert!(p(json!([1, 2, 3])).is_err());
    assert!(p(json!("left")).is_err());
}

/// `smart_resize` against the reference values.
mod smart_resize {
    use super::*;

    const QWEN25: SmartResize = SmartResize {
        factor: 28,
        min_pixels: 4 * 28 * 28,
        max_pixels: 16384 * 28 * 28,
    };

    #[test]
    fn reference_values() {
        // values computed with qwen-vl-utils' smart_resize (the oracle test checks thousands)
        assert_eq!(QWEN25.resize(1920, 1080), Some(ImageSize::new(1932, 1092)));
        assert_eq!(QWEN25.resize(1366, 768), Some(ImageSize::new(1372, 756)));
        // Python rounds half to even: 42 / 28 = 1.5 -> 2, 70 / 28 = 2.5 -> 2
        assert_eq!(QWEN25.resize(70, 42), Some(ImageSize::new(56, 56)));
        assert_eq!(QWEN25.resize(10, 3000), None);
    }

    #[test]
    fn next_smaller_steps_down_through_fixed_points() {
        let mut s = QWEN25.send_size(1920, 1080, 0);
        let mut steps = 0;
        while let Some(next) = QWEN25.next_smaller(s) {
            assert!(QWEN25.is_fixed_point(next), "{next}");
            assert!(next.width * next.height < s.width * s.height);
            s = next;
            steps += 1;
        }
        assert!(steps >= 5, "{steps} steps, down to {s}");
        assert!((s.width * s.height) as u64 >= QWEN25.min_pixels);
    }

    #[test]
    fn the_sent_size_is_a_fixed_point_within_the_budget() {
        for (w, h) in [
            (1366, 768),
            (1920, 1080),
            (3840, 2160),
            (800, 600),
            (455, 768),
        ] {
            for budget in [0, 1_000_000, 2_073_600, 100] {
                let s = QWEN25.send_size(w, h, budget);
                assert!(QWEN25.is_fixed_point(s), "{w}x{h} budget {budget}: {s}");
                if budget >= QWEN25.min_pixels {
                    assert!((s.width * s.height) as u64 <= budget.max(1) || budget == 0);
                }
            }
        }
    }
}
