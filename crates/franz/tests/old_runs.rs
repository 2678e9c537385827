//! Runs written by an earlier franz still open: `tests/fixtures/run_from_95bd331` is a real run
//! directory written by franz at commit 95bd331 (before the run log's and the engine's later changes: no
//! `run.json`, no `franz.log`, the vision strategy's boot reply clicking once and pressing
//! ctrl+s on a 240x160 sandbox). `report` (with its player), `export --format gif` and `replay`
//! must read it as they read a new one.

use crate::common;

use std::path::{Path, PathBuf};

fn old_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/run_from_95bd331")
}

#[test]
fn report_opens_a_run_written_by_the_previous_version() {
    let tmp = tempfile::tempdir().unwrap();
    let html = tmp.path().join("old.html");
    common::report(&old_run(), &html);
    let dom = common::chromium_dom(&html);
    assert_eq!(
        common::body_attr(&dom, "data-turns").as_deref(),
        Some("1"),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    assert!(dom.contains("A grey screen; I click its middle."));
    // the player shows its one frame, with the click drawn over it
    assert_eq!(common::body_attr(&dom, "data-frame").as_deref(), Some("1"));
    assert!(dom.contains("turn 1 (1 of 1)"), "{dom}");
    assert!(dom.contains("data-action=\"click\""), "{dom}");
}

#[test]
fn export_gif_animates_a_run_written_by_the_previous_version() {
    let tmp = tempfile::tempdir().unwrap();
    let gif = tmp.path().join("old.gif");
    let out = common::franz(&[
        "export",
        old_run().to_str().unwrap(),
        "--format",
        "gif",
        "--out",
        gif.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut d = gif::DecodeOptions::new()
        .read_info(std::fs::File::open(&gif).unwrap())
        .unwrap();
    assert_eq!(d.width(), 240, "the sandbox's 240x160 screenshot");
    let mut frames = 0;
    while d.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    assert_eq!(frames, 1);
}

#[test]
fn replay_opens_a_run_written_by_the_previous_version() {
    let out = common::franz(&["replay", old_run().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("turn 1: A grey screen; I click its middle."),
        "{stdout}"
    );
    assert!(stdout.contains("would click at (500, 500)"), "{stdout}");
    assert!(stdout.contains("would press ctrl+s"), "{stdout}");
}
