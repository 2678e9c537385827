//! `franz report` in a real browser: headless Chromium loads the HTML from disk (offline, no
//! server), the page's script decodes every inlined screenshot, and the dumped DOM must show
//! all N turns with N decoded images.

mod common;

use franz_core::event::{Event, EventKind, Outcome};
use franz_core::runlog::{Layout, RunWriter};

fn finished_run(root: &std::path::Path, turns: u32, layout: Layout) -> std::path::PathBuf {
    let mut w = RunWriter::create(root, layout).unwrap();
    w.event(&Event::now(
        0,
        EventKind::RunStarted {
            task: "fill in the form".into(),
            strategy: "vision".into(),
            model: "scripted".into(),
            run_dir: None,
            dry_run: false,
        },
    ))
    .unwrap();
    let (overlay, mut history) = common::overlay();
    for t in 1..=turns {
        common::write_turn(&mut w, &overlay, &mut history, t);
    }
    w.event(&Event::now(
        turns,
        EventKind::RunFinished {
            outcome: Outcome::Done,
            exit_code: 0,
            reason: "the model said done".into(),
            turns,
        },
    ))
    .unwrap();
    let dir = w.dir().to_path_buf();
    w.close().unwrap();
    dir
}

#[test]
fn report_shows_every_turn_and_every_image_decodes_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 5, Layout::Flat);
    assert!(dir.ends_with("run_0001"));
    let out = common::franz(&["report", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = dir.join("report.html");
    let dom = common::chromium_dom(&html);
    assert_eq!(
        common::body_attr(&dom, "data-turns").as_deref(),
        Some("5"),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    assert_eq!(common::body_attr(&dom, "data-images").as_deref(), Some("5"));
    assert_eq!(
        common::body_attr(&dom, "data-decoded").as_deref(),
        Some("5"),
        "images did not decode"
    );
    assert!(dom.contains("5 of 5 images decoded"));
    assert_eq!(dom.matches("class=\"turn\"").count(), 5);
    assert!(dom.contains("fill in the form") && dom.contains("done (exit 0)"));
    assert!(dom.contains("&lt;right&gt;"), "the story is escaped text");
}

#[test]
fn a_corrupt_screenshot_is_counted_as_not_decoded() {
    // the decode check can fail: garble one PNG's header and the page reports 1 of 2
    // (Chromium still shows a merely truncated PNG, partially)
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 2, Layout::TurnDirs);
    let png = dir.join("turn_0002/screenshot_annotated.png");
    let mut bytes = std::fs::read(&png).unwrap();
    bytes[..16].copy_from_slice(b"this is no PNG..");
    std::fs::write(&png, &bytes).unwrap();
    let html = tmp.path().join("r.html");
    let out = common::franz(&[
        "report",
        dir.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let dom = common::chromium_dom(&html);
    assert_eq!(common::body_attr(&dom, "data-images").as_deref(), Some("2"));
    assert_eq!(
        common::body_attr(&dom, "data-decoded").as_deref(),
        Some("1")
    );
}

#[test]
fn report_and_replay_refuse_a_folder_that_is_not_a_run() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    for args in [vec!["report", d], vec!["replay", d]] {
        let out = common::franz(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a run directory"));
    }
}

#[test]
fn replay_prints_turns_and_checks_its_range() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = finished_run(&tmp.path().join("runs"), 3, Layout::Flat);
    let d = dir.to_str().unwrap();
    let out = common::franz(&["replay", d, "--to", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("turn 1: Story after turn 1"), "{stdout}");
    assert!(stdout.contains("would click at (100, 500)"), "{stdout}");
    // a failed action is shown with what happened; `--execute` would not run it again
    assert!(
        stdout.contains("(was failed: no window) -> --execute skips it"),
        "{stdout}"
    );
    assert!(!stdout.contains("turn 3:"), "{stdout}");
    let out = common::franz(&["replay", d, "--from", "3", "--to", "1"]);
    assert_eq!(out.status.code(), Some(2));
    // `--execute` is covered by tests/replay_execute.rs
}
