//! The shipped scenario files (`scenarios/`): `franz scenarios` lists them with their
//! descriptions; each Linux scenario runs to its goal with the scripted model on a sandbox, its
//! own `setup` launching its programs, the scripted steps finding their target in the
//! screenshot the model is sent (the window's bounds), never at fixed pixels; a scenario with a
//! bad field is a usage error naming the file and the field. Synchronised on the process's end
//! and on files, never on sleeps.

use crate::common;
use base64::Engine as _;
use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{RecordedRequest, Script, ScriptedServer, Step};
use franz_core::scenario::Scenario;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn franz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(args)
        .env_remove("FRANZ_LOG")
        .output()
        .expect("run franz")
}

/// xterm-type and xterm-commander both write /tmp/franz-note.txt: one at a time.
static NOTE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs a shipped scenario on a sandbox against the scripted server.
fn run_scenario(name: &str, url: &str, runs: &Path) -> Output {
    run_scenario_with(name, url, runs, &[])
}

fn run_scenario_with(name: &str, url: &str, runs: &Path, extra: &[&str]) -> Output {
    let file = shipped().join(format!("{name}.toml"));
    let file = file.display().to_string();
    let mut args = vec!["--sandbox=1024x768", "--no-cursor"];
    args.extend(common::run_args(url, runs));
    // the screenshots the steps read show only the windows
    args.extend(["--no-feedback", "--scenario", &file]);
    args.extend(["--model", "scripted-model", "--motion", "fast"]);
    args.extend_from_slice(extra);
    franz(&args)
}

/// The last screenshot of a request, decoded.
fn last_image(req: &RecordedRequest) -> image::RgbaImage {
    fn urls(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if s.starts_with("data:image/") => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| urls(x, out)),
            Value::Object(o) => o.values().for_each(|x| urls(x, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    urls(req.json.as_ref().expect("a JSON body"), &mut found);
    let url = found.last().expect("an image in the request");
    let b64 = url.split_once(',').expect("a data URL").1;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    image::load_from_memory(&bytes).unwrap().to_rgba8()
}

/// The bounds of the windows on the screenshot (everything that differs from the empty root
/// in the bottom-right corner), x0, y0, x1, y1 in 0..1000 of the image; `None` when no window
/// is shown.
fn window_box(req: &RecordedRequest) -> Option<[i64; 4]> {
    let img = last_image(req);
    let (w, h) = img.dimensions();
    let root = *img.get_pixel(w - 1, h - 1);
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if *p != root {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    if x0 == u32::MAX {
        return None;
    }
    let norm = |p: u32, len: u32| i64::from(p) * 1000 / i64::from(len - 1);
    Some([norm(x0, w), norm(y0, h), norm(x1, w), norm(y1, h)])
}

/// The centre of the windows on the screenshot, in 0..1000.
fn window_centre(req: &RecordedRequest) -> Option<(i64, i64)> {
    window_box(req).map(|[x0, y0, x1, y1]| ((x0 + x1) / 2, (y0 + y1) / 2))
}

fn is_leader(req: &RecordedRequest) -> bool {
    req.json
        .as_ref()
        .is_some_and(|j| j["tools"].to_string().contains("spawn_operator"))
}

#[test]
fn franz_scenarios_lists_every_shipped_file_with_its_description() {
    let dir = shipped();
    let out = franz(&["scenarios", &dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let list = Scenario::list(&dir).unwrap();
    assert_eq!(list.len(), 7, "{stdout}");
    for s in list {
        let s = s.unwrap();
        assert!(!s.description.is_empty(), "{} has no description", s.name);
        assert!(stdout.contains(&s.name), "{}: {stdout}", s.name);
        assert!(stdout.contains(&s.description), "{}: {stdout}", s.name);
    }
}

#[test]
fn a_scenario_with_a_bad_field_is_a_usage_error_naming_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    for (body, field) in [
        ("task = \"t\"\nmax_steps = \"lots\"\n", "max_steps"),
        ("task = \"t\"\nsetup = 3\n", "setup"),
        ("task = 7\n", "task"),
        ("task = \"t\"\nstrategy = \"warp\"\n", "strategy"),
    ] {
        let file = dir.path().join("bad.toml");
        std::fs::write(&file, body).unwrap();
        let f = file.display().to_string();
        let out = franz(&[
            "run",
            "--scenario",
            &f,
            "--dry-run",
            "--api-url",
            "http://127.0.0.1:9",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{body}: {stderr}");
        assert!(
            stderr.contains(&f),
            "{body}: the file is not named: {stderr}"
        );
        assert!(
            stderr.contains(field),
            "{body}: the field is not named: {stderr}"
        );
    }
}

#[test]
fn xterm_type_types_into_the_terminal_its_setup_launched() {
    let _one = NOTE.lock().unwrap_or_else(|e| e.into_inner());
    let note = Path::new("/tmp/franz-note.txt");
    let _ = std::fs::remove_file(note);
    let turn = Arc::new(AtomicUsize::new(0));
    let server = ScriptedServer::start(Script::func(move |req| {
        let step = match turn.fetch_add(1, Ordering::SeqCst) {
            0 => match window_centre(req) {
                Some((x, y)) => format!("click({x}, {y})\nI click into the terminal."),
                None => "fail(\"no terminal on the screen\")".into(),
            },
            1 => "type(\"franz was here\")".into(),
            2 => "press_key(\"enter\")".into(),
            _ => "done(\"the sentence was typed and entered\")".into(),
        };
        Step::from(ScriptedReply::text(step))
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = run_scenario("xterm-type", &server.url(), runs.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        common::wait_for_file(note, "franz was here\n"),
        "franz was here\n"
    );
}

#[test]
fn xterm_bash_tools_runs_its_command_with_function_calls() {
    let file = Path::new("/tmp/franz-tools.txt");
    let _ = std::fs::remove_file(file);
    let turn = Arc::new(AtomicUsize::new(0));
    let server = ScriptedServer::start(Script::func(move |req| {
        let reply = match turn.fetch_add(1, Ordering::SeqCst) {
            0 => {
                let (x, y) = window_centre(req).unwrap_or((-1, -1));
                ScriptedReply::text("")
                    .tool_call("click_element", json!({"label": "terminal", "box": [x, y]}))
            }
            1 => ScriptedReply::text("").tool_call(
                "type_text",
                json!({"text": "echo franz > /tmp/franz-tools.txt"}),
            ),
            2 => ScriptedReply::text("").tool_call("press_key", json!({"key": "enter"})),
            _ => ScriptedReply::text("The command ran."),
        };
        Step::from(reply)
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = run_scenario("xterm-bash-tools", &server.url(), runs.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(common::wait_for_file(file, "franz\n"), "franz\n");
}

#[test]
fn xterm_commander_types_with_a_leader_and_an_operator() {
    let _one = NOTE.lock().unwrap_or_else(|e| e.into_inner());
    let note = Path::new("/tmp/franz-note.txt");
    let _ = std::fs::remove_file(note);
    let turn = Arc::new(AtomicUsize::new(0));
    let evidence = "The terminal window shows the line 'franz was here' followed by a new empty \
                    line, so the sentence was typed and Enter was pressed as the mission asked.";
    let server = ScriptedServer::start(Script::func(move |req| {
        if is_leader(req) {
            let spawn = json!({"operator_instructions": "OBJ-1: type the sentence", "rationale": "one step"});
            return Step::from(ScriptedReply::text("Plan.").tool_call("spawn_operator", spawn));
        }
        let (tool, args) = match turn.fetch_add(1, Ordering::SeqCst) {
            0 => {
                let (x, y) = window_centre(req).unwrap_or((-1, -1));
                (
                    "click_element",
                    json!({"justification": "focus", "label": "terminal", "position": [x, y]}),
                )
            }
            1 => ("type_text", json!({"text": "franz was here"})),
            2 => ("press_key", json!({"key": "enter"})),
            _ => ("report_completion", json!({"evidence": evidence})),
        };
        Step::from(ScriptedReply::text("OBS: the terminal").tool_call(tool, args))
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = run_scenario("xterm-commander", &server.url(), runs.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        common::wait_for_file(note, "franz was here\n"),
        "franz was here\n"
    );
}

#[test]
fn zenity_form_fills_the_dialog_and_confirms_it() {
    let turn = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(AtomicBool::new(false));
    let seen_closed = closed.clone();
    let server = ScriptedServer::start(Script::func(move |req| {
        let step = match (turn.fetch_add(1, Ordering::SeqCst), window_box(req)) {
            (0, None) => "fail(\"no dialog on the screen\")".to_string(),
            // the pointer on the dialog gives it the keyboard (no window manager)
            (0, Some([x0, y0, x1, y1])) => format!("click({}, {})", (x0 + x1) / 2, (y0 + y1) / 2),
            (1, _) => "type(\"Ada Lovelace\")".into(),
            // OK is the right one of the two buttons along the dialog's bottom edge
            (2, Some([x0, y0, x1, y1])) => {
                format!("click({}, {})", x0 + (x1 - x0) * 3 / 4, y1 - (y1 - y0) / 6)
            }
            (_, None) => {
                seen_closed.store(true, Ordering::SeqCst);
                "done(\"the dialog was filled and confirmed\")".into()
            }
            (_, Some(_)) => "wait(0.5)".into(),
        };
        Step::from(ScriptedReply::text(step))
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = run_scenario("zenity-form", &server.url(), runs.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        closed.load(Ordering::SeqCst),
        "the dialog never closed: {stderr}"
    );
}

#[test]
fn investigation_loop_runs_until_stopped_pointing_out_regions() {
    let server = ScriptedServer::start(Script::func(|req| {
        let bbox = match window_box(req) {
            Some([x0, y0, x1, y1]) => json!({"x1": x0, "y1": y0, "x2": x1, "y2": y1}),
            None => json!({"x1": 0, "y1": 0, "x2": 1000, "y2": 1000}),
        };
        let reply = json!({"observation": "an empty desktop", "bboxes": [bbox], "actions": [{"name": "wait", "seconds": 0}]});
        Step::from(ScriptedReply::text(reply.to_string()))
    }))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    // max_steps = 0 in the file: it only ends when stopped, here by the flag
    let out = run_scenario_with(
        "investigation-loop",
        &server.url(),
        runs.path(),
        &["--max-steps", "3"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--max-steps 3"), "{stderr}");
    assert_eq!(server.request_count(), 3, "{stderr}");
    let events = std::fs::read_dir(runs.path())
        .unwrap()
        .map(|e| e.unwrap().path().join("events.jsonl"))
        .find(|p| p.exists())
        .expect("a run directory");
    let text = std::fs::read_to_string(events).unwrap();
    assert!(text.contains("\"strategy\":\"vision\""), "{text}");
    let replies = text.lines().filter(|l| l.contains("\"model_reply\""));
    assert_eq!(
        replies.filter(|l| l.contains("\"bboxes\":[{")).count(),
        3,
        "{text}"
    );
}
