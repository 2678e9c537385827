//! The engine in-process on a real Xvfb with the scripted model server, for what only the
//! engine can show: the next screenshot draws only the actions that ran (a rejected click
//! leaves no marker, an executed one does), and an exchange log that cannot be written is one
//! `error` event per run, not silence and not one per turn.

#![cfg(target_os = "linux")]

use crate::common;
use franz_core::agent::Agent;
use franz_core::config::Settings;
use franz_core::engine::{Decision, Modes, Op, SessionHandle};
use franz_core::event::{Event, EventKind};
use franz_core::executor::ExecConfig;
use franz_core::model::{
    ClientConfig, ModelClient, RecordedRequest, Script, ScriptedReply, ScriptedServer,
};
use franz_core::observe::ObserveConfig;
use franz_core::overlay::{Overlay, OverlayConfig};
use franz_core::runlog::{EXCHANGE_FILE, Layout, RunWriter};
use franz_core::strategy::{ReadOptions, StrategyName};
use franz_desktop::DesktopOptions;
use franz_desktop::sandbox::{Sandbox, SandboxOptions};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const W: u32 = 320;
const H: u32 = 240;

/// Runs `turns` turns of `strategy` against `server` and returns the events.
fn run(
    sandbox: &Sandbox,
    server: &ScriptedServer,
    writer: RunWriter,
    turns: u64,
    reject_first: bool,
    max_actions_per_turn: usize,
    strategy: &str,
) -> Vec<Event> {
    let desktop = franz_desktop::open(&DesktopOptions {
        display: Some(sandbox.display().to_string()),
        monitor: None,
    })
    .unwrap();
    let mut client = ClientConfig::new(server.url());
    client.api_key = None;
    let model = Arc::new(ModelClient::new(client).unwrap());
    let handle = SessionHandle::new(Modes {
        approve: reject_first,
        ..Modes::default()
    });
    let strategy = strategy.parse::<StrategyName>().unwrap();
    let (_, mut stream) = Agent::builder(&Settings::defaults(), "click")
        .desktop(desktop)
        .model(model)
        .writer(writer)
        .handle(handle.clone())
        .strategy(strategy)
        .observing(|o| {
            *o = ObserveConfig {
                cursor: false,
                ..ObserveConfig::default()
            }
        })
        .overlay(Some(Overlay::new(OverlayConfig::default()).unwrap()))
        .executor(|e| {
            *e = ExecConfig {
                max_actions_per_turn,
                ..ExecConfig::default()
            }
        })
        .reading(|r| *r = ReadOptions::default())
        .options(|o| {
            (o.model, o.temperature, o.top_p, o.max_tokens) = ("scripted".into(), 0.0, 1.0, 100);
            (o.stream, o.early_exec, o.feedback) = (false, false, true);
            (o.max_steps, o.max_time, o.max_empty_turns) = (turns, None, 10);
            o.step_delay = Duration::ZERO;
        })
        .spawn()
        .unwrap();
    // rejects the actions of turn 1 and approves every later turn's
    let mut events = Vec::new();
    for e in stream.by_ref() {
        if let EventKind::AwaitingApproval { .. } = e.kind {
            let decision = if e.turn == 1 {
                Decision::Reject("not there".into())
            } else {
                Decision::Approve
            };
            handle
                .submit(Op::Approve {
                    seq: e.turn,
                    decision,
                })
                .unwrap();
        }
        events.push(e);
    }
    let summary = stream.finish().unwrap();
    assert_eq!(summary.turns as u64, turns, "{summary:?}");
    events
}

fn sandbox() -> Sandbox {
    Sandbox::start(&SandboxOptions {
        width: W,
        height: H,
        launch: vec![],
    })
    .unwrap()
}

/// The (last) screenshot a request carried, decoded.
fn screenshot(req: &RecordedRequest) -> image::RgbaImage {
    let at = req.body.rfind("data:image/png;base64,").expect("an image");
    let b64: String = req.body[at + 22..]
        .chars()
        .take_while(|c| *c != '"')
        .collect();
    use base64::Engine as _;
    let png = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    image::load_from_memory(&png).unwrap().to_rgba8()
}

/// Pixels within 12 px of where the model's (x,y) lands that are marker-red (the crosshair)
/// or heat-orange: none on a bare X root window.
fn marker_pixels_at(img: &image::RgbaImage, x: u32, y: u32) -> usize {
    let (cx, cy) = (x * img.width() / 1000, y * img.height() / 1000);
    let mut n = 0;
    for y in cy - 12..=cy + 12 {
        for x in cx - 12..=cx + 12 {
            let p = img.get_pixel(x, y).0;
            if p[0] as i32 > p[2] as i32 + 60 && p[0] > 150 {
                n += 1;
            }
        }
    }
    n
}

fn marker_pixels(img: &image::RgbaImage) -> usize {
    marker_pixels_at(img, 500, 500)
}

/// One test (one thread, one sandbox): input goes to `$DISPLAY`, which is set once here, in a
/// process of its own (the crate's other tests run on threads of the test binary).
#[test]
fn the_engine_reports_what_happened() {
    if !common::alone_in_process("engine_truth::the_engine_reports_what_happened") {
        return;
    }
    let sb = sandbox();
    // SAFETY: this test runs alone in its process (above); no other thread reads the environment
    unsafe { std::env::set_var("DISPLAY", sb.display()) };
    a_rejected_click_leaves_no_marker_on_the_next_screenshot_an_executed_one_does(&sb);
    a_click_over_the_per_turn_cap_is_not_drawn(&sb);
    an_unwritable_exchange_log_is_one_error_event_per_run(&sb);
}

fn a_rejected_click_leaves_no_marker_on_the_next_screenshot_an_executed_one_does(sb: &Sandbox) {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(
        "left_click(500, 500)\nI click the middle.",
    )))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let writer = RunWriter::create(tmp.path(), Layout::Flat).unwrap();
    let events = run(sb, &server, writer, 3, true, 8, "narrative");
    let results: Vec<(u32, bool)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ActionResult { result, .. } => Some((e.turn, result.is_ok())),
            _ => None,
        })
        .collect();
    assert_eq!(results, [(1, false), (2, true), (3, true)], "{events:?}");
    let shots: Vec<_> = server.requests().iter().map(screenshot).collect();
    assert_eq!(shots.len(), 3);
    assert_eq!(marker_pixels(&shots[0]), 0, "turn 1 has no feedback yet");
    assert_eq!(
        marker_pixels(&shots[1]),
        0,
        "turn 2's screenshot shows no marker for the click that was rejected"
    );
    assert!(
        marker_pixels(&shots[2]) > 20,
        "turn 3's screenshot marks the click that ran in turn 2"
    );
}

fn a_click_over_the_per_turn_cap_is_not_drawn(sb: &Sandbox) {
    let reply = serde_json::json!({
        "observation": "An empty screen; I click twice.",
        "bboxes": [],
        "actions": [
            {"name": "click", "x1": 500, "y1": 500},
            {"name": "click", "x1": 250, "y1": 250},
        ],
    });
    let server =
        ScriptedServer::start(Script::repeat(ScriptedReply::text(reply.to_string()))).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let writer = RunWriter::create(tmp.path(), Layout::Flat).unwrap();
    let events = run(sb, &server, writer, 2, false, 1, "vision");
    let results: Vec<(u32, usize, bool)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ActionResult { index, result, .. } => Some((e.turn, *index, result.is_ok())),
            _ => None,
        })
        .collect();
    assert_eq!(results[..2], [(1, 0, true), (1, 1, false)], "{events:?}");
    let shots: Vec<_> = server.requests().iter().map(screenshot).collect();
    assert!(
        marker_pixels_at(&shots[1], 500, 500) > 20,
        "the click that ran"
    );
    assert_eq!(
        marker_pixels_at(&shots[1], 250, 250),
        0,
        "the click refused by the cap leaves no marker"
    );
}

fn an_unwritable_exchange_log_is_one_error_event_per_run(sb: &Sandbox) {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(
        "move(500, 500)\nI move.",
    )))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // every write to /dev/full fails (ENOSPC): a disk that filled up
    let dir = tmp.path().join("run_0001");
    std::fs::create_dir(&dir).unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.join(EXCHANGE_FILE)).unwrap();
    let writer = RunWriter::open_dir(&dir, Layout::Flat).unwrap();
    let events = run(sb, &server, writer, 3, false, 8, "narrative");
    let errors: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Error { message, fatal } => {
                assert!(!fatal, "{message}");
                Some(message.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains(EXCHANGE_FILE) && errors[0].contains("once per run"),
        "{}",
        errors[0]
    );
    assert_eq!(server.request_count(), 3, "the run went on");
    assert!(Path::new(&dir).join("events.jsonl").exists());
}
