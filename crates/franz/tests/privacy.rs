//! Privacy end to end: `franz run` on a private Xvfb with the witness
//! window (white) over it, driven by the scripted model server. A masked region is black in
//! the image sent to the model, in every PNG of the run directory and in the report; a
//! declared `{secret:NAME}` text reaches the window exactly and is written nowhere in the run
//! directory, an undeclared one (`FRANZ_API_KEY`, `HOME`) types nothing and the model is told;
//! `keep_runs` deletes the oldest run directories, never one whose run is still going.

#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox;
use franz_core::model::{Script, ScriptedReply, ScriptedServer};
use franz_desktop::witness::WitnessKind as K;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

fn run(display: &str, server: &ScriptedServer, runs: &Path, extra: &[&str]) -> Output {
    common::franz_run(&server.url(), runs)
        .args([
            "--model",
            "scripted",
            "--motion",
            "fast",
            "--max-steps",
            "5",
        ])
        .args(extra)
        .arg("Do the task.")
        .env("DISPLAY", display)
        .env("FRANZ_E2E_PW", "qz7hunterk")
        .output()
        .unwrap()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Checks that the top-left quarter is black and the bottom-right quarter white.
fn assert_masked(png: &[u8], what: &str) {
    let img = image::load_from_memory(png).unwrap().to_rgba8();
    let (w, h) = img.dimensions();
    let at = |x: u32, y: u32| img.get_pixel(x, y).0;
    for (x, y) in [(2, 2), (w / 2 - 6, h / 2 - 6), (w / 4, h / 4)] {
        assert_eq!(at(x, y)[..3], [0, 0, 0], "{what}: ({x}, {y}) is not black");
    }
    assert_eq!(
        at(w * 3 / 4, h * 3 / 4)[..3],
        [255, 255, 255],
        "{what}: not white outside"
    );
}

#[test]
fn a_masked_region_is_black_in_the_request_the_run_directory_and_the_report() {
    let (sb, _w) = sandbox(800, 600);
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("move(900, 900)\nLooking."),
        ScriptedReply::text("done(\"ok\")\nDone."),
    ]))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let out = run(
        sb.display(),
        &server,
        &runs,
        &["--no-cursor", "--mask-regions", "0,0,500,500"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Vec<_> = server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .flat_map(|r| common::data_url_pngs(&r.body))
        .collect();
    assert!(!sent.is_empty());
    for png in &sent {
        assert_masked(png, "sent image");
    }
    let dir = &common::run_dirs(&runs)[0];
    let pngs: Vec<_> = files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    assert!(!pngs.is_empty(), "no PNG in {}", dir.display());
    for p in &pngs {
        assert_masked(&std::fs::read(p).unwrap(), &p.display().to_string());
    }
    let report = tmp.path().join("report.html");
    let html = common::report(dir, &report);
    let shown = common::data_url_pngs(&html);
    assert!(!shown.is_empty());
    for png in &shown {
        assert_masked(png, "report image");
    }
}

#[test]
fn a_secret_reaches_the_window_exactly_and_is_written_nowhere() {
    let (sb, w) = sandbox(800, 600);
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("type(\"{secret:FRANZ_E2E_PW}\")\nTyping the password."),
        ScriptedReply::text("done(\"ok\")\nDone."),
    ]))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let out = run(sb.display(), &server, &runs, &["--secrets", "FRANZ_E2E_PW"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let secret = "qz7hunterk";
    let (ok, ev) = w.wait_for(
        |e| e.iter().filter(|e| e.is(K::KeyPress)).count() >= secret.len(),
        Duration::from_secs(20),
    );
    assert!(ok, "{ev:?}");
    let typed: String = ev
        .iter()
        .filter(|e| e.is(K::KeyPress))
        .filter_map(|e| char::from_u32(e.keysym))
        .collect();
    assert_eq!(typed, secret);
    let dir = &common::run_dirs(&runs)[0];
    let all = files(dir);
    assert!(all.len() > 3, "{all:?}");
    for p in all {
        let bytes = std::fs::read(&p).unwrap();
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the secret is in {}",
            p.display()
        );
    }
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains(secret), "the secret was printed: {text}");
}

#[test]
fn an_undeclared_secret_types_nothing_and_the_model_is_told() {
    let (sb, w) = sandbox(800, 600);
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("type(\"{secret:FRANZ_API_KEY}\")\nTyping the key."),
        ScriptedReply::text("type(\"at {secret:HOME}\")\nTyping home."),
        ScriptedReply::text("type(\"{secret:FRANZ_E2E_PW}\")\nNot declared here either."),
        ScriptedReply::text("type(\"ok\")\nTyping ok."),
        ScriptedReply::text("done(\"ok\")\nDone."),
    ]))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let out = common::franz_run(&server.url(), &runs)
        .args([
            "--model",
            "scripted",
            "--motion",
            "fast",
            "--max-steps",
            "6",
        ])
        .arg("Do the task.")
        .env("DISPLAY", sb.display())
        .env("FRANZ_API_KEY", "sk-h28-apikey")
        .env("HOME", "/home/h28-home")
        .env("FRANZ_E2E_PW", "qz7hunterk")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // the allowed text arrives; before it, nothing
    let (ok, ev) = w.wait_for(
        |e| e.iter().filter(|e| e.is(K::KeyPress)).count() >= 2,
        Duration::from_secs(20),
    );
    assert!(ok, "{ev:?}");
    let typed: String = ev
        .iter()
        .filter(|e| e.is(K::KeyPress))
        .filter_map(|e| char::from_u32(e.keysym))
        .collect();
    assert_eq!(typed, "ok");
    // the model is told, each time, and never sees a value
    let told: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body.clone())
        .filter(|b| b.contains("not a declared secret"))
        .collect();
    assert!(told.len() >= 3, "{told:?}");
    for body in server.requests().iter().map(|r| &r.body) {
        for value in ["sk-h28-apikey", "h28-home", "qz7hunterk"] {
            assert!(!body.contains(value), "{value} was sent to the model");
        }
    }
}

#[test]
fn keep_runs_deletes_the_oldest_run_directories() {
    let (sb, _w) = sandbox(640, 400);
    let server =
        ScriptedServer::start(Script::repeat(ScriptedReply::text("done(\"ok\")\nDone."))).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    for _ in 0..3 {
        let out = run(sb.display(), &server, &runs, &["--keep-runs", "2"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let names: Vec<String> = common::run_dirs(&runs)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["run_0002", "run_0003"]);
    let shown = common::franz(&["config", "--keep-runs", "2"]);
    assert!(String::from_utf8_lossy(&shown.stdout).contains("keep_runs = 2"));
}

#[test]
fn keep_runs_never_deletes_the_directory_of_a_run_still_going() {
    use std::sync::{Arc, Condvar, Mutex};
    let (sb, _w) = sandbox(640, 400);
    // the first run's model holds its first answer until the gate opens
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let held = gate.clone();
    let slow = ScriptedServer::start(Script::func(move |_| {
        let (open, cv) = &*held;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        ScriptedReply::text("done(\"ok\")\nDone.").into()
    }))
    .unwrap();
    let fast =
        ScriptedServer::start(Script::repeat(ScriptedReply::text("done(\"ok\")\nDone."))).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let first = common::franz_run(&slow.url(), &runs)
        .args([
            "--model",
            "scripted",
            "--motion",
            "fast",
            "--max-steps",
            "5",
        ])
        .arg("Wait for the model.")
        .env("DISPLAY", sb.display())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        slow.wait_for_requests(1, Duration::from_secs(60)),
        "the first run never asked its model"
    );
    // it looks old: only its lock says it is alive
    let live = runs.join("run_0001");
    let mut old = vec![live.clone()];
    old.extend(std::fs::read_dir(&live).unwrap().map(|e| e.unwrap().path()));
    let touched = Command::new("touch")
        .args(["-d", "2 hours ago"])
        .args(&old)
        .status()
        .unwrap();
    assert!(touched.success());
    let second = run(
        sb.display(),
        &fast,
        &runs,
        &["--keep-runs", "1", "--max-time", "60"],
    );
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert!(
        live.is_dir(),
        "keep_runs deleted the directory of a run still going"
    );
    // the first run goes on and finishes in its own directory
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    let out = first.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = std::fs::read_to_string(live.join("events.jsonl")).unwrap();
    assert!(events.contains("\"run_finished\""), "{events}");
    // finished, both go at the next run
    let third = run(sb.display(), &fast, &runs, &["--keep-runs", "1"]);
    assert_eq!(third.status.code(), Some(0));
    let names: Vec<String> = common::run_dirs(&runs)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["run_0003"]);
}
