//! `franz screenshot` end to end: pixel identity with the X server's own image, the size
//! argument, and the coordinate round trip (marker pixel -> crop + resize -> 0..1000 -> the
//! same screen pixel), at two screen sizes.

#![cfg(target_os = "linux")]

use crate::common;
use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt, CreateWindowAux, WindowClass};

fn franz_on(display: &str, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_franz"))
        .env("DISPLAY", display)
        .args(args)
        .output()
        .unwrap()
}

fn png_rgb(path: &Path) -> image::RgbImage {
    image::open(path).unwrap().to_rgb8()
}

/// The root window as `xwd -root` writes it, as RGB.
fn xwd_rgb(display: &str) -> image::RgbImage {
    let out = Command::new("xwd")
        .args(["-root", "-silent", "-display", display])
        .output()
        .unwrap();
    assert!(out.status.success(), "xwd failed: {out:?}");
    let d = out.stdout;
    let field = |i: usize| u32::from_be_bytes(d[i * 4..i * 4 + 4].try_into().unwrap());
    let (header, width, height) = (field(0) as usize, field(4), field(5));
    assert_eq!((field(7), field(11)), (0, 32), "expected LSB-first 32 bpp");
    let (bytes_per_line, ncolors) = (field(12) as usize, field(19) as usize);
    let data = &d[header + ncolors * 12..];
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    for row in data.chunks(bytes_per_line).take(height as usize) {
        for px in row[..width as usize * 4].chunks_exact(4) {
            rgb.extend_from_slice(&[px[2], px[1], px[0]]);
        }
    }
    image::RgbImage::from_raw(width, height, rgb).unwrap()
}

#[test]
fn native_screenshot_is_pixel_identical_to_xwd() {
    let sandbox = Sandbox::start(&SandboxOptions {
        width: 1024,
        height: 700,
        launch: vec![
            "xterm -geometry 60x20+0+0 -e sh -c 'head -30 /etc/services; exec sleep 100000'".into(),
            "xcalc -geometry 220x300+520+10".into(),
            "xclock -geometry 150x150+760+10 -update 3600".into(),
        ],
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
    // a screen still drawing is retried: screenshot, xwd, screenshot must agree
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let out = franz_on(
            sandbox.display(),
            &["screenshot", "--no-cursor", a.to_str().unwrap()],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reference = xwd_rgb(sandbox.display());
        let out = franz_on(
            sandbox.display(),
            &["screenshot", "--no-cursor", b.to_str().unwrap()],
        );
        assert!(out.status.success());
        let (first, second) = (png_rgb(&a), png_rgb(&b));
        assert_eq!(first.dimensions(), (1024, 700));
        if first == second {
            let diffs = first
                .pixels()
                .zip(reference.pixels())
                .filter(|(x, y)| x != y)
                .count();
            assert_eq!(diffs, 0, "{diffs} pixels differ from xwd");
            assert!(
                first.pixels().any(|p| p.0 != [0, 0, 0]),
                "the apps should be on screen"
            );
            break;
        }
        assert!(Instant::now() < deadline, "the screen never settled");
    }
    // a resized screenshot is a valid PNG of exactly that size
    let small = dir.path().join("small.png");
    let out = franz_on(
        sandbox.display(),
        &["screenshot", small.to_str().unwrap(), "640", "360"],
    );
    assert!(out.status.success());
    assert_eq!(png_rgb(&small).dimensions(), (640, 360));
}

/// A white square marker window centred on `(cx, cy)`, on a black screen.
fn marker(display: &str, cx: i32, cy: i32) -> impl Connection {
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let s = &conn.setup().roots[screen];
    let win = conn.generate_id().unwrap();
    let aux = CreateWindowAux::new()
        .background_pixel(s.white_pixel)
        .override_redirect(1);
    conn.create_window(
        0,
        win,
        s.root,
        (cx - 2) as i16,
        (cy - 2) as i16,
        5,
        5,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &aux,
    )
    .unwrap();
    conn.map_window(win).unwrap();
    conn.get_input_focus().unwrap().reply().unwrap(); // a round trip: the window is up
    conn
}

/// The brightness-weighted centre of the bright pixels.
fn bright_centre(img: &image::RgbImage) -> (f64, f64) {
    let (mut sx, mut sy, mut sw) = (0.0, 0.0, 0.0);
    for (x, y, p) in img.enumerate_pixels() {
        let w = p.0.iter().map(|c| *c as f64).sum::<f64>();
        if w > 60.0 {
            sx += x as f64 * w;
            sy += y as f64 * w;
            sw += w;
        }
    }
    assert!(sw > 0.0, "no marker in the image");
    (sx / sw, sy / sw)
}

/// docs/coordinates.md: pixel p of an axis of L pixels -> round(p * 1000 / (L - 1)); and back.
fn to_norm(p: f64, len: u32) -> i64 {
    (p * 1000.0 / (len - 1) as f64).round() as i64
}
fn to_pixel(n: i64, p0: i64, len: u32) -> i64 {
    p0 + ((n * (len as i64 - 1)) as f64 / 1000.0).round() as i64
}

#[test]
fn marker_round_trips_through_crop_and_resize() {
    // (screen, crop, size, marker)
    let cases = [
        (
            (1920u32, 1080u32),
            (250u32, 250u32, 750u32, 750u32),
            (640u32, 360u32),
            (1111i32, 700i32),
        ),
        ((1366, 768), (100, 0, 900, 1000), (800, 700), (300, 123)),
    ];
    let dir = tempfile::tempdir().unwrap();
    for ((w, h), (x1, y1, x2, y2), (iw, ih), (mx, my)) in cases {
        let sandbox = common::xvfb(w, h);
        let _m = marker(sandbox.display(), mx, my);
        let out_path = dir.path().join(format!("m{w}.png"));
        let crop = format!("{x1},{y1},{x2},{y2}");
        let out = franz_on(
            sandbox.display(),
            &[
                "screenshot",
                "--no-cursor",
                "--crop",
                &crop,
                out_path.to_str().unwrap(),
                &iw.to_string(),
                &ih.to_string(),
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let img = png_rgb(&out_path);
        assert_eq!(img.dimensions(), (iw, ih));
        let (px, py) = bright_centre(&img);
        let (nx, ny) = (to_norm(px, iw), to_norm(py, ih));
        // the working area in pixels, per docs/coordinates.md
        let left = (x1 as f64 * w as f64 / 1000.0).round() as i64;
        let right = (x2 as f64 * w as f64 / 1000.0).round() as i64;
        let top = (y1 as f64 * h as f64 / 1000.0).round() as i64;
        let bottom = (y2 as f64 * h as f64 / 1000.0).round() as i64;
        let sx = to_pixel(nx, left, (right - left) as u32);
        let sy = to_pixel(ny, top, (bottom - top) as u32);
        assert!(
            (sx - mx as i64).abs() <= 1 && (sy - my as i64).abs() <= 1,
            "{w}x{h} crop {crop}: marker at ({mx}, {my}) came back as ({sx}, {sy}) via image ({px:.1}, {py:.1}) and norm ({nx}, {ny})"
        );
    }
}
