//! The resize at every screen size people use, with and without a crop, for every built-in
//! profile's size rule, on 1 to 4 threads: the banded resize equals one resize of the whole
//! region, pixel for pixel, and no size is an error.

use super::*;
use crate::geometry::Crop;
use crate::profile;
use fast_image_resize::images::{Image, ImageRef};
use franz_desktop::{Frame, PixelRect};
use proptest::prelude::*;

/// Screens people have (laptops, desktops, ultrawides, 4K).
const SCREENS: [(u32, u32); 14] = crate::geometry::COMMON_SCREENS;

/// Crops that reach the frame's right and bottom edges (where a band's edge computed past
/// the last row is an error) and ones that stop short of them.
const CROPS: [Crop; 3] = [
    Crop::FULL,
    Crop {
        x1: 137,
        y1: 211,
        x2: 1000,
        y2: 1000,
    },
    Crop {
        x1: 3,
        y1: 0,
        x2: 871,
        y2: 953,
    },
];

/// A frame of noise (every byte differs from its neighbours, so any seam shows).
fn noise(width: u32, height: u32, seed: u64) -> Frame {
    let mut state = seed | 1;
    let mut data = vec![0u8; width as usize * height as usize * 4];
    for px in data.chunks_exact_mut(8) {
        // xorshift64: fast enough in a debug build for a 4K frame
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        px.copy_from_slice(&state.to_le_bytes());
    }
    Frame {
        width,
        height,
        stride: width as usize * 4,
        data,
    }
}

/// One resize of the whole region, no bands: what the banded resize must equal.
fn whole(frame: &Frame, region: Region, size: ImageSize) -> Vec<u8> {
    let src = ImageRef::new(frame.width, frame.height, &frame.data, fir::PixelType::U8x4).unwrap();
    let mut dst = Image::new(size.width, size.height, fir::PixelType::U8x4);
    let options = resize_options().crop(
        f64::from(region.x),
        f64::from(region.y),
        f64::from(region.width),
        f64::from(region.height),
    );
    fir::Resizer::new()
        .resize(&src, &mut dst, &options)
        .unwrap();
    let mut data = dst.into_vec();
    bgra_to_rgba(&mut data);
    data
}

/// The frame region and image size of every built-in profile for `crop` of `frame`, each
/// pair once.
fn jobs(frame: &Frame, crop: Crop) -> Vec<(String, Region, ImageSize)> {
    let screen = PixelRect::new(0, 0, frame.width, frame.height);
    let area = crop.work_area(screen).unwrap().rect;
    let region = Region {
        x: area.x as u32,
        y: area.y as u32,
        width: area.width,
        height: area.height,
    };
    let mut jobs: Vec<(String, Region, ImageSize)> = Vec::new();
    for p in profile::builtin() {
        let size = p.size_rule(0).resolve(region.width, region.height);
        if !jobs.iter().any(|(_, r, s)| *r == region && *s == size) {
            jobs.push((p.name.clone(), region, size));
        }
    }
    assert!(jobs.len() > 1, "the profiles' sizes were read");
    jobs
}

/// Every profile's image of `crop` of `frame`, on `threads`: the banded resize equals the
/// whole one, and the pipeline's resize (with this machine's threads) gives it too.
fn check(frame: &Frame, crop: Crop, threads: &[usize]) -> Result<(), String> {
    let src = Src::from_buffer(frame.width, frame.height, &frame.data).unwrap();
    for (name, region, size) in jobs(frame, crop) {
        let what = format!(
            "{name}: {}x{} crop {crop} (region {region:?}) -> {size}",
            frame.width, frame.height
        );
        let piped = Resizer::default()
            .crop_resize(frame.view(), region, size, None, Vec::new())
            .map_err(|e| format!("{what}: {e}"))?;
        if (size.width, size.height) == (region.width, region.height) {
            continue; // native size: a row copy, no bands
        }
        let expected = whole(frame, region, size);
        if piped.data != expected {
            return Err(format!(
                "{what}: the pipeline's resize differs from one resize"
            ));
        }
        let mut scratch = Scratch::default();
        for &t in threads {
            let mut out = vec![0; expected.len()];
            let mut keep = vec![0; expected.len()];
            resize_bands(
                &mut scratch,
                &src,
                region,
                size,
                &mut out,
                t,
                &mut keep,
                None,
            )
            .map_err(|e| format!("{what} on {t} threads: {e}"))?;
            if out != expected {
                let row = out
                    .chunks(size.width as usize * 4)
                    .zip(expected.chunks(size.width as usize * 4))
                    .position(|(a, b)| a != b);
                return Err(format!("{what} on {t} threads: row {row:?} differs"));
            }
        }
    }
    Ok(())
}

#[test]
fn every_listed_screen_and_crop_with_every_profile_on_1_to_4_threads() {
    for (i, &(w, h)) in SCREENS.iter().enumerate() {
        let frame = noise(w, h, i as u64 + 1);
        for crop in CROPS {
            check(&frame, crop, &[1, 2, 3, 4]).unwrap();
        }
    }
}

/// A crop anywhere on the screen, in 0..1000.
fn any_crop() -> impl Strategy<Value = Crop> {
    prop_oneof![
        Just(Crop::FULL),
        (0u32..990, 0u32..990, 1u32..=1000, 1u32..=1000).prop_map(|(x1, y1, a, b)| Crop {
            x1,
            y1,
            x2: (x1 + a).min(1000).max(x1 + 1),
            y2: (y1 + b).min(1000).max(y1 + 1),
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random screens (a listed one or any size up to 4K) and crops.
    #[test]
    fn random_screens_and_crops_with_every_profile(
        screen in prop_oneof![
            proptest::sample::select(SCREENS.to_vec()),
            (16u32..=3840, 16u32..=2160),
        ],
        crop in any_crop(),
        threads in 1usize..=4,
        seed in any::<u64>(),
    ) {
        let frame = noise(screen.0, screen.1, seed);
        // a crop of a tiny screen can be empty: that is the geometry's error, not the resize's
        let screen_rect = PixelRect::new(0, 0, screen.0, screen.1);
        prop_assume!(crop.work_area(screen_rect).is_ok());
        check(&frame, crop, &[threads]).map_err(TestCaseError::fail)?;
    }
}

/// The screens where a band's bottom edge, computed in floating point, landed past the
/// frame's last row ("Size of the crop box is out of the image boundaries"): UI-TARS-1.5's and
/// Qwen2.5-VL's image of a 1920x1080 screen, and the default 1536x864 fit of a 1600x900 or
/// 1440x900 laptop.
#[test]
fn a_band_edge_never_lands_past_the_last_row() {
    let default = crate::geometry::SizeRule::MODEL_DEFAULT;
    for ((w, h), size) in [
        ((1920, 1080), ImageSize::new(1904, 1064)),
        ((1600, 900), default.resolve(1600, 900)),
        ((1440, 900), default.resolve(1440, 900)),
    ] {
        let frame = noise(w, h, 7);
        let src = Src::from_buffer(w, h, &frame.data).unwrap();
        let region = Region {
            x: 0,
            y: 0,
            width: w,
            height: h,
        };
        let len = size.width as usize * size.height as usize * 4;
        for threads in 1..=4 {
            let (mut out, mut keep) = (vec![0; len], vec![0; len]);
            let mut scratch = Scratch::default();
            let done = resize_bands(
                &mut scratch,
                &src,
                region,
                size,
                &mut out,
                threads,
                &mut keep,
                None,
            );
            assert!(
                done.is_ok(),
                "{w}x{h} -> {size} on {threads} threads: {done:?}"
            );
        }
    }
}
