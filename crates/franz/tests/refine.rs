//! Zoom-in refinement end to end (docs/refine.md): on a 1920x1080 sandbox whose witness window
//! logs where each click lands, a 10-pixel black square is the target (drawn into every
//! screenshot by `--mask-regions`, the crop's too). The scripted model finds the square in the
//! image it is sent: on the whole screen it answers 30 screen pixels off, on a crop exactly.
//! Only with `--refine zoom` does the click land on the square; a garbage reply to the crop
//! keeps the first point, and the `refined` event says so.

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::model::responder::{self, Intent, Style};
use franz_core::model::{RecordedRequest, Script, ScriptedReply, ScriptedServer};
use franz_desktop::PixelRect;
use franz_desktop::witness::{Witness, WitnessKind};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

const SCREEN: (u32, u32) = (1920, 1080);
/// The target, in 0..1000 of the screen: about 10x10 pixels at (1344, 648).
const TARGET: &str = "700,600,705,609";
/// How far off the model's point on the whole screen is, in screen pixels on each axis.
const OFF: f64 = 30.0;

/// The target's pixels on the screen.
fn target() -> PixelRect {
    let crop: franz_core::Crop = TARGET.parse().unwrap();
    crop.work_area(PixelRect::new(0, 0, SCREEN.0, SCREEN.1))
        .unwrap()
        .rect
}

/// The black square's centre in the last image `request` carries, and the image's size.
fn find_square(request: &Value) -> Option<((f64, f64), (u32, u32))> {
    let url = request["messages"]
        .as_array()?
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter_map(|p| p["image_url"]["url"].as_str())
        .next_back()?;
    let png = common::data_url_pngs(url).pop()?;
    let img = image::load_from_memory(&png).ok()?.to_rgba8();
    let black: Vec<(u32, u32)> = img
        .enumerate_pixels()
        .filter(|(_, _, p)| p.0[..3] == [0, 0, 0])
        .map(|(x, y, _)| (x, y))
        .collect();
    let (n, sx, sy) = black.iter().fold((0.0, 0.0, 0.0), |(n, sx, sy), (x, y)| {
        (n + 1.0, sx + *x as f64 + 0.5, sy + *y as f64 + 0.5)
    });
    (n > 0.0).then(|| ((sx / n, sy / n), img.dimensions()))
}

/// The scripted model: on the first whole screen a click `OFF` screen pixels right of and
/// below the square, on a crop a click on it (or `crop_reply`, when given), on a later whole
/// screen the finish.
fn model(crop_reply: Option<&'static str>) -> Script {
    let full: Mutex<Option<(u32, u32)>> = Mutex::new(None);
    Script::func(move |req: &RecordedRequest| {
        let Some(body) = req.json.as_ref() else {
            return ScriptedReply::text("(not JSON)").into();
        };
        let Some(((cx, cy), (w, h))) = find_square(body) else {
            return ScriptedReply::text("I see no target.").into();
        };
        let mut full = full.lock().unwrap();
        let click = |x: f64, y: f64| Intent::Click {
            fx: x / w as f64,
            fy: y / h as f64,
        };
        let intent = match *full {
            None => {
                *full = Some((w, h));
                let off = OFF * w as f64 / SCREEN.0 as f64;
                click(cx + off, cy + off)
            }
            Some(size) if size == (w, h) => Intent::Finish("clicked the square".into()),
            Some(_) => match crop_reply {
                Some(text) => return ScriptedReply::text(text).into(),
                None => click(cx, cy),
            },
        };
        responder::answer(body, &intent, Style::Asked).into()
    })
}

struct Ran {
    press: Option<franz_desktop::PixelPoint>,
    events: Vec<Value>,
    requests: usize,
}

/// A run of the default model (a Qwen3-VL, as users start franz) with `extra` flags.
fn run(display: &str, witness: &Witness, script: Script, extra: &[&str]) -> Ran {
    let server = ScriptedServer::start(script).unwrap();
    let dir = tempfile::tempdir().unwrap();
    witness.clear();
    let mut cmd = common::franz_run(&server.url(), dir.path());
    let out = common::no_franz_env(&mut cmd)
        .env("DISPLAY", display)
        .arg("Click the small black square.")
        .args(["--motion", "fast", "--max-steps", "4", "--no-cursor"])
        .args(["--no-feedback", "--mask-regions", TARGET])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, seen) = witness.wait_for(
        |e| e.iter().any(|e| e.is(WitnessKind::ButtonPress)),
        Duration::from_secs(5),
    );
    Ran {
        press: seen
            .iter()
            .find(|e| e.is(WitnessKind::ButtonPress))
            .map(|e| e.at),
        events: common::run_events(dir.path()),
        requests: server.request_count(),
    }
}

fn refined(events: &[Value]) -> Vec<&Value> {
    events.iter().filter(|e| e["event"] == "refined").collect()
}

fn on_target(p: Option<franz_desktop::PixelPoint>) -> bool {
    p.is_some_and(|p| target().contains(p))
}

#[test]
fn zoom_lands_a_click_on_a_10_pixel_target_that_the_first_point_misses() {
    let (sb, witness) = common::sandbox(SCREEN.0, SCREEN.1);
    let t = target();
    assert!(
        (9..=11).contains(&t.width) && (9..=11).contains(&t.height),
        "{t:?}"
    );

    let plain = run(sb.display(), &witness, model(None), &[]);
    assert!(
        !on_target(plain.press),
        "without refinement: {:?} in {t:?}",
        plain.press
    );
    assert!(refined(&plain.events).is_empty());

    let zoom = run(sb.display(), &witness, model(None), &["--refine", "zoom"]);
    assert!(
        on_target(zoom.press),
        "refined: {:?} not in {t:?}",
        zoom.press
    );
    // one extra request: the crop's
    assert_eq!(zoom.requests, plain.requests + 1);
    let r = refined(&zoom.events);
    assert_eq!(r.len(), 1, "{r:?}");
    let (from, to) = (&r[0]["from"], &r[0]["to"]);
    let press = zoom.press.unwrap();
    assert_eq!(
        (to[0].as_i64(), to[1].as_i64()),
        (Some(press.x as i64), Some(press.y as i64))
    );
    assert_eq!(
        (from[0].as_i64(), from[1].as_i64()),
        plain
            .press
            .map(|p| (Some(p.x as i64), Some(p.y as i64)))
            .unwrap()
    );
    let d = r[0]["distance"].as_f64().unwrap();
    assert!((35.0..50.0).contains(&d), "30 px off on each axis: {d}");
    let crop = &r[0]["crop"];
    assert_eq!(
        (crop["width"].as_u64(), crop["height"].as_u64()),
        (Some(640), Some(360))
    );
    assert!(r[0].get("error").is_none());
}

#[test]
fn a_garbage_reply_to_the_crop_keeps_the_first_point_and_says_so() {
    let (sb, witness) = common::sandbox(SCREEN.0, SCREEN.1);
    let garbage = "<tool_call>{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [x, y]}}</tool_call>";
    let ran = run(
        sb.display(),
        &witness,
        model(Some(garbage)),
        &["--refine", "zoom"],
    );
    let r = refined(&ran.events);
    assert_eq!(r.len(), 1, "{r:?}");
    let error = r[0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("kept the first point"), "{error}");
    assert_eq!(r[0]["from"], r[0]["to"]);
    let press = ran.press.expect("the first point is clicked");
    assert_eq!(r[0]["from"], serde_json::json!([press.x, press.y]));
    assert!(!on_target(ran.press));
}
