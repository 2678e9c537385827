//! Windows end to end, under Wine: the real `franz.exe` against an independent Win32 witness
//! (`crates/desktop/examples/win_probe`). Run by `scripts/windows.sh`, once per DPI, which
//! builds both .exe files, prepares a Wine prefix and an Xvfb, and sets:
//! `FRANZ_WIN_BIN` (the folder with franz.exe and win_probe.exe), `FRANZ_WINE` (wine64),
//! `WINEPREFIX`, `DISPLAY`, `FRANZ_WIN_SCREEN` (`WxH` of the Xvfb screen).
//! Not part of a plain `cargo test` (`test = false` in Cargo.toml): it needs all of that.

#![cfg(target_os = "linux")]

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(60);

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run scripts/windows.sh"))
}

fn exe(name: &str) -> PathBuf {
    PathBuf::from(env("FRANZ_WIN_BIN")).join(name)
}

fn wine(exe_name: &str) -> Command {
    let mut cmd = Command::new(env("FRANZ_WINE"));
    cmd.arg(exe(exe_name)).env("WINEDEBUG", "-all");
    cmd
}

/// The Xvfb screen: the physical size every capture must have.
fn screen() -> (u32, u32) {
    let s = env("FRANZ_WIN_SCREEN");
    let (w, h) = s.split_once('x').unwrap();
    (w.parse().unwrap(), h.parse().unwrap())
}

/// The CONTRACTS formula: normalized n on an axis of L pixels.
fn px(n: u32, len: u32) -> i32 {
    (f64::from(n) * f64::from(len - 1) / 1000.0).round() as i32
}

/// The witness window, with its output lines arriving on a channel.
struct Witness {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Witness {
    fn open(x: u32, y: u32, w: u32, h: u32) -> Witness {
        let mut child = wine("win_probe.exe")
            .args(["witness", &x.to_string(), &y.to_string()])
            .args([&w.to_string(), &h.to_string()])
            .stdout(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut witness = Witness {
            child,
            lines,
            seen: vec![],
        };
        let ready = witness.wait_for(|l| l.iter().any(|l| l.starts_with("ready")));
        assert!(
            ready.iter().any(|l| l == &format!("ready {x} {y} {w} {h}")),
            "{ready:?}"
        );
        witness.seen.clear();
        witness
    }

    /// Waits until `done` holds for the lines so far; returns them.
    fn wait_for(&mut self, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        let deadline = Instant::now() + T;
        while !done(&self.seen) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => self.seen.push(l),
                Err(_) => panic!("witness: timed out; saw {:?}", self.seen),
            }
        }
        self.seen.clone()
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `franz.exe ARGS`, which must succeed; its stdout.
fn franz(args: &[&str]) -> String {
    let out = wine("franz.exe").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "franz.exe {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn act(actions: &[&str]) -> Vec<Value> {
    let mut args = vec!["act", "--motion", "fast", "--no-failsafe"];
    args.extend_from_slice(actions);
    franz(&args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Lines of one kind, as their numbers.
fn events(lines: &[String], kind: &str) -> Vec<Vec<i32>> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix(kind)?.strip_prefix(' '))
        .map(|rest| rest.split(' ').map(|n| n.parse().unwrap()).collect())
        .collect()
}

#[test]
fn screenshot_has_the_physical_size_and_equals_a_gdi_grab_outside_the_cursor() {
    let (w, h) = screen();
    // A window over the whole screen: every pixel is defined and still.
    let _witness = Witness::open(0, 0, w, h);
    let results = act(&[r#"{"type":"move","x":500,"y":500}"#]);
    assert_eq!(results[0]["status"], "ok", "{results:?}");
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("shot.png");
    let grab = dir.path().join("grab.bgra");
    franz(&["screenshot", shot.to_str().unwrap()]);
    let said = String::from_utf8(
        wine("win_probe.exe")
            .args(["grab", grab.to_str().unwrap()])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let n: Vec<i32> = said
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!((n[0], n[1]), (w as i32, h as i32), "GDI screen size");
    let (cx, cy) = (n[2], n[3]);
    assert_eq!((cx, cy), (px(500, w), px(500, h)), "pointer");

    let shot = image::open(&shot).unwrap().to_rgba8();
    assert_eq!(shot.dimensions(), (w, h), "franz.exe screenshot size");
    let raw = std::fs::read(&grab).unwrap();
    let gdi = &raw[8..];
    // The cursor: at most 64x64 pixels below and right of the hotspot, some slack above.
    let in_cursor =
        |x: i32, y: i32| (cx - 8..cx + 64).contains(&x) && (cy - 8..cy + 64).contains(&y);
    let (mut outside, mut inside) = (0, 0);
    for (x, y, p) in shot.enumerate_pixels() {
        let i = (y * w + x) as usize * 4;
        let same = p.0[..3] == [gdi[i + 2], gdi[i + 1], gdi[i]];
        match (same, in_cursor(x as i32, y as i32)) {
            (false, false) => outside += 1,
            (false, true) => inside += 1,
            _ => {}
        }
    }
    assert_eq!(outside, 0, "pixels differing outside the cursor");
    assert!(
        inside > 20,
        "the cursor is drawn into the shot ({inside} pixels differ)"
    );
}

#[test]
fn clicks_drags_scrolls_and_typing_land_on_the_exact_pixel() {
    let (w, h) = screen();
    let mut witness = Witness::open(100, 80, w - 200, h - 160);
    let results = act(&[
        r#"{"type":"click","x":300,"y":400}"#,
        r#"{"type":"right_click","x":713,"y":587}"#,
        r#"{"type":"drag","x":250,"y":300,"x2":750,"y2":700}"#,
        r#"{"type":"scroll","x":500,"y":500,"direction":"down","amount":3}"#,
        r#"{"type":"scroll","x":400,"y":600,"direction":"right","amount":2}"#,
        r#"{"type":"type","text":"aZ"}"#,
    ]);
    assert!(results.iter().all(|r| r["status"] == "ok"), "{results:?}");
    let seen = witness.wait_for(|l| events(l, "char").len() == 2);
    let p = |x, y| vec![px(x, w), px(y, h)];
    let down = events(&seen, "ldown");
    let up = events(&seen, "lup");
    assert_eq!(down, vec![p(300, 400), p(250, 300)], "{seen:?}");
    assert_eq!(up, vec![p(300, 400), p(750, 700)], "{seen:?}");
    assert_eq!(events(&seen, "rdown"), vec![p(713, 587)], "{seen:?}");
    assert_eq!(events(&seen, "rup"), vec![p(713, 587)], "{seen:?}");
    let drag = events(&seen, "drag");
    assert!(
        drag.len() >= 2,
        "the drag moves with the button down: {seen:?}"
    );
    assert_eq!(drag.last().unwrap(), &p(750, 700));
    let wheel = events(&seen, "wheel");
    assert!(!wheel.is_empty(), "{seen:?}");
    assert!(wheel.iter().all(|e| e[..2] == p(500, 500)[..]), "{wheel:?}");
    assert_eq!(
        wheel.iter().map(|e| e[2]).sum::<i32>(),
        -360,
        "3 notches down"
    );
    // Wine 8 puts client coordinates into WM_MOUSEHWHEEL (Windows: screen coordinates),
    // so the window's origin (100, 80) is added back here.
    let hwheel = events(&seen, "hwheel");
    assert!(!hwheel.is_empty(), "{seen:?}");
    assert!(
        hwheel
            .iter()
            .all(|e| [e[0] + 100, e[1] + 80][..] == p(400, 600)[..]),
        "{hwheel:?}"
    );
    assert_eq!(
        hwheel.iter().map(|e| e[2]).sum::<i32>(),
        240,
        "2 notches right"
    );
    assert_eq!(events(&seen, "char"), vec![vec![97], vec![90]]);
}
