//! The schema of `turns.jsonl` (the record keys of docs/events.md): two records per turn, `stage`
//! raw then annotated; `actions` in canonical Action JSON; the narrative's story under
//! `observation`; image names that point at PNG files in the run directory.

use franz_core::action::{Action, ActionKind, ActionResult};
use franz_core::geometry::NormBox;
use franz_core::observe::{ImageFormat, RgbaImage, encode_image};
use franz_core::runlog::{Layout, RunWriter, TURNS_FILE, TurnEntry, TurnImage, TurnTimings};
use serde_json::Value;
use std::collections::BTreeSet;

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

fn write_run(layout: Layout) -> (tempfile::TempDir, std::path::PathBuf, Vec<Vec<Action>>) {
    let root = tempfile::tempdir().unwrap();
    let mut w = RunWriter::create(root.path(), layout).unwrap();
    let per_turn: Vec<Vec<Action>> = vec![
        vec![
            ActionKind::Click {
                x: Some(500),
                y: Some(300),
            }
            .into(),
            Action {
                kind: ActionKind::Type {
                    text: "héllo".into(),
                },
                note: Some("the search box".into()),
                exact: None,
                element: None,
                clamped: None,
                read_in: None,
                element_at: None,
                target: None,
            },
        ],
        vec![
            ActionKind::Drag {
                x: None,
                y: None,
                x2: 10,
                y2: 20,
            }
            .into(),
        ],
        vec![],
    ];
    for (i, actions) in per_turn.iter().enumerate() {
        let turn = i as u32 + 1;
        let img = RgbaImage {
            width: 8,
            height: 6,
            data: [turn as u8 * 40, 90, 30, 255].repeat(48),
        };
        let png = encode_image(&img, ImageFormat::Png).unwrap();
        w.write_turn(
            TurnEntry {
                turn,
                story: format!("Story so far, chapter {turn}."),
                bboxes: vec![NormBox::from_corners(10, 20, 30, 40)],
                actions: actions.clone(),
                results: actions.iter().map(|_| ActionResult::ok()).collect(),
                timings: TurnTimings {
                    model_ms: Some(10.0),
                    ..Default::default()
                },
                error: None,
            },
            TurnImage::Rgba(img),
            Some(TurnImage::Png(png)),
        )
        .unwrap();
    }
    let dir = w.dir().to_path_buf();
    w.close().unwrap();
    (root, dir, per_turn)
}

fn check(layout: Layout) {
    let (_root, dir, per_turn) = write_run(layout);
    let text = std::fs::read_to_string(dir.join(TURNS_FILE)).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2 * per_turn.len());
    for (i, pair) in lines.chunks(2).enumerate() {
        let (raw, ann) = (&pair[0], &pair[1]);
        let turn = i as u64 + 1;
        assert_eq!(raw["stage"], "raw");
        assert_eq!(raw["turn"], turn);
        let want: BTreeSet<&str> = [
            "turn",
            "stage",
            "t_ms",
            "observation",
            "bboxes",
            "actions",
            "results",
            "timings",
            "raw_png",
        ]
        .into();
        assert_eq!(keys(raw), want, "{raw}");
        assert_eq!(raw["observation"], format!("Story so far, chapter {turn}."));
        assert_eq!(
            raw["bboxes"],
            serde_json::json!([{"x1":10,"y1":20,"x2":30,"y2":40}])
        );
        // canonical Action JSON: each reads back through Action::from_json to the same value
        let actions = raw["actions"].as_array().unwrap();
        assert_eq!(actions.len(), per_turn[i].len());
        for (a, want) in actions.iter().zip(&per_turn[i]) {
            let parsed = Action::from_json(&a.to_string()).unwrap();
            assert_eq!(&parsed, want);
            assert_eq!(serde_json::to_value(&parsed).unwrap(), *a);
        }
        assert_eq!(raw["results"].as_array().unwrap().len(), actions.len());
        assert_eq!(raw["timings"]["model_ms"], 10.0);
        assert_eq!(ann["stage"], "annotated");
        assert_eq!(ann["turn"], turn);
        assert_eq!(keys(ann), ["annotated_png", "stage", "turn"].into());
        for name in [&raw["raw_png"], &ann["annotated_png"]] {
            let path = dir.join(name.as_str().unwrap());
            let img = image::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!((img.width(), img.height()), (8, 6));
        }
    }
    if layout == Layout::Flat {
        assert_eq!(lines[0]["raw_png"], "turn_0001_raw.png");
        assert_eq!(lines[1]["annotated_png"], "turn_0001_annotated.png");
    } else {
        assert_eq!(lines[0]["raw_png"], "turn_0001/screenshot_raw.png");
    }
    assert_eq!(
        lines[2]["actions"][0],
        serde_json::json!({"type":"drag","x2":10,"y2":20})
    );
    assert_eq!(lines[0]["actions"][1]["note"], "the search box");
}

#[test]
fn flat_layout_records_follow_seed_000() {
    check(Layout::Flat);
}

#[test]
fn turn_dirs_layout_records_follow_seed_000() {
    check(Layout::TurnDirs);
}
