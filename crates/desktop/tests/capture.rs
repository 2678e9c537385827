//! X11 capture on real Xvfb displays with real applications: pixel identity with the X
//! server's own image (`xwd`), through MIT-SHM and through GetImage; RandR monitors; the
//! pointer and the cursor image; the errors without a display. Each test has its own sandbox.

#![cfg(target_os = "linux")]

use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use franz_desktop::x11::{CaptureMethod, X11Desktop};
use franz_desktop::{Desktop, DesktopError, Frame, PixelPoint, PixelRect};
use std::process::Command;
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, MapState};

const DEADLINE: Duration = Duration::from_secs(30);

/// A sandbox with a static scene of real applications (nothing on it changes by itself),
/// returned once every application's window is mapped.
fn static_scene(width: u32, height: u32) -> Sandbox {
    let sandbox = Sandbox::start(&SandboxOptions {
        width,
        height,
        launch: vec![
            "xterm -geometry 70x20+0+0 -e sh -c 'head -30 /etc/services; exec sleep 100000'".into(),
            "xcalc -geometry 220x300+520+10".into(),
            "xclock -geometry 150x150+760+10 -update 3600".into(),
            "xedit -geometry 480x300+520+330 /etc/services".into(),
        ],
    })
    .unwrap();
    wait_mapped(sandbox.display(), &["xterm", "xcalc", "xclock", "xedit"]);
    sandbox
}

/// Waits until a mapped top-level window of each WM_CLASS instance name shows.
fn wait_mapped(display: &str, names: &[&str]) {
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let root = conn.setup().roots[screen].root;
    let deadline = Instant::now() + DEADLINE;
    loop {
        let mut seen = Vec::new();
        for w in conn.query_tree(root).unwrap().reply().unwrap().children {
            let Ok(attrs) = conn.get_window_attributes(w).unwrap().reply() else {
                continue; // gone meanwhile
            };
            if attrs.map_state != MapState::VIEWABLE {
                continue;
            }
            let Ok(class) = conn
                .get_property(false, w, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 64)
                .unwrap()
                .reply()
            else {
                continue;
            };
            if let Some(instance) = class.value.split(|b| *b == 0).next() {
                seen.push(String::from_utf8_lossy(instance).into_owned());
            }
        }
        if names.iter().all(|n| seen.iter().any(|s| s == n)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "windows {names:?} not mapped; saw {seen:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The root window as `xwd -root` writes it: (width, height, BGR(X) pixels tightly packed).
fn xwd(display: &str) -> (u32, u32, Vec<u8>) {
    let out = Command::new("xwd")
        .args(["-root", "-silent", "-display", display])
        .output()
        .unwrap();
    assert!(out.status.success(), "xwd failed: {out:?}");
    let d = out.stdout;
    let field = |i: usize| u32::from_be_bytes(d[i * 4..i * 4 + 4].try_into().unwrap());
    let (header, version, format) = (field(0) as usize, field(1), field(2));
    assert_eq!((version, format), (7, 2), "not an XWD v7 ZPixmap");
    let (width, height) = (field(4), field(5));
    let (byte_order, bpp, bytes_per_line) = (field(7), field(11), field(12) as usize);
    assert_eq!((byte_order, bpp), (0, 32), "expected LSB-first 32 bpp");
    let ncolors = field(19) as usize;
    let data = &d[header + ncolors * 12..];
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
    for row in data.chunks(bytes_per_line).take(height as usize) {
        pixels.extend_from_slice(&row[..width as usize * 4]);
    }
    assert_eq!(
        pixels.len(),
        width as usize * height as usize * 4,
        "short xwd"
    );
    (width, height, pixels)
}

/// Panics unless `frame` has the colour bytes of `pixels` (alpha and pad ignored).
fn assert_same_pixels(frame: &Frame, width: u32, height: u32, pixels: &[u8]) {
    assert_eq!((frame.width, frame.height), (width, height));
    let mut diffs = 0;
    let mut first = None;
    for y in 0..height {
        for x in 0..width {
            let i = (y * width + x) as usize * 4;
            let got = frame.pixel(x, y);
            if got[..3] != pixels[i..i + 3] {
                diffs += 1;
                first.get_or_insert((x, y, got, pixels[i..i + 3].to_vec()));
            }
            assert_eq!(got[3], 255, "alpha at {x},{y}");
        }
    }
    assert_eq!(
        diffs, 0,
        "{diffs} pixels differ; first (x, y, ours, xwd): {first:?}"
    );
}

/// Compares a capture with `xwd -root`, bracketing xwd by two captures so that a screen that
/// changed meanwhile (an application still drawing) is retried rather than blamed.
fn assert_identical_to_xwd(desktop: &mut X11Desktop, display: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let before = desktop.capture().unwrap();
        let (w, h, pixels) = xwd(display);
        let after = desktop.capture().unwrap();
        if before == after {
            assert_same_pixels(&after, w, h, &pixels);
            return;
        }
        assert!(Instant::now() < deadline, "the scene never settled");
    }
}

#[test]
fn shm_capture_is_pixel_identical_to_xwd() {
    // An odd width exercises the per-row tail of the copy.
    let sandbox = static_scene(1277, 720);
    let mut desktop =
        X11Desktop::open_display(sandbox.display(), None, CaptureMethod::Auto).unwrap();
    assert_eq!(desktop.capture_method(), "shm", "{}", desktop.describe());
    assert!(
        desktop.describe().contains("MIT-SHM"),
        "{}",
        desktop.describe()
    );
    assert_identical_to_xwd(&mut desktop, sandbox.display());
}

#[test]
fn getimage_capture_is_pixel_identical_to_xwd() {
    let sandbox = static_scene(1024, 768);
    let mut desktop =
        X11Desktop::open_display(sandbox.display(), None, CaptureMethod::GetImage).unwrap();
    assert_eq!(desktop.capture_method(), "getimage");
    assert_identical_to_xwd(&mut desktop, sandbox.display());
}

/// The example binary `cargo test` builds next to the test binaries.
fn capture_bench() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join("capture_bench")
}

/// Runs `capture_bench 1` with the given environment (and nothing else of ours).
fn run_bench(env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(capture_bench());
    cmd.arg("1")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("FRANZ_X11_NO_SHM");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn open_reads_display_and_no_shm_from_the_environment() {
    let sandbox = Sandbox::start(&SandboxOptions {
        width: 640,
        height: 480,
        launch: vec![],
    })
    .unwrap();
    let shm = run_bench(&[("DISPLAY", sandbox.display())]);
    let text = String::from_utf8_lossy(&shm.stdout);
    assert!(shm.status.success(), "{shm:?}");
    assert!(text.contains("capture: MIT-SHM"), "{text}");
    assert!(text.contains("frame 640x480"), "{text}");

    let forced = run_bench(&[("DISPLAY", sandbox.display()), ("FRANZ_X11_NO_SHM", "1")]);
    let text = String::from_utf8_lossy(&forced.stdout);
    assert!(forced.status.success(), "{forced:?}");
    assert!(
        text.contains("capture: GetImage (FRANZ_X11_NO_SHM"),
        "{text}"
    );
}

#[test]
fn wayland_and_no_display_errors_name_sandbox() {
    let wayland = run_bench(&[("WAYLAND_DISPLAY", "wayland-0")]);
    let err = String::from_utf8_lossy(&wayland.stderr);
    assert!(!wayland.status.success());
    assert!(
        err.contains("Wayland") && err.contains("--sandbox"),
        "{err}"
    );

    let none = run_bench(&[]);
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(!none.status.success());
    assert!(
        err.contains("DISPLAY is not set") && err.contains("--sandbox"),
        "{err}"
    );

    // The same decisions, as a pure function.
    use std::ffi::OsStr;
    let resolve = franz_desktop::x11::resolve_display;
    assert!(matches!(
        resolve(None, None, Some(OsStr::new("wayland-0"))),
        Err(DesktopError::WaylandOnly)
    ));
    assert!(matches!(
        resolve(None, None, None),
        Err(DesktopError::NoDisplay { .. })
    ));
    assert_eq!(resolve(None, Some(OsStr::new(":5")), None).unwrap(), ":5");
}

#[test]
fn unreachable_display_is_a_no_display_error() {
    // A display number nobody serves (sandboxes count up from low numbers; x11rb overflows
    // on numbers whose TCP port would pass 65535).
    let e = X11Desktop::open_display(":54321", None, CaptureMethod::Auto)
        .err()
        .expect("no server on :54321");
    assert!(matches!(e, DesktopError::NoDisplay { .. }), "{e}");
    assert!(e.to_string().contains("--sandbox"), "{e}");
}

#[test]
fn randr_monitors_select_their_part_of_the_screen() {
    let sandbox = static_scene(1280, 720);
    let display = sandbox.display();
    for args in [
        ["*franz-left", "640/169x720/190+0+0"],
        ["franz-right", "640/169x720/190+640+0"],
    ] {
        let status = Command::new("xrandr")
            .args([
                "--display",
                display,
                "--setmonitor",
                args[0],
                args[1],
                "none",
            ])
            .status()
            .unwrap();
        assert!(status.success(), "xrandr --setmonitor {args:?}");
    }

    let mut right = X11Desktop::open_display(display, Some(1), CaptureMethod::Auto).unwrap();
    let names: Vec<_> = right
        .monitors()
        .iter()
        .map(|m| (m.index, m.name.as_str(), m.rect, m.primary))
        .collect();
    assert_eq!(
        names[..2],
        [
            (0, "franz-left", PixelRect::new(0, 0, 640, 720), true),
            (1, "franz-right", PixelRect::new(640, 0, 640, 720), false),
        ],
        "{names:?}"
    );
    assert_eq!(right.monitor().name, "franz-right");

    // The default is the primary monitor.
    let left = X11Desktop::open_display(display, None, CaptureMethod::Auto).unwrap();
    assert_eq!(left.monitor().name, "franz-left");

    let count = right.monitors().len();
    let e = X11Desktop::open_display(display, Some(count), CaptureMethod::Auto)
        .err()
        .expect("monitor past the end");
    assert!(
        matches!(e, DesktopError::NoSuchMonitor { requested, count: c } if requested == count && c == count),
        "{e}"
    );

    // The right monitor's frame is the right half of the whole screen.
    let whole = right
        .monitors()
        .iter()
        .find(|m| m.rect == PixelRect::new(0, 0, 1280, 720))
        .map(|m| m.index)
        .expect("the automatic whole-screen monitor");
    let mut full = X11Desktop::open_display(display, Some(whole), CaptureMethod::Auto).unwrap();
    let deadline = Instant::now() + DEADLINE;
    loop {
        let a = full.capture().unwrap();
        let half = right.capture().unwrap();
        let b = full.capture().unwrap();
        if a != b {
            assert!(Instant::now() < deadline, "the scene never settled");
            continue;
        }
        assert_eq!((half.width, half.height), (640, 720));
        for y in 0..720 {
            let row = &a.data[y * a.stride + 640 * 4..y * a.stride + 1280 * 4];
            assert_eq!(
                &half.data[y * half.stride..y * half.stride + 640 * 4],
                row,
                "row {y}"
            );
        }
        break;
    }
}

#[test]
fn pointer_and_cursor_follow_a_warp() {
    let sandbox = static_scene(800, 600);
    let mut desktop =
        X11Desktop::open_display(sandbox.display(), None, CaptureMethod::Auto).unwrap();
    let target = PixelPoint::new(321, 234);
    let status = Command::new("xdotool")
        .args(["mousemove", "321", "234"])
        .env("DISPLAY", sandbox.display())
        .status()
        .unwrap();
    assert!(status.success());
    // xdotool returns after its request is flushed; the server may not have handled it yet.
    let deadline = Instant::now() + DEADLINE;
    while desktop.pointer().unwrap() != target {
        assert!(
            Instant::now() < deadline,
            "pointer never reached {target:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let cursor = desktop.cursor().unwrap().expect("Xvfb has XFixes");
    assert_eq!((cursor.x, cursor.y), (target.x, target.y));
    assert!(cursor.width > 0 && cursor.height > 0, "{cursor:?}");
    assert!(
        cursor.xhot < cursor.width && cursor.yhot < cursor.height,
        "{cursor:?}"
    );
    assert_eq!(
        cursor.rgba.len(),
        (cursor.width * cursor.height * 4) as usize
    );
    assert!(
        cursor.rgba.chunks_exact(4).any(|p| p[3] == 255),
        "the cursor has no opaque pixel"
    );
}
