//! Crash safety: a helper process writes turns through the run-directory writer and is
//! SIGKILLed after its 3rd fsynced turn (the test waits on `turns.jsonl`, not on a sleep).
//! `franz report` on what is left gives a report with 3 turns, skipping the torn line.
//!
//! The helper is this same test binary, re-run with `FRANZ_CRASH_CHILD_DIR` set, on the test
//! `crash_child` (which does nothing in a normal run).

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::event::{Event, EventKind};
use franz_core::geometry::{ImageSize, SizeRule};
use franz_core::observe::{ObserveConfig, Pipeline};
use franz_core::runlog::{Layout, RunWriter, TURNS_FILE};
use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use franz_desktop::x11::{CaptureMethod, X11Desktop};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "FRANZ_CRASH_CHILD_DIR";

/// A real screenshot of the helper's sandbox, through the observation pipeline.
fn capture(
    desktop: &mut dyn franz_desktop::Desktop,
    pipeline: &mut Pipeline,
) -> franz_core::observe::RgbaImage {
    pipeline.observe(desktop, |_| {}).unwrap().image
}

/// The helper: on a sandbox with a terminal, 3 finished turns with real captures, then a 4th begun and a record cut off mid-line, then it
/// blocks on stdin until killed.
#[test]
fn crash_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let dir = Path::new(&dir);
    let mut w = RunWriter::open_dir(dir, Layout::Flat).unwrap();
    w.write_config(
        &serde_json::json!({"strategy": "narrative", "model": {"api_key": "sk-do-not-leak"}}),
    )
    .unwrap();
    w.event(&Event::now(
        0,
        EventKind::RunStarted {
            task: "move the window".into(),
            strategy: "narrative".into(),
            model: "scripted".into(),
            run_dir: Some(dir.display().to_string()),
            dry_run: false,
        },
    ))
    .unwrap();
    let sandbox = Sandbox::start(&SandboxOptions {
        width: 640,
        height: 400,
        launch: vec!["xterm -geometry 50x10+20+20 -e sh -c 'ls /; exec sleep 100000'".into()],
    })
    .unwrap();
    let mut desktop =
        X11Desktop::open_display(sandbox.display(), None, CaptureMethod::Auto).unwrap();
    let mut pipeline = Pipeline::new(ObserveConfig {
        size: SizeRule::Exact(ImageSize::new(320, 200)),
        ..ObserveConfig::default()
    });
    let (overlay, mut history) = common::overlay();
    for turn in 1..=3 {
        w.event(&Event::now(turn, EventKind::TurnStarted {}))
            .unwrap();
        let raw = capture(&mut desktop, &mut pipeline);
        common::write_turn_image(&mut w, &overlay, &mut history, turn, raw);
    }
    // turn 4 starts: its screenshots are queued and a record is half-written when the kill
    // comes (a single write cannot tear, so the tear is made by hand here)
    w.event(&Event::now(4, EventKind::TurnStarted {})).unwrap();
    let raw = capture(&mut desktop, &mut pipeline);
    w.submit_images(4, franz_core::runlog::TurnImage::Rgba(raw), None)
        .unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join(TURNS_FILE))
        .unwrap();
    f.write_all(br#"{"stage":"raw","turn":4,"observation":"half a rec"#)
        .unwrap();
    f.sync_all().unwrap();
    let mut buf = [0u8; 1];
    let _ = std::io::stdin().read(&mut buf); // until killed
    panic!("the crash helper was not killed");
}

#[test]
fn sigkill_after_three_turns_leaves_a_three_turn_report() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("runs/run_0001");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash::crash_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    // wait until turn 3 is durable and the torn line is there
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(dir.join(TURNS_FILE)).unwrap_or_default();
        let done = text.contains(r#""stage":"annotated","turn":3"#) && !text.ends_with('\n');
        if done {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the crash helper exited early: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "the helper did not write 3 turns in 60 s:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(20)); // poll interval, not a synchronisation
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let html = tmp.path().join("report.html");
    let out = common::franz(&[
        "report",
        dir.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("3 turns, 6 actions"), "{stdout}");
    assert!(stderr.contains("torn"), "{stderr}");
    let text = std::fs::read_to_string(&html).unwrap();
    assert_eq!(common::body_attr(&text, "data-turns").as_deref(), Some("3"));
    assert_eq!(text.matches("<section class=\"turn\"").count(), 3);
    assert!(text.contains("move the window"));
    assert!(!text.contains("sk-do-not-leak"));

    // replay sees the same three turns
    let out = common::franz(&["replay", dir.to_str().unwrap(), "--from", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        !stdout.contains("turn 1:") && stdout.contains("turn 3:"),
        "{stdout}"
    );
}
