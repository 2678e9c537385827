//! Replies in another dialect than the run asks for, end to end (docs/actions.md, "Replies in
//! another dialect"): `franz run` with the model ids users type and no `--profile`, a scripted
//! model that answers in the designs' formats, and the witness window that logs where each click
//! lands. Under `qwen3-vl-8b-instruct` (qwen3-vl, 0..1000) the narrative's call lines and the
//! vision loop's JSON run where they mean, with a `note` and a reminder; under
//! `Qwen/Qwen2.5-VL-7B-Instruct` and `ui-tars-1.5-7b@q4_k_m` (pixels) the readings disagree and
//! nothing is clicked. `franz parse` with the same model id prints the same action.

#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox;
use franz_core::model::{Script, ScriptedReply, ScriptedServer};
use franz_desktop::PixelPoint;
use franz_desktop::witness::WitnessKind as K;
use serde_json::Value;
use std::process::Command;
use std::time::Duration;

const T: Duration = Duration::from_secs(20);
const CALLS: &str = "The OK button is in the middle.\nleft_click(499, 494)";
const VISION: &str = "{\"observation\": \"a dialog with an OK button\", \"bboxes\": [], \"actions\": [{\"name\": \"click\", \"x1\": 499, \"y1\": 494}]}";

/// What a run left: its exit code, stderr, events and the requests the model got.
struct Ran {
    code: Option<i32>,
    err: String,
    events: Vec<Value>,
    bodies: Vec<String>,
}

/// `franz run --model MODEL [ARGS] TASK` on `display`, the model answering `reply` every turn.
fn run(display: &str, model: &str, reply: &str, args: &[&str]) -> Ran {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(reply))).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let out = common::franz_run(&url, &runs)
        .args(["--model", model, "--motion", "fast", "--max-steps", "2"])
        .args(args)
        .arg("Click the OK button.")
        .env("DISPLAY", display)
        .output()
        .unwrap();
    let dir = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap();
    Ran {
        code: out.status.code(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
        events: common::events_in(&dir.path()),
        bodies: (server.requests().into_iter())
            .filter(|r| r.path.ends_with("/chat/completions"))
            .map(|r| r.body)
            .collect(),
    }
}

/// `franz parse --screen 640x400 [ARGS]` of `reply`, the model id in the environment.
fn parse(model: &str, reply: &str, args: &[&str]) -> Value {
    let out = common::output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_franz"))
            .args(["parse", "--screen", "640x400"])
            .args(args)
            .env("FRANZ_MODEL", model)
            .env_remove("FRANZ_LOG"),
        reply,
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// qwen3-vl maps 0..1000 by `round(v * L / 1000)`: (499, 494) on 640x400 is (319, 198).
const QWEN3_AT: PixelPoint = PixelPoint::new(319, 198);

#[test]
fn under_the_default_model_id_the_designs_formats_click_where_they_mean() {
    for (strategy, reply) in [("narrative", CALLS), ("vision", VISION)] {
        let (sb, w) = sandbox(640, 400);
        let ran = run(
            sb.display(),
            "qwen3-vl-8b-instruct",
            reply,
            &["--strategy", strategy],
        );
        let clicked = |e: &[franz_desktop::witness::WitnessEvent]| {
            e.iter().any(|e| e.is(K::ButtonPress) && e.at == QWEN3_AT)
        };
        let (ok, ev) = w.wait_for(clicked, T);
        assert!(
            ok,
            "{strategy}: no click at {QWEN3_AT:?}: {ev:?}\n{}",
            ran.err
        );
        assert!(ran.err.contains("qwen3-vl"), "{strategy}: {}", ran.err);
        let dialect = if strategy == "narrative" {
            "calls"
        } else {
            "json"
        };
        let noted = ran.events.iter().any(|e| {
            e["event"] == "note"
                && e["text"]
                    .as_str()
                    .is_some_and(|t| t.contains(&format!("read in the {dialect} dialect")))
        });
        assert!(noted, "{strategy}: {:?}", ran.events);
        assert!(
            ran.bodies[1].contains("answer in the asked format"),
            "{strategy}: the model was not reminded: {}",
            ran.bodies[1]
        );
        // franz parse reads it as the run did
        let v = parse("qwen3-vl-8b-instruct", reply, &["--strategy", strategy]);
        assert_eq!(
            v["actions"][0]["screen"],
            serde_json::json!([319, 198]),
            "{v}"
        );
        assert_eq!(v["actions"][0]["read_in"], dialect, "{v}");
    }
}

/// Under pixel profiles the designs' numbers (here inside the image, so that both readings are
/// points on the screen) mean another point: refused, and nothing is clicked.
#[test]
fn under_pixel_profiles_the_designs_formats_are_refused_with_both_readings() {
    let calls = CALLS.replace("499, 494", "300, 200");
    let vision = VISION.replace("499", "300").replace("494", "200");
    for (model, strategy, reply) in [
        ("Qwen/Qwen2.5-VL-7B-Instruct", "narrative", calls.as_str()),
        ("ui-tars-1.5-7b@q4_k_m", "vision", vision.as_str()),
    ] {
        let (sb, w) = sandbox(640, 400);
        let ran = run(sb.display(), model, reply, &["--strategy", strategy]);
        assert_ne!(ran.code, Some(0), "{model}: {}", ran.err);
        let told = ran.events.iter().find_map(|e| {
            let m = e["message"].as_str()?;
            m.contains("the readings disagree").then(|| m.to_string())
        });
        let told = told.unwrap_or_else(|| panic!("{model}: {:?}", ran.events));
        assert!(
            told.contains("--profile")
                && told.contains("--coords")
                && told.contains("read as 0..1000"),
            "{told}"
        );
        let v = parse(model, reply, &["--strategy", strategy]);
        assert_eq!(v["actions"], serde_json::json!([]), "{v}");
        // nothing was clicked: after franz exited, a click from outside is the first
        let sent = Command::new("xdotool")
            .args(["mousemove", "5", "5", "click", "1"])
            .env("DISPLAY", sb.display())
            .status()
            .unwrap();
        assert!(sent.success());
        let (ok, ev) = w.wait_for(|e| e.iter().any(|e| e.is(K::ButtonPress)), T);
        assert!(ok, "{ev:?}");
        let first = ev.iter().find(|e| e.is(K::ButtonPress)).unwrap();
        assert_eq!(
            first.at,
            PixelPoint::new(5, 5),
            "{model}: franz clicked: {ev:?}"
        );
    }
}
