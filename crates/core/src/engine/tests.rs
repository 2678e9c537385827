//! The engine with the in-memory model and the fake desktop: no X, no HTTP. Turn order, caps,
//! empty turns, done/fail, approvals, inject, pause/step/stop, cancel, and each strategy's
//! replies read through the engine.

use super::*;
use crate::executor::{ExecConfig, MotionProfile};
use crate::geometry::ImageSize;
use crate::model::{Canned, CannedModel, ToolCall};
use crate::observe::ObserveConfig;
use crate::strategy::{self, ReadOptions};
use franz_desktop::fake::{FakeDesktop, FakeLog, Sent};
use franz_desktop::{Button, PixelPoint, Press};
use serde_json::json;
use std::sync::Mutex;

/// The fake screen: 320x200, so normalized (500, 500) is pixel (160, 100).
const W: u32 = 320;
const H: u32 = 200;

fn options(max_steps: u64) -> RunOptions {
    RunOptions {
        task: "the task".into(),
        model: "memory".into(),
        temperature: 0.0,
        top_p: 1.0,
        max_tokens: 100,
        stream: false,
        early_exec: true,
        max_steps,
        max_time: None,
        step_delay: Duration::ZERO,
        max_empty_turns: 3,
        feedback: true,
        context: Default::default(),
        loop_breaker: Default::default(),
        refine: Default::default(),
    }
}

/// One run's parts and what it produced.
struct Run {
    strategy: &'static str,
    model: Arc<CannedModel>,
    options: RunOptions,
    controls: Arc<Remote>,
    /// Called with each event, on the engine's thread (e.g. to decide an approval).
    on_event: Option<Subscriber>,
    cancel: Cancel,
    read: ReadOptions,
    policy: crate::policy::Policy,
    exec: ExecConfig,
    grounding: Option<crate::grounding::GroundingSource>,
    grounder: Option<crate::grounder::Grounder>,
    overlay: Option<Overlay>,
}

struct Ran {
    summary: RunSummary,
    events: Vec<Event>,
    desktop: FakeLog,
}

impl Ran {
    fn names(&self) -> Vec<&'static str> {
        self.events.iter().map(Event::name).collect()
    }
    fn count(&self, name: &str) -> usize {
        self.events.iter().filter(|e| e.name() == name).count()
    }
    fn clicks(&self) -> usize {
        let pressed =
            |s: &Sent| matches!(s, Sent::Button(Button::Left, Press::Down | Press::Click));
        self.desktop.sent().iter().filter(|s| pressed(s)).count()
    }
}

impl Run {
    fn new(strategy: &'static str, answers: impl IntoIterator<Item = Canned>) -> Self {
        Run {
            strategy,
            model: Arc::new(CannedModel::new(answers)),
            options: options(10),
            controls: Arc::new(Remote::new(Modes::default())),
            on_event: None,
            cancel: Cancel::new(),
            read: ReadOptions::default(),
            policy: crate::policy::Policy::default(),
            exec: ExecConfig::with_profile(MotionProfile::Fast),
            grounding: None,
            grounder: None,
            overlay: None,
        }
    }

    fn texts(strategy: &'static str, texts: &[&str]) -> Self {
        Self::new(strategy, texts.iter().map(|t| Canned::text(*t)))
    }

    fn go(self) -> Ran {
        let mut desktop = FakeDesktop::new(W, H);
        let log = desktop.log();
        let pipeline = Pipeline::new(ObserveConfig {
            cursor: false,
            ..ObserveConfig::default()
        });
        let area = pipeline.work_area(&desktop).unwrap();
        let executor = Executor::new(area, self.exec, false)
            .with_cancel(self.cancel.clone())
            .with_policy(self.policy);
        let events = Arc::new(Mutex::new(Vec::new()));
        let seen = events.clone();
        let mut on_event = self.on_event;
        let engine = Engine {
            desktop: &mut desktop,
            pipeline,
            executor,
            model: self.model.clone(),
            strategy: strategy::create(
                self.strategy,
                ReadOptions {
                    targets_in_words: self.grounder.is_some(),
                    ..self.read
                },
            )
            .unwrap(),
            overlay: self.overlay,
            writer: None,
            subscribers: vec![Box::new(move |e: &Event| {
                seen.lock().unwrap().push(e.clone());
                if let Some(f) = on_event.as_mut() {
                    f(e);
                }
            })],
            cancel: self.cancel,
            loops: crate::loop_breaker::LoopDetector::new(self.options.loop_breaker.loops),
            options: self.options,
            controls: self.controls,
            last_acted: None,
            consulted: None,
            last_raw: None,
            grounding: self.grounding,
            grounder: self.grounder,
            learned_context: None,
            calibration: Default::default(),
            spent: Default::default(),
            overhead: Default::default(),
        };
        let summary = engine.run();
        let events = events.lock().unwrap().clone();
        Ran {
            summary,
            events,
            desktop: log,
        }
    }
}

fn reason(ran: &Ran) -> &str {
    &ran.summary.reason
}

#[test]
fn a_turn_observes_asks_reads_acts_in_that_order_and_the_run_ends_on_done() {
    let ran = Run::texts(
        "narrative",
        &[
            "click(500, 500)\nI click the middle.",
            "done(\"clicked\")\nIt worked.",
        ],
    )
    .go();
    let turn = [
        "turn_started",
        "observation",
        "model_request",
        "model_reply",
        "action_result",
    ];
    let mut want = vec!["run_started"];
    want.extend(turn);
    want.extend(turn);
    want.push("run_finished");
    assert_eq!(ran.names(), want);
    assert_eq!(ran.summary.outcome, Outcome::Done);
    assert_eq!(reason(&ran), "done: clicked");
    assert_eq!(ran.summary.turns, 2);
    assert_eq!(ran.summary.exit_code(), 0);
    // the click went to the middle of the screen, and nothing stayed held
    let sent = ran.desktop.sent();
    assert!(
        sent.contains(&Sent::Move(PixelPoint::new(160, 100))),
        "{sent:?}"
    );
    assert_eq!(ran.clicks(), 1);
    assert!(ran.desktop.held().is_empty());
    assert_eq!(ran.desktop.captures(), 2);
    // every event of a turn carries its number
    assert!(ran.events.iter().all(|e| e.turn <= 2));
}

#[test]
fn max_steps_caps_the_number_of_turns() {
    let mut run = Run::texts("narrative", &["move(500, 500)\nstill looking"; 6]);
    run.options.max_steps = 3;
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Failed);
    assert_eq!(reason(&ran), "gave up: reached --max-steps 3");
    assert_eq!(ran.summary.turns, 3);
    assert_eq!(model.requests().len(), 3);
    assert_eq!(ran.count("turn_started"), 3);
}

#[test]
fn empty_turns_count_in_a_row_and_an_action_resets_them() {
    let nothing = "I see a blank screen and do nothing.";
    let mut run = Run::texts(
        "narrative",
        &[
            nothing,
            nothing,
            "move(500, 500)\nmoving",
            nothing,
            nothing,
            nothing,
        ],
    );
    run.options.max_empty_turns = 3;
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Failed);
    assert_eq!(
        reason(&ran),
        "gave up: 3 turns in a row without a usable action from the model"
    );
    assert_eq!(
        ran.summary.turns, 6,
        "two empty turns, one action, three empty"
    );
}

#[test]
fn fail_ends_the_run_as_failed_with_the_models_reason() {
    let ran = Run::texts("narrative", &["fail(\"no such window\")\nI give up."]).go();
    assert_eq!(ran.summary.outcome, Outcome::Failed);
    assert_eq!(reason(&ran), "the model gave up: no such window");
    assert_eq!(ran.summary.exit_code(), 1);
}

#[test]
fn a_model_error_ends_the_run_and_says_so() {
    let ran = Run::new(
        "narrative",
        [
            Canned::Retry("HTTP 503 (busy); retrying in 0.5 s".into()),
            Canned::Error(crate::model::ModelError::Unreachable {
                url: "http://nowhere".into(),
                reason: "connection refused".into(),
                attempts: 2,
            }),
        ],
    )
    .go();
    assert_eq!(ran.summary.outcome, Outcome::Unreachable);
    let attempts: Vec<u32> = ran
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ModelRequest { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect();
    assert_eq!(attempts, [1, 2], "one model_request per attempt");
    assert_eq!(ran.names().last(), Some(&"run_finished"));
}

/// A controller in approve mode that decides each awaited turn from a list, from inside the
/// engine's own `awaiting_approval` event.
fn approving(decisions: Vec<Decision>) -> (Arc<Remote>, Subscriber) {
    let remote = Arc::new(Remote::new(Modes {
        approve: true,
        ..Modes::default()
    }));
    let r = remote.clone();
    let mut decisions = decisions.into_iter();
    let on_event = Box::new(move |e: &Event| {
        if let EventKind::AwaitingApproval { .. } = e.kind {
            let d = decisions.next().unwrap_or(Decision::Approve);
            r.decide(e.turn, d).unwrap();
        }
    });
    (remote, on_event)
}

#[test]
fn a_rejected_turn_runs_nothing_and_tells_the_model_why() {
    let mut run = Run::texts(
        "narrative",
        &[
            "click(500, 500)\nfirst try",
            "click(500, 500)\nsecond try",
            "done(\"ok\")\ndone",
        ],
    );
    let (remote, on_event) = approving(vec![
        Decision::Reject("not there".into()),
        Decision::Approve,
        Decision::Approve,
    ]);
    run.controls = remote;
    run.on_event = Some(on_event);
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done);
    assert_eq!(ran.count("awaiting_approval"), 3);
    assert_eq!(
        ran.clicks(),
        1,
        "the rejected click never reached the desktop"
    );
    let rejected = ran.events.iter().find_map(|e| match &e.kind {
        EventKind::ActionResult { result, .. } if e.turn == 1 => Some(result.clone()),
        _ => None,
    });
    match rejected {
        Some(ActionResult::Error(err)) => {
            assert_eq!(err.kind, crate::action::ErrorKind::Rejected);
            assert!(err.message.contains("not there"), "{err:?}");
        }
        other => panic!("turn 1's result: {other:?}"),
    }
    let second = serde_json::to_string(&model.requests()[1].to_body()).unwrap();
    assert!(second.contains("the user rejected: not there"), "{second}");
}

#[test]
fn a_confirm_rule_asks_for_approval_without_approve_mode_and_a_deny_rule_refuses() {
    let mut run = Run::texts(
        "narrative",
        &[
            "press_key(\"ctrl+s\")\nsave",
            "press_key(\"ctrl+s\")\nsave again",
            "press_key(\"alt+f4\")\nclose",
            "click(500, 500)\nclick",
            "done(\"ok\")\ndone",
        ],
    );
    let config: crate::policy::PolicyConfig =
        toml::from_str("deny_keys = [\"alt+f4\"]\n[confirm]\nkeys = [\"ctrl+s\"]").unwrap();
    run.policy = crate::policy::Policy::new(&config).unwrap();
    // approve mode is off: only the confirm rule makes the engine wait
    let remote = Arc::new(Remote::new(Modes::default()));
    let r = remote.clone();
    let mut decisions = vec![Decision::Reject("not now".into()), Decision::Approve].into_iter();
    run.on_event = Some(Box::new(move |e: &Event| {
        if let EventKind::AwaitingApproval { .. } = e.kind {
            r.decide(e.turn, decisions.next().unwrap_or(Decision::Approve))
                .unwrap();
        }
    }));
    run.controls = remote;
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    assert_eq!(ran.count("awaiting_approval"), 2, "{:?}", ran.names());
    let keys_down = ran
        .desktop
        .sent()
        .iter()
        .filter(|s| matches!(s, Sent::Key(_, Press::Down)))
        .count();
    // ctrl and s of the approved turn only; alt+f4 never
    assert_eq!(keys_down, 2);
    assert_eq!(ran.clicks(), 1);
    let fourth = serde_json::to_string(&model.requests()[3].to_body()).unwrap();
    assert!(fourth.contains("refused by the safety policy"), "{fourth}");
}

#[test]
fn a_replaced_reply_is_read_and_approved_again() {
    let mut run = Run::texts("narrative", &["click(500, 500)\nclick it"]);
    let (remote, on_event) = approving(vec![
        Decision::Replace("done(\"edited\")\nthe person finished it".into()),
        Decision::Approve,
    ]);
    run.controls = remote;
    run.on_event = Some(on_event);
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done);
    assert_eq!(reason(&ran), "done: edited");
    assert_eq!(ran.count("awaiting_approval"), 2);
    assert_eq!(ran.clicks(), 0);
}

#[test]
fn an_injected_reply_stands_for_the_model() {
    let remote = Arc::new(Remote::new(Modes::default()));
    remote.inject("click(500, 500)\ninjected");
    let mut run = Run::texts("narrative", &["done(\"from the model\")\nok"]);
    run.controls = remote;
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done);
    assert_eq!(ran.clicks(), 1, "the injected click ran");
    assert_eq!(model.requests().len(), 1, "turn 1 did not ask the model");
    let note = ran.events.iter().find_map(|e| match &e.kind {
        EventKind::Note { text } => Some((e.turn, text.clone())),
        _ => None,
    });
    assert_eq!(
        note,
        Some((
            1,
            "using the injected reply instead of asking the model".into()
        ))
    );
}

#[test]
fn pause_step_and_stop_from_the_controller() {
    let remote = Arc::new(Remote::new(Modes::default()));
    remote.pause();
    let r = remote.clone();
    let mut pauses = 0;
    let on_event = Box::new(move |e: &Event| {
        if let EventKind::Paused { .. } = e.kind {
            pauses += 1;
            if pauses == 1 {
                r.step();
            } else {
                r.stop("stopped from the panel");
            }
        }
    });
    let mut run = Run::texts("narrative", &["move(500, 500)\none"; 3]);
    run.controls = remote;
    run.on_event = Some(on_event);
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Interrupted);
    assert_eq!(reason(&ran), "stopped from the panel");
    assert_eq!(model.requests().len(), 1, "one step, one turn");
    assert_eq!(
        ran.names()[..4],
        ["run_started", "paused", "resumed", "turn_started"]
    );
    assert_eq!(ran.count("paused"), 2);
    assert_eq!(ran.summary.exit_code(), Outcome::Interrupted.exit_code());
}

/// Runs `run` on another thread, cancels it once `ready` says so, and returns what it
/// produced and how long the run took to end after the cancel.
fn cancel_when(run: Run, ready: impl FnOnce(&Arc<CannedModel>)) -> (Ran, Duration) {
    let cancel = run.cancel.clone();
    let model = run.model.clone();
    let engine = std::thread::spawn(move || run.go());
    ready(&model);
    let at = Instant::now();
    cancel.cancel();
    let ran = engine.join().unwrap();
    (ran, at.elapsed())
}

#[test]
fn cancel_during_a_hung_model_call_ends_the_run_at_once() {
    let run = Run::new("narrative", [Canned::Hang]);
    let (ran, took) = cancel_when(run, |m| {
        assert!(m.wait_requests(1, Duration::from_secs(10)));
    });
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(ran.summary.outcome, Outcome::Interrupted);
    assert_eq!(ran.names().last(), Some(&"run_finished"));
    assert_eq!(ran.count("model_reply"), 0);
}

#[test]
fn cancel_during_a_60_second_wait_ends_the_run_at_once() {
    let mut run = Run::texts("narrative", &["wait(60)\nwaiting"]);
    // the cut-short wait is no usable action, but the run ends as interrupted, not given up
    run.options.max_empty_turns = 1;
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    // the reply is read, the wait begins right after its model_reply event
    run.on_event = Some(Box::new(move |e: &Event| {
        if e.name() == "model_reply" {
            let _ = tx.lock().unwrap().send(());
        }
    }));
    let (ran, took) = cancel_when(run, |_| {
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    });
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(ran.summary.outcome, Outcome::Interrupted);
    let result = ran.events.iter().find_map(|e| match &e.kind {
        EventKind::ActionResult { result, .. } => Some(result.clone()),
        _ => None,
    });
    match result {
        Some(ActionResult::Error(err)) => assert!(err.message.contains("interrupted"), "{err:?}"),
        other => panic!("the wait's result: {other:?}"),
    }
    assert_eq!(ran.names().last(), Some(&"run_finished"));
}

#[test]
fn cancel_during_the_step_delay_ends_the_run_at_once() {
    let mut run = Run::texts("narrative", &["move(500, 500)\nmoving"; 2]);
    run.options.step_delay = Duration::from_secs(60);
    let (ran, took) = cancel_when(run, |m| {
        // the first turn's request came; its turn ends and the delay begins
        assert!(m.wait_requests(1, Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(100));
    });
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(ran.summary.outcome, Outcome::Interrupted);
    assert_eq!(ran.count("turn_started"), 1);
}

#[test]
fn vision_reads_json_with_several_actions_a_turn() {
    let first = json!({
        "observation": "a blank screen",
        "bboxes": [{"x1": 490, "y1": 490, "x2": 510, "y2": 510}],
        "actions": [{"name": "move", "x1": 500, "y1": 500}, {"name": "click", "x1": 500, "y1": 500}],
    });
    let second = json!({"observation": "clicked", "bboxes": [], "actions": [{"name": "done", "text": "clicked"}]});
    let run = Run::texts("vision", &[&first.to_string(), &second.to_string()]);
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    let turn1 = ran
        .events
        .iter()
        .filter(|e| e.turn == 1 && e.name() == "action_result")
        .count();
    assert_eq!(turn1, 2);
    assert_eq!(ran.clicks(), 1);
    let second = serde_json::to_string(&model.requests()[1].to_body()).unwrap();
    assert!(
        second.contains("a blank screen"),
        "vision sends its last observation"
    );
}

fn tool_reply(text: &str, calls: &[(&str, serde_json::Value)]) -> Canned {
    Canned::Reply(Reply {
        content: text.into(),
        tool_calls: calls
            .iter()
            .map(|(n, a)| ToolCall::new(*n, a.clone()))
            .collect(),
        finish_reason: Some(
            if calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            }
            .into(),
        ),
        ..Reply::default()
    })
}

#[test]
fn tools_runs_one_call_a_turn_and_a_plain_answer_ends_the_run() {
    let run = Run::new(
        "tools",
        [
            tool_reply(
                "",
                &[
                    (
                        "click_element",
                        json!({"label": "middle", "box": [500, 500]}),
                    ),
                    ("type_text", json!({"text": "NOT TYPED"})),
                ],
            ),
            tool_reply("The middle was clicked.", &[]),
        ],
    );
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    assert!(reason(&ran).contains("The middle was clicked."));
    assert_eq!(ran.clicks(), 1);
    assert!(
        !ran.desktop
            .sent()
            .iter()
            .any(|s| matches!(s, Sent::Text(t) if t.contains("NOT")))
    );
    let second = serde_json::to_string(&model.requests()[1].to_body()).unwrap();
    assert!(second.contains("too_many_tool_calls"), "{second}");
}

#[test]
fn commander_asks_its_leader_then_the_operator_acts_and_completes() {
    let evidence = "The screen shows the middle of the window was clicked and the expected \
                    change appeared right after, so the objective is met.";
    let spawn =
        json!({"operator_instructions": "OBJ-1: click the middle", "rationale": "one step"});
    let run = Run::new(
        "commander",
        [
            tool_reply("Plan.", &[("spawn_operator", spawn)]),
            tool_reply(
                "OBS: a blank screen",
                &[(
                    "click_element",
                    json!({"justification": "brief", "label": "middle", "position": [500, 500]}),
                )],
            ),
            tool_reply(
                "OBS: clicked",
                &[("report_completion", json!({"evidence": evidence}))],
            ),
        ],
    );
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    assert_eq!(ran.clicks(), 1);
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let is_leader = |r: &ChatRequest| {
        serde_json::to_string(&r.tools)
            .unwrap()
            .contains("spawn_operator")
    };
    assert!(is_leader(&requests[0]));
    assert!(!is_leader(&requests[1]) && !is_leader(&requests[2]));
    // the leader's call is logged like the turn's: two model_request, two model_reply in turn 1
    let turn1 = |name: &str| {
        ran.events
            .iter()
            .filter(|e| e.turn == 1 && e.name() == name)
            .count()
    };
    assert_eq!((turn1("model_request"), turn1("model_reply")), (2, 2));
}

/// A session's config on a fake desktop (returned with its log).
fn session_config(
    strategy: &str,
    options: RunOptions,
) -> (SessionConfig, Box<FakeDesktop>, FakeLog) {
    let desktop = Box::new(FakeDesktop::new(W, H));
    let log = desktop.log();
    let pipeline = Pipeline::new(ObserveConfig {
        cursor: false,
        ..ObserveConfig::default()
    });
    let area = pipeline.work_area(desktop.as_ref()).unwrap();
    let config = SessionConfig {
        pipeline,
        executor: Executor::new(area, ExecConfig::with_profile(MotionProfile::Fast), false),
        strategy: strategy::create(strategy, ReadOptions::default()).unwrap(),
        overlay: None,
        writer: None,
        options,
        grounding: None,
        grounder: None,
    };
    (config, desktop, log)
}

#[test]
fn a_session_runs_on_its_own_thread_and_streams_its_events() {
    let (config, desktop, log) = session_config("narrative", options(10));
    let model = Arc::new(CannedModel::texts([
        "click(500, 500)\nclick",
        "done(\"ok\")\nok",
    ]));
    let handle = SessionHandle::new(Modes {
        approve: true,
        ..Modes::default()
    });
    let mut events = Session::spawn_with(&handle, config, desktop, model).unwrap();
    let mut names = Vec::new();
    for e in events.by_ref() {
        if let EventKind::AwaitingApproval { .. } = e.kind {
            assert_eq!(handle.pending_decision(), Some(e.turn));
            assert!(
                handle
                    .screenshot()
                    .is_some_and(|s| s.seq == e.turn && s.width > 0)
            );
            let decision = Decision::Approve;
            handle
                .submit(Op::Approve {
                    seq: e.turn,
                    decision,
                })
                .unwrap();
        }
        names.push(e.name());
    }
    let summary = events.finish().unwrap();
    assert_eq!(summary.outcome, Outcome::Done);
    assert_eq!(names.first(), Some(&"run_started"));
    assert_eq!(names.last(), Some(&"run_finished"));
    assert_eq!(
        names.iter().filter(|n| **n == "awaiting_approval").count(),
        2
    );
    assert!(
        log.sent()
            .contains(&Sent::Button(Button::Left, Press::Click))
    );
    // a decision for a turn nobody waits for is refused
    let late = handle.submit(Op::Approve {
        seq: 9,
        decision: Decision::Approve,
    });
    assert!(late.is_err());
}

#[test]
fn stop_ends_a_session_at_once_during_a_hung_model_call() {
    let (config, desktop, _) = session_config("narrative", options(10));
    let model = Arc::new(CannedModel::new([Canned::Hang]));
    let (handle, mut events) = Session::spawn(config, desktop, model.clone()).unwrap();
    assert!(model.wait_requests(1, Duration::from_secs(10)));
    let at = Instant::now();
    handle
        .submit(Op::Stop("stopped by the test".into()))
        .unwrap();
    let mut last = None;
    while let Ok(Some(e)) = events.next_timeout(Duration::from_secs(5)) {
        last = Some(e);
    }
    let took = at.elapsed();
    assert!(took < Duration::from_secs(2), "{took:?}");
    match last.map(|e| e.kind) {
        Some(EventKind::RunFinished { reason, .. }) => assert_eq!(reason, "stopped by the test"),
        other => panic!("the last event: {other:?}"),
    }
    assert_eq!(events.finish().unwrap().outcome, Outcome::Interrupted);
}

#[test]
fn a_cancel_wakes_a_paused_session() {
    let (config, desktop, _) = session_config("narrative", options(10));
    let model = Arc::new(CannedModel::texts(["move(500, 500)\nx"]));
    let handle = SessionHandle::new(Modes::default());
    handle.submit(Op::Pause).unwrap();
    let mut events = Session::spawn_with(&handle, config, desktop, model.clone()).unwrap();
    loop {
        let e = events.next().unwrap();
        if e.name() == "paused" {
            break;
        }
    }
    let at = Instant::now();
    handle.cancel_token().cancel_because("SIGTERM");
    let summary = events.finish().unwrap();
    assert!(at.elapsed() < Duration::from_secs(2));
    assert_eq!(summary.outcome, Outcome::Interrupted);
    assert_eq!(
        summary.reason, "interrupted (SIGTERM)",
        "the signal is named"
    );
    assert!(model.requests().is_empty());
}

#[test]
fn two_sessions_run_at_once_each_on_its_own_desktop() {
    let start = |text: &str| {
        let (config, desktop, log) = session_config("narrative", options(10));
        let model = Arc::new(CannedModel::texts([
            text.to_string(),
            "done(\"ok\")\nok".into(),
        ]));
        let (_, events) = Session::spawn(config, desktop, model).unwrap();
        (events, log)
    };
    let (a, log_a) = start("type(\"from a\")\ntyping");
    let (b, log_b) = start("type(\"from b\")\ntyping");
    assert_eq!(a.finish().unwrap().outcome, Outcome::Done);
    assert_eq!(b.finish().unwrap().outcome, Outcome::Done);
    let typed = |log: &FakeLog| {
        log.sent()
            .into_iter()
            .filter_map(|s| match s {
                Sent::Text(t) => Some(t),
                _ => None,
            })
            .collect::<String>()
    };
    assert_eq!(typed(&log_a), "from a");
    assert_eq!(typed(&log_b), "from b");
}

/// A UI-TARS reply that asks the person (`call_user`; its thought is the question).
/// Someone there to answer the model's questions.
const ANSWERS: Modes = Modes {
    annotate: false,
    approve: false,
    answers: true,
};

fn asks(question: &str) -> String {
    format!("Thought: {question}\nAction: call_user()")
}

/// The narrative strategy reading UI-TARS replies (and the calls of `done(...)`).
fn uitars() -> Box<dyn Strategy> {
    let read = ReadOptions {
        dialect: Some(crate::parser::Dialect::Uitars),
        ..ReadOptions::default()
    };
    strategy::create("narrative", read).unwrap()
}

#[test]
fn ask_user_with_nobody_there_ends_the_run_with_the_question() {
    let mut run = Run::texts("narrative", &[&asks("Which of the two files?")]);
    run.read.dialect = Some(crate::parser::Dialect::Uitars);
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Failed, "{}", reason(&ran));
    assert!(
        reason(&ran).contains("Which of the two files?"),
        "{}",
        reason(&ran)
    );
    assert_eq!(ran.summary.exit_code(), 1);
    assert_eq!(ran.count("awaiting_answer"), 0);
}

#[test]
fn ask_user_with_someone_there_waits_and_the_answer_goes_to_the_model() {
    let (mut config, desktop, _) = session_config("narrative", options(10));
    config.strategy = uitars();
    let done = "Thought: opened it\nAction: finished(content='opened it')";
    let model = Arc::new(CannedModel::texts([
        asks("Which of the two files?"),
        done.into(),
    ]));
    let handle = SessionHandle::new(ANSWERS);
    let mut events = Session::spawn_with(&handle, config, desktop, model.clone()).unwrap();
    assert!(
        handle.submit(Op::Answer("too early".into())).is_err(),
        "nothing asked yet"
    );
    let mut asked = None;
    for e in events.by_ref() {
        if let EventKind::AwaitingAnswer { question } = &e.kind {
            assert_eq!(handle.pending_answer(), Some(e.turn));
            asked = Some(question.clone());
            handle.submit(Op::Answer("the blue one".into())).unwrap();
        }
    }
    let summary = events.finish().unwrap();
    assert_eq!(asked.as_deref(), Some("Which of the two files?"));
    assert_eq!(summary.outcome, Outcome::Done, "{}", summary.reason);
    let second = serde_json::to_string(&model.requests()[1].to_body()).unwrap();
    assert!(
        second.contains("the blue one"),
        "the answer reached the model: {second}"
    );
}

#[test]
fn no_answer_ends_the_run_as_when_nobody_is_there() {
    let (mut config, desktop, _) = session_config("narrative", options(10));
    config.strategy = uitars();
    let model = Arc::new(CannedModel::texts([asks("Which?")]));
    let handle = SessionHandle::new(ANSWERS);
    let mut events = Session::spawn_with(&handle, config, desktop, model.clone()).unwrap();
    for e in events.by_ref() {
        if e.name() == "awaiting_answer" {
            handle.submit(Op::NoAnswer).unwrap();
        }
    }
    let summary = events.finish().unwrap();
    assert_eq!(summary.outcome, Outcome::Failed, "{}", summary.reason);
    assert!(summary.reason.contains("Which?"), "{}", summary.reason);
    assert_eq!(summary.exit_code(), 1);
    assert_eq!(model.requests().len(), 1);
}

#[test]
fn a_stop_ends_a_run_that_waits_for_an_answer() {
    let (mut config, desktop, _) = session_config("narrative", options(10));
    config.strategy = uitars();
    let model = Arc::new(CannedModel::texts([asks("Which?")]));
    let handle = SessionHandle::new(ANSWERS);
    let mut events = Session::spawn_with(&handle, config, desktop, model).unwrap();
    for e in events.by_ref() {
        if e.name() == "awaiting_answer" {
            handle.submit(Op::Stop("nobody answered".into())).unwrap();
        }
    }
    let summary = events.finish().unwrap();
    assert_eq!(summary.outcome, Outcome::Interrupted);
    assert_eq!(summary.reason, "nobody answered");
}

/// Streams its reply in `n` deltas `every` apart.
struct Trickle {
    n: usize,
    every: Duration,
}

impl crate::model::Model for Trickle {
    fn complete(
        &self,
        _: &ChatRequest,
        cancel: &Cancel,
        on: &mut dyn FnMut(crate::model::Progress<'_>),
    ) -> Result<Reply, crate::model::ModelError> {
        let mut content = String::new();
        for i in 0..self.n {
            let word = format!("w{i} ");
            on(crate::model::Progress::Delta(&word));
            content.push_str(&word);
            cancel.sleep(self.every);
        }
        content.push_str("\ndone(\"streamed\")");
        Ok(Reply {
            finish_reason: Some("stop".into()),
            ..Reply::text(content)
        })
    }
}

#[test]
fn stream_deltas_become_at_most_ten_model_delta_events_a_second() {
    let (mut config, desktop, _) = session_config("narrative", options(10));
    config.options.stream = true;
    // 100 deltas over about a second
    let model = Arc::new(Trickle {
        n: 100,
        every: Duration::from_millis(10),
    });
    let start = Instant::now();
    let (_, events) = Session::spawn(config, desktop, model).unwrap();
    let events: Vec<Event> = events.collect();
    let took = start.elapsed().as_secs_f64();
    let deltas: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ModelDelta { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert!(deltas.len() >= 3, "{deltas:?}");
    assert!(
        deltas.len() as f64 <= took * 10.0 + 2.0,
        "{} deltas in {took:.2} s",
        deltas.len()
    );
    // joined, they are the start of the reply, in order
    let joined: String = deltas.concat();
    assert!(joined.starts_with("w0 w1 "), "{joined}");
    let names: Vec<&str> = events.iter().map(Event::name).collect();
    let first_delta = names.iter().position(|n| *n == "model_delta").unwrap();
    let reply = names.iter().position(|n| *n == "model_reply").unwrap();
    assert!(first_delta < reply);
}

#[test]
fn a_request_shrunk_to_fit_the_context_is_read_against_the_image_the_model_was_sent() {
    // what the request costs as it is: its text and the full 320x200 image
    let ran = Run::texts("narrative", &["done(\"x\")"]).go();
    let (text, image) = ran
        .events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ModelRequest {
                estimated_tokens,
                image_tokens,
                image: Some(i),
                ..
            } => {
                assert_eq!((i.width, i.height), (W, H));
                Some((estimated_tokens - image_tokens, *image_tokens))
            }
            _ => None,
        })
        .expect("a model_request with its image");
    // a context with room for the text and half the image: the image goes to 160x100
    let mut run = Run::texts(
        "narrative",
        &["click(80, 50)\nI click the middle.", "done(\"x\")"],
    );
    run.read.pixel_coords = true;
    run.options.context = ContextOptions {
        tokens: Some(text + image / 2 + 100),
        shrink: Arc::new(|s: ImageSize| {
            (s.width > 160).then(|| ImageSize::new(s.width / 2, s.height / 2))
        }),
        ..ContextOptions::default()
    };
    let ran = run.go();
    let fitted: Vec<&EventKind> = ran
        .events
        .iter()
        .map(|e| &e.kind)
        .filter(|k| matches!(k, EventKind::ContextFitted { .. }))
        .collect();
    assert!(
        matches!(fitted[0], EventKind::ContextFitted { step, width: 160, height: 100, .. } if step == "smaller_image"),
        "{fitted:?}"
    );
    // (80, 50) of the 160x100 image sent is the middle of the 320x200 screen
    let sent = ran.desktop.sent();
    assert!(
        sent.contains(&Sent::Move(PixelPoint::new(160, 100))),
        "{sent:?}"
    );
    assert_eq!(ran.summary.outcome, Outcome::Done);
}

/// `--boot-reply` (docs/designs.md (vision loop): BOOT_VLM_OUTPUT): every strategy runs it as its
/// first turn, read with its dialects, without asking the model (the commander's leader
/// included).
#[test]
fn every_strategy_runs_the_boot_reply_as_its_first_turn() {
    for (strategy, boot) in [
        (
            "vision",
            r#"{"observation": "boot", "actions": [{"name": "click", "x": 500, "y": 500}]}"#,
        ),
        ("narrative", "click(500, 500)\nbooted"),
        ("tools", "click(500, 500)"),
        ("commander", "click(500, 500)"),
    ] {
        let mut run = Run::texts(strategy, &[]);
        run.options = options(1);
        run.read.boot_reply = Some(boot.into());
        let model = run.model.clone();
        let ran = run.go();
        assert_eq!(
            ran.clicks(),
            1,
            "{strategy}: the boot click ran: {:?}",
            ran.events
        );
        assert_eq!(
            model.requests().len(),
            0,
            "{strategy}: turn 1 asked the model"
        );
        let noted = ran.events.iter().any(|e| {
            matches!(&e.kind, EventKind::Note { text } if text.contains("the configured boot reply"))
        });
        assert!(noted, "{strategy}");
    }
}

/// Design 004's completion rule in every strategy (strategy/text_reply.rs `EvidenceRule`): a first
/// empty `done` goes back to the model as a problem; the next one with an answer ends the run
/// with that answer in `run_finished`.
#[test]
fn every_strategy_sends_a_first_empty_done_back_to_the_model() {
    let spawn = json!({"operator_instructions": "OBJ-1: report", "rationale": "one step"});
    let report = |e: &str| {
        tool_reply(
            "OBS: done",
            &[("report_completion", json!({"evidence": e}))],
        )
    };
    let cases: Vec<(&'static str, Vec<Canned>)> = vec![
        (
            "vision",
            vec![
                Canned::text(r#"{"observation": "", "actions": [{"name": "done", "text": ""}]}"#),
                Canned::text(
                    r#"{"observation": "", "actions": [{"name": "done", "text": "the answer is 42"}]}"#,
                ),
            ],
        ),
        (
            "narrative",
            vec![
                Canned::text("done()"),
                Canned::text("done(\"the answer is 42\")"),
            ],
        ),
        ("tools", vec![report(""), report("the answer is 42")]),
        (
            "commander",
            vec![
                tool_reply("Plan.", &[("spawn_operator", spawn)]),
                report(""),
                report("the answer is 42"),
            ],
        ),
    ];
    for (strategy, answers) in cases {
        let mut run = Run::new(strategy, answers);
        run.read.commander.min_evidence = 0;
        let model = run.model.clone();
        let ran = run.go();
        assert_eq!(
            ran.summary.outcome,
            Outcome::Done,
            "{strategy}: {}",
            reason(&ran)
        );
        assert_eq!(
            ran.summary.turns, 2,
            "{strategy}: the empty done did not end the run"
        );
        let last = serde_json::to_string(&model.requests().last().unwrap().to_body()).unwrap();
        // (the tool-call parser itself refuses an empty report_completion: "evidence is empty")
        assert!(last.contains(" is empty"), "{strategy}: {last}");
        let finished = ran.events.last().unwrap();
        assert!(
            serde_json::to_string(finished)
                .unwrap()
                .contains("the answer is 42"),
            "{strategy}: {finished:?}"
        );
    }
}

/// The second empty `done` of a run is accepted, with a warning.
#[test]
fn a_second_empty_done_is_accepted_with_a_warning() {
    let ran = Run::texts("narrative", &["done()", "done()"]).go();
    assert_eq!(ran.summary.outcome, Outcome::Done);
    assert_eq!(ran.summary.turns, 2);
    let warned = ran.events.iter().any(|e| {
        matches!(&e.kind, EventKind::Error { message, fatal: false } if message.contains("accepted"))
    });
    assert!(warned, "{:?}", ran.events);
}

/// The human profile tuned by the designs' delay settings, given by their seed names.
fn tuned(env: &[(&str, &str)]) -> ExecConfig {
    let e = crate::config::ConfigBuilder::new()
        .env(env.iter().map(|(k, v)| (k.to_string(), v.to_string())))
        .build()
        .unwrap();
    e.config.exec()
}

fn event_ms(ran: &Ran, turn: u32, name: &str) -> u64 {
    ran.events
        .iter()
        .find(|e| e.turn == turn && e.name() == name)
        .map(|e| e.t_ms)
        .unwrap_or_else(|| panic!("no {name} in turn {turn}"))
}

/// `action_delay` (ACTION_DELAY_SECONDS) between actions, `settle_delay` (CAPTURE_DELAY)
/// before the next screenshot, `drag_steps` / `drag_step_delay` and `typing_cadence`, seen in
/// the events' times.
#[test]
fn the_delay_settings_show_in_the_event_times() {
    let mut run = Run::texts(
        "vision",
        &[
            r#"{"actions": [{"name": "click", "x": 100, "y": 100}, {"name": "drag", "x1": 100, "y1": 100, "x2": 900, "y2": 900}, {"name": "type", "text": "abcdef"}]}"#,
            r#"{"actions": [{"name": "done", "text": "ok"}]}"#,
        ],
    );
    run.exec = tuned(&[
        ("ACTION_DELAY_SECONDS", "0.25"),
        ("CAPTURE_DELAY", "0.4"),
        ("DRAG_DURATION_STEPS", "6"),
        ("DRAG_STEP_DELAY", "0.05"),
        ("TYPING_CHAR_DELAY", "0.06"),
        ("FRANZ_TYPING_JITTER", "0"),
    ]);
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    let ms: Vec<f64> = ran
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ActionResult { ms, .. } if e.turn == 1 => Some(*ms),
            _ => None,
        })
        .collect();
    assert_eq!(ms.len(), 3);
    // the drag: the action delay, then 6 steps of 50 ms; the typing: 6 characters of 60 ms
    assert!(ms[1] >= 250.0 + 300.0, "{ms:?}");
    assert!(ms[2] >= 250.0 + 360.0, "{ms:?}");
    let held_moves = {
        let sent = ran.desktop.sent();
        let down = sent
            .iter()
            .position(|s| matches!(s, Sent::Button(Button::Left, Press::Down)))
            .unwrap();
        sent[down..]
            .iter()
            .take_while(|s| !matches!(s, Sent::Button(Button::Left, Press::Up)))
            .filter(|s| matches!(s, Sent::Move(_)))
            .count()
    };
    assert_eq!(held_moves, 6);
    // the settle: from the reply of turn 1 (before its actions) to turn 2's start
    let gap = event_ms(&ran, 2, "turn_started") - event_ms(&ran, 1, "model_reply");
    let acting: f64 = ms.iter().sum();
    assert!(
        gap as f64 >= acting + 400.0 - 2.0,
        "gap {gap} ms, acting {acting} ms"
    );
}

/// The fast profile ignores the human delays: it stays exact and quick.
#[test]
fn the_fast_profile_ignores_the_delay_settings() {
    let c = tuned(&[("ACTION_DELAY_SECONDS", "5"), ("FRANZ_MOTION", "fast")]);
    assert_eq!(c.motion, crate::executor::motion::Motion::fast());
    let c = tuned(&[("ACTION_DELAY_SECONDS", "5")]);
    assert_eq!(c.motion.action_delay_ms, 5000);
}

/// An element source that always finds the same elements.
struct FixedElements(Vec<franz_desktop::elements::Element>);

impl franz_desktop::elements::Elements for FixedElements {
    fn collect(
        &mut self,
        _budget: Duration,
    ) -> Result<franz_desktop::elements::Collected, franz_desktop::DesktopError> {
        Ok(franz_desktop::elements::Collected {
            elements: self.0.clone(),
            elapsed_ms: 1,
            truncated: true,
            skipped: 4,
        })
    }
}

/// A run grounded (`mode`) on an OK button at pixels (128, 80)..(192, 120) of the 320x200 screen.
fn grounded(mut run: Run, mode: crate::grounding::Grounding) -> Run {
    let ok = franz_desktop::elements::Element {
        role: "push_button".into(),
        name: "OK".into(),
        states: vec![],
        bounds: franz_desktop::PixelRect::new(128, 80, 64, 40),
    };
    run.grounding = Some(crate::grounding::GroundingSource {
        mode,
        elements: Box::new(FixedElements(vec![ok])),
        budget: Duration::from_millis(150),
    });
    run
}

fn request_texts(model: &CannedModel) -> Vec<String> {
    model
        .requests()
        .iter()
        .map(|r| serde_json::to_string(&r.messages).unwrap())
        .collect()
}

#[test]
fn grounding_puts_the_list_into_every_request_and_the_count_into_the_observation() {
    for strategy in ["narrative", "vision", "tools"] {
        let mut run = Run::texts(strategy, &["wait(0.1)\nwaiting"; 2]);
        run.options.max_steps = 2;
        let run = grounded(run, crate::grounding::Grounding::List);
        let model = run.model.clone();
        let ran = run.go();
        let texts = request_texts(&model);
        assert!(!texts.is_empty(), "{strategy}");
        for t in &texts {
            assert!(
                t.contains(r#"1 push_button \"OK\" [401,402,599,598]"#),
                "{strategy}: {t}"
            );
        }
        let obs = ran.events.iter().find_map(|e| match &e.kind {
            EventKind::Observation { elements, .. } => elements.clone(),
            _ => None,
        });
        let obs = obs.expect("the observation carries the collection");
        assert_eq!(
            (obs.collected, obs.marks, obs.skipped),
            (1, 1, 4),
            "{strategy}"
        );
    }
}

#[test]
fn without_grounding_the_request_has_no_list() {
    let run = Run::texts("narrative", &["done(\"ok\")\nok"]);
    let model = run.model.clone();
    let ran = run.go();
    assert!(!request_texts(&model)[0].contains("ELEMENTS"));
    assert!(ran.events.iter().all(|e| !matches!(
        &e.kind,
        EventKind::Observation {
            elements: Some(_),
            ..
        }
    )));
}

/// The colour of the pixel at (`x`, `y`) of the screenshot in request `i`.
fn sent_pixel(model: &CannedModel, i: usize, x: u32, y: u32) -> [u8; 4] {
    use base64::Engine as _;
    let text = serde_json::to_string(&model.requests()[i].messages).unwrap();
    let start = text.find("base64,").unwrap() + "base64,".len();
    let b64 = &text[start..start + text[start..].find('"').unwrap()];
    let png = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let img = image::load_from_memory(&png).unwrap().to_rgba8();
    img.get_pixel(x, y).0
}

#[test]
fn marks_draw_the_numbered_boxes_onto_the_screenshot_and_list_does_not() {
    let magenta = [230, 0, 180, 255];
    for (mode, drawn) in [
        (crate::grounding::Grounding::Marks, true),
        (crate::grounding::Grounding::List, false),
    ] {
        let mut run = grounded(Run::texts("narrative", &["done(\"ok\")\nok"]), mode);
        run.options.feedback = false;
        run.overlay = Some(Overlay::new(crate::overlay::OverlayConfig::default()).unwrap());
        let model = run.model.clone();
        run.go();
        // the top edge of the OK button's box, (128, 80)..(192, 120)
        let edge = (150..170).any(|x| (79..82).any(|y| sent_pixel(&model, 0, x, y) == magenta));
        assert_eq!(edge, drawn, "{mode:?}");
    }
}

#[test]
fn each_turn_reports_its_time_by_stage_to_whoever_asked_and_the_raw_buffer_is_pooled() {
    let (mut config, desktop, _log) = session_config("narrative", options(10));
    let runs = tempfile::tempdir().unwrap();
    let writer = RunWriter::create(runs.path(), crate::runlog::Layout::Flat).unwrap();
    let pool = writer.raw_pool(false).unwrap();
    config.writer = Some(writer);
    let model = Arc::new(CannedModel::texts([
        "click(500, 500)\nclick",
        "click(400, 400)\nclick",
        "done(\"ok\")\nok",
    ]));
    let handle = SessionHandle::new(Modes::default());
    let (tx, rx) = std::sync::mpsc::channel();
    handle.report_overhead_to(tx);
    let events = Session::spawn_with(&handle, config, desktop, model).unwrap();
    assert_eq!(events.finish().unwrap().outcome, Outcome::Done);
    let got: Vec<TurnOverhead> = rx.try_iter().collect();
    assert_eq!(got.iter().map(|o| o.turn).collect::<Vec<_>>(), [1, 2, 3]);
    for o in &got {
        let stages: f64 = o.stages().iter().map(|(_, ms)| ms).sum();
        assert!(stages <= o.outside_model_ms() + 1e-6, "{o:?}");
        assert!(
            o.observe_ms > 0.0 && o.log_ms > 0.0 && o.events_ms > 0.0,
            "{o:?}"
        );
    }
    // the raw screenshots went to the writer in pooled buffers, which came back
    assert!(pool.spare() >= 1, "no buffer came back to the pool");
}

/// A streamed narrative run, with or without early execution.
fn streamed(texts: &[&str], early_exec: bool) -> Run {
    let mut run = Run::texts("narrative", texts);
    run.options.stream = true;
    run.options.early_exec = early_exec;
    run
}

/// Each `action_result`'s `early_exec_ms_saved`, in order.
fn saved(ran: &Ran) -> Vec<Option<f64>> {
    ran.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ActionResult {
                early_exec_ms_saved,
                ..
            } => Some(*early_exec_ms_saved),
            _ => None,
        })
        .collect()
}

/// The events without their times (and the time saved): what two runs must both say.
fn contents(ran: &Ran) -> Vec<serde_json::Value> {
    ran.events
        .iter()
        .filter(|e| e.name() != "model_delta")
        .map(|e| {
            let mut v = serde_json::to_value(e).unwrap();
            for key in ["t_ms", "ms", "timings", "early_exec_ms_saved"] {
                v.as_object_mut().unwrap().remove(key);
            }
            v
        })
        .collect()
}

#[test]
fn a_streamed_action_runs_early_and_the_events_are_those_of_a_run_without() {
    let texts = [
        "click(500, 500)\nI click the middle of the screen and see what happens there.",
        "done(\"clicked\")\nIt worked.",
    ];
    let early = streamed(&texts, true).go();
    let late = streamed(&texts, false).go();
    assert_eq!(early.summary.outcome, Outcome::Done, "{}", reason(&early));
    let s = saved(&early);
    assert!(
        s.len() == 2 && s[0].is_some() && s[1].is_none(),
        "the click ran early, the done never: {s:?}"
    );
    assert_eq!(saved(&late), vec![None, None], "--no-early-exec");
    assert_eq!(contents(&early), contents(&late));
    assert_eq!((early.clicks(), late.clicks()), (1, 1), "performed once");
}

#[test]
fn nothing_runs_early_with_approval_or_a_confirm_rule() {
    let texts = [
        "click(500, 500)\nI click the middle of the screen.",
        "done(\"clicked\")\nIt worked.",
    ];
    let mut approved = streamed(&texts, true);
    let (remote, on_event) = approving(vec![]);
    (approved.controls, approved.on_event) = (remote, Some(on_event));
    let ran = approved.go();
    assert_eq!(ran.count("awaiting_approval"), 2);
    assert_eq!(saved(&ran), vec![None, None], "approve mode");
    assert_eq!(ran.clicks(), 1);

    let mut confirm = streamed(&texts, true);
    let config: crate::policy::PolicyConfig =
        toml::from_str("[confirm]\nkeys = [\"ctrl+s\"]").unwrap();
    confirm.policy = crate::policy::Policy::new(&config).unwrap();
    let ran = confirm.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    assert_eq!(saved(&ran), vec![None, None], "a confirm rule");
    assert_eq!(ran.clicks(), 1);
}

#[test]
fn a_reply_malformed_after_its_action_ran_keeps_the_action_and_says_so() {
    // a stray `</think>` later drops the action line from the whole reply's reading
    let texts = [
        "click(500, 500)\nno, wait</think>\nclick(100, 100)\nthe story",
        "done(\"ok\")\nok",
    ];
    let ran = streamed(&texts, true).go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    assert_eq!(ran.clicks(), 1, "the early click only, once");
    let middle = ActionKind::Click {
        x: Some(500),
        y: Some(500),
    };
    let read = ran.events.iter().find_map(|e| match &e.kind {
        EventKind::ModelReply { actions, .. } if e.turn == 1 => Some(actions.clone()),
        _ => None,
    });
    assert_eq!(read.map(|a| a[0].kind.clone()), Some(middle), "it stands");
    let malformed = ran.events.iter().any(|e| {
        matches!(&e.kind, EventKind::Error { message, fatal: false }
            if e.turn == 1 && message.contains("malformed"))
    });
    assert!(malformed, "{:?}", ran.names());
    assert!(saved(&ran)[0].is_some());
}

#[test]
fn the_tools_first_streamed_call_runs_early_and_the_events_are_those_of_a_run_without() {
    let replies = || {
        [
            tool_reply(
                "",
                &[
                    (
                        "click_element",
                        json!({"label": "middle", "box": [500, 500]}),
                    ),
                    ("type_text", json!({"text": "NOT TYPED"})),
                ],
            ),
            tool_reply("The middle was clicked.", &[]),
        ]
    };
    let go = |early_exec: bool| {
        let mut run = Run::new("tools", replies());
        (run.options.stream, run.options.early_exec) = (true, early_exec);
        run.go()
    };
    let (early, late) = (go(true), go(false));
    assert_eq!(early.summary.outcome, Outcome::Done, "{}", reason(&early));
    assert!(saved(&early)[0].is_some(), "{:?}", saved(&early));
    assert_eq!(saved(&late), vec![None, None]);
    assert_eq!(contents(&early), contents(&late));
    assert_eq!((early.clicks(), late.clicks()), (1, 1));
}

/// Streams `text`, then the connection breaks: the reply never completes.
struct BreaksOff(&'static str);

impl crate::model::Model for BreaksOff {
    fn complete(
        &self,
        _: &ChatRequest,
        _: &Cancel,
        on: &mut dyn FnMut(crate::model::Progress<'_>),
    ) -> Result<Reply, crate::model::ModelError> {
        on(crate::model::Progress::Delta(self.0));
        Err(crate::model::ModelError::BadReply {
            url: "memory".into(),
            reason: "the connection broke off mid-reply".into(),
        })
    }
}

#[test]
fn an_action_performed_early_is_recorded_when_the_reply_then_fails() {
    let (mut config, desktop, log) = session_config("narrative", options(10));
    config.options.stream = true;
    config.options.early_exec = true;
    let model = Arc::new(BreaksOff("click(500, 500)\nI click the mid"));
    let (_, events) = Session::spawn(config, desktop, model).unwrap();
    let events: Vec<Event> = events.collect();
    let pressed = log
        .sent()
        .iter()
        .filter(|s| matches!(s, Sent::Button(Button::Left, Press::Down | Press::Click)))
        .count();
    assert_eq!(pressed, 1, "the click ran early");
    let recorded = events.iter().any(|e| {
        matches!(&e.kind, EventKind::ActionResult { action, early_exec_ms_saved: Some(_), .. }
            if matches!(action.kind, ActionKind::Click { x: Some(500), y: Some(500) }))
    });
    let names: Vec<&str> = events.iter().map(Event::name).collect();
    assert!(recorded, "the performed click is in the events: {names:?}");
    let said = events.iter().any(
        |e| matches!(&e.kind, EventKind::Note { text } if text.contains("then the reply failed")),
    );
    assert!(said, "{names:?}");
    assert_eq!(names.last(), Some(&"run_finished"));
}

#[test]
fn a_10_mb_story_is_cut_before_it_is_sent_back_and_the_model_is_told() {
    let story = "The dialog is still open. ".repeat(400_000);
    let first = format!("move(500, 500)\n{story}");
    let run = Run::texts("narrative", &[&first, "done(\"the dialog is open\")"]);
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(ran.summary.outcome, Outcome::Done, "{}", reason(&ran));
    let second = serde_json::to_string(&model.requests()[1].to_body()).unwrap();
    assert!(
        second.len() < 200_000,
        "the second request holds {} bytes",
        second.len()
    );
    assert!(second.contains("franz keeps 16000"), "the cut is marked");
    assert!(
        second.contains("characters long: only the first 16000 were kept"),
        "the model is told its story was cut"
    );
}

/// A reply in another dialect than the run asks for (docs/actions.md, "Replies in another
/// dialect"), through the engine: under qwen3-vl (the default model id's profile, 0..1000) the
/// designs' `left_click(499, 494)` runs where it means, with a `note` naming the dialect and
/// the reminder in the next request; under qwen2.5-vl (pixels) the readings disagree and
/// nothing runs.
#[test]
fn a_reply_in_another_dialect_runs_when_it_means_the_same_with_a_note() {
    let qwen = |space| ReadOptions {
        dialect: Some(crate::parser::Dialect::Qwen),
        exact_space: Some(space),
        pixel_coords: space == crate::exact_target::Space::Pixels,
        ..ReadOptions::default()
    };
    let reply = "The OK button is in the middle.\nleft_click(500, 500)";
    let finish = "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"answer\", \"text\": \"the button was clicked\"}}\n</tool_call>";
    // the commander asks its leader first
    let answers = |strategy: &str, replies: &[&str]| {
        let spawn = json!({"operator_instructions": "OBJ-1: click OK", "rationale": "one step"});
        let leader =
            (strategy == "commander").then(|| tool_reply("Plan.", &[("spawn_operator", spawn)]));
        leader
            .into_iter()
            .chain(replies.iter().map(|t| Canned::text(*t)))
            .collect::<Vec<_>>()
    };
    for strategy in ["narrative", "vision", "tools", "commander"] {
        let mut run = Run::new(
            strategy,
            answers(strategy, &[reply, finish, finish, finish]),
        );
        run.read = qwen(crate::exact_target::Space::Norm1000);
        let model = run.model.clone();
        let ran = run.go();
        assert_eq!(ran.clicks(), 1, "{strategy}: {:?}", ran.events);
        assert!(
            ran.desktop
                .sent()
                .iter()
                .any(|s| matches!(s, Sent::Move(p) if *p == PixelPoint::new(160, 100))),
            "{strategy}: 500 of 0..1000 on 320x200 is (160, 100): {:?}",
            ran.desktop.sent()
        );
        let noted = ran.events.iter().any(|e| {
            matches!(&e.kind, EventKind::Note { text } if text.contains("read in the calls dialect"))
        });
        assert!(noted, "{strategy}: {:?}", ran.events);
        let requests = model.requests();
        let next = serde_json::to_string(&requests.last().unwrap().messages).unwrap();
        assert!(
            next.contains("answer in the asked format"),
            "{strategy}: the model was not reminded: {next}"
        );
        // pixels of the 320x200 image: (100, 100) is inside it, and means another point
        let pixels = "The OK button.\nleft_click(100, 100)";
        let mut run = Run::new(strategy, answers(strategy, &[pixels, pixels, pixels]));
        run.read = qwen(crate::exact_target::Space::Pixels);
        let ran = run.go();
        assert_eq!(ran.clicks(), 0, "{strategy}: {:?}", ran.events);
        let told = ran.events.iter().any(|e| {
            matches!(&e.kind, EventKind::Error { message, .. } if message.contains("the readings disagree"))
        });
        assert!(told, "{strategy}: {:?}", ran.events);
    }
}

#[path = "tests_finish.rs"]
mod finish;

#[path = "tests_grounder.rs"]
mod grounder_runs;
