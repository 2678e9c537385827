//! `franz act` end to end: the binary on a private Xvfb, checked with the witness window;
//! result lines, exit codes, the crop, dry-run and the failsafe.

#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox;
use franz_desktop::PixelPoint;
use franz_desktop::witness::{WitnessEvent, WitnessKind as K};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);

fn franz(display: Option<&str>, args: &[&str]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_franz"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match display {
        Some(d) => cmd.env("DISPLAY", d),
        None => cmd.env_remove("DISPLAY"),
    };
    cmd.spawn().unwrap()
}

fn wait(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + T;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(Instant::now() < deadline, "franz did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn finish(mut child: Child) -> (i32, Vec<Value>, String) {
    let status = wait(&mut child);
    let out = common::read_pipe(child.stdout.take());
    let err = common::read_pipe(child.stderr.take());
    let lines = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (status.code().unwrap_or(-1), lines, err)
}

fn presses(ev: &[WitnessEvent]) -> Vec<PixelPoint> {
    ev.iter()
        .filter(|e| e.is(K::ButtonPress))
        .map(|e| e.at)
        .collect()
}

#[test]
fn clicks_land_on_the_formula_pixel_with_a_crop() {
    let (sb, witness) = sandbox(1000, 700);
    let child = franz(
        Some(sb.display()),
        &[
            "act",
            "--motion",
            "fast",
            "--crop",
            "200,100,800,900",
            r#"{"type":"click","x":0,"y":0}"#,
            r#"{"type":"right_click","x":1000,"y":1000,"note":"corner"}"#,
        ],
    );
    let (code, lines, err) = finish(child);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["status"], "ok");
    assert_eq!(lines[1]["action"]["note"], "corner");
    // area: x 200..800 (600 px), y 70..630 (560 px)
    let (ok, ev) = witness.wait_for(|e| presses(e).len() == 2, T);
    assert!(ok, "{ev:?}");
    assert_eq!(
        presses(&ev),
        vec![PixelPoint::new(200, 70), PixelPoint::new(799, 629)]
    );
}

#[test]
fn failsafe_stops_the_script_with_exit_4() {
    let (sb, witness) = sandbox(800, 600);
    let mut child = franz(
        Some(sb.display()),
        &[
            "act",
            "--motion",
            "fast",
            r#"{"type":"click","x":500,"y":500}"#,
            r#"{"type":"wait","seconds":3}"#,
            r#"{"type":"click","x":600,"y":600}"#,
        ],
    );
    // Synchronise on the first result line, then slam the pointer into the corner.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        (first["index"].as_u64(), first["status"].as_str()),
        (Some(0), Some("ok"))
    );
    let moved = Command::new("xdotool")
        .args(["mousemove", "0", "0"])
        .env("DISPLAY", sb.display())
        .status()
        .unwrap();
    assert!(moved.success());

    let status = wait(&mut child);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(4), "{err}");
    assert!(
        err.contains("failsafe") && err.contains("top-left corner"),
        "{err}"
    );
    // the wait finished; the second click never happened
    let rest: Vec<Value> = rest
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["index"], 1);
    assert_eq!(presses(&witness.events()), vec![PixelPoint::new(400, 300)]);
}

#[test]
fn a_click_franz_makes_at_the_corner_does_not_trip_the_failsafe() {
    let (sb, witness) = sandbox(800, 600);
    let child = franz(
        Some(sb.display()),
        &[
            "act",
            "--motion",
            "human",
            r#"{"type":"click","x":0,"y":0}"#,
            r#"{"type":"click"}"#,
        ],
    );
    let (code, lines, err) = finish(child);
    assert_eq!(code, 0, "{err}");
    assert!(lines.iter().all(|l| l["status"] == "ok"), "{lines:?}");
    let (ok, ev) = witness.wait_for(|e| presses(e).len() == 2, T);
    assert!(ok, "{ev:?}");
    assert_eq!(presses(&ev), vec![PixelPoint::new(0, 0); 2]);
}

#[test]
fn dry_run_in_a_sandbox_reports_every_result() {
    let child = franz(
        None,
        &[
            "--sandbox=640x480",
            "act",
            "--dry-run",
            "--crop",
            "250,250,750,750",
            r#"{"type":"click","x":2000,"y":5}"#,
            r#"{"type":"key","keys":"ctrl+warpdrive"}"#,
            r#"{"type":"type","text":""}"#,
            r#"{"type":"wait","seconds":30}"#,
            r#"{"type":"done","text":"42"}"#,
        ],
    );
    let started = Instant::now();
    let (code, lines, err) = finish(child);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "dry-run waited"
    );
    assert_eq!(code, 1, "{err}");
    let status: Vec<&str> = lines
        .iter()
        .map(|l| l["status"].as_str().unwrap())
        .collect();
    assert_eq!(status, ["error", "error", "error", "ok", "ok"]);
    // outside 0..1000: refused by the work_area rule, also in dry-run
    assert_eq!(lines[0]["kind"], "policy_denied");
    assert!(
        lines[0]["message"]
            .as_str()
            .unwrap()
            .contains("(work_area: click at (2000, 5) is outside the working area"),
        "{lines:?}"
    );
    assert_eq!(lines[1]["kind"], "invalid_key");
    assert!(lines[1]["message"].as_str().unwrap().contains("warpdrive"));
    assert_eq!(lines[2]["kind"], "empty_text");
}

#[test]
fn an_argument_that_is_not_an_action_is_a_usage_error() {
    let (code, lines, err) = finish(franz(None, &["act", "left_klick(5,5)"]));
    assert_eq!(code, 2);
    assert!(lines.is_empty());
    assert!(err.contains("left_klick"), "{err}");
}

#[test]
fn model_dialects_are_accepted_and_land_on_the_same_pixel() {
    let (sb, witness) = sandbox(1000, 700);
    let child = franz(
        Some(sb.display()),
        &[
            "act",
            "--motion",
            "fast",
            "left_click(0, 0)",
            r#"<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [1000, 1000]}}</tool_call>"#,
        ],
    );
    let (code, lines, err) = finish(child);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["action"]["type"], "click");
    let (ok, ev) = witness.wait_for(|e| presses(e).len() == 2, T);
    assert!(ok, "{ev:?}");
    assert_eq!(
        presses(&ev),
        vec![PixelPoint::new(0, 0), PixelPoint::new(999, 699)]
    );
}

#[test]
fn the_failsafe_stops_typing_in_the_middle_of_a_long_word() {
    let (sb, witness) = sandbox(800, 600);
    witness.focus().unwrap();
    let word = "a".repeat(150);
    let text = serde_json::json!({"type": "type", "text": word}).to_string();
    let child = franz(Some(sb.display()), &["act", "--motion", "human", &text]);
    // the person slams the pointer into the corner once the word is under way
    let typed = |ev: &[WitnessEvent]| ev.iter().filter(|e| e.is(K::KeyPress)).count();
    let (started, _) = witness.wait_for(|ev| typed(ev) >= 10, T);
    assert!(started, "the typing never started");
    let moved = Command::new("xdotool")
        .args(["mousemove", "0", "0"])
        .env("DISPLAY", sb.display())
        .status()
        .unwrap();
    assert!(moved.success());
    let (code, _, err) = finish(child);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("failsafe"), "{err}");
    // it used to look only at spaces: all 150 characters of the word arrived
    let arrived = typed(&witness.events());
    assert!(
        arrived < 75,
        "{arrived} of 150 characters arrived after the slam"
    );
}
