//! An end-to-end run per model family: the scripted model answers in the family's
//! own grammar and coordinate space, on a 1366x768 sandbox with a crop, and the witness window
//! sees every click on its exact target pixel (one click per turn, two turns). The targets are computed here, from the
//! formulas in docs/coordinates.md, for the image size `franz profiles show` names; the
//! points are chosen where franz's own rule and the families' rule land on different pixels.

#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer, ServerOptions};
use franz_desktop::PixelPoint;
use franz_desktop::witness::{WitnessEvent, WitnessKind as K};
use serde_json::{Value, json};
use std::process::Output;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);
const CROP: &str = "100,50,900,950";

fn franz(display: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    if let Some(d) = display {
        cmd.env("DISPLAY", d);
    }
    cmd.args(args).output().unwrap()
}

fn presses(ev: &[WitnessEvent]) -> Vec<PixelPoint> {
    ev.iter()
        .filter(|e| e.is(K::ButtonPress))
        .map(|e| e.at)
        .collect()
}

/// `P0 + min(L - 1, round(v * L / S))`, half-up, in integers.
fn exact(v: u64, s: u64, p0: i64, l: u64) -> i32 {
    (p0 + ((2 * v * l + s) / (2 * s)).min(l - 1) as i64) as i32
}

/// franz's rule: `P0 + round(n * (L - 1) / 1000)`.
fn franz_rule(n: u64, p0: i64, l: u64) -> i32 {
    (p0 + ((2 * n * (l - 1) + 1000) / 2000) as i64) as i32
}

/// The image the profile sends and the working area, from `franz profiles show`.
fn shown(profile: &str) -> ((u64, u64), [i64; 4]) {
    let out = franz(
        None,
        &[
            "profiles", "show", profile, "--screen", "1366x768", "--crop", CROP,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let wa = &v["work_area"];
    (
        (
            v["image"]["width"].as_u64().unwrap(),
            v["image"]["height"].as_u64().unwrap(),
        ),
        [&wa["x"], &wa["y"], &wa["width"], &wa["height"]].map(|x| x.as_i64().unwrap()),
    )
}

/// How a family writes a click at (x, y), and its space (`None`: pixels of the image).
struct Family {
    selector: [&'static str; 2],
    profile: &'static str,
    space: Option<u64>,
    franz: bool,
    /// One click at (x, y) in the family's grammar.
    reply: fn((u64, u64)) -> String,
}

fn uitars((x, y): (u64, u64)) -> String {
    format!("Thought: a click\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')")
}

fn qwen((x, y): (u64, u64)) -> String {
    let call = json!({"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}});
    format!("<tool_call>\n{call}\n</tool_call>")
}

fn pyautogui((x, y): (u64, u64)) -> String {
    format!("```python\npyautogui.click(x={x}, y={y})\n```")
}

fn calls((x, y): (u64, u64)) -> String {
    format!("left_click({x}, {y})")
}

fn openai((x, y): (u64, u64)) -> String {
    json!({"type": "click", "button": "left", "x": x, "y": y}).to_string()
}

fn anthropic((x, y): (u64, u64)) -> String {
    json!({"action": "left_click", "coordinate": [x, y]}).to_string()
}

const FAMILIES: &[Family] = &[
    Family {
        selector: ["--model", "ui-tars-1.5-7b"],
        profile: "ui-tars-1.5",
        space: None,
        franz: false,
        reply: uitars,
    },
    Family {
        selector: ["--model", "qwen2.5-vl-7b-instruct@q4_k_m"],
        profile: "qwen2.5-vl",
        space: None,
        franz: false,
        reply: qwen,
    },
    Family {
        selector: ["--model", "Qwen3-VL-8B-Instruct-GGUF"],
        profile: "qwen3-vl",
        space: Some(1000),
        franz: false,
        reply: qwen,
    },
    Family {
        selector: ["--profile", "glm-4.5v"],
        profile: "glm-4.5v",
        space: Some(1000),
        franz: false,
        reply: calls,
    },
    Family {
        selector: ["--profile", "openai-computer"],
        profile: "openai-computer",
        space: None,
        franz: false,
        reply: openai,
    },
    Family {
        selector: ["--profile", "anthropic-computer"],
        profile: "anthropic-computer",
        space: None,
        franz: false,
        reply: anthropic,
    },
    Family {
        selector: ["--profile", "pyautogui"],
        profile: "pyautogui",
        space: None,
        franz: false,
        reply: pyautogui,
    },
    Family {
        selector: ["--model", "some-other-model"],
        profile: "franz",
        space: Some(1000),
        franz: true,
        reply: calls,
    },
];

#[test]
fn every_family_clicks_its_exact_pixels_on_a_cropped_sandbox() {
    let (sb, witness) = sandbox(1366, 768);
    for f in FAMILIES {
        let (image, area) = shown(f.profile);
        let (sw, sh) = f.space.map_or(image, |s| (s, s));
        // near the far end and at a third: where the rules differ by a pixel
        let points = [(sw * 997 / 1000, sh / 3), (sw / 7, sh * 991 / 1000)];
        let want: Vec<PixelPoint> = points
            .iter()
            .map(|&(x, y)| {
                let (l, h) = (area[2] as u64, area[3] as u64);
                if f.franz {
                    PixelPoint::new(franz_rule(x, area[0], l), franz_rule(y, area[1], h))
                } else {
                    PixelPoint::new(exact(x, sw, area[0], l), exact(y, sh, area[1], h))
                }
            })
            .collect();
        if !f.franz {
            // the test tells the rules apart: through integer 0..1000 and franz's rule, at
            // least one click would land elsewhere
            let old: Vec<PixelPoint> = points
                .iter()
                .map(|&(x, y)| {
                    let n = |v: u64, s: u64| (2 * v * 1000 + s) / (2 * s);
                    PixelPoint::new(
                        franz_rule(n(x, sw), area[0], area[2] as u64),
                        franz_rule(n(y, sh), area[1], area[3] as u64),
                    )
                })
                .collect();
            assert_ne!(
                old, want,
                "{}: pick points where the rules differ",
                f.profile
            );
        }
        // the narrative strategy performs one action per turn: one click per reply
        let server = ScriptedServer::start(Script::list(
            points.map(|p| ScriptedReply::text((f.reply)(p))),
        ))
        .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let runs = tmp.path().join("runs");
        let url = server.url();
        witness.clear();
        let mut args = common::run_args(&url, &runs).to_vec();
        args.extend([
            "click twice",
            "--crop",
            CROP,
            "--motion",
            "fast",
            "--max-steps",
            "2",
        ]);
        args.extend_from_slice(&f.selector);
        let out = franz(Some(sb.display()), &args);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            stderr.contains(&format!("franz: profile {} (", f.profile)),
            "{}: {stderr}",
            f.profile
        );
        let (ok, ev) = witness.wait_for(|e| presses(e).len() >= 2, T);
        assert!(ok, "{}: {ev:?}\n{stderr}", f.profile);
        assert_eq!(presses(&ev), want, "{} {image:?} {area:?}", f.profile);
        // the model was sent the profile's image size
        let posts: Vec<_> = server
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST")
            .collect();
        assert!(!posts.is_empty());
        assert_eq!(png_size(&posts[0].body), Some(image), "{}", f.profile);
    }
}

/// The size of the first PNG data URL in a request body.
fn png_size(body: &str) -> Option<(u64, u64)> {
    let start = body.find("data:image/png;base64,")? + "data:image/png;base64,".len();
    let b64: String = body[start..].chars().take(64).collect();
    let bytes = decode_b64(&b64);
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as u64;
    (bytes.len() >= 24).then(|| (be(&bytes[16..20]), be(&bytes[20..24])))
}

fn decode_b64(s: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let vals: Vec<u32> = s
        .bytes()
        .map_while(|c| A.iter().position(|&a| a == c).map(|p| p as u32))
        .collect();
    vals.chunks(4)
        .filter(|c| c.len() == 4)
        .flat_map(|c| {
            let n = c[0] << 18 | c[1] << 12 | c[2] << 6 | c[3];
            [(n >> 16) as u8, (n >> 8) as u8, n as u8]
        })
        .collect()
}

#[test]
fn act_reads_a_familys_reply_as_the_model_meant_it() {
    let (sb, witness) = sandbox(1366, 768);
    let (image, area) = shown("ui-tars-1.5");
    let (x, y) = (image.0 - 3, image.1 / 3);
    let out = franz(
        Some(sb.display()),
        &[
            "--crop",
            CROP,
            "--profile",
            "ui-tars-1.5",
            "act",
            "--motion",
            "fast",
            &format!("Action: click(start_box='({x},{y})')"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok, "{ev:?}");
    let want = PixelPoint::new(
        exact(x, image.0, area[0], area[2] as u64),
        exact(y, image.1, area[1], area[3] as u64),
    );
    assert_eq!(presses(&ev), [want]);
}

#[test]
fn with_no_model_named_auto_picks_the_profile_by_the_one_model_the_server_lists() {
    let (sb, witness) = sandbox(1366, 768);
    let (image, area) = shown("ui-tars-1.5");
    let (x, y) = (image.0 * 997 / 1000, image.1 / 3);
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let run = |server: &ScriptedServer| {
        let url = server.url();
        let args = [
            &common::run_args(&url, &runs)[..],
            &[
                "click once",
                "--crop",
                CROP,
                "--motion",
                "fast",
                "--max-steps",
                "1",
            ],
        ]
        .concat();
        let out = franz(Some(sb.display()), &args);
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let options = |models: &[&str]| ServerOptions {
        models: models.iter().map(|m| m.to_string()).collect(),
        ..ServerOptions::default()
    };
    let server = ScriptedServer::start_with(
        Script::list([ScriptedReply::text(uitars((x, y)))]),
        options(&["ui-tars-1.5-7b"]),
    )
    .unwrap();
    let stderr = run(&server);
    assert!(
        stderr.contains(
            "franz: profile ui-tars-1.5 (auto: the server reports \"ui-tars-1.5-7b\", which matches \"ui-tars-1.5\")"
        ),
        "{stderr}"
    );
    // the default name is not served: the run asks for the one model listed, and says so
    assert!(
        stderr.contains("franz: model ui-tars-1.5-7b (the only model the server lists"),
        "{stderr}"
    );
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok, "{ev:?}\n{stderr}");
    let want = PixelPoint::new(
        exact(x, image.0, area[0], area[2] as u64),
        exact(y, image.1, area[1], area[3] as u64),
    );
    assert_eq!(presses(&ev), [want]);
    // the model list was a probe: the model calls are the only requests
    let requests = server.requests();
    assert!(requests.iter().all(|r| r.method == "POST"), "{requests:?}");
    assert_eq!(
        requests[0].json.as_ref().unwrap()["model"],
        "ui-tars-1.5-7b"
    );
    // one GET /v1/models answers both the profile and the context length
    let listed = server
        .probes()
        .iter()
        .filter(|p| p.path.ends_with("/v1/models"))
        .count();
    assert_eq!(listed, 1, "{:?}", server.probes());

    // two models, the default among them: the default name, franz's own profile
    witness.clear();
    let server = ScriptedServer::start_with(
        Script::list([ScriptedReply::text("left_click(500, 500)")]),
        options(&["qwen3-vl-8b-instruct", "ui-tars-1.5-7b"]),
    )
    .unwrap();
    let stderr = run(&server);
    assert!(stderr.contains("franz: profile franz ("), "{stderr}");
    assert!(!stderr.contains("franz: model "), "{stderr}");
    let (ok, _) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok, "{stderr}");
    assert_eq!(
        server.requests()[0].json.as_ref().unwrap()["model"],
        "qwen3-vl-8b-instruct"
    );
}
