//! End to end: the loop breaker in each of the four strategies, and the unchanged
//! frame that is not encoded again. The scripted model server repeats one click:
//! - on a static xmessage (the click changes nothing): the model is warned after 2 turns, the
//!   run stops after 5 with exit 1 and `loop_detected` events;
//! - on a witness window that repaints a click counter where it is clicked: never a loop.
//!
//! Synchronised on the process's end, never on sleeps.

#![cfg(target_os = "linux")]

use crate::common;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{RecordedRequest, Script, ScriptedServer, Step};
use franz_desktop::PixelRect;
use franz_desktop::sandbox::Sandbox;
use franz_desktop::witness::{Witness, WitnessKind};
use serde_json::{Value, json};
use std::time::Duration;

const STRATEGIES: [&str; 4] = ["narrative", "vision", "tools", "commander"];
const TIMEOUT: Duration = Duration::from_secs(20);

fn sandbox() -> Sandbox {
    common::xvfb(800, 600)
}

fn is_leader(req: &Value) -> bool {
    req["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "spawn_operator"))
}

/// The same click at (x, y) every turn, in the strategy's form.
fn clicking(strategy: &'static str, x: i32, y: i32) -> Script {
    Script::func(move |r: &RecordedRequest| {
        let req = r.json.clone().unwrap_or(Value::Null);
        let reply = match strategy {
            "narrative" => ScriptedReply::text(format!("click({x}, {y})\nI click the message.")),
            "vision" => ScriptedReply::text(
                json!({"observation": "a message", "bboxes": [],
                       "actions": [{"name": "click", "x1": x, "y1": y}]})
                .to_string(),
            ),
            "tools" => ScriptedReply::text("I click the message.")
                .tool_call("click_element", json!({"label": "message", "box": [x, y]})),
            _ if is_leader(&req) => ScriptedReply::text("").tool_call(
                "spawn_operator",
                json!({"operator_instructions": "click the message", "rationale": "one step"}),
            ),
            _ => ScriptedReply::text("OBJ: OBJ-1\nOBS: a message\nACT: click").tool_call(
                "click_element",
                json!({"justification": "as briefed", "label": "message", "position": [x, y]}),
            ),
        };
        Step::from(reply)
    })
}

struct Ran {
    code: Option<i32>,
    stderr: String,
    events: Vec<Value>,
    /// The model's requests (the commander's leader's left out), JSON.
    requests: Vec<Value>,
}

fn run(strategy: &'static str, display: &str, server: &ScriptedServer, extra: &[&str]) -> Ran {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let mut cmd = common::franz_run(&server.url(), &runs);
    common::no_franz_env(&mut cmd)
        .env("DISPLAY", display)
        .args([
            "--strategy",
            strategy,
            "--model",
            "scripted",
            "--motion",
            "fast",
        ]);
    cmd.args(extra).arg("click the message");
    let out = cmd.output().expect("run franz");
    let requests = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.json)
        .filter(|j| !is_leader(j))
        .collect();
    Ran {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        events: common::run_events(&runs),
        requests,
    }
}

fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

/// A sandbox with a static, many-line xmessage at +200+150: 158x108, its text (which takes
/// clicks: a caret, a selection) above y 230, its button left of x 241, and its bare form
/// around them, e.g. at (320, 245).
fn static_message() -> Sandbox {
    let mut sb = sandbox();
    sb.launch(
        "xmessage -geometry +200+150 \"$(printf 'a static message\\nthat never changes\\nwhatever\\nis clicked\\non its lines')\"",
    )
    .unwrap();
    assert!(sb.wait_for_windows(1, TIMEOUT), "xmessage never mapped");
    sb
}

#[test]
fn one_click_on_a_static_message_warns_after_2_and_stops_after_5_in_every_strategy() {
    let sb = static_message();
    // (320, 245) of 800x600: on the message's form, right of its button
    let (x, y) = (400, 408);
    for strategy in STRATEGIES {
        let server = ScriptedServer::start(clicking(strategy, x, y)).unwrap();
        let ran = run(strategy, sb.display(), &server, &["--max-steps", "15"]);
        let changes: Vec<String> = named(&ran.events, "observation")
            .iter()
            .map(|o| format!("{} {}", o["changed"], o["region"]))
            .collect();
        let why = format!("{strategy}: {}\nchanges: {changes:?}", ran.stderr);
        assert_eq!(ran.code, Some(1), "{why}");
        let loops = named(&ran.events, "loop_detected");
        assert!(!loops.is_empty(), "{why}");
        assert_eq!(loops[0]["repeats"], 2, "{why}");
        assert_eq!(loops[0]["stop"], false, "{why}");
        let last = loops.last().unwrap();
        assert_eq!(last["repeats"], 5, "{why}");
        assert_eq!(last["stop"], true, "{why}");
        assert!(last["action"].as_str().unwrap().contains("click"), "{why}");
        let finished = named(&ran.events, "run_finished")[0];
        let reason = finished["reason"].as_str().unwrap();
        assert!(reason.starts_with("loop: "), "{strategy}: {reason}");
        assert!(
            reason.contains("click") && reason.contains("turns "),
            "{reason}"
        );
        // the model was told after the warning, in the request that followed it
        let warned_turn = loops[0]["turn"].as_u64().unwrap() as usize;
        let told: Vec<usize> = ran
            .requests
            .iter()
            .enumerate()
            .filter(|(_, r)| r.to_string().contains("changed nothing on the screen"))
            .map(|(i, _)| i + 1)
            .collect();
        assert!(!told.is_empty(), "{why}");
        assert_eq!(
            told[0], warned_turn,
            "{strategy}: first told in request {} after the warning on turn {warned_turn}",
            told[0]
        );
    }
}

#[test]
fn the_same_click_on_a_counter_that_repaints_never_triggers_in_any_strategy() {
    let sb = sandbox();
    let witness = Witness::open_counter(sb.display(), PixelRect::new(0, 0, 800, 600)).unwrap();
    for strategy in STRATEGIES {
        witness.clear();
        let server = ScriptedServer::start(clicking(strategy, 500, 500)).unwrap();
        let ran = run(strategy, sb.display(), &server, &["--max-steps", "8"]);
        let why = format!("{strategy}: {}", ran.stderr);
        assert_eq!(ran.code, Some(1), "{why}");
        let finished = named(&ran.events, "run_finished")[0];
        let reason = finished["reason"].as_str().unwrap();
        assert!(reason.contains("--max-steps 8"), "{strategy}: {reason}");
        assert!(named(&ran.events, "loop_detected").is_empty(), "{why}");
        // the counter's repaint is where the click was: the observations' changed region
        let near = named(&ran.events, "observation").iter().any(|o| {
            let r = &o["region"];
            r.is_object()
                && r["x1"].as_i64().unwrap() <= 600
                && r["x2"].as_i64().unwrap() >= 400
                && r["y1"].as_i64().unwrap() <= 600
                && r["y2"].as_i64().unwrap() >= 400
        });
        assert!(near, "{strategy}: no changed region around the counter");
        let presses = witness
            .events()
            .iter()
            .filter(|e| e.is(WitnessKind::ButtonPress) && e.detail == 1)
            .count();
        assert!(
            presses >= 6,
            "{strategy}: {presses} clicks reached the counter"
        );
        assert!(
            ran.requests
                .iter()
                .all(|r| !r.to_string().contains("changed nothing on the screen")),
            "{why}"
        );
    }
}

/// The image data URLs of a request.
fn images(req: &Value) -> Vec<String> {
    let text = req.to_string();
    text.split("\"url\":\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|u| u.starts_with("data:image/"))
        .map(String::from)
        .collect()
}

#[test]
fn an_unchanged_screen_is_not_encoded_again_and_the_same_bytes_are_sent() {
    let sb = static_message();
    let server = ScriptedServer::start(clicking("narrative", 400, 408)).unwrap();
    let ran = run(
        "narrative",
        sb.display(),
        &server,
        &[
            "--max-steps",
            "4",
            "--no-feedback",
            "--loop-stop",
            "0",
            "--unchanged-note",
        ],
    );
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    let obs = named(&ran.events, "observation");
    assert_eq!(obs.len(), 4, "{}", ran.stderr);
    // turn 1 is the first frame; turn 2 has the pointer moved onto the message; from turn 3 on
    // the frame, the pointer and the (absent) overlay are as before
    assert_eq!(obs[0]["changed"], true);
    assert!(obs[0].get("reused").is_none(), "{}", obs[0]);
    for o in &obs[2..] {
        assert_eq!(o["reused"], true, "{o}");
        assert_eq!(o["changed"], false, "{o}");
        assert_eq!(o["timings"]["encode"], 0.0, "{o}");
        assert_eq!(o["timings"]["base64"], 0.0, "{o}");
    }
    assert_eq!(ran.requests.len(), 4);
    let sent: Vec<Vec<String>> = ran.requests.iter().map(images).collect();
    assert_eq!(sent[2].len(), 1);
    assert_eq!(
        sent[2], sent[1],
        "turn 3 sent other image bytes than turn 2"
    );
    assert_eq!(sent[3], sent[2]);
    assert_eq!(obs[3]["bytes"], obs[1]["bytes"]);
    // unchanged_note: the click of turn 1 changed nothing, and turn 2's request says so
    let said = |r: &Value| {
        r.to_string()
            .contains(franz_core::loop_breaker::UNCHANGED_NOTE)
    };
    assert!(!said(&ran.requests[0]));
    assert!(said(&ran.requests[1]), "{}", ran.requests[1]);
}

#[test]
fn bench_observe_reports_the_unchanged_frame_path_apart() {
    let stdout = common::bench_observe(&[]);
    // the bare root window does not change: every turn of the second pass is reused
    let line = stdout
        .lines()
        .find(|l| l.starts_with("unchanged frame (reused, not encoded): median "))
        .unwrap_or_else(|| panic!("no unchanged-frame line in:\n{stdout}"));
    assert!(line.ends_with("(3 of 3 turns)"), "{line}");
}
