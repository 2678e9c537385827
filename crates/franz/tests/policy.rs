//! The safety policy end to end: `franz act --policy FILE` on a private
//! Xvfb with the witness window over it. Each refused action is followed by an allowed
//! sentinel (or, after exit, by xdotool's): the witness sees events in order, so once the
//! sentinel arrived, anything the refused action sent would have arrived before it.

#![cfg(target_os = "linux")]

use crate::common;

use common::{act_with_policy as act, sandbox};
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind as K};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

const T: Duration = Duration::from_secs(20);

fn key_presses(ev: &[WitnessEvent]) -> Vec<u32> {
    ev.iter()
        .filter(|e| e.is(K::KeyPress))
        .map(|e| e.keysym)
        .collect()
}

/// Waits until the witness saw a key press of `keysym` and returns every event.
fn until_key(w: &Witness, keysym: u32) -> Vec<WitnessEvent> {
    let (ok, ev) = w.wait_for(|e| key_presses(e).contains(&keysym), T);
    assert!(ok, "the sentinel key never arrived: {ev:?}");
    ev
}

/// Sends a sentinel key from outside franz (after it exited) and waits for it.
fn sentinel_after_exit(display: &str, w: &Witness) -> Vec<WitnessEvent> {
    let ok = Command::new("xdotool")
        .args(["key", "z"])
        .env("DISPLAY", display)
        .status()
        .unwrap();
    assert!(ok.success());
    until_key(w, 'z' as u32)
}

const SENTINEL: &str = r#"{"type":"key","keys":"x"}"#;

#[test]
fn a_denied_region_gets_no_pointer_event() {
    let (sb, w) = sandbox(1000, 700);
    let (code, lines, err) = act(
        sb.display(),
        "deny_regions = [[0, 0, 500, 1000]]",
        "",
        &[
            r#"{"type":"click","x":250,"y":500}"#,
            r#"{"type":"click","x":750,"y":500}"#,
            SENTINEL,
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(lines[0]["kind"], "policy_denied", "{lines:?}");
    let msg = lines[0]["message"].as_str().unwrap();
    assert!(msg.contains("deny_regions [0,0,500,1000]"), "{msg}");
    assert_eq!(lines[1]["status"], "ok");
    let ev = until_key(&w, 'x' as u32);
    let presses: Vec<_> = ev
        .iter()
        .filter(|e| e.is(K::ButtonPress))
        .map(|e| e.at)
        .collect();
    assert_eq!(presses, vec![franz_desktop::PixelPoint::new(749, 350)]);
    assert!(
        ev.iter().all(|e| e.at.x >= 500),
        "an event in the denied half: {ev:?}"
    );
}

#[test]
fn denied_keys_are_never_sent_whatever_their_spelling() {
    let (sb, w) = sandbox(800, 600);
    let (code, lines, err) = act(
        sb.display(),
        r#"deny_keys = ["ctrl+alt+delete", "alt+f4"]"#,
        "",
        &[
            r#"{"type":"key","keys":"Alt+F4"}"#,
            r#"{"type":"key","keys":"alt ctrl del"}"#,
            SENTINEL,
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(lines[0]["kind"], "policy_denied");
    assert!(lines[0]["message"].as_str().unwrap().contains("alt+f4"));
    assert_eq!(lines[1]["kind"], "policy_denied");
    let ev = until_key(&w, 'x' as u32);
    assert_eq!(key_presses(&ev), vec!['x' as u32], "{ev:?}");
}

#[test]
fn denied_text_never_reaches_the_window_not_even_its_first_characters() {
    let (sb, w) = sandbox(800, 600);
    let policy = r#"deny_text = ['rm\s+-rf']"#;
    let (code, lines, err) = act(
        sb.display(),
        policy,
        "",
        &[
            r#"{"type":"type","text":"echo hi; rm -rf /tmp/x"}"#,
            // typed in pieces: the second piece completes the forbidden command
            r#"{"type":"type","text":"rm "}"#,
            r#"{"type":"type","text":"-rf /"}"#,
            SENTINEL,
        ],
    );
    assert_eq!(code, 1, "{err}");
    let kinds: Vec<_> = lines
        .iter()
        .map(|l| l["kind"].as_str().unwrap_or("ok"))
        .collect();
    assert_eq!(
        kinds,
        ["policy_denied", "ok", "policy_denied", "ok"],
        "{lines:?}"
    );
    let ev = until_key(&w, 'x' as u32);
    assert_eq!(
        key_presses(&ev),
        vec!['r' as u32, 'm' as u32, ' ' as u32, 'x' as u32],
        "{ev:?}"
    );
}

#[test]
fn confirm_rules_ask_and_only_a_yes_runs_the_action() {
    let (sb, w) = sandbox(800, 600);
    let policy = "[confirm]\nkeys = [\"ctrl+s\"]\nregions = [[0, 0, 500, 1000]]\n";
    let (code, lines, err) = act(
        sb.display(),
        policy,
        "n\n",
        &[r#"{"type":"key","keys":"ctrl+s"}"#, SENTINEL],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("asks first (confirm keys"), "{err}");
    assert_eq!(lines[0]["kind"], "rejected");
    let ev = until_key(&w, 'x' as u32);
    assert_eq!(key_presses(&ev), vec!['x' as u32], "{ev:?}");
    w.clear();

    let (code, lines, err) = act(
        sb.display(),
        policy,
        "y\n",
        &[r#"{"type":"click","x":100,"y":500}"#],
    );
    assert_eq!(code, 0, "{err} {lines:?}");
    let (ok, ev) = w.wait_for(|e| e.iter().any(|e| e.is(K::ButtonPress)), T);
    assert!(ok, "{ev:?}");
}

#[test]
fn pointer_actions_land_only_on_allowed_windows() {
    let (sb, w) = sandbox(800, 600);
    let click = r#"{"type":"click","x":500,"y":500}"#;
    let (code, lines, err) = act(
        sb.display(),
        r#"allow_only_windows = ["^XTerm$"]"#,
        "",
        &[click, SENTINEL],
    );
    assert_eq!(code, 1, "{err}");
    let msg = lines[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("allow_only_windows") && msg.contains("franz witness"),
        "{msg}"
    );
    let ev = until_key(&w, 'x' as u32);
    assert!(
        !ev.iter().any(|e| e.is(K::ButtonPress) || e.is(K::Motion)),
        "{ev:?}"
    );
    w.clear();

    let (code, _, err) = act(
        sb.display(),
        r#"allow_only_windows = ["^franz witness$"]"#,
        "",
        &[click],
    );
    assert_eq!(code, 0, "{err}");
    let (ok, ev) = w.wait_for(|e| e.iter().any(|e| e.is(K::ButtonPress)), T);
    assert!(ok, "{ev:?}");
}

#[test]
fn policy_violations_max_stops_with_exit_4() {
    let (sb, w) = sandbox(800, 600);
    let deny = r#"{"type":"key","keys":"alt+f4"}"#;
    let (code, lines, err) = act(
        sb.display(),
        "deny_keys = [\"alt+f4\"]\npolicy_violations_max = 2\n",
        "",
        &[deny, deny, SENTINEL],
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("policy_violations_max"), "{err}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    let ev = sentinel_after_exit(sb.display(), &w);
    assert_eq!(key_presses(&ev), vec!['z' as u32], "{ev:?}");
}

/// The working-area fence is the built-in deny rule `work_area`: with no rule configured, a
/// click outside 0..1000 and a click at the pointer while the pointer is outside the crop are
/// refused before any input, and they count toward `policy_violations_max` (exit 4).
#[test]
fn the_working_area_is_a_deny_rule_refused_clicks_send_nothing_and_count() {
    let (sb, w) = sandbox(1000, 700);
    // the pointer outside the crop (x 0..499)
    let moved = Command::new("xdotool")
        .args(["mousemove", "800", "300"])
        .env("DISPLAY", sb.display())
        .status()
        .unwrap();
    assert!(moved.success());
    let (ok, _) = w.wait_for(|e| e.iter().any(|e| e.at.x == 800), T);
    assert!(ok, "the pointer never moved");
    w.clear();
    let dir = tempfile::tempdir().unwrap();
    let file: PathBuf = dir.path().join("policy.toml");
    std::fs::write(&file, "policy_violations_max = 2\n").unwrap();
    let out = common::output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_franz"))
            .arg("--policy")
            .arg(&file)
            .args(["act", "--motion", "fast", "--crop", "0,0,500,1000"])
            .args([
                r#"{"type":"click","x":1001,"y":500}"#,
                r#"{"type":"click"}"#,
            ])
            .arg(SENTINEL)
            .env("DISPLAY", sb.display())
            .env_remove("FRANZ_LOG"),
        "",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("policy_violations_max"), "{err}");
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (l, why) in lines.iter().zip([
        "(work_area: click at (1001, 500) is outside the working area",
        "(work_area: click at the pointer, pixel (800, 300), which is outside the working area",
    ]) {
        assert_eq!(l["kind"], "policy_denied", "{lines:?}");
        assert!(l["message"].as_str().unwrap().contains(why), "{l}");
    }
    // nothing franz sent reached the window: the first event is xdotool's sentinel
    let ev = sentinel_after_exit(sb.display(), &w);
    assert!(
        ev.iter().all(|e| !e.is(K::ButtonPress) && !e.is(K::Motion)),
        "{ev:?}"
    );
    assert_eq!(key_presses(&ev), vec!['z' as u32], "{ev:?}");
}

/// The failsafe stays a stop signal: with the pointer slammed into the top-left corner, outside
/// the crop, an action at the pointer stops franz with the failsafe (exit 4), not a
/// `work_area` refusal counted toward `policy_violations_max`.
#[test]
fn the_failsafe_is_a_stop_never_a_work_area_violation() {
    let (sb, w) = sandbox(800, 600);
    let moved = Command::new("xdotool")
        .args(["mousemove", "0", "0"])
        .env("DISPLAY", sb.display())
        .status()
        .unwrap();
    assert!(moved.success());
    let (ok, _) = w.wait_for(
        |e| {
            e.iter()
                .any(|e| e.at == franz_desktop::PixelPoint::new(0, 0))
        },
        T,
    );
    assert!(ok, "the pointer never moved");
    let dir = tempfile::tempdir().unwrap();
    let file: PathBuf = dir.path().join("policy.toml");
    std::fs::write(&file, "policy_violations_max = 1\n").unwrap();
    let out = common::output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_franz"))
            .arg("--policy")
            .arg(&file)
            .args(["act", "--motion", "fast", "--crop", "250,250,750,750"])
            .arg(r#"{"type":"click"}"#)
            .env("DISPLAY", sb.display())
            .env_remove("FRANZ_LOG"),
        "",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("failsafe"), "{err}");
    assert!(
        !err.contains("policy_violations_max") && !stdout.contains("policy_denied"),
        "{stdout}{err}"
    );
}

#[test]
fn policy_check_says_what_the_policy_would_do() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.toml");
    std::fs::write(
        &file,
        "[policy]\ndeny_keys = [\"alt+f4\"]\n[policy.confirm]\ntext = [\"sudo\"]\n",
    )
    .unwrap();
    let out = common::franz(&[
        "--sandbox=640x480",
        "--policy",
        file.to_str().unwrap(),
        "policy",
        "check",
        r#"{"type":"key","keys":"F4+alt"}"#,
        r#"{"type":"type","text":"sudo ls"}"#,
        r#"{"type":"click","x":1,"y":1}"#,
        r#"{"type":"click","x":1001,"y":1}"#,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let verdicts: Vec<_> = v.iter().map(|l| l["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["deny", "confirm", "allow", "deny"], "{text}");
    // the built-in work_area rule, with no rule configured for it
    let rule = v[3]["rule"].as_str().unwrap();
    assert!(
        rule.starts_with("work_area: click at (1001, 1) is outside the working area"),
        "{rule}"
    );
    // franz config shows the policy in force, the built-in rule too
    let out = common::franz(&["--policy", file.to_str().unwrap(), "config"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("policy = ")).unwrap();
    assert!(
        line.contains("alt+f4") && line.contains("built in: the work_area deny rule"),
        "{text}"
    );
}

/// `franz --sandbox=640x400 [--policy FILE] run TASK` against a scripted model that answers
/// `reply` every turn: its exit code, stderr, the model calls it made and its events.
struct Refused {
    code: Option<i32>,
    err: String,
    chats: Vec<franz_core::model::RecordedRequest>,
    events: Vec<Value>,
}

fn run_refused(policy: Option<&str>, reply: &str, task: &str) -> Refused {
    run_scripted(None, policy, reply, &["--max-steps", "10", task])
}

/// `franz [--policy FILE] run ARGS` on `display` (a fresh `--sandbox=640x400` without one),
/// against a scripted model, named as users name theirs, that answers `reply` every turn.
fn run_scripted(
    display: Option<&str>,
    policy: Option<&str>,
    reply: &str,
    rest: &[&str],
) -> Refused {
    use franz_core::model::{Script, ScriptedReply, ScriptedServer};
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(reply))).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("policy.toml");
    let runs = tmp.path().join("runs");
    let url = server.url();
    let mut args = Vec::new();
    if display.is_none() {
        args.push("--sandbox=640x400");
    }
    if let Some(p) = policy {
        std::fs::write(&file, p).unwrap();
        args.extend(["--policy", file.to_str().unwrap()]);
    }
    args.extend(common::run_args(&url, &runs));
    args.extend(["--model", "gemma-3-12b-it", "--motion", "fast"]);
    args.extend(rest);
    let mut cmd = common::franz_command();
    cmd.args(&args);
    if let Some(d) = display {
        cmd.env("DISPLAY", d);
    }
    let out = common::output_with_stdin(&mut cmd, "");
    let chats = server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect();
    let dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    Refused {
        code: out.status.code(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
        chats,
        events: common::events_in(&dir),
    }
}

#[test]
fn a_run_tells_the_model_and_stops_with_exit_4_after_policy_violations_max() {
    let Refused {
        code,
        err,
        chats,
        events,
    } = run_refused(
        Some("deny_keys = [\"alt+f4\"]\n"),
        "Closing the window.\npress_key(\"alt+f4\")",
        "Close the window.",
    );
    assert_eq!(code, Some(4), "{err}");
    // the default policy_violations_max: 3 refusals, 3 turns
    assert_eq!(chats.len(), 3);
    assert!(
        chats[1].body.contains("refused by the safety policy"),
        "the model was not told: {}",
        chats[1].body
    );
    let denied = events
        .iter()
        .filter(|e| e["kind"] == "policy_denied" || e["result"]["kind"] == "policy_denied")
        .count();
    assert_eq!(denied, 3, "{events:?}");
    assert_eq!(events.last().unwrap()["outcome"], "stopped");
}

/// The work_area rule in a run: the model's click "at the pointer" while the pointer lies
/// outside the crop (a point inside the model's space is inside the crop) is refused before
/// any input, the model is told, and the refusals end the run with exit 4 like any other
/// rule's (no policy file).
#[test]
fn a_run_refuses_clicks_outside_the_crop_and_stops_with_exit_4() {
    let (sb, w) = sandbox(640, 400);
    let moved = Command::new("xdotool")
        .args(["mousemove", "500", "200"])
        .env("DISPLAY", sb.display())
        .status()
        .unwrap();
    assert!(moved.success());
    let (ok, _) = w.wait_for(|e| e.iter().any(|e| e.at.x == 500), T);
    assert!(ok, "the pointer never moved");
    w.clear();
    let Refused {
        code, err, chats, ..
    } = run_scripted(
        Some(sb.display()),
        None,
        "Clicking where the pointer is.\nleft_click()",
        &[
            "--crop",
            "0,0,500,1000",
            "--max-steps",
            "10",
            "Click the edge.",
        ],
    );
    assert_eq!(code, Some(4), "{err}");
    assert_eq!(chats.len(), 3, "{err}");
    assert!(
        chats[1].body.contains(
            "refused by the safety policy (work_area: click at the pointer, pixel (500, 200)"
        ),
        "the model was not told: {}",
        chats[1].body
    );
    let ev = sentinel_after_exit(sb.display(), &w);
    assert!(ev.iter().all(|e| !e.is(K::ButtonPress)), "{ev:?}");
}

/// A point the model gives just past the edge of its space (0..1000 under the franz profile)
/// is taken for the edge, as the designs do: `left_click(500, 1004)` clicks the working
/// area's bottom row, and the action's result carries the note, which the model reads next
/// turn (docs/coordinates.md, "Out-of-range values").
#[test]
fn a_click_just_past_the_edge_lands_on_the_edge_with_a_note() {
    let (sb, w) = sandbox(640, 400);
    let Refused {
        err, chats, events, ..
    } = run_scripted(
        Some(sb.display()),
        None,
        "Clicking the bottom edge.\nleft_click(500, 1004)",
        &[
            "--profile",
            "franz",
            "--max-steps",
            "2",
            "Click the bottom edge.",
        ],
    );
    // 500 of 0..1000 on 640 pixels: round(500 * 639 / 1000) = 320; 1000 is the last row
    let (ok, ev) = w.wait_for(
        |e| {
            e.iter()
                .any(|e| e.is(K::ButtonPress) && e.at == franz_desktop::PixelPoint::new(320, 399))
        },
        T,
    );
    assert!(ok, "no click on the bottom row: {ev:?}\n{err}");
    let result = events
        .iter()
        .find(|e| e["event"] == "action_result")
        .unwrap_or_else(|| panic!("{events:?}"));
    assert_eq!(result["action"]["y"], 1000, "{result}");
    assert_eq!(result["result"]["status"], "ok", "{result}");
    let warning = &result["result"]["warnings"][0];
    assert_eq!(warning["kind"], "clamped", "{result}");
    assert!(
        warning["message"].as_str().unwrap().contains("(500, 1004)"),
        "{result}"
    );
    assert!(
        chats[1].body.contains("clamped"),
        "the model was not told: {}",
        chats[1].body
    );
}

/// A point far outside the model's space is the model's error, with the likely cause named:
/// nothing is clicked, the model is told, and it never counts toward
/// `policy_violations_max`, even at 1: the run goes on to its step limit.
#[test]
fn a_click_far_outside_is_refused_with_its_cause_and_is_no_policy_violation() {
    let (sb, w) = sandbox(640, 400);
    let Refused {
        code,
        err,
        chats,
        events,
    } = run_scripted(
        Some(sb.display()),
        Some("policy_violations_max = 1\n"),
        "Clicking below.\nleft_click(500, 5000)",
        &["--max-steps", "3", "Click below."],
    );
    assert_ne!(code, Some(4), "{err}");
    assert!(!err.contains("policy_violations_max"), "{err}");
    assert_eq!(chats.len(), 3, "the run went on to its step limit: {err}");
    let told = &chats[1].body;
    assert!(
        told.contains("(500, 5000) is outside 0..1000") && told.contains("--coords pixels"),
        "the model was not told the cause: {told}"
    );
    assert!(
        !events
            .iter()
            .any(|e| e.to_string().contains("policy_denied")),
        "{events:?}"
    );
    let ev = sentinel_after_exit(sb.display(), &w);
    assert!(ev.iter().all(|e| !e.is(K::ButtonPress)), "{ev:?}");
}

#[test]
fn in_a_run_a_confirm_rule_asks_on_the_terminal_without_approve() {
    use franz_core::model::{Script, ScriptedReply, ScriptedServer};
    let (sb, w) = sandbox(640, 400);
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(
        "left_click(500, 500)\nclicked",
    )))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("policy.toml");
    std::fs::write(&file, "[confirm]\nregions = [[0, 0, 1000, 1000]]\n").unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let out = common::output_with_stdin(
        common::franz_command()
            .arg("--policy")
            .arg(&file)
            .args(common::run_args(&url, &runs))
            .args(["x", "--max-steps", "1", "--motion", "fast"])
            .env("DISPLAY", sb.display()),
        "n\nnot now\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("run these? [y]es / [n]o / [e]dit"), "{err}");
    let dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    assert!(
        events.contains("the safety policy asks a person first: confirm regions"),
        "{events}"
    );
    assert!(events.contains("the user rejected: not now"), "{events}");
    let ev = sentinel_after_exit(sb.display(), &w);
    assert!(!ev.iter().any(|e| e.is(K::ButtonPress)), "{ev:?}");
}

#[test]
fn policy_check_needs_a_display_only_for_what_needs_the_screen_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let check = |policy: &str, actions: &[&str]| {
        let file = dir.path().join("p.toml");
        std::fs::write(&file, policy).unwrap();
        Command::new(env!("CARGO_BIN_EXE_franz"))
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .arg("--policy")
            .arg(&file)
            .args(["policy", "check"])
            .args(actions)
            .output()
            .unwrap()
    };
    let keys = "[policy]\ndeny_keys = [\"alt+f4\"]\ndeny_regions = [[0, 0, 100, 100]]\n[policy.confirm]\ntext = [\"sudo\"]\n";
    let out = check(
        keys,
        &[
            r#"{"type":"key","keys":"alt+f4"}"#,
            r#"{"type":"type","text":"sudo ls"}"#,
            r#"{"type":"click","x":50,"y":50}"#,
            r#"{"type":"click","x":500,"y":500}"#,
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let verdicts: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["verdict"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(verdicts, ["deny", "confirm", "deny", "allow"]);
    // the windows under a point are on the screen: without one, the error says why
    let windows = "[policy]\nallow_only_windows = [\"xterm\"]\n";
    let out = check(windows, &[r#"{"type":"click","x":500,"y":500}"#]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("allow_only_windows") && err.contains("DISPLAY"),
        "{err}"
    );
    // ... but a key under that policy needs none
    let out = check(windows, &[r#"{"type":"key","keys":"ctrl+c"}"#]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
