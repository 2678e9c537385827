//! Long runs: `--log-images none|annotated|all` decides which PNGs a run
//! directory keeps (`franz run` on a private Xvfb, driven by the scripted model server), and
//! `franz bench soak --turns 300` keeps the request size constant and the RSS within 5% of its
//! first sample (a memory bound, not a timing).

#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox;
use franz_core::model::{Script, ScriptedReply, ScriptedServer};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A three-turn run (two moves, then done) with `extra` flags: its temporary folder and run
/// directory.
fn a_run(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (sb, _w) = sandbox(640, 480);
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("move(300, 300)\nLooking."),
        ScriptedReply::text("move(600, 600)\nLooking again."),
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
            "5",
        ])
        .args(extra)
        .arg("Do the task.")
        .env("DISPLAY", sb.display())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (tmp, runs.join("run_0001"))
}

/// The PNGs of a run with `extra` flags, after checking that its records name exactly those
/// files: none that is absent, none left unnamed.
fn pngs_of_a_run(extra: &[&str]) -> Vec<String> {
    let (_tmp, dir) = a_run(extra);
    let turns = std::fs::read_to_string(dir.join("turns.jsonl")).unwrap();
    assert_eq!(turns.lines().count(), 6, "two records per turn: {turns}");
    let mut names: Vec<String> = files(&dir)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut named: Vec<String> = named_images(&turns);
    named.sort();
    named.dedup();
    assert_eq!(
        named, names,
        "the records name exactly the PNGs written: {turns}"
    );
    names
}

/// Every image file name the records of `turns.jsonl` give.
fn named_images(turns: &str) -> Vec<String> {
    turns
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .flat_map(|v| {
            ["raw_png", "annotated_png"]
                .into_iter()
                .filter_map(|k| v.get(k)?.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect()
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

#[test]
fn log_images_all_is_the_default_and_keeps_raw_and_annotated_pngs() {
    let expected: Vec<String> = (1..=3)
        .flat_map(|t| {
            [
                format!("turn_{t:04}_annotated.png"),
                format!("turn_{t:04}_raw.png"),
            ]
        })
        .collect();
    assert_eq!(pngs_of_a_run(&[]), expected);
    assert_eq!(pngs_of_a_run(&["--log-images", "all"]), expected);
}

#[test]
fn log_images_annotated_keeps_only_the_image_the_model_was_sent() {
    let expected: Vec<String> = (1..=3)
        .map(|t| format!("turn_{t:04}_annotated.png"))
        .collect();
    assert_eq!(pngs_of_a_run(&["--log-images", "annotated"]), expected);
    // without feedback the image sent is the raw screenshot: written once, as the raw one
    let raw: Vec<String> = (1..=3).map(|t| format!("turn_{t:04}_raw.png")).collect();
    assert_eq!(
        pngs_of_a_run(&["--log-images", "annotated", "--no-feedback"]),
        raw
    );
}

#[test]
fn log_images_none_keeps_no_png_but_every_record() {
    assert_eq!(
        pngs_of_a_run(&["--log-images", "none"]),
        Vec::<String>::new()
    );
}

#[test]
fn report_and_replay_of_a_run_without_screenshots_say_so() {
    let (tmp, dir) = a_run(&["--log-images", "none"]);
    let html = tmp.path().join("report.html");
    let html = common::report(&dir, &html);
    assert_eq!(
        html.matches("no screenshot kept for this turn").count(),
        3,
        "{html}"
    );
    assert!(!html.contains("is missing"), "{html}");
    let out = common::franz(&["replay", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("turn 3:"), "{stdout}");
    assert!(
        stdout.contains("note: 3 of 3 turns kept no screenshot"),
        "{stdout}"
    );
    let out = common::franz(&[
        "export",
        dir.to_str().unwrap(),
        "--format",
        "jsonl",
        "--out",
        tmp.path().join("export").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("kept no screenshot"), "{stderr}");
}

#[test]
fn a_bad_log_images_value_says_which_are_valid() {
    let out = common::franz(&["run", "--log-images", "some", "task"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("none, annotated, all"), "{err}");
}

#[test]
fn a_300_turn_soak_keeps_the_request_size_constant_rss_flat_and_disk_per_turn_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_franz"))
        // a small screen: an allocator keeping or returning one frame-sized buffer is a step
        // of several percent of a 640x480 run's RSS, which is no growth; a leak per turn is
        // the same at any size
        .args(["--sandbox=320x240", "bench", "soak", "--turns", "300"])
        .arg("--dir")
        .arg(tmp.path())
        .env_remove("FRANZ_LOG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("soak: 300 turns"), "{stdout}");
    let rss = stdout
        .lines()
        .find(|l| l.starts_with("RSS (turn:KiB)"))
        .unwrap();
    // every 15 turns: 20 samples
    assert_eq!(rss.split_whitespace().count() - 2, 20, "{stdout}");
    // the last reading against the settled one (a tenth of a soak this short), as
    // `bench soak --turns 10000` compares turn 10,000's with turn 1,000's (README)
    assert!(
        stdout.lines().any(|l| l.starts_with("RSS: ")
            && l.contains("at turn 300, ")
            && l.ends_with(": within 10%")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("disk: ") && l.ends_with(": bounded")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("request size per turn") && l.ends_with(": constant")),
        "{stdout}"
    );
    assert!(stdout.contains("disk use: "), "{stdout}");
}
