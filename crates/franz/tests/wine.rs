//! Windows end to end, under Wine: the real `franz.exe` against an independent Win32 witness
//! (`crates/desktop/examples/win_probe`). Run by `scripts/windows.sh`, once per DPI, which
//! builds both .exe files, prepares a Wine prefix and an Xvfb, and sets:
//! `FRANZ_WIN_BIN` (the folder with franz.exe and win_probe.exe), `FRANZ_WINE` (wine64),
//! `WINEPREFIX`, `DISPLAY`, `FRANZ_WIN_SCREEN` (`WxH` of the Xvfb screen), `FRANZ_WIN_DPI`.
//! Not part of a plain `cargo test` (`test = false` in Cargo.toml): it needs all of that.

#![cfg(target_os = "linux")]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// The docs/coordinates.md formula: normalized n on an axis of L pixels.
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

/// Runs `cmd` to its end and returns its output; kills it and panics after `limit`.
fn finish(cmd: &mut Command, limit: Duration) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let err = String::from_utf8_lossy(&err.join().unwrap()).into_owned();
            panic!("{cmd:?} did not finish in {limit:?}; stderr:\n{err}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// `franz.exe ARGS`, which must succeed; its stdout.
fn franz(args: &[&str]) -> String {
    let out = finish(wine("franz.exe").args(args), T);
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

/// The release zip `scripts/dist.sh` wrote (`FRANZ_WIN_ZIP`), whose franz.exe these tests run:
/// it holds franz.exe, README.md and LICENSE, matches its `.sha256`, and its franz.exe names
/// the version, this checkout's commit and the Windows target.
#[test]
fn the_release_zip_holds_franz_exe_readme_and_licence_and_names_its_build() {
    use sha2::Digest as _;
    let zip = PathBuf::from(env("FRANZ_WIN_ZIP"));
    let name = zip.file_name().unwrap().to_str().unwrap().to_string();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(name, format!("franz-{version}-x86_64-pc-windows-gnu.zip"));
    let listing = Command::new("unzip").arg("-Z1").arg(&zip).output().unwrap();
    let mut entries: Vec<String> = String::from_utf8(listing.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    entries.sort();
    assert_eq!(entries, ["LICENSE", "README.md", "franz.exe"]);
    let sum = std::fs::read_to_string(zip.with_file_name(format!("{name}.sha256"))).unwrap();
    let hex: String = sha2::Sha256::digest(std::fs::read(&zip).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(sum, format!("{hex}  {name}\n"));
    // the franz.exe the other tests run is the zip's
    let unzipped = std::fs::read(exe("franz.exe")).unwrap();
    let inside = Command::new("unzip")
        .arg("-p")
        .arg(&zip)
        .arg("franz.exe")
        .output()
        .unwrap();
    assert!(
        inside.stdout == unzipped,
        "FRANZ_WIN_BIN's franz.exe is not the zip's"
    );
    let line = franz(&["--version"]);
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    assert_eq!(
        line.trim(),
        format!("franz {version} (commit {commit}, target x86_64-pc-windows-gnu)")
    );
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
    let said = probe(&["grab", grab.to_str().unwrap()]).expect("win_probe grab");
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
        r#"{"type":"key","keys":"menu"}"#,
    ]);
    assert!(results.iter().all(|r| r["status"] == "ok"), "{results:?}");
    // The menu key is VK_APPS (0x5D) on Windows.
    let menu = |l: &[String]| events(l, "keyup").contains(&vec![0x5D]);
    let seen = witness.wait_for(|l| events(l, "char").len() == 2 && menu(l));
    let p = |x, y| vec![px(x, w), px(y, h)];
    let down = events(&seen, "ldown");
    let up = events(&seen, "lup");
    assert_eq!(down, vec![p(300, 400), p(250, 300)], "{seen:?}");
    assert_eq!(up, vec![p(300, 400), p(750, 700)], "{seen:?}");
    assert_eq!(events(&seen, "rdown"), vec![p(713, 587)], "{seen:?}");
    assert_eq!(events(&seen, "rup"), vec![p(713, 587)], "{seen:?}");
    // The path between press and release arrives as moves with the button down. Windows
    // merges the WM_MOUSEMOVE messages still queued when the witness reads its queue, so a
    // busy witness may see only the last one (seen in CI): at least one, ending on the target.
    let drag = events(&seen, "drag");
    assert!(
        !drag.is_empty(),
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

/// `win_probe ARGS`: its first output line when it exits 0, else `None`.
fn probe(args: &[&str]) -> Option<String> {
    let out = finish(wine("win_probe.exe").args(args), T);
    let text = String::from_utf8(out.stdout).unwrap();
    out.status
        .success()
        .then(|| text.lines().next().unwrap_or("").to_string())
}

/// Polls `f` until it gives `Some`, or panics with `what` after the deadline.
fn poll<V>(what: &str, mut f: impl FnMut() -> Option<V>) -> V {
    let deadline = Instant::now() + T;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A window or control as `win_probe find`/`combo` print it: its screen rect and text.
#[derive(Debug)]
struct Found {
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    text: String,
}

fn found(line: &str) -> Found {
    let mut parts = line.splitn(5, ' ');
    let mut n = || parts.next().unwrap().parse().unwrap();
    let (x, y, w, h) = (n(), n(), n(), n());
    let text = parts.next().unwrap_or("").to_string();
    Found { x, y, w, h, text }
}

/// The top-level window whose title contains `title`, once it is there.
fn window(title: &str) -> Found {
    found(&poll(&format!("a window titled {title:?}"), || {
        probe(&["find", title])
    }))
}

/// Notepad's Encoding box in its Save dialog, once it is there.
fn encoding_box() -> Found {
    found(&poll("the Save dialog's Encoding box", || {
        probe(&["combo", "Encoding:"])
    }))
}

/// The inverse docs/coordinates.md formula: the normalized coordinate of pixel `p` on an axis of
/// `len`.
fn norm(p: i32, len: u32) -> i64 {
    (f64::from(p) * 1000.0 / f64::from(len - 1)).round() as i64
}

/// The centre of a found rect, in normalized screen coordinates.
fn centre(f: &Found) -> (i64, i64) {
    let (w, h) = screen();
    (norm(f.x + f.w / 2, w), norm(f.y + f.h / 2, h))
}

/// Wine's Notepad, killed when dropped.
struct Notepad(Child);

impl Notepad {
    fn start() -> Notepad {
        let child = Command::new(env("FRANZ_WINE"))
            .arg("notepad")
            .env("WINEDEBUG", "-all")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let notepad = Notepad(child);
        window("Notepad");
        notepad
    }
}

impl Drop for Notepad {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A file's Windows name (`Z:` is the Unix root in a Wine prefix).
fn windows_path(path: &std::path::Path) -> String {
    format!("Z:{}", path.display()).replace('/', "\\")
}

/// Waits until `path` holds `text` as UTF-8 after a BOM (Notepad's UTF-8); panics with what
/// it holds after the deadline.
fn wait_for_utf8_file(path: &std::path::Path, text: &str) {
    let want = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
    let deadline = Instant::now() + T;
    loop {
        let got = std::fs::read(path).unwrap_or_default();
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} holds {:?} ({got:02x?})",
            path.display(),
            String::from_utf8_lossy(&got)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

const UNICODE_LINE: &str = "Grüße 你好 — ✓ ñ";
/// The last item of Notepad's Encoding box (Wine 8).
const UTF8_ITEM: &str = "Unicode (UTF-8)";

#[test]
fn notepad_saves_typed_unicode_as_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    let _notepad = Notepad::start();
    let typed = serde_json::json!({"type": "type", "text": UNICODE_LINE}).to_string();
    let results = act(&[&typed, r#"{"type":"key","keys":"ctrl+s"}"#]);
    assert!(results.iter().all(|r| r["status"] == "ok"), "{results:?}");
    // The Save dialog opens with the focus in its file name box.
    let before = encoding_box();
    assert_eq!(before.text, "ANSI Latin 1", "a new file starts as ANSI");
    let name = serde_json::json!({"type": "type", "text": windows_path(&file)}).to_string();
    let (x, y) = centre(&before);
    let click = format!(r#"{{"type":"click","x":{x},"y":{y}}}"#);
    // Open the Encoding box with a click, take its last item (UTF-8), close it with enter.
    let results = act(&[
        &name,
        &click,
        r#"{"type":"key","keys":"end"}"#,
        r#"{"type":"key","keys":"enter"}"#,
    ]);
    assert!(results.iter().all(|r| r["status"] == "ok"), "{results:?}");
    let chosen = poll("UTF-8 in the Encoding box", || {
        Some(encoding_box()).filter(|b| b.text == UTF8_ITEM)
    });
    assert_eq!((chosen.x, chosen.y), (before.x, before.y));
    // Enter in the dialog is its Save button.
    let results = act(&[r#"{"type":"key","keys":"enter"}"#]);
    assert!(results.iter().all(|r| r["status"] == "ok"), "{results:?}");
    wait_for_utf8_file(&file, UNICODE_LINE);
}

#[test]
fn run_drives_notepad_to_a_saved_utf8_file_with_the_narrative_strategy() {
    use franz_core::model::{Script, ScriptedReply, ScriptedServer};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.txt");
    let _notepad = Notepad::start();
    let name = windows_path(&file).replace('\\', "\\\\");
    let file_for_model = file.clone();
    // The "model": a script that looks at the screen through win_probe where a real model
    // would look at the screenshot (the dialog's place, the encoding it shows, the file).
    let turns = AtomicUsize::new(0);
    let server = ScriptedServer::start(Script::func(move |_| {
        let turn = turns.fetch_add(1, Ordering::SeqCst) + 1;
        let reply = match turn {
            1 => format!("type(\"{UNICODE_LINE}\")\nNotepad is open and empty; I typed the line."),
            2 => "press_key(\"ctrl+s\")\nThe line is in Notepad; ctrl+s opens the Save dialog."
                .into(),
            3 => {
                encoding_box();
                format!("type(\"{name}\")\nThe Save dialog is open; I typed the file name.")
            }
            4 => {
                let (x, y) = centre(&encoding_box());
                format!("left_click({x}, {y})\nThe name is in; I opened the Encoding box.")
            }
            5 => "press_key(\"end\")\nThe list is open; UTF-8 is its last item.".into(),
            6 => "press_key(\"enter\")\nUTF-8 is highlighted; enter picks it.".into(),
            7 => {
                poll("UTF-8 in the Encoding box", || {
                    Some(encoding_box()).filter(|b| b.text == UTF8_ITEM)
                });
                "press_key(\"enter\")\nUTF-8 is chosen; enter saves.".into()
            }
            _ => {
                wait_for_utf8_file(&file_for_model, UNICODE_LINE);
                "done(\"saved the line as UTF-8\")\nThe file is saved.".into()
            }
        };
        ScriptedReply::text(reply).into()
    }))
    .unwrap();
    let runs = dir.path().join("runs");
    let url = server.url();
    let out = finish(
        wine("franz.exe")
            .args(["run", "--api-url", &url, "--model", "scripted"])
            .args(["--runs-dir", runs.to_str().unwrap(), "--motion", "fast"])
            .args(["--step-delay", "0", "--max-steps", "12"])
            .arg("Type the line into Notepad and save it as UTF-8."),
        3 * T,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "franz.exe run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    wait_for_utf8_file(&file, UNICODE_LINE);
    let requests = server.requests();
    assert_eq!(requests.len(), 8, "one request per step");
    for r in &requests {
        assert!(r.body.contains("data:image/"), "a request without an image");
    }
}

#[test]
fn doctor_checks_the_windows_desktop_and_linux_only_flags_are_usage_errors() {
    use franz_core::model::{Script, ScriptedReply, ScriptedServer};
    let (w, h) = screen();
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("OK"))).unwrap();
    let url = server.url();
    let out = finish(
        wine("franz.exe").args(["doctor", "--api-url", &url, "--model", "scripted-model"]),
        T,
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("display: windows (xcap GDI capture, enigo SendInput)"),
        "{text}"
    );
    assert!(
        text.contains(&format!("capture: {w}x{h} through")),
        "{text}"
    );
    assert!(text.contains("input: not checked on this OS"), "{text}");
    assert!(text.contains("ok   image request"), "{text}");
    let linux_only: [&[&str]; 3] = [
        &["--sandbox", "screenshot", "shot.png"],
        &["--launch", "notepad", "screenshot", "shot.png"],
        &["bench", "act"],
    ];
    for args in linux_only {
        let out = finish(wine("franz.exe").args(args), T);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("Linux") || err.contains("X11"),
            "{args:?}: {err}"
        );
    }
}

/// The `max error E px` values `franz calibrate` printed, one per monitor.
fn max_errors(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("max error "))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn calibrate_lands_every_click_within_1_px_and_prints_the_dpi() {
    let (w, h) = screen();
    let out = finish(wine("franz.exe").args(["calibrate", "--no-failsafe"]), T);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let errors = max_errors(&stdout);
    assert_eq!(errors.len(), 1, "{stdout}");
    assert!(errors[0] <= 1.0, "{stdout}");
    assert_eq!(stdout.matches("target (").count(), 26, "{stdout}");
    // The DPI scripts/windows.sh set in the prefix (LogPixels), and the physical screen.
    let dpi = env("FRANZ_WIN_DPI");
    assert!(
        stdout.contains(&format!("monitor 0 ({w}x{h} at 0,0, DPI {dpi})")),
        "{stdout}"
    );
    // A deliberately wrong mapping fails there too, naming the worst target.
    let out = finish(
        wine("franz.exe").args(["calibrate", "--no-failsafe", "--test-offset", "3,0"]),
        T,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("worst target ("), "{stderr}");
    assert_eq!(max_errors(&stdout), vec![3.0], "{stdout}");
}

/// `franz.exe --policy FILE act --motion fast --no-failsafe ACTIONS` with `policy` in FILE: its
/// exit code and result lines.
fn act_with_policy(policy: &str, actions: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.toml");
    std::fs::write(&file, policy).unwrap();
    let out = finish(
        wine("franz.exe")
            .args(["--policy", &windows_path(&file)])
            .args(["act", "--motion", "fast", "--no-failsafe"])
            .args(actions),
        T,
    );
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), lines, err)
}

#[test]
fn allow_only_windows_matches_the_process_name_or_the_title_of_the_window_under_the_point() {
    let (w, h) = screen();
    let mut witness = Witness::open(100, 80, w - 200, h - 160);
    let p = |x, y| vec![px(x, w), px(y, h)];
    // Neither win_probe.exe nor the title franz_witness: refused, nothing reaches the window.
    let (code, lines, err) = act_with_policy(
        r#"allow_only_windows = ["^notepad\\.exe$"]"#,
        &[r#"{"type":"click","x":300,"y":400}"#],
    );
    assert_eq!(code, Some(1), "{lines:?} {err}");
    let msg = lines[0]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("allow_only_windows")
            && msg.contains("franz_witness")
            && msg.contains("win_probe.exe"),
        "{msg}"
    );
    // The process name, then the title: both let the click through.
    for (policy, (x, y)) in [
        (r#"allow_only_windows = ["^win_probe\\.exe$"]"#, (600, 600)),
        (r#"allow_only_windows = ["^franz_witness$"]"#, (700, 300)),
    ] {
        let click = format!(r#"{{"type":"click","x":{x},"y":{y}}}"#);
        let (code, lines, err) = act_with_policy(policy, &[&click]);
        assert_eq!(code, Some(0), "{policy}: {lines:?} {err}");
    }
    let seen = witness.wait_for(|l| events(l, "ldown").len() >= 2);
    // The refused click came first: had it arrived, it would be the first press.
    assert_eq!(
        events(&seen, "ldown"),
        vec![p(600, 600), p(700, 300)],
        "{seen:?}"
    );
}

/// `win_probe form`: a window with real child controls, and the `GetWindowRect` of each.
struct Form {
    probe: Witness,
    /// The window's rect.
    rect: Found,
    /// The controls, `text` as `CLASS TEXT`.
    controls: Vec<Found>,
}

impl Form {
    fn open(x: u32, y: u32, w: u32, h: u32, title: &str) -> Form {
        let mut child = wine("win_probe.exe")
            .args(["form", &x.to_string(), &y.to_string()])
            .args([&w.to_string(), &h.to_string(), title])
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
        let mut probe = Witness {
            child,
            lines,
            seen: vec![],
        };
        let seen = probe.wait_for(|l| l.iter().any(|l| l == "controls end"));
        let ready = seen.iter().find_map(|l| l.strip_prefix("ready ")).unwrap();
        let controls = seen
            .iter()
            .filter_map(|l| l.strip_prefix("control ")?.split_once(' '))
            .map(|(class, rest)| {
                let f = found(rest);
                Found {
                    text: format!("{class} {}", f.text),
                    ..f
                }
            })
            .collect();
        probe.seen.clear();
        Form {
            probe,
            rect: found(ready),
            controls,
        }
    }

    /// Whether pixel rect `b` (JSON `{x, y, width, height}`) lies inside the window.
    fn holds(&self, b: &Value) -> bool {
        let (x, y) = (b["x"].as_i64().unwrap(), b["y"].as_i64().unwrap());
        let (r, f) = (x + b["width"].as_i64().unwrap(), &self.rect);
        let bottom = y + b["height"].as_i64().unwrap();
        x >= i64::from(f.x)
            && y >= i64::from(f.y)
            && r <= i64::from(f.x + f.w)
            && bottom <= i64::from(f.y + f.h)
    }
}

/// `franz.exe elements` as JSON marks.
fn elements() -> Vec<Value> {
    franz(&["elements", "--wait", "20", "--budget-ms", "2000"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Under Wine 8 UI Automation gives nothing for Win32 controls: these come from the Win32
/// fallback (`crates/desktop/src/windows/hwnd.rs`); on Windows, from UI Automation.
#[test]
fn elements_lists_the_controls_of_a_win32_window_within_2_px_and_a_click_on_a_box_lands() {
    let (w, h) = screen();
    let mut form = Form::open(120, 100, 520, 320, "franz_form");
    let marks = elements();
    let ours: Vec<&Value> = marks.iter().filter(|m| form.holds(&m["bounds"])).collect();
    // The label and the disabled button are left out: the edit box, the check box, OK, Cancel.
    let want = [
        ("Edit ", "text", "Name:"),
        ("Button Remember me", "check_box", "Remember me"),
        ("Button &OK", "button", "OK"),
        ("Button Cancel", "button", "Cancel"),
    ];
    assert_eq!(ours.len(), want.len(), "{ours:#?}");
    for (control, role, name) in want {
        let c = form.controls.iter().find(|c| c.text == control).unwrap();
        let m = ours
            .iter()
            .find(|m| m["role"] == role && m["name"] == name)
            .unwrap_or_else(|| panic!("no {role} {name:?} in {ours:#?}"));
        let b = &m["bounds"];
        let got = ["x", "y", "width", "height"].map(|k| b[k].as_i64().unwrap());
        let exact = [c.x, c.y, c.w, c.h].map(i64::from);
        assert!(
            got.iter().zip(exact).all(|(g, e)| (g - e).abs() <= 2),
            "{name}: {got:?} vs GetWindowRect {exact:?}"
        );
    }
    let states = |name: &str| {
        let m = ours.iter().find(|m| m["name"] == name).unwrap();
        m["states"].as_array().cloned().unwrap_or_default()
    };
    assert!(
        states("Remember me").contains(&"checked".into()),
        "{ours:#?}"
    );
    assert!(states("Name:").contains(&"editable".into()), "{ours:#?}");
    // The centre of the Cancel mark's box, in 0..1000, is on the button.
    let cancel = ours.iter().find(|m| m["name"] == "Cancel").unwrap();
    let b: Vec<i64> = cancel["box"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let click = format!(
        r#"{{"type":"click","x":{},"y":{}}}"#,
        (b[0] + b[2]) / 2,
        (b[1] + b[3]) / 2
    );
    let results = act(&[&click]);
    assert_eq!(results[0]["status"], "ok", "{results:?}");
    let seen = form
        .probe
        .wait_for(|l| l.iter().any(|l| l.starts_with("clicked")));
    assert!(
        seen.contains(&"clicked Cancel".to_string()),
        "{seen:?} {w}x{h}"
    );
}

/// The `windows` (or `focused`) listing of a `list_windows` (`focus_window`) result.
fn listing(result: &Value) -> String {
    assert_eq!(result["status"], "ok", "{result}");
    result["warnings"][0]["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The title of the foreground window, as `win_probe foreground` reads it.
fn foreground_title() -> String {
    found(&probe(&["foreground"]).expect("a foreground window")).text
}

#[test]
fn list_windows_and_focus_window_bring_the_window_behind_to_the_front() {
    let mut back = Form::open(100, 80, 500, 300, "franz_back");
    let mut front = Form::open(220, 180, 500, 300, "franz_front");
    poll("franz_front in the foreground", || {
        (foreground_title() == "franz_front").then_some(())
    });
    let list = listing(&act(&[r#"{"type":"list_windows"}"#])[0]);
    let line = |title: &str| {
        let quoted = format!("{title:?}");
        let at = list.lines().position(|l| l.contains(&quoted));
        let at = at.unwrap_or_else(|| panic!("{title} not listed:\n{list}"));
        (at, list.lines().nth(at).unwrap().to_string())
    };
    let (front_at, front_line) = line("franz_front");
    let (back_at, back_line) = line("franz_back");
    assert!(front_at < back_at, "topmost first:\n{list}");
    assert!(front_line.contains(" win_probe.exe "), "{front_line}");
    assert!(front_line.ends_with(" focused"), "{front_line}");
    assert!(!back_line.ends_with(" focused"), "{back_line}");
    // An unknown window is an error, and nothing moves.
    let out = finish(
        wine("franz.exe")
            .args(["act", "--motion", "fast", "--no-failsafe"])
            .arg(r#"{"type":"focus_window","window":"no such window"}"#),
        T,
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("no window matches"), "{said}");
    assert_eq!(foreground_title(), "franz_front");

    let focused = listing(&act(&[r#"{"type":"focus_window","window":"franz_back"}"#])[0]);
    assert!(focused.contains("\"franz_back\""), "{focused}");
    assert_eq!(foreground_title(), "franz_back");
    back.probe.wait_for(|l| l.iter().any(|l| l == "active 1"));
    front.probe.wait_for(|l| l.iter().any(|l| l == "active 0"));
    // franz_back is now above franz_front: the first of them in the Z order.
    assert_eq!(window("franz_").text, "franz_back");
    let list = listing(&act(&[r#"{"type":"list_windows"}"#])[0]);
    let back_line = list.lines().find(|l| l.contains("\"franz_back\"")).unwrap();
    assert!(back_line.ends_with(" focused"), "{list}");
}

/// Wine's Notepad with `file` open (its title names the file), once its window is there.
fn notepad_with(file: &std::path::Path) -> Notepad {
    let child = Command::new(env("FRANZ_WINE"))
        .arg("notepad")
        .arg(windows_path(file))
        .env("WINEDEBUG", "-all")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let notepad = Notepad(child);
    window(file.file_name().unwrap().to_str().unwrap());
    notepad
}

#[test]
fn focus_window_brings_the_notepad_behind_to_the_front() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first.txt"), dir.path().join("second.txt"));
    std::fs::write(&first, "one").unwrap();
    std::fs::write(&second, "two").unwrap();
    let _first = notepad_with(&first);
    poll("first.txt in the foreground", || {
        foreground_title().contains("first.txt").then_some(())
    });
    let _second = notepad_with(&second);
    poll("second.txt in the foreground", || {
        foreground_title().contains("second.txt").then_some(())
    });
    let list = listing(&act(&[r#"{"type":"list_windows"}"#])[0]);
    let notepads: Vec<&str> = list
        .lines()
        .filter(|l| l.contains(" notepad.exe "))
        .collect();
    assert_eq!(notepads.len(), 2, "{list}");
    assert!(
        notepads[0].contains("second.txt") && notepads[0].ends_with(" focused"),
        "{list}"
    );
    let focused = listing(&act(&[r#"{"type":"focus_window","window":"first.txt"}"#])[0]);
    assert!(focused.contains("first.txt"), "{focused}");
    assert!(foreground_title().contains("first.txt"));
    let list = listing(&act(&[r#"{"type":"list_windows"}"#])[0]);
    let top = list.lines().find(|l| l.contains(" notepad.exe ")).unwrap();
    assert!(
        top.contains("first.txt") && top.ends_with(" focused"),
        "{list}"
    );
}

// ---- The whole key vocabulary arrives: every canonical key name of
// docs/actions.md, and combos with each modifier, by the virtual key the witness receives.
// The expected codes are Windows' own VK_* constants (windows-sys), not franz's mapping.

use windows_sys::Win32::UI::Input::KeyboardAndMouse as vk;

/// `franz.exe act` with one `key` action per combo, all in one process.
fn press_all(combos: &[&str]) {
    let actions: Vec<String> = combos
        .iter()
        .map(|k| serde_json::json!({"type": "key", "keys": k}).to_string())
        .collect();
    let refs: Vec<&str> = actions.iter().map(String::as_str).collect();
    let results = act(&refs);
    assert_eq!(results.len(), combos.len(), "{results:?}");
    assert!(results.iter().all(|r| r["status"] == "ok"), "{results:?}");
}

/// The key messages among the witness's lines, in order: (pressed, virtual key).
fn key_messages(lines: &[String]) -> Vec<(bool, u16)> {
    lines
        .iter()
        .filter_map(|l| {
            let (kind, code) = l.split_once(' ')?;
            let down = match kind {
                "keydown" => true,
                "keyup" => false,
                _ => return None,
            };
            Some((down, code.parse().ok()?))
        })
        .collect()
}

/// Presses `combos` at a fresh witness, then `esc` as a sentinel; the key messages and the
/// characters (WM_CHAR) that arrived before the sentinel's release.
fn press_at_witness(combos: &[&str]) -> (Vec<(bool, u16)>, Vec<u32>) {
    let (w, h) = screen();
    let mut witness = Witness::open(100, 80, w - 200, h - 160);
    let mut all = combos.to_vec();
    all.push("esc");
    press_all(&all);
    let sentinel = (false, vk::VK_ESCAPE);
    let seen = witness.wait_for(|l| key_messages(l).contains(&sentinel));
    let mut keys = key_messages(&seen);
    assert_eq!(
        keys.split_off(keys.len() - 2),
        [(true, vk::VK_ESCAPE), sentinel]
    );
    let chars = events(&seen, "char")
        .into_iter()
        .map(|c| c[0] as u32)
        .filter(|&c| c != 0x1B)
        .collect();
    (keys, chars)
}

/// A key pressed and released alone.
fn tap(code: u16) -> [(bool, u16); 2] {
    [(true, code), (false, code)]
}

/// Every canonical name that is not a character, and the virtual key Windows gives it.
fn named_virtual_keys() -> Vec<(String, u16)> {
    let named = [
        ("up", vk::VK_UP),
        ("down", vk::VK_DOWN),
        ("left", vk::VK_LEFT),
        ("right", vk::VK_RIGHT),
        ("home", vk::VK_HOME),
        ("end", vk::VK_END),
        ("pageup", vk::VK_PRIOR),
        ("pagedown", vk::VK_NEXT),
        ("insert", vk::VK_INSERT),
        ("delete", vk::VK_DELETE),
        ("backspace", vk::VK_BACK),
        ("enter", vk::VK_RETURN),
        ("tab", vk::VK_TAB),
        ("space", vk::VK_SPACE),
        ("ctrl", vk::VK_CONTROL),
        ("alt", vk::VK_MENU),
        ("shift", vk::VK_SHIFT),
        ("win", vk::VK_LWIN),
        ("menu", vk::VK_APPS),
        ("printscreen", vk::VK_SNAPSHOT),
    ];
    let function = [
        vk::VK_F1,
        vk::VK_F2,
        vk::VK_F3,
        vk::VK_F4,
        vk::VK_F5,
        vk::VK_F6,
        vk::VK_F7,
        vk::VK_F8,
        vk::VK_F9,
        vk::VK_F10,
        vk::VK_F11,
        vk::VK_F12,
        vk::VK_F13,
        vk::VK_F14,
        vk::VK_F15,
        vk::VK_F16,
        vk::VK_F17,
        vk::VK_F18,
        vk::VK_F19,
        vk::VK_F20,
        vk::VK_F21,
        vk::VK_F22,
        vk::VK_F23,
        vk::VK_F24,
    ];
    let mut keys: Vec<(String, u16)> = named.iter().map(|(n, k)| (n.to_string(), *k)).collect();
    keys.extend((1..).zip(function).map(|(n, k)| (format!("f{n}"), k)));
    keys
}

#[test]
fn every_named_key_arrives_as_its_virtual_key() {
    let keys = named_virtual_keys();
    let mut names: Vec<&str> = keys.iter().map(|(n, _)| n.as_str()).collect();
    // capslock toggles: pressed twice, it leaves the lock as it was
    names.extend(["capslock", "capslock"]);
    let (got, _) = press_at_witness(&names);
    let mut want: Vec<(bool, u16)> = keys.iter().flat_map(|(_, k)| tap(*k)).collect();
    want.extend(tap(vk::VK_CAPITAL).repeat(2));
    for (i, (name, _)) in keys.iter().enumerate() {
        assert_eq!(
            got.get(2 * i..2 * i + 2),
            want.get(2 * i..2 * i + 2),
            "{name}: {got:?}"
        );
    }
    assert_eq!(got, want);
}

/// The US layout's characters on their own key (Wine takes the layout from the Xvfb's,
/// which is US) and their virtual keys.
fn unshifted() -> Vec<(char, u16)> {
    let mut keys: Vec<(char, u16)> = ('a'..='z').zip(vk::VK_A..=vk::VK_Z).collect();
    keys.extend(('0'..='9').zip(vk::VK_0..=vk::VK_9));
    keys.extend([
        ('-', vk::VK_OEM_MINUS),
        ('=', vk::VK_OEM_PLUS),
        ('[', vk::VK_OEM_4),
        (']', vk::VK_OEM_6),
        (';', vk::VK_OEM_1),
        ('\'', vk::VK_OEM_7),
        ('`', vk::VK_OEM_3),
        ('\\', vk::VK_OEM_5),
        (',', vk::VK_OEM_COMMA),
        ('.', vk::VK_OEM_PERIOD),
        ('/', vk::VK_OEM_2),
    ]);
    keys
}

/// The US layout's shifted characters and the virtual key they are typed with.
fn shifted() -> Vec<(char, u16)> {
    let digits = "!@#$%^&*()".chars().zip([
        vk::VK_1,
        vk::VK_2,
        vk::VK_3,
        vk::VK_4,
        vk::VK_5,
        vk::VK_6,
        vk::VK_7,
        vk::VK_8,
        vk::VK_9,
        vk::VK_0,
    ]);
    let mut keys: Vec<(char, u16)> = digits.collect();
    keys.extend([
        ('_', vk::VK_OEM_MINUS),
        ('+', vk::VK_OEM_PLUS),
        ('{', vk::VK_OEM_4),
        ('}', vk::VK_OEM_6),
        (':', vk::VK_OEM_1),
        ('"', vk::VK_OEM_7),
        ('~', vk::VK_OEM_3),
        ('|', vk::VK_OEM_5),
        ('<', vk::VK_OEM_COMMA),
        ('>', vk::VK_OEM_PERIOD),
        ('?', vk::VK_OEM_2),
    ]);
    keys
}

#[test]
fn letters_digits_and_punctuation_arrive_as_their_key_and_character() {
    let (plain, with_shift) = (unshifted(), shifted());
    let names: Vec<String> = plain
        .iter()
        .chain(&with_shift)
        .map(|(c, _)| c.to_string())
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (got, chars) = press_at_witness(&refs);
    // an unshifted character is its own key, alone
    let mut want: Vec<(bool, u16)> = plain.iter().flat_map(|(_, k)| tap(*k)).collect();
    // a shifted one is shift and its key, released in reverse
    for (c, k) in &with_shift {
        match c {
            // Wine's layout comes from the X keymap, and the Xvfb's (evdev, pc105) puts `(`
            // and `)` unshifted on keycodes 187 and 188 as well, which Xlib finds first and
            // which have no virtual key: no key types them there, so franz sends them as
            // Unicode (VK_PACKET), and the character still arrives (below).
            '(' | ')' => want.extend(tap(vk::VK_PACKET)),
            // `<` has a key of its own there, the pc105 key next to left shift (VK_OEM_102).
            '<' => want.extend(tap(vk::VK_OEM_102)),
            _ => want.extend([
                (true, vk::VK_SHIFT),
                (true, *k),
                (false, *k),
                (false, vk::VK_SHIFT),
            ]),
        }
    }
    assert_eq!(got, want);
    // and Windows makes each of them the character itself
    let want_chars: Vec<u32> = plain
        .iter()
        .chain(&with_shift)
        .map(|(c, _)| *c as u32)
        .collect();
    assert_eq!(chars, want_chars);
}

#[test]
fn combos_with_each_modifier_arrive_in_order_and_as_their_characters() {
    let x = vk::VK_X;
    let modifiers = [
        ("ctrl", vk::VK_CONTROL),
        ("shift", vk::VK_SHIFT),
        ("alt", vk::VK_MENU),
        ("win", vk::VK_LWIN),
    ];
    let mut combos: Vec<String> = modifiers.iter().map(|(m, _)| format!("{m}+x")).collect();
    combos.extend(
        [
            "ctrl+alt+shift+win+x",
            "alt+f4",
            "ctrl+shift+tab",
            "ctrl+z",
            "ctrl+a",
            "ctrl+s",
        ]
        .map(String::from),
    );
    let refs: Vec<&str> = combos.iter().map(String::as_str).collect();
    let (got, chars) = press_at_witness(&refs);
    // pressed in order, released in reverse
    let combo = |keys: &[u16]| -> Vec<(bool, u16)> {
        let downs = keys.iter().map(|k| (true, *k));
        downs
            .chain(keys.iter().rev().map(|k| (false, *k)))
            .collect()
    };
    let mut want: Vec<(bool, u16)> = modifiers
        .iter()
        .flat_map(|(_, m)| combo(&[*m, x]))
        .collect();
    want.extend(combo(&[
        vk::VK_CONTROL,
        vk::VK_MENU,
        vk::VK_SHIFT,
        vk::VK_LWIN,
        x,
    ]));
    want.extend(combo(&[vk::VK_MENU, vk::VK_F4]));
    want.extend(combo(&[vk::VK_CONTROL, vk::VK_SHIFT, vk::VK_TAB]));
    for letter in [vk::VK_Z, vk::VK_A, vk::VK_S] {
        want.extend(combo(&[vk::VK_CONTROL, letter]));
    }
    assert_eq!(got, want);
    // The modifiers' state reached the window: ctrl+x is the control character 0x18, shift+x
    // is 'X', ctrl+z/a/s are 0x1A, 0x01, 0x13 (TranslateMessage reads the key state).
    for c in [0x18, u32::from(b'X'), 0x1A, 0x01, 0x13] {
        assert!(chars.contains(&c), "{c:#x} in {chars:?}");
    }
}

// ---- The Windows scenarios: `notepad-steps` and `start-menu` run with the
// scripted model. Wine shows a taskbar with a Start menu only in a virtual desktop whose shell
// is on (`explorer /desktop=shell,WxH`: the desktop named "shell" has it by default); its menu
// offers Control Panel and Run..., no pinned apps. The scripted steps find their targets at run
// time through win_probe (the Start button's rect, the open menu, the Run and Save dialogs).

/// The scenario files shipped in `scenarios/`.
fn scenario(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    dir.join(format!("{name}.toml")).display().to_string()
}

/// A Wine virtual desktop with its taskbar over the whole Xvfb screen. franz.exe and
/// win_probe.exe run in it as copies whose names the prefix sends there
/// (`AppDefaults\NAME\Explorer\Desktop = shell`); the desktop starts with the first of them
/// and is closed, with whatever still runs in it, when this is dropped.
struct ShellDesktop {
    dir: tempfile::TempDir,
}

const SHELL_FRANZ: &str = "franz_shell.exe";
const SHELL_PROBE: &str = "win_probe_shell.exe";

impl ShellDesktop {
    fn open() -> ShellDesktop {
        let (w, h) = screen();
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(exe("franz.exe"), dir.path().join(SHELL_FRANZ)).unwrap();
        std::fs::copy(exe("win_probe.exe"), dir.path().join(SHELL_PROBE)).unwrap();
        let mut reg = String::from("Windows Registry Editor Version 5.00\r\n\r\n");
        for name in [SHELL_FRANZ, SHELL_PROBE] {
            reg += &format!(
                "[HKEY_CURRENT_USER\\Software\\Wine\\AppDefaults\\{name}\\Explorer]\r\n\"Desktop\"=\"shell\"\r\n\r\n"
            );
        }
        reg += &format!(
            "[HKEY_CURRENT_USER\\Software\\Wine\\Explorer\\Desktops]\r\n\"shell\"=\"{w}x{h}\"\r\n"
        );
        let file = dir.path().join("shell.reg");
        std::fs::write(&file, reg).unwrap();
        let mut import = Command::new(env("FRANZ_WINE"));
        import.args(["reg", "import", &windows_path(&file)]);
        let out = finish(import.env("WINEDEBUG", "-all"), T);
        assert!(out.status.success(), "reg import: {out:?}");
        let desktop = ShellDesktop { dir };
        // The first program in the desktop starts its explorer, which inherits its output
        // pipes and keeps them open (`finish` would wait on them): this one gets none.
        let mut first = desktop
            .command(SHELL_PROBE)
            .arg("start-button")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        poll("the virtual desktop to start", || first.try_wait().unwrap());
        desktop.start_button();
        desktop
    }

    fn command(&self, exe_name: &str) -> Command {
        let mut cmd = Command::new(env("FRANZ_WINE"));
        cmd.arg(self.dir.path().join(exe_name))
            .env("WINEDEBUG", "-all");
        cmd
    }

    /// `win_probe ARGS` in this desktop: its first line when it exits 0.
    fn probe(&self, args: &[&str]) -> Option<String> {
        let out = finish(self.command(SHELL_PROBE).args(args), T);
        let text = String::from_utf8(out.stdout).unwrap();
        out.status
            .success()
            .then(|| text.lines().next().unwrap_or("").to_string())
    }

    /// The taskbar's Start button, once it is there.
    fn start_button(&self) -> Found {
        found(&poll("the taskbar's Start button", || {
            self.probe(&["start-button"])
        }))
    }

    /// The open popup menu and its items, once one is open.
    fn menu(&self) -> (Found, Vec<String>) {
        let menu = found(&poll("an open menu", || self.probe(&["menu"])));
        let items = menu
            .text
            .split('|')
            .filter(|i| !i.is_empty())
            .map(|i| i.replace('&', ""))
            .collect();
        (menu, items)
    }

    /// A top-level window of this desktop whose title contains `title`, once it is there.
    fn window(&self, title: &str) -> Found {
        found(&poll(&format!("a window titled {title:?}"), || {
            self.probe(&["find", title])
        }))
    }

    /// `franz_shell.exe run --scenario FILE` with the scripted model at `url`; its output.
    fn run_scenario(&self, name: &str, url: &str, runs: &std::path::Path) -> std::process::Output {
        let file = scenario(name);
        finish(
            self.command(SHELL_FRANZ)
                .args(["run", "--scenario", &file, "--api-url", url])
                .args(["--model", "scripted", "--runs-dir", runs.to_str().unwrap()])
                .args(["--motion", "fast", "--step-delay", "0"]),
            3 * T,
        )
    }
}

impl Drop for ShellDesktop {
    fn drop(&mut self) {
        let _ = self.probe(&["close-desktop"]);
        // The desktop's X window goes with it: later tests see the plain screen again.
        let display = env("DISPLAY");
        let deadline = Instant::now() + T;
        while Instant::now() < deadline {
            let up = franz_desktop::top_windows(&display)
                .map(|ws| ws.iter().any(|w| w.title.ends_with("Wine desktop")))
                .unwrap_or(false);
            if !up {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // After that the default desktop's explorer was found restarted by the next program
        // (Wine 8), inheriting and holding open that program's output pipes: let it be
        // restarted by one that has none.
        if let Ok(mut child) = wine("win_probe.exe")
            .args(["find", "franz"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        {
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// The `run_finished` event of the one run under `runs`.
fn run_finished(runs: &std::path::Path) -> Value {
    let events = std::fs::read_dir(runs)
        .unwrap()
        .map(|e| e.unwrap().path().join("events.jsonl"))
        .find(|p| p.exists())
        .expect("a run directory");
    std::fs::read_to_string(events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e.to_string().contains("\"run_finished\""))
        .expect("a run_finished event")
}

/// The last screenshot a model request carried, decoded.
fn sent_image(req: &franz_core::model::scripted_server::RecordedRequest) -> image::RgbaImage {
    use base64::Engine as _;
    let at = req
        .body
        .rfind("data:image/")
        .expect("an image in the request");
    let b64 = req.body[at..].split_once(',').unwrap().1;
    let end = b64.find('"').unwrap_or(b64.len());
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&b64[..end])
        .unwrap();
    image::load_from_memory(&bytes).unwrap().to_rgba8()
}

/// The share of the pixels of screen rect `f` that differ between two screenshots (scaled to
/// the images' size).
fn changed_share(a: &image::RgbaImage, b: &image::RgbaImage, f: &Found) -> f64 {
    let (w, _) = screen();
    let scale = f64::from(a.width()) / f64::from(w);
    let at = |v: i32| (f64::from(v) * scale) as u32;
    let (x0, y0, x1, y1) = (at(f.x), at(f.y), at(f.x + f.w), at(f.y + f.h));
    let (mut changed, mut all) = (0, 0);
    for y in y0..y1.min(a.height()) {
        for x in x0..x1.min(a.width()) {
            all += 1;
            changed += usize::from(a.get_pixel(x, y) != b.get_pixel(x, y));
        }
    }
    changed as f64 / all.max(1) as f64
}

#[test]
fn start_menu_scenario_opens_the_start_menu_and_reports_its_items() {
    use franz_core::model::{Script, ScriptedReply, ScriptedServer};
    let desktop = std::sync::Arc::new(ShellDesktop::open());
    let model = desktop.clone();
    let menu = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = menu.clone();
    let turns = AtomicUsize::new(0);
    let server = ScriptedServer::start(Script::func(move |_| {
        let reply = match turns.fetch_add(1, Ordering::SeqCst) {
            0 => {
                let (x, y) = centre(&model.start_button());
                format!("left_click({x}, {y})\nThe taskbar's Start button is at the bottom left.")
            }
            _ => {
                let (open, items) = model.menu();
                *seen.lock().unwrap() = Some((open, items));
                // What a model reads off the screenshot: Wine's menu (see the scenario file).
                "done(\"The Start menu shows: Control Panel, Run...\")".into()
            }
        };
        ScriptedReply::text(reply).into()
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = desktop.run_scenario("start-menu", &server.url(), runs.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    // The click opened the menu, right above the Start button ...
    let (open, items) = menu
        .lock()
        .unwrap()
        .take()
        .expect("the menu was looked for");
    let start = desktop.start_button();
    assert!(
        open.x <= start.x + start.w && (open.y + open.h - start.y).abs() <= 4,
        "{open:?} {start:?}"
    );
    // ... with Wine's items where another process's menu can be read (Wine 8 keeps a menu in
    // the process that made it: the list is then empty) ...
    assert!(
        items.is_empty() || items == ["Control Panel", "Run..."],
        "{items:?}"
    );
    // ... and the model was shown it: the second screenshot differs there from the first.
    let (before, after) = (sent_image(&requests[0]), sent_image(&requests[1]));
    let share = changed_share(&before, &after, &open);
    assert!(
        share > 0.5,
        "only {share} of the menu's pixels changed on the screenshot"
    );
    let finished = run_finished(runs.path()).to_string();
    assert!(finished.contains("Control Panel, Run..."), "{finished}");
}

/// The prefix's Desktop folder (a link to the home folder in a fresh Wine prefix) as Linux
/// and as Windows name it.
fn wine_desktop() -> (PathBuf, String) {
    let users = PathBuf::from(env("WINEPREFIX")).join("drive_c/users");
    let user = std::fs::read_dir(&users)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|u| u != "Public")
        .expect("a user folder in the prefix");
    let dir = users.join(&user).join("Desktop");
    (dir, format!("C:\\users\\{user}\\Desktop"))
}

#[test]
fn notepad_steps_scenario_opens_notepad_from_the_start_menu_and_saves_the_line() {
    use franz_core::model::{Script, ScriptedReply, ScriptedServer};
    let (desktop_dir, desktop_name) = wine_desktop();
    let file = desktop_dir.join("franz.txt");
    assert!(
        !file.exists(),
        "{} exists: move it away, the scenario saves there",
        file.display()
    );
    let desktop = std::sync::Arc::new(ShellDesktop::open());
    let model = desktop.clone();
    let saved = file.clone();
    let turns = AtomicUsize::new(0);
    let server = ScriptedServer::start(Script::func(move |_| {
        let reply = match turns.fetch_add(1, Ordering::SeqCst) {
            0 => {
                let (x, y) = centre(&model.start_button());
                format!("left_click({x}, {y})\nNotepad is not open; the Start menu has Run...")
            }
            1 => {
                // Run... is the last item of Wine's menu: just above its bottom edge
                let (menu, _) = model.menu();
                let (x, _) = centre(&menu);
                let (_, y) = centre(&Found {
                    y: menu.y + menu.h - 16,
                    h: 16,
                    ..menu
                });
                format!("left_click({x}, {y})\nThe menu is open; Run... is its last item.")
            }
            2 => {
                model.window("Run");
                "type(\"notepad\")\nThe Run dialog asks for a program.".into()
            }
            3 => "press_key(\"enter\")".into(),
            4 => {
                model.window("Notepad");
                "type(\"Hello from franz\")\nNotepad is open and empty.".into()
            }
            5 => "press_key(\"ctrl+s\")".into(),
            6 => {
                model.window("Save");
                let name = format!("{desktop_name}\\franz.txt").replace('\\', "\\\\");
                format!("type(\"{name}\")\nThe Save dialog is open; the Desktop, as franz.txt.")
            }
            7 => "press_key(\"enter\")".into(),
            _ => {
                poll("franz.txt on the Desktop", || {
                    let text = std::fs::read(&saved).ok()?;
                    (text == b"Hello from franz").then_some(())
                });
                "done(\"Saved 'Hello from franz' as franz.txt on the Desktop.\")".into()
            }
        };
        ScriptedReply::text(reply).into()
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = desktop.run_scenario("notepad-steps", &server.url(), runs.path());
    let text = std::fs::read(&file);
    let _ = std::fs::remove_file(&file);
    // Notepad runs in the desktop, not under this test: ended with it.
    let _ = finish(
        Command::new(env("FRANZ_WINE"))
            .args(["taskkill", "/f", "/im", "notepad.exe"])
            .env("WINEDEBUG", "-all"),
        T,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(text.unwrap_or_default(), b"Hello from franz", "{stderr}");
    assert_eq!(server.requests().len(), 9, "one request per step: {stderr}");
}
