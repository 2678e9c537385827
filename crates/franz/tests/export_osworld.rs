//! `franz export --format osworld` writes OSWorld's own trajectory: one `traj.jsonl` line per
//! action, the action as pyautogui code in screen pixels that franz's pyautogui reader
//! (`franz parse --dialect pyautogui --coords pixels`) reads back to the very pixels the run
//! acted on, and `result.txt` only from a checker's verdict: a run whose model said `done`
//! but that no checker judged writes none, and never `1` for a failed run.

use crate::common;

use franz_core::action::{Action, ActionResult};
use franz_core::event::{Event, EventKind, Outcome};
use franz_core::geometry::{Crop, ImageSize};
use franz_core::observe::{ImageFormat, encode_image};
use franz_core::runlog::{CheckerVerdict, Layout, RunMeta, RunWriter, TurnEntry, TurnImage};
use franz_desktop::PixelRect;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SCREEN: (u32, u32) = (1280, 800);
const CROP: &str = "100,50,900,950";

fn act(v: Value) -> Action {
    serde_json::from_value(v).unwrap()
}

/// The turns of the run: every kind of action with a point, typing and keys, then done.
fn turns() -> Vec<Vec<Action>> {
    vec![
        vec![
            act(json!({"type": "click", "x": 250, "y": 500})),
            act(json!({"type": "double_click", "x": 999, "y": 1})),
            act(json!({"type": "right_click", "x": 10, "y": 990})),
        ],
        vec![
            act(json!({"type": "move", "x": 333, "y": 667})),
            act(json!({"type": "drag", "x": 100, "y": 100, "x2": 900, "y2": 700})),
            act(json!({"type": "scroll", "x": 500, "y": 500, "direction": "down", "amount": 3})),
        ],
        vec![
            act(json!({"type": "type", "text": "it's a \"test\"\n"})),
            act(json!({"type": "key", "keys": "ctrl+s"})),
            act(json!({"type": "done", "text": "saved"})),
        ],
    ]
}

/// A run directory as `franz run` writes it: config.toml with the crop, run.json with the
/// screen, three turns with screenshots, and `run_finished` with `outcome`.
fn run_dir(root: &Path, outcome: Outcome) -> PathBuf {
    let mut w = RunWriter::create(root, Layout::Flat).unwrap();
    w.write_config(&json!({"crop": CROP, "motion": "fast"}))
        .unwrap();
    w.write_meta(&RunMeta {
        screen: Some(ImageSize::new(SCREEN.0, SCREEN.1)),
    })
    .unwrap();
    for (i, actions) in turns().into_iter().enumerate() {
        let turn = i as u32 + 1;
        let raw = common::screen(turn, 320, 200);
        let png = encode_image(&raw, ImageFormat::Png).unwrap();
        w.submit_images(turn, TurnImage::Rgba(raw), Some(TurnImage::Png(png)))
            .unwrap();
        let text = format!("reply of turn {turn}");
        w.event(&Event::now(
            turn,
            EventKind::ModelReply {
                ms: 1.0,
                text,
                story: None,
                actions: actions.clone(),
                bboxes: vec![],
                prompt_tokens: None,
                completion_tokens: None,
            },
        ))
        .unwrap();
        let results = actions.iter().map(|_| ActionResult::ok()).collect();
        w.finish_turn(TurnEntry {
            turn,
            story: format!("story {turn}"),
            bboxes: vec![],
            actions,
            results,
            timings: Default::default(),
            error: None,
        })
        .unwrap();
    }
    w.event(&Event::now(
        3,
        EventKind::RunFinished {
            outcome,
            exit_code: outcome.exit_code(),
            reason: "as scripted".into(),
            turns: 3,
        },
    ))
    .unwrap();
    let dir = w.dir().to_path_buf();
    w.close().unwrap();
    dir
}

fn export(dir: &Path, out: &Path) -> Vec<Value> {
    let e = common::franz(&[
        "export",
        dir.to_str().unwrap(),
        "--format",
        "osworld",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
    std::fs::read_to_string(out.join("traj.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What `franz parse` reads from pyautogui code in screen pixels: each pointer action's
/// screen pixels (and a drag's end).
fn parsed(code: &str) -> Value {
    let size = format!("{}x{}", SCREEN.0, SCREEN.1);
    let out = common::output_with_stdin(
        std::process::Command::new(env!("CARGO_BIN_EXE_franz")).args([
            "parse",
            "--dialect",
            "pyautogui",
            "--coords",
            "pixels",
            "--image-size",
            &size,
            "--screen",
            &size,
        ]),
        code,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn actions_are_pyautogui_code_read_back_to_the_same_screen_pixels() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = run_dir(&tmp.path().join("runs"), Outcome::Done);
    let lines = export(&dir, &tmp.path().join("osworld"));
    let actions: Vec<Action> = turns().into_iter().flatten().collect();
    assert_eq!(lines.len(), actions.len(), "one line per action");
    let area = CROP
        .parse::<Crop>()
        .unwrap()
        .work_area(PixelRect::new(0, 0, SCREEN.0, SCREEN.1))
        .unwrap();
    for (line, action) in lines.iter().zip(&actions) {
        let code = line["action"]
            .as_str()
            .expect("the action is a code string");
        let want = franz_core::policy::points(&action.kind, None, area, None);
        let got = parsed(code);
        assert!(
            got["errors"].as_array().unwrap().is_empty(),
            "{code}: {got}"
        );
        // every pixel the code acts on, in order (a drag is a move, then a drag from there)
        let mut pixels = Vec::new();
        for a in got["actions"].as_array().unwrap() {
            for key in ["screen", "screen_to"] {
                if let Some(p) = a.get(key) {
                    pixels.push((p[0].as_i64().unwrap(), p[1].as_i64().unwrap()));
                }
            }
        }
        let want: Vec<(i64, i64)> = want.iter().map(|p| (p.x.into(), p.y.into())).collect();
        assert_eq!(pixels.first(), want.first(), "{code}: {got}");
        assert_eq!(pixels.last(), want.last(), "{code}: {got}");
        assert!(line["step_num"].as_u64().unwrap() >= 1);
        assert!(line["action_timestamp"].as_str().unwrap().contains('@'));
    }
    let typed = parsed(lines[6]["action"].as_str().unwrap());
    assert_eq!(typed["actions"][0]["text"], "it's a \"test\"\n", "{typed}");
    assert_eq!(lines[8]["action"], "DONE");
    assert_eq!(lines[8]["done"], true);
    // each step's screenshot is the screen after it; none followed the last turn
    assert!(
        lines[0]["screenshot_file"]
            .as_str()
            .unwrap()
            .starts_with("step_1_")
    );
    assert!(lines[8]["screenshot_file"].is_null());
    // the model said done, but no checker judged the run: no result
    assert!(!tmp.path().join("osworld/result.txt").exists());
}

#[test]
fn result_txt_comes_from_a_checker_verdict_only() {
    let tmp = tempfile::tempdir().unwrap();
    // a failed run without a verdict: no result.txt, and never 1
    let failed = run_dir(&tmp.path().join("a"), Outcome::Failed);
    let out = tmp.path().join("failed");
    export(&failed, &out);
    assert!(!out.join("result.txt").exists());
    // a bench run: the checkers said no, whatever the model said
    let judged = run_dir(&tmp.path().join("b"), Outcome::Done);
    let verdict = |score: f64| CheckerVerdict {
        task: "t".into(),
        score,
        failures: vec![],
    };
    franz_core::runlog::write_verdict(&judged, &verdict(0.0)).unwrap();
    let out = tmp.path().join("judged");
    export(&judged, &out);
    assert_eq!(
        std::fs::read_to_string(out.join("result.txt")).unwrap(),
        "0.0\n"
    );
    franz_core::runlog::write_verdict(&judged, &verdict(1.0)).unwrap();
    export(&judged, &out);
    assert_eq!(
        std::fs::read_to_string(out.join("result.txt")).unwrap(),
        "1.0\n"
    );
}
