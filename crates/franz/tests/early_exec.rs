//! Early execution end to end: the real `franz run --stream` on a private Xvfb whose
//! screen is the witness window, against the scripted model server, which streams a narrative
//! reply and pauses one second after its action line, before the story.
//!
//! - With early execution (the default), the witness sees the click before the server has sent
//!   the whole reply; the run's records and events are those of a `--no-early-exec` run, whose
//!   click comes after the reply, except for the times (and the time saved).
//! - A `confirm` rule (the person answers on stdin) and a `done` run nothing early.
//! - The tools strategy's first streamed tool call runs once the next call begins, while that
//!   one's arguments still stream.
//!
//! Order is checked on the witness's and the server's clocks (one process), never with sleeps.

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer, ServerOptions};
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(60);
const PAUSE: Duration = Duration::from_secs(1);
const CLICK: &str = "click(500, 500)\n";
const STORY: &str = "I clicked the middle of the window because the task asks for a click there. \
    The window is plain and shows nothing else, so there is no button or field to look for first. \
    After the click I expect the window to stay as it is, since it does not change when it is \
    clicked. Next turn I will look at the screen again and, if nothing went wrong, say that the \
    task is done.";

/// Turn 1 clicks (the stream pausing after the action line), turn 2 is done.
fn script() -> Script {
    Script::list([
        ScriptedReply::text(format!("{CLICK}{STORY}")).pause_after(CLICK, PAUSE),
        ScriptedReply::text(format!("done(\"clicked\")\n{STORY}"))
            .pause_after("done(\"clicked\")\n", PAUSE),
    ])
}

/// `franz [global] run --stream [extra]` with `stdin`; its run directory.
fn run(
    display: &str,
    server: &ScriptedServer,
    runs: &Path,
    (global, extra): (&[&str], &[&str]),
    stdin: &str,
) -> PathBuf {
    let mut cmd = common::franz_command();
    let url = server.url();
    common::no_franz_env(&mut cmd)
        .env("DISPLAY", display)
        .args(global)
        .args(common::run_args(&url, runs))
        .args(["click the middle", "--stream"])
        .args(extra)
        .args([
            "--model",
            "scripted-model",
            "--motion",
            "fast",
            "--max-steps",
            "4",
        ]);
    let out: Output = common::output_with_stdin(&mut cmd, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    common::run_dir(runs)
}

/// The first button press the witness saw.
fn first_press(witness: &Witness) -> WitnessEvent {
    let press = |e: &WitnessEvent| e.is(WitnessKind::ButtonPress);
    let (_, events) = witness.wait_for(|ev| ev.iter().any(press), T);
    events
        .into_iter()
        .find(press)
        .expect("the witness saw no click")
}

fn lines(dir: &Path, file: &str) -> Vec<Value> {
    std::fs::read_to_string(dir.join(file))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A record or event without what differs between two runs of the same script: times, the
/// time saved, the run directory; the screenshot's own figures (the pointer starts elsewhere).
fn content(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    for key in ["t_ms", "ms", "timings", "early_exec_ms_saved", "run_dir"] {
        o.remove(key);
    }
    if matches!(
        o.get("event").and_then(Value::as_str),
        Some("observation" | "model_request")
    ) {
        o.retain(|k, _| k == "event" || k == "turn");
    }
    v
}

fn contents(dir: &Path, file: &str) -> Vec<Value> {
    lines(dir, file).into_iter().map(content).collect()
}

/// Each `action_result`'s `early_exec_ms_saved`.
fn saved(dir: &Path) -> Vec<Option<f64>> {
    lines(dir, "events.jsonl")
        .iter()
        .filter(|e| e["event"] == "action_result")
        .map(|e| e["early_exec_ms_saved"].as_f64())
        .collect()
}

#[test]
fn the_click_lands_while_the_story_streams_and_the_records_are_those_of_a_run_without() {
    let (sb, witness) = common::sandbox(640, 480);
    let tmp = tempfile::tempdir().unwrap();

    let server = ScriptedServer::start(script()).unwrap();
    let early = run(sb.display(), &server, &tmp.path().join("a"), (&[], &[]), "");
    let press = first_press(&witness);
    let replied = server.replied_at(0).expect("the first reply was sent");
    assert!(
        press.seen < replied,
        "the click came {:?} after the whole reply, not before it",
        press.seen - replied
    );
    let s = saved(&early);
    assert!(s.len() == 2 && s[0].is_some() && s[1].is_none(), "{s:?}");

    witness.clear();
    let server = ScriptedServer::start(script()).unwrap();
    let late = run(
        sb.display(),
        &server,
        &tmp.path().join("b"),
        (&[], &["--no-early-exec"]),
        "",
    );
    let press = first_press(&witness);
    let replied = server.replied_at(0).expect("the first reply was sent");
    assert!(
        replied < press.seen,
        "--no-early-exec clicked before the reply ended"
    );
    assert_eq!(saved(&late), vec![None, None]);

    assert_eq!(
        contents(&early, "turns.jsonl"),
        contents(&late, "turns.jsonl")
    );
    assert_eq!(
        contents(&early, "events.jsonl"),
        contents(&late, "events.jsonl")
    );
}

#[test]
fn a_confirm_rule_or_a_done_runs_nothing_early() {
    let (sb, witness) = common::sandbox(640, 480);
    let tmp = tempfile::tempdir().unwrap();
    let policy = tmp.path().join("policy.toml");
    std::fs::write(&policy, "[confirm]\nregions = [[0, 0, 1000, 1000]]\n").unwrap();
    let server = ScriptedServer::start(script()).unwrap();
    let started = Instant::now();
    let dir = run(
        sb.display(),
        &server,
        &tmp.path().join("runs"),
        (&["--policy", policy.to_str().unwrap()], &[]),
        "y\n",
    );
    let press = first_press(&witness);
    let replied = server.replied_at(0).expect("the first reply was sent");
    assert!(
        started < replied && replied < press.seen,
        "the click ran early"
    );
    // the click waited for the person; the done never runs early
    assert_eq!(saved(&dir), vec![None, None]);
    let events = lines(&dir, "events.jsonl");
    assert!(
        events.iter().any(|e| e["event"] == "awaiting_approval"),
        "{events:?}"
    );
    assert_eq!(events.last().unwrap()["outcome"], "done", "{events:?}");
}

#[test]
fn the_tools_first_call_lands_while_the_next_call_streams() {
    let (sb, witness) = common::sandbox(640, 480);
    let tmp = tempfile::tempdir().unwrap();
    let click = serde_json::json!({"label": "middle", "box": [500, 500]});
    let script = Script::list([
        ScriptedReply::text("")
            .tool_call("click_element", click)
            .tool_call("type_text", serde_json::json!({"text": STORY})),
        ScriptedReply::text("The middle was clicked."),
    ]);
    let opts = ServerOptions {
        tokens_per_second: Some(40.0),
        ..ServerOptions::default()
    };
    let server = ScriptedServer::start_with(script, opts).unwrap();
    let dir = run(
        sb.display(),
        &server,
        &tmp.path().join("runs"),
        (&[], &["--strategy", "tools"]),
        "",
    );
    let press = first_press(&witness);
    let replied = server.replied_at(0).expect("the first reply was sent");
    assert!(press.seen < replied, "the click waited for the whole reply");
    let s = saved(&dir);
    assert!(s.len() == 2 && s[0].is_some() && s[1].is_none(), "{s:?}");
    let keys = witness.events();
    assert!(
        !keys.iter().any(|e| e.is(WitnessKind::KeyPress)),
        "the second call was typed"
    );
}
