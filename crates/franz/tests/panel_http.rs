//! `franz run --panel` over HTTP during scripted runs on a sandbox: the token, inject booting
//! a run, a wrong seq while the engine awaits an annotation, and pause/resume at turn
//! boundaries. Synchronised on SSE events and `/state`, never on sleeps.

use crate::common::panel;

use panel::{CLICK, PanelRun, repeat};
use serde_json::json;

#[test]
fn without_the_token_the_panel_answers_401() {
    let run = PanelRun::start(repeat(CLICK), &["--panel", "--max-steps", "0"]);
    let c = reqwest::blocking::Client::new();
    for path in ["/", "/state", "/config", "/events"] {
        let r = c.get(format!("{}{path}", run.base)).send().unwrap();
        assert_eq!(r.status().as_u16(), 401, "{path}");
    }
    let r = c
        .post(format!("{}/control", run.base))
        .json(&json!({"command": "stop"}))
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert!(run.url.starts_with("http://127.0.0.1:"));
    assert_eq!(run.token.len(), 32);
    let config = reqwest::blocking::get(run.url("/config"))
        .unwrap()
        .json::<serde_json::Value>()
        .unwrap();
    assert_eq!(config["capture"]["width"], 800);
}

#[test]
fn inject_boots_a_run_that_waits_for_the_panel_a_wrong_seq_gets_409_a_wrong_size_400() {
    // annotation mode: turn 1 waits for the panel's image before any model call, so the
    // injected reply is what turn 1 runs; the model is never asked
    let mut run = PanelRun::start(repeat(CLICK), &["--panel", "--annotate-in-panel"]);
    let s = run.wait_state("awaiting annotation", |s| s["awaiting"] == "annotation");
    assert_eq!(s["pending_seq"], 1);
    // the screenshot is its own resource: /state names its seq, /screenshot serves it
    assert!(s.get("raw_b64").is_none(), "{s}");
    assert_eq!(s["image_seq"], 1);
    let (status, cache, shot) = run.screenshot(1);
    assert_eq!(status, 200);
    assert_eq!(
        cache, "no-store",
        "a screenshot of the desktop stays out of the cache"
    );
    assert!(shot.starts_with(b"\x89PNG"), "a PNG");
    assert_eq!(run.screenshot(2).0, 404, "no screenshot 2 yet");
    let (status, _) = run.post(
        "/inject",
        json!({"vlm_text": "done(\"booted from the panel\")"}),
    );
    assert_eq!(status, 200);
    let png = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &shot);
    let (status, body) = run.post("/annotated", json!({"seq": 2, "image_b64": png}));
    assert_eq!(status, 409, "{body}");
    // an image of another size than the screenshot: 400, naming both sizes
    let (w, h) = (
        s["image_width"].as_u64().unwrap(),
        s["image_height"].as_u64().unwrap(),
    );
    assert!(w > 0 && h > 0, "{s}");
    let mut small = Vec::new();
    image::RgbaImage::new(w as u32 / 2, h as u32)
        .write_to(
            &mut std::io::Cursor::new(&mut small),
            image::ImageFormat::Png,
        )
        .unwrap();
    let small = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &small);
    let (status, body) = run.post("/annotated", json!({"seq": 1, "image_b64": small}));
    assert_eq!(status, 400, "{body}");
    let sizes = format!("is {}x{h}, but screenshot 1 is {w}x{h}", w / 2);
    assert!(body.contains(&sizes), "{body}");
    let s = run.state();
    assert_eq!(s["awaiting"], "annotation", "the engine keeps waiting");
    assert_eq!(s["pending_seq"], 1);
    let mut events = run.events();
    let (status, body) = run.post("/annotated", json!({"seq": 1, "image_b64": png}));
    assert_eq!(status, 200, "{body}");
    let reply = events.until("model_reply", |_| true);
    assert_eq!(reply["text"], "done(\"booted from the panel\")");
    let end = events.until("run_finished", |_| true);
    let reason = end["reason"].as_str().unwrap();
    assert!(reason.contains("booted from the panel"), "{end}");
    let code = run.wait_exit();
    assert_eq!(code.code(), Some(0), "the injected done() ended the run");
    assert_eq!(run.server.request_count(), 0, "the model was never asked");
}

#[test]
fn pause_emits_paused_and_no_turn_starts_until_resume() {
    let mut run = PanelRun::start(repeat(CLICK), &["--panel"]);
    let mut events = run.events();
    events.until("action_result", |_| true);
    assert_eq!(run.post("/control", json!({"command": "pause"})).0, 200);
    let paused = events.until("paused", |_| true);
    let turn = paused["turn"].as_u64().unwrap();
    let asked = run.server.request_count();
    // a few round trips while paused: nothing moves
    for _ in 0..5 {
        let s = run.wait_state("paused", |s| s["phase"] == "paused");
        assert_eq!(s["paused"], true);
        assert_eq!(s["turn"].as_u64().unwrap(), turn);
    }
    assert_eq!(run.server.request_count(), asked);
    // step: exactly one more turn, then paused again
    assert_eq!(run.post("/control", json!({"command": "step"})).0, 200);
    events.until("turn_started", |e| e["turn"].as_u64() == Some(turn + 1));
    events.until("paused", |_| true);
    assert_eq!(run.server.request_count(), asked + 1);
    assert_eq!(run.post("/control", json!({"command": "resume"})).0, 200);
    events.until("resumed", |_| true);
    events.until("turn_started", |e| e["turn"].as_u64() == Some(turn + 2));
    // between the first paused and the step's turn, no turn started
    let names = events.names();
    let first_pause = names.iter().position(|n| n.starts_with("paused")).unwrap();
    let next_turn = names
        .iter()
        .position(|n| n == &format!("turn_started@{}", turn + 1))
        .unwrap();
    assert!(
        names[first_pause..next_turn]
            .iter()
            .all(|n| !n.starts_with("turn_started")),
        "{names:?}"
    );
    assert_eq!(run.post("/control", json!({"command": "stop"})).0, 200);
    assert_eq!(run.wait_exit().code(), Some(130));
}

#[test]
fn a_rejection_runs_nothing_and_goes_back_to_the_model_as_an_error() {
    let script = franz_core::model::scripted_server::Script::list([
        franz_core::model::ScriptedReply::text(CLICK),
        franz_core::model::ScriptedReply::text("done(\"gave up clicking\")\nOK."),
    ]);
    let mut run = PanelRun::start(script, &["--panel", "--approve"]);
    let s = run.wait_state("awaiting approval", |s| s["awaiting"] == "approval");
    assert_eq!(s["pending_seq"], 1);
    assert_eq!(s["actions"][0]["type"], "click");
    let mut events = run.events();
    let (status, _) = run.post("/approve", json!({"seq": 2, "decision": "approve"}));
    assert_eq!(status, 409, "wrong seq");
    let (status, _) = run.post(
        "/approve",
        json!({"seq": 1, "decision": "reject", "reason": "not that window"}),
    );
    assert_eq!(status, 200);
    let r = events.until("action_result", |e| e["turn"] == 1);
    assert_eq!(r["result"]["status"], "error", "{r}");
    assert!(
        r.to_string().contains("the user rejected: not that window"),
        "{r}"
    );
    events.until("awaiting_approval", |e| e["turn"] == 2);
    assert!(run.server.wait_for_requests(2, panel::TIMEOUT));
    let asked = run.server.requests();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[1].body.contains("the user rejected: not that window"),
        "turn 2's request tells the model"
    );
    assert_eq!(
        run.post("/approve", json!({"seq": 2, "decision": "approve"}))
            .0,
        200
    );
    events.until("run_finished", |_| true);
    assert_eq!(run.wait_exit().code(), Some(0));
}

#[test]
fn a_non_loopback_panel_needs_the_explicit_flag() {
    let runs = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(["--sandbox=320x240", "run", "x", "--panel=0.0.0.0:0"])
        .args(["--api-url", "http://127.0.0.1:9/v1"])
        .args(["--runs-dir", runs.path().to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--panel-allow-remote"), "{err}");
}

#[test]
fn a_confirm_rule_asks_on_the_panel_without_approve_and_only_a_yes_runs_the_action() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.toml");
    std::fs::write(&policy, "[confirm]\nregions = [[400, 400, 600, 600]]\n").unwrap();
    let script = franz_core::model::scripted_server::Script::list([
        franz_core::model::ScriptedReply::text(CLICK),
        franz_core::model::ScriptedReply::text(CLICK),
        franz_core::model::ScriptedReply::text("done(\"clicked once\")\nOK."),
    ]);
    let policy = policy.to_str().unwrap();
    let mut run = PanelRun::start(script, &["--panel", "--policy", policy]);
    let mut events = run.events();
    // turn 1: the panel is asked, although --approve is off; a no runs nothing
    let s = run.wait_state("awaiting approval", |s| s["awaiting"] == "approval");
    assert_eq!(s["pending_seq"], 1, "{s}");
    assert_eq!(s["actions"][0]["type"], "click", "{s}");
    let (status, _) = run.post(
        "/approve",
        json!({"seq": 1, "decision": "reject", "reason": "not now"}),
    );
    assert_eq!(status, 200);
    let r = events.until("action_result", |e| e["turn"] == 1);
    assert_eq!(r["result"]["status"], "error", "{r}");
    // turn 2: a yes runs it
    events.until("awaiting_approval", |e| e["turn"] == 2);
    assert_eq!(
        run.post("/approve", json!({"seq": 2, "decision": "approve"}))
            .0,
        200
    );
    let r = events.until("action_result", |e| e["turn"] == 2);
    assert_eq!(r["result"]["status"], "ok", "{r}");
    // turn 3's done matches no rule: nothing is asked
    let end = events.until("run_finished", |_| true);
    assert_eq!(end["outcome"], "done", "{end}");
    assert_eq!(run.wait_exit().code(), Some(0));
}
