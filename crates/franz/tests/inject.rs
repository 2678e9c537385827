//! Panel inject with each strategy, end to end: the real `franz run --panel` on a private Xvfb
//! whose screen is the witness window, against the scripted model server. An action text
//! posted to `/inject` must land (the witness sees the click at the right pixel, the run log
//! holds the executed action) without the model being asked for that turn.
//!
//! The panel's annotation mode makes each turn wait for its image before any model call, so
//! the test decides when each turn goes on: no sleeps, no races with the engine.

#![cfg(target_os = "linux")]

use crate::common;
use crate::common::panel;
use crate::common::terminal::Terminal;

use franz_core::geometry::norm_to_axis;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use franz_desktop::sandbox::Sandbox;
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind};
use franz_desktop::{PixelPoint, PixelRect};
use serde_json::{Value, json};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(60);
const W: u32 = 800;
const H: u32 = 600;

/// Where the model clicks on turn 1, and where the injected reply clicks (0..1000).
const MODEL_AT: (i32, i32) = (100, 100);
const INJECTED_AT: (i32, i32) = (250, 750);

fn pixel((x, y): (i32, i32)) -> PixelPoint {
    PixelPoint::new(norm_to_axis(x, 0, W), norm_to_axis(y, 0, H))
}

/// A `franz run --panel --annotate-in-panel` on a sandbox whose screen is the witness.
struct Run {
    child: Child,
    base: String,
    token: String,
    server: ScriptedServer,
    runs: tempfile::TempDir,
    witness: Witness,
    _sandbox: Sandbox,
    stderr: mpsc::Receiver<String>,
    http: reqwest::blocking::Client,
}

impl Run {
    fn start(strategy: &str, script: Script) -> Run {
        let sandbox = common::xvfb(W, H);
        let witness = Witness::open(sandbox.display(), PixelRect::new(0, 0, W, H)).unwrap();
        let server = ScriptedServer::start(script).unwrap();
        let runs = tempfile::tempdir().unwrap();
        let mut child = common::franz_run(&server.url(), runs.path())
            .args(["click the witness", "--strategy", strategy])
            .args([
                "--model",
                "scripted-model",
                "--motion",
                "fast",
                "--max-steps",
                "10",
            ])
            .args(["--panel", "--annotate-in-panel"])
            .env("DISPLAY", sandbox.display())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = panel::stderr_lines(&mut child);
        let url = loop {
            let line = stderr
                .recv_timeout(T)
                .expect("franz did not print the panel URL");
            if let Some(u) = line.strip_prefix("panel: ") {
                break u.to_string();
            }
        };
        let (base, token) = url.split_once("/?token=").unwrap();
        Run {
            child,
            base: base.to_string(),
            token: token.to_string(),
            server,
            runs,
            witness,
            _sandbox: sandbox,
            stderr,
            http: reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }

    fn url(&self, path: &str) -> String {
        let join = if path.contains('?') { '&' } else { '?' };
        format!("{}{path}{join}token={}", self.base, self.token)
    }

    fn post(&self, path: &str, body: Value) -> (u16, String) {
        let r = self.http.post(self.url(path)).json(&body).send().unwrap();
        (r.status().as_u16(), r.text().unwrap())
    }

    /// Waits until turn `seq` awaits its annotated image; returns the raw screenshot.
    fn awaiting(&mut self, seq: u64) -> String {
        let deadline = Instant::now() + T;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("franz exited ({status}) before turn {seq}: {}", self.log());
            }
            let s: Value = self
                .http
                .get(self.url("/state"))
                .send()
                .unwrap()
                .json()
                .unwrap();
            if s["awaiting"] == "annotation" && s["pending_seq"].as_u64() == Some(seq) {
                assert_eq!(s["image_seq"].as_u64(), Some(seq), "{s:#}");
                let shot = self
                    .http
                    .get(self.url(&format!("/screenshot?seq={seq}")))
                    .send()
                    .unwrap();
                assert_eq!(shot.status().as_u16(), 200);
                let png = shot.bytes().unwrap();
                return base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &png);
            }
            assert!(Instant::now() < deadline, "turn {seq} never came: {s:#}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Lets turn `seq` go on with its own screenshot.
    fn release(&mut self, seq: u64) {
        let raw = self.awaiting(seq);
        let (status, body) = self.post("/annotated", json!({"seq": seq, "image_b64": raw}));
        assert_eq!(status, 200, "{body}");
    }

    fn exit_code(&mut self) -> Option<i32> {
        let deadline = Instant::now() + T;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code();
            }
            assert!(
                Instant::now() < deadline,
                "franz did not exit: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        self.stderr.try_iter().collect::<Vec<_>>().join("\n")
    }

    fn events(&self) -> Vec<Value> {
        common::run_events(self.runs.path())
    }

    /// Waits for the witness to see `n` button presses; returns where they were.
    fn presses(&self, n: usize) -> Vec<PixelPoint> {
        let pressed = |e: &[WitnessEvent]| -> Vec<PixelPoint> {
            e.iter()
                .filter(|e| e.is(WitnessKind::ButtonPress))
                .map(|e| e.at)
                .collect()
        };
        let (_, events) = self.witness.wait_for(|e| pressed(e).len() >= n, T);
        pressed(&events)
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Events of turn `turn` named `name`.
fn of_turn<'a>(events: &'a [Value], turn: u64, name: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["turn"].as_u64() == Some(turn) && e["event"] == name)
        .collect()
}

/// Turn 1 asks the model (`asked_on_turn_1` requests: a click at MODEL_AT); turn 2 runs
/// `injected` without asking; turn 3 asks the model, whose reply ends the run as done.
fn injected_action_lands(strategy: &str, script: Script, asked_on_turn_1: usize, injected: &str) {
    let mut run = Run::start(strategy, script);
    run.release(1);
    run.awaiting(2);
    assert_eq!(run.server.request_count(), asked_on_turn_1, "{}", run.log());
    let (status, body) = run.post("/inject", json!({"vlm_text": injected}));
    assert_eq!(status, 200, "{body}");
    run.release(2);
    run.awaiting(3);
    assert_eq!(
        run.server.request_count(),
        asked_on_turn_1,
        "the model was not asked on the injected turn"
    );
    assert_eq!(
        run.presses(2),
        vec![pixel(MODEL_AT), pixel(INJECTED_AT)],
        "the model's click, then the injected one"
    );
    run.release(3);
    assert_eq!(run.exit_code(), Some(0), "{}", run.log());
    let events = run.events();
    assert!(of_turn(&events, 2, "model_request").is_empty());
    let notes = of_turn(&events, 2, "note");
    assert!(
        notes
            .iter()
            .any(|n| n["text"].as_str().unwrap().contains("the injected reply")),
        "{notes:?}"
    );
    let done = of_turn(&events, 2, "action_result");
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(done[0]["result"]["status"], "ok", "{:?}", done[0]);
    assert_eq!(done[0]["action"]["type"], "click");
    assert_eq!(done[0]["action"]["x"], INJECTED_AT.0);
    assert_eq!(done[0]["action"]["y"], INJECTED_AT.1);
    let end = events.last().unwrap();
    assert_eq!(end["event"], "run_finished");
    assert_eq!(end["outcome"], "done", "{end}");
}

const CLICK_LINE: &str = "click(250, 750)";

#[test]
fn inject_runs_an_action_with_the_narrative_strategy() {
    let script = Script::list([
        ScriptedReply::text("left_click(100, 100)\nI clicked the top left."),
        ScriptedReply::text("done(\"clicked twice\")\nBoth clicks landed."),
    ]);
    injected_action_lands(
        "narrative",
        script,
        1,
        "left_click(250, 750)\nThe person clicked lower left.",
    );
}

#[test]
fn inject_runs_an_action_with_the_vision_strategy() {
    let script = Script::list([
        ScriptedReply::text(
            r#"{"observation": "a grey window", "bboxes": [], "actions": [{"name": "click", "x1": 100, "y1": 100}]}"#,
        ),
        ScriptedReply::text(
            r#"{"observation": "both clicked", "bboxes": [], "actions": [{"name": "done", "text": "clicked twice"}]}"#,
        ),
    ]);
    let injected = r#"{"observation": "the person clicks", "actions": [{"name": "click", "x1": 250, "y1": 750}]}"#;
    injected_action_lands("vision", script, 1, injected);
}

#[test]
fn inject_runs_a_function_call_line_with_the_tools_strategy() {
    let script = Script::list([
        ScriptedReply::text("I click the top left.").tool_call(
            "click_element",
            json!({"label": "window", "box": [100, 100]}),
        ),
        // a plain answer that ended on its own: done
        ScriptedReply::text("<think>both landed</think>Both clicks landed."),
    ]);
    injected_action_lands("tools", script, 1, CLICK_LINE);
}

const EVIDENCE: &str = "The witness window received a click at the top left and one at the lower left, \
the two points the mission named, so the mission is complete.";

fn spawn_operator() -> ScriptedReply {
    ScriptedReply::text("Plan: click twice.").tool_call(
        "spawn_operator",
        json!({"operator_instructions": "OBJ-1: click the witness", "rationale": "one objective"}),
    )
}

#[test]
fn inject_runs_a_function_call_line_as_the_commanders_operator() {
    let script = Script::list([
        spawn_operator(),
        ScriptedReply::text("OBS: a window\nACT: click").tool_call(
            "click_element",
            json!({"justification": "briefed", "label": "window", "position": [100, 100]}),
        ),
        ScriptedReply::text("OBS: both clicked")
            .tool_call("report_completion", json!({"evidence": EVIDENCE})),
    ]);
    // turn 1: the leader and the operator
    injected_action_lands("commander", script, 2, CLICK_LINE);
}

/// On the first turn the leader is due; an injected reply stands for every model call of the
/// turn, and the leader's first consultation moves to the next turn.
#[test]
fn inject_on_a_commander_leader_turn_runs_and_defers_the_leader() {
    let script = Script::list([
        spawn_operator(),
        ScriptedReply::text("OBS: clicked")
            .tool_call("report_completion", json!({"evidence": EVIDENCE})),
    ]);
    let mut run = Run::start("commander", script);
    run.awaiting(1);
    let (status, body) = run.post("/inject", json!({"vlm_text": CLICK_LINE}));
    assert_eq!(status, 200, "{body}");
    run.release(1);
    run.awaiting(2);
    assert_eq!(run.server.request_count(), 0, "nobody was asked on turn 1");
    assert_eq!(run.presses(1), vec![pixel(INJECTED_AT)]);
    run.release(2);
    assert_eq!(run.exit_code(), Some(0), "{}", run.log());
    let asked = run.server.requests();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[0].body.contains("spawn_operator") && asked[0].body.contains("MISSION START"),
        "turn 2 consults the leader first"
    );
}

/// An approver's edit on the terminal goes the same way: with the tools strategy, a
/// function-call line replacing the model's tool call runs, and the next request holds no
/// trace of the replaced call (a role=tool answer to it would break the OpenAI history).
#[test]
fn an_approvers_edit_runs_as_an_action_in_the_tools_strategy() {
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("I press enter.").tool_call("press_key", json!({"key": "enter"})),
        ScriptedReply::text("The click landed."),
    ]))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let franz = format!(
        "{} --sandbox=320x240 run x --strategy tools --approve --api-url {} --runs-dir {} --max-steps 3 --motion fast --step-delay 0",
        env!("CARGO_BIN_EXE_franz"),
        server.url(),
        runs.path().display()
    );
    let mut terminal = Terminal::start(&franz);
    // edit turn 1, approve the edit, approve turn 2's final answer: each when it is asked
    let asked = "run these? [y]es / [n]o / [e]dit: ";
    terminal.expect(asked);
    terminal.send("e\n");
    terminal.expect("replacement reply (the model's format, one line): ");
    terminal.send("click(250, 750)\n");
    for _ in 0..2 {
        terminal.expect(asked);
        terminal.send("y\n");
    }
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(0), "{text}");
    let events = common::events_in(&runs.path().join("run_0001"));
    let ran = of_turn(&events, 1, "action_result");
    assert_eq!(ran.len(), 1, "{ran:?}");
    assert_eq!(ran[0]["action"]["type"], "click", "{:?}", ran[0]);
    assert_eq!(ran[0]["result"]["status"], "ok");
    let end = events.last().unwrap();
    assert_eq!(end["outcome"], "done", "{end}");
    assert_eq!(end["turns"], 2, "{end}");
    let asked = server.requests();
    assert_eq!(asked.len(), 2);
    let second = asked[1].json.clone().unwrap();
    let messages = second["messages"].as_array().unwrap();
    assert!(
        messages.iter().all(|m| m["role"] != "tool"),
        "{messages:#?}"
    );
    let said = serde_json::to_string(messages).unwrap();
    assert!(
        !said.contains("press_key"),
        "the replaced call is gone: {said}"
    );
    assert!(said.contains("Result of click"), "{messages:#?}");
}
