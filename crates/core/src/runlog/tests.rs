//! Unit tests of the run-directory writer and reader.

use super::*;
use crate::action::{ActionKind, ActionResult};
use crate::observe::RgbaImage;

fn tiny_png(shade: u8) -> TurnImage {
    TurnImage::Rgba(RgbaImage {
        width: 4,
        height: 3,
        data: [shade, 0, 255 - shade, 255].repeat(12),
    })
}

fn entry(turn: u32) -> TurnEntry {
    TurnEntry {
        turn,
        story: format!("story {turn}"),
        actions: vec![
            ActionKind::Click {
                x: Some(1),
                y: Some(2),
            }
            .into(),
        ],
        results: vec![ActionResult::ok()],
        ..Default::default()
    }
}

#[test]
fn run_dirs_are_numbered_past_the_highest() {
    let root = tempfile::tempdir().unwrap();
    assert!(
        create_next_run_dir(root.path())
            .unwrap()
            .ends_with("run_0001")
    );
    std::fs::create_dir(root.path().join("run_0007")).unwrap();
    std::fs::create_dir(root.path().join("other")).unwrap();
    assert!(
        create_next_run_dir(root.path())
            .unwrap()
            .ends_with("run_0008")
    );
    let w = RunWriter::create(root.path(), Layout::Flat).unwrap();
    assert!(w.dir().ends_with("run_0009"));
}

#[test]
fn flat_layout_writes_and_reads_back() {
    let root = tempfile::tempdir().unwrap();
    let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
    for t in 1..=2 {
        w.write_turn(entry(t), tiny_png(10), Some(tiny_png(200)))
            .unwrap();
    }
    let dir = w.dir().to_path_buf();
    w.close().unwrap();
    for f in ["turn_0001_raw.png", "turn_0002_annotated.png", TURNS_FILE] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let png = image::open(dir.join("turn_0002_annotated.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(png.get_pixel(0, 0).0, [200, 0, 55, 255]);
    let log = read_run(&dir).unwrap();
    assert_eq!(log.turns.len(), 2);
    assert_eq!(log.turns[1].raw.story, "story 2");
    assert_eq!(log.turns[1].shown_png(), Some("turn_0002_annotated.png"));
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
}

#[test]
fn turn_dirs_layout_and_missing_annotation() {
    let root = tempfile::tempdir().unwrap();
    let mut w = RunWriter::create(root.path(), Layout::TurnDirs).unwrap();
    w.submit_images(1, tiny_png(1), None).unwrap();
    w.finish_turn(entry(1)).unwrap();
    assert!(w.dir().join("turn_0001/screenshot_raw.png").is_file());
    let log = read_run(w.dir()).unwrap();
    // feedback off: the annotated record names the raw image
    assert_eq!(
        log.turns[0].shown_png(),
        Some("turn_0001/screenshot_raw.png")
    );
    assert!(matches!(
        w.finish_turn(entry(2)),
        Err(RunLogError::NoImages(2))
    ));
}

#[test]
fn config_snapshot_masks_secrets() {
    #[derive(serde::Serialize)]
    struct Model {
        endpoint: String,
        api_key: String,
    }
    #[derive(serde::Serialize)]
    struct Cfg {
        steps: u32,
        panel_token: String,
        empty_password: String,
        model: Model,
    }
    let root = tempfile::tempdir().unwrap();
    let w = RunWriter::create(root.path(), Layout::Flat).unwrap();
    w.write_config(&Cfg {
        steps: 5,
        panel_token: "abc".into(),
        empty_password: String::new(),
        model: Model {
            endpoint: "http://x".into(),
            api_key: "sk-secret".into(),
        },
    })
    .unwrap();
    let text = std::fs::read_to_string(w.dir().join(CONFIG_FILE)).unwrap();
    assert!(
        !text.contains("sk-secret") && !text.contains("abc"),
        "{text}"
    );
    assert!(text.contains("api_key = \"***\""), "{text}");
    assert!(text.contains("endpoint = \"http://x\""), "{text}");
    assert!(text.contains("empty_password = \"\""), "{text}");
}

#[test]
fn torn_last_line_is_skipped_with_a_warning() {
    let root = tempfile::tempdir().unwrap();
    let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
    w.write_turn(entry(1), tiny_png(1), None).unwrap();
    w.event(&Event::now(1, EventKind::TurnStarted {})).unwrap();
    let dir = w.dir().to_path_buf();
    drop(w);
    let mut f = OpenOptions::new()
        .append(true)
        .open(dir.join(TURNS_FILE))
        .unwrap();
    f.write_all(br#"{"stage":"raw","turn":2,"observ"#).unwrap();
    let log = read_run(&dir).unwrap();
    assert_eq!(log.turns.len(), 1);
    assert_eq!(log.events.len(), 1);
    assert_eq!(log.warnings.len(), 1);
    assert!(log.warnings[0].contains("torn"), "{:?}", log.warnings);
    // a bad line in the middle is reported differently
    f.write_all(b"\n").unwrap();
    let log = read_run(&dir).unwrap();
    assert!(
        log.warnings[0].contains("line 3 is not a valid record"),
        "{:?}",
        log.warnings
    );
    assert!(matches!(
        read_run(root.path()),
        Err(RunLogError::NotARun(_))
    ));
}

#[test]
fn exchange_events_and_log_file_append() {
    let root = tempfile::tempdir().unwrap();
    let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
    w.exchange(&serde_json::json!({"request": {"image": {"sha256": "ab", "len": 3}}}))
        .unwrap();
    w.event(&Event::now(0, EventKind::Note { text: "hi".into() }))
        .unwrap();
    let mut log = w.log_file().unwrap();
    let mut log2 = log.clone();
    writeln!(log, "one").unwrap();
    writeln!(log2, "two").unwrap();
    let dir = w.dir().to_path_buf();
    w.close().unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join(LOG_FILE)).unwrap(),
        "one\ntwo\n"
    );
    let (ex, warn) = read_jsonl::<serde_json::Value>(&dir.join(EXCHANGE_FILE)).unwrap();
    assert_eq!((ex.len(), warn.len()), (1, 0));
    assert_eq!(ex[0]["request"]["image"]["len"], 3);
    assert_eq!(read_run(&dir).unwrap().events[0].name(), "note");
}

#[test]
fn the_screen_size_reads_back_and_older_runs_without_it_still_read() {
    let root = tempfile::tempdir().unwrap();
    let mut w = RunWriter::create(root.path(), Layout::Flat).unwrap();
    let dir = w.dir().to_path_buf();
    w.write_turn(entry(1), tiny_png(10), None).unwrap();
    // a run directory from before run.json
    let old = read_run(&dir).unwrap();
    assert_eq!(old.meta, None);
    assert!(old.warnings.is_empty(), "{:?}", old.warnings);
    let screen = crate::geometry::ImageSize::new(1280, 800);
    w.write_meta(&RunMeta {
        screen: Some(screen),
    })
    .unwrap();
    w.close().unwrap();
    let log = read_run(&dir).unwrap();
    assert_eq!(log.meta.and_then(|m| m.screen), Some(screen));
    std::fs::write(dir.join(META_FILE), "{not json").unwrap();
    let log = read_run(&dir).unwrap();
    assert_eq!(log.meta, None);
    assert!(log.warnings.iter().any(|w| w.contains("run.json")));
}
