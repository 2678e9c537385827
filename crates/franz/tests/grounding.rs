//! `franz run --grounding marks` inside a private D-Bus session that runs the accessibility bus:
//! a scripted model that reads the request's ELEMENTS list and answers only with element
//! references (never coordinates) fills a zenity form (an entry and OK) and a check list (a
//! check box and OK), in a narrative run and a tools run; the output is exact. A reference to a mark that does not exist gets an error result and
//! no input reaches the witness window.

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{RecordedRequest, Script, ScriptedServer, Step};
use franz_desktop::witness::WitnessKind;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(30);

/// Waits for org.a11y.Bus on the fresh session bus, then runs franz with the arguments given.
const UNDER_BUS: &str = r#"
    until dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress >/dev/null 2>&1; do sleep 0.05; done
    exec "$@"
"#;

fn franz_under_bus(args: &[&str], envs: &[(&str, &str)]) -> Output {
    // the accessibility bus's socket is named after the display in XDG_RUNTIME_DIR: a
    // private one keeps sessions that run at the same time apart
    let runtime = tempfile::tempdir().unwrap();
    Command::new("dbus-run-session")
        .env("XDG_RUNTIME_DIR", runtime.path())
        .args([
            "--",
            "sh",
            "-c",
            UNDER_BUS,
            "sh",
            env!("CARGO_BIN_EXE_franz"),
        ])
        .args(args)
        .envs(envs.iter().copied())
        .env_remove("FRANZ_LOG")
        .output()
        .expect("dbus-run-session (package dbus, scripts/deps.sh)")
}

/// The marks of the last ELEMENTS list in a request: (number, role, name).
fn listed(req: &RecordedRequest) -> Vec<(u64, String, String)> {
    let mut texts = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if s.contains("ELEMENTS (") => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(
        &req.json.clone().unwrap_or(Value::Null)["messages"],
        &mut texts,
    );
    let Some(text) = texts.last() else {
        return Vec::new();
    };
    let list = &text[text.find("ELEMENTS (").unwrap_or(0)..];
    list.lines()
        .skip(1)
        .filter_map(|l| {
            let (id, rest) = l.split_once(' ')?;
            let (role, rest) = rest.split_once(' ')?;
            let name = rest.get(1..rest.rfind("\" [")?)?;
            Some((id.parse().ok()?, role.to_string(), name.to_string()))
        })
        .collect()
}

/// The number of the first listed mark that `pick` accepts.
fn find(marks: &[(u64, String, String)], pick: impl Fn(&str, &str) -> bool) -> Option<u64> {
    marks.iter().find(|m| pick(&m.1, &m.2)).map(|m| m.0)
}

/// The next step of the scripted model in `stage` (advanced when it acts), from what is listed.
fn next(stage: &mut u32, marks: &[(u64, String, String)]) -> Stage {
    let ok = find(marks, |role, name| role.contains("button") && name == "OK");
    let entry = find(marks, |role, _| role == "text");
    // the check box of the row "Coffee": the unnamed cell just before it
    let check = find(marks, |role, name| role == "table_cell" && name == "Coffee")
        .map(|coffee| coffee - 1)
        .filter(|&c| marks.iter().any(|m| m.0 == c && m.2.is_empty()));
    let step = match (*stage, entry, check, ok) {
        (0, Some(e), _, Some(_)) => Stage::Type(e),
        (1, Some(_), _, Some(ok)) => Stage::Click(ok),
        (2, _, Some(c), Some(_)) => Stage::Click(c),
        (3, _, Some(_), Some(ok)) => Stage::Click(ok),
        (4, _, _, _) => Stage::Done,
        _ => return Stage::Wait,
    };
    *stage += 1;
    step
}

/// A model that types the name into the form's entry and confirms it, then ticks "Coffee" in
/// the check list and confirms it, then (once both outputs are written) says it is done; it
/// waits while what it needs is not listed yet.
fn form_filler(out: &Path, answer: fn(Stage) -> ScriptedReply) -> Script {
    let stage = Arc::new(Mutex::new(0));
    let out = out.to_path_buf();
    Script::func(move |req| {
        let mut s = stage.lock().unwrap();
        let step = next(&mut s, &listed(req));
        if let Stage::Done = step {
            let deadline = Instant::now() + T;
            while Instant::now() < deadline
                && !std::fs::read_to_string(&out).is_ok_and(|t| t.lines().count() >= 2)
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        Step::from(answer(step))
    })
}

#[derive(Clone, Copy)]
enum Stage {
    Wait,
    Type(u64),
    Click(u64),
    Done,
}

fn narrative(stage: Stage) -> ScriptedReply {
    ScriptedReply::text(match stage {
        Stage::Wait => "wait(0.3)\nThe form is not there yet.".to_string(),
        Stage::Type(e) => format!("type(\"Ada Lovelace\", element={e})\nI type the name."),
        Stage::Click(e) => format!("click(element={e})\nI click it."),
        Stage::Done => "done(\"the form is filled\")\nDone.".to_string(),
    })
}

fn tools(stage: Stage) -> ScriptedReply {
    match stage {
        Stage::Wait => ScriptedReply::text("").tool_call("observe_screen", json!({})),
        Stage::Type(e) => ScriptedReply::text("")
            .tool_call("type_text", json!({"text": "Ada Lovelace", "element": e})),
        Stage::Click(e) => ScriptedReply::text("").tool_call(
            "click_element",
            json!({"label": "the next control", "element": e}),
        ),
        Stage::Done => ScriptedReply::text("The form is filled."),
    }
}

fn fill_the_form(strategy: &str, answer: fn(Stage) -> ScriptedReply) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("form.txt");
    let server = ScriptedServer::start(form_filler(&out, answer)).unwrap();
    let runs = tmp.path().join("runs");
    let launch = format!(
        "--launch=sh -c 'zenity --forms --title=Person --text=Person --add-entry=Name > {0}; \
         zenity --list --checklist --title=Drink --column=Pick --column=Item FALSE Tea FALSE Coffee >> {0}'",
        out.display()
    );
    let url = server.url();
    let task = "Fill in the name Ada Lovelace, confirm, then tick Coffee and confirm.";
    let args = [
        &["--sandbox=800x600", launch.as_str()][..],
        &common::run_args(&url, &runs),
        &[
            "--strategy",
            strategy,
            "--grounding",
            "marks",
            "--model",
            "scripted",
        ],
        &["--motion", "fast", "--max-steps", "40", task],
    ]
    .concat();
    let o = franz_under_bus(&args, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{strategy}: {stderr}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "Ada Lovelace\nCoffee\n",
        "{strategy}: {stderr}"
    );
    // no coordinates were ever given: every action of the run named an element
    let dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = common::events_in(&dir);
    let acted: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "action_result")
        .map(|e| &e["action"])
        .filter(|a| a["type"] == "click" || a["type"] == "type")
        .collect();
    assert_eq!(acted.len(), 4, "{strategy}: {acted:?}");
    for a in acted {
        assert!(a["element"].is_u64() && a.get("x").is_none(), "{a}");
    }
    // the run log keeps where each element was, so a replay acts there
    let turns = std::fs::read_to_string(dir.join("turns.jsonl")).unwrap();
    let recorded: Vec<Value> = turns
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|t| t["stage"] == "raw")
        .flat_map(|t| t["actions"].as_array().cloned().unwrap_or_default())
        .filter(|a| a["element"].is_u64())
        .collect();
    assert_eq!(recorded.len(), 4, "{strategy}: {turns}");
    for a in &recorded {
        let at = a["element_at"].as_array().expect("element_at");
        assert!(
            at.iter().all(|v| (0..=1000).contains(&v.as_i64().unwrap())),
            "{a}"
        );
    }
    let obs = events
        .iter()
        .find(|e| e["event"] == "observation" && e["elements"]["marks"].as_u64() > Some(1))
        .expect("an observation with the form's marks");
    assert!(obs["elements"]["ms"].is_number(), "{obs}");
}

#[test]
fn a_narrative_run_fills_a_zenity_form_by_element_references() {
    fill_the_form("narrative", narrative);
}

#[test]
fn a_tools_run_fills_a_zenity_form_by_element_references() {
    fill_the_form("tools", tools);
}

#[test]
fn an_unknown_element_is_an_error_result_and_no_input_reaches_the_witness() {
    let (sandbox, witness) = common::sandbox(640, 400);
    let count = Arc::new(Mutex::new(0));
    let c = count.clone();
    let server = ScriptedServer::start(Script::func(move |_| {
        let mut n = c.lock().unwrap();
        *n += 1;
        let reply = match *n {
            1 => "click(element=7)\nI click the seventh element.",
            _ => "done(\"stopped\")\nDone.",
        };
        ScriptedReply::text(reply).into()
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let args = [
        &common::run_args(&url, &runs)[..],
        &[
            "--strategy",
            "narrative",
            "--grounding",
            "marks",
            "--model",
            "scripted",
        ],
        &["--motion", "fast", "--max-steps", "5", "Click element 7."],
    ]
    .concat();
    witness.clear();
    let o = franz_under_bus(&args, &[("DISPLAY", sandbox.display())]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = common::events_in(&dir);
    let result = events
        .iter()
        .find(|e| e["event"] == "action_result" && e["action"]["type"] == "click")
        .unwrap_or_else(|| panic!("no click result: {stderr}"));
    assert_eq!(result["action"], json!({"type": "click", "element": 7}));
    let message = result["result"].to_string();
    assert!(message.contains("element 7 does not exist"), "{result}");
    // the error went back to the model with the next request
    let requests = server.requests();
    assert!(requests.len() >= 2, "{stderr}");
    assert!(
        requests[1].body.contains("element 7 does not exist"),
        "{}",
        requests[1].body
    );
    // nothing reached the screen: no pointer motion, no button, no key
    let input = witness.events().into_iter().filter(|e| {
        e.is(WitnessKind::ButtonPress) || e.is(WitnessKind::KeyPress) || e.is(WitnessKind::Motion)
    });
    assert_eq!(input.count(), 0, "{stderr}");
}

/// `franz bench observe --grounding marks` prints the element collection's median.
#[test]
fn bench_observe_prints_the_collection_median() {
    let o = franz_under_bus(
        &[
            "--sandbox=800x600",
            "--launch=zenity --entry --title=Ask --text=Name",
            "bench",
            "observe",
            "--turns",
            "3",
            "--grounding",
            "marks",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("elements: median "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains(" marks, ") && line.contains("(budget 150 ms)"),
        "{line}"
    );
}

/// A sandboxed run with `--grounding marks` runs an EWMH window manager without `--wm` (it
/// announces itself with `_NET_SUPPORTING_WM_CHECK` on the root window, read by a launched
/// xprop, which then shows a window so the launch is not waited for); `--no-wm` turns it off,
/// and `franz config` says which.
#[test]
fn grounding_in_a_sandbox_starts_a_window_manager_by_default() {
    for (extra, want) in [(None, true), (Some("--no-wm"), false)] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("wm.txt");
        let seen = out.clone();
        // the model answers once xprop has written, so the run outlives it
        let server = ScriptedServer::start(Script::func(move |_| {
            let until = Instant::now() + T;
            while std::fs::metadata(&seen).map_or(true, |m| m.len() == 0) && Instant::now() < until
            {
                std::thread::sleep(Duration::from_millis(50));
            }
            Step::from(ScriptedReply::text("Nothing to do.\ndone(\"checked\")"))
        }))
        .unwrap();
        let launch = format!(
            "--launch=sh -c 'xprop -root _NET_SUPPORTING_WM_CHECK > {}; exec xmessage wm'",
            out.display()
        );
        let runs = tmp.path().join("runs");
        let url = server.url();
        let mut args = vec!["--sandbox=640x480", launch.as_str()];
        args.extend(extra);
        args.extend(common::run_args(&url, &runs));
        args.extend(["--grounding", "marks", "--model", "scripted"]);
        args.extend(["--max-steps", "1", "Check."]);
        let o = franz_under_bus(&args, &[]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        let prop = std::fs::read_to_string(&out).unwrap_or_default();
        assert_eq!(
            prop.contains("_NET_SUPPORTING_WM_CHECK(WINDOW): window id"),
            want,
            "{extra:?}: {prop}\n{stderr}"
        );
        let mut config = vec!["--sandbox=640x480"];
        config.extend(extra);
        config.extend(["config", "--grounding", "marks"]);
        let c = Command::new(env!("CARGO_BIN_EXE_franz"))
            .args(&config)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&c.stdout);
        let line = text.lines().find(|l| l.starts_with("wm = ")).unwrap();
        assert!(line.starts_with(&format!("wm = {want}  # ")), "{line}");
    }
}

/// The box `[x1,y1,x2,y2]` (0..1000) of the listed mark `id` in a request's ELEMENTS list.
fn listed_box(req: &RecordedRequest, id: u64) -> Option<[i32; 4]> {
    let body = req.json.clone().unwrap_or(Value::Null)["messages"].to_string();
    let text = body.replace("\\n", "\n").replace("\\\"", "\"");
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{id} ")) && l.contains("\" ["))?;
    let inner = &line[line.rfind('[')? + 1..];
    let inner = &inner[..inner.find(']')?];
    let v: Vec<i32> = inner
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    (v.len() == 4).then(|| [v[0], v[1], v[2], v[3]])
}

/// `move(element=N)` (a hover) puts the pointer at the centre of the element's box.
#[test]
fn move_to_an_element_puts_the_pointer_at_its_box_centre() {
    let (w, h) = (800, 600);
    let (sandbox, _witness) = common::sandbox(w, h);
    let target = Arc::new(Mutex::new(None));
    let t = target.clone();
    let server = ScriptedServer::start(Script::func(move |req| {
        let mut t = t.lock().unwrap();
        if t.is_some() {
            return ScriptedReply::text("done(\"hovered\")\nDone.").into();
        }
        let marks = listed(req);
        let ok = find(&marks, |role, name| role.contains("button") && name == "OK");
        match ok.and_then(|id| listed_box(req, id).map(|b| (id, b))) {
            Some((id, b)) => {
                *t = Some(b);
                ScriptedReply::text(format!("move(element={id})\nI hover OK.")).into()
            }
            None => ScriptedReply::text("wait(0.3)\nNot there yet.").into(),
        }
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let args = [
        &["--launch=zenity --entry --title=Ask --text=Name"][..],
        &common::run_args(&url, &runs),
        &["--grounding", "list", "--model", "scripted"],
        &["--motion", "fast", "--max-steps", "20", "Hover OK."],
    ]
    .concat();
    let o = franz_under_bus(&args, &[("DISPLAY", sandbox.display())]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let b = target.lock().unwrap().expect("OK was never listed");
    // the centre of the box, through docs/coordinates.md's formula on the full screen
    let px = |n: i32, l: u32| (n as f64 * (l - 1) as f64 / 1000.0).round() as i32;
    let want = (px((b[0] + b[2]) / 2, w), px((b[1] + b[3]) / 2, h));
    let loc = Command::new("xdotool")
        .args(["getmouselocation", "--shell"])
        .env("DISPLAY", sandbox.display())
        .output()
        .unwrap();
    let loc = String::from_utf8_lossy(&loc.stdout);
    let get = |k: &str| -> i32 {
        loc.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{loc}"))
    };
    let got = (get("X"), get("Y"));
    assert!(
        (got.0 - want.0).abs() <= 1 && (got.1 - want.1).abs() <= 1,
        "pointer at {got:?}, box {b:?} centre {want:?}: {stderr}"
    );
    // the action stayed an element reference, with no point of its own
    let dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = common::events_in(&dir);
    let moved = events
        .iter()
        .find(|e| e["event"] == "action_result" && e["action"]["type"] == "move")
        .unwrap_or_else(|| panic!("no move: {stderr}"));
    assert_eq!(moved["result"]["status"], "ok", "{moved}");
    assert!(moved["action"].get("x").is_none(), "{moved}");
}

/// With `--grounding list`, every request of the commander carries the element list: the
/// leader's as well as the operator's (as in the other strategies), seen in the bodies the
/// scripted server recorded.
#[test]
fn every_commander_request_carries_the_element_list() {
    let is_leader = |req: &Value| {
        req["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "spawn_operator"))
    };
    let server = ScriptedServer::start(Script::func(move |r| {
        let req = r.json.clone().unwrap_or(Value::Null);
        let reply = if is_leader(&req) {
            ScriptedReply::text("").tool_call(
                "spawn_operator",
                json!({"operator_instructions": "look at the form", "rationale": "one step"}),
            )
        } else {
            ScriptedReply::text("OBJ: OBJ-1\nOBS: a form\nACT: shift").tool_call(
                "press_key",
                json!({"justification": "harmless", "key": "shift"}),
            )
        };
        Step::from(reply)
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let args = [
        &[
            "--sandbox=640x480",
            "--launch=zenity --entry --title=Ask --text=Name",
        ][..],
        &common::run_args(&url, &runs),
        &[
            "--strategy",
            "commander",
            "--grounding",
            "list",
            "--model",
            "scripted",
        ],
        &["--motion", "fast", "--max-steps", "3", "Look at the form."],
    ]
    .concat();
    let o = franz_under_bus(&args, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let chats: Vec<Value> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .filter_map(|r| r.json)
        .collect();
    let leaders = chats.iter().filter(|r| is_leader(r)).count();
    assert!(
        leaders >= 1 && chats.len() > leaders,
        "{leaders} leader requests of {}: {stderr}",
        chats.len()
    );
    for (i, req) in chats.iter().enumerate() {
        let body = req["messages"].to_string();
        assert!(
            body.contains("ELEMENTS (number role"),
            "request {i} (leader: {}) has no element list: {body}",
            is_leader(req)
        );
    }
}
