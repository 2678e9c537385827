//! End-to-end tests of `franz run` and `franz demo`: the real binary on a private Xvfb with
//! real applications (zenity, xterm, xmessage), driven by the scripted model server.
//! Everything synchronises on output, files, events or request counts with deadlines.

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::model::{Fault, RecordedRequest, Script, ScriptedReply, ScriptedServer, Step};
use franz_desktop::sandbox::Sandbox;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Generous: the tests share a 2-core box with other test binaries.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Polls `f` until it returns `Some`, or panics with `what` after the deadline.
use common::poll;

/// A running `franz` whose stderr and stdout are collected line by line.
struct Franz {
    child: Child,
    stderr: Arc<Mutex<Vec<String>>>,
    stdout: Arc<Mutex<String>>,
}

impl Franz {
    /// Starts franz with `args`, on `display` if given (else only `--sandbox` gives it one).
    fn spawn(args: &[&str], display: Option<&str>, extra_env: &[(&str, &str)]) -> Franz {
        let mut cmd = common::franz_command();
        common::no_franz_env(&mut cmd)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd.env_remove("DISPLAY");
        // these runs repeat one move on a still screen on purpose: no loop breaker
        // (tested in loop_breaker.rs)
        cmd.env("FRANZ_LOOP_WARN", "0").env("FRANZ_LOOP_STOP", "0");
        if let Some(d) = display {
            cmd.env("DISPLAY", d);
        }
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start franz");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let err = child.stderr.take().unwrap();
        let lines = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                lines.lock().unwrap().push(line);
            }
        });
        let stdout = Arc::new(Mutex::new(String::new()));
        let mut out = child.stdout.take().unwrap();
        let text = stdout.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                text.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Franz {
            child,
            stderr,
            stdout,
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }

    fn stdout(&self) -> String {
        self.stdout.lock().unwrap().clone()
    }

    /// Waits for the exit; kills franz and panics after the deadline.
    fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // let the reader thread drain the pipe (a bounded wait: a leftover grandchild
                // could hold it open)
                let drained = Instant::now() + Duration::from_secs(10);
                while Arc::strong_count(&self.stderr) > 1 && Instant::now() < drained {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("franz did not finish in time; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the exit and returns its code, with stderr for messages.
    fn code(&mut self) -> i32 {
        let status = self.wait();
        status.code().unwrap_or(-1)
    }
}

impl Drop for Franz {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The common flags of a scripted run: [`common::run_args`] with the scripted model, `strategy`
/// and fast motion.
fn run_args<'a>(server: &'a str, runs: &'a str, strategy: &'a str) -> Vec<&'a str> {
    let mut args = common::run_args(server, Path::new(runs)).to_vec();
    args.extend(["--strategy", strategy, "--model", "scripted"]);
    args.extend(["--motion", "fast", "--max-steps", "10"]);
    args
}

fn every_line_json(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// Checks that the run directory is complete: events end with `run_finished` carrying
/// `exit_code`, and turns.jsonl holds a raw entry for each of the turns `1..=turns`.
fn assert_complete_logs(dir: &Path, exit_code: i64, turns: u64) -> Vec<Value> {
    let events = every_line_json(&dir.join("events.jsonl"));
    assert_eq!(events[0]["event"], "run_started", "{events:?}");
    let last = events.last().unwrap();
    assert_eq!(last["event"], "run_finished", "{last}");
    assert_eq!(last["exit_code"], exit_code, "{last}");
    let entries = every_line_json(&dir.join("turns.jsonl"));
    let raw: Vec<u64> = entries
        .iter()
        .filter(|e| e["stage"] == "raw")
        .map(|e| e["turn"].as_u64().unwrap())
        .collect();
    assert_eq!(raw, (1..=turns).collect::<Vec<_>>(), "{entries:?}");
    for t in 1..=turns {
        assert!(
            dir.join(format!("turn_{t:04}_raw.png")).exists(),
            "turn {t}'s screenshot is missing"
        );
    }
    events
}

/// Copies a failed test's run directories out of its temporary directory.
fn keep_for_inspection(runs: &Path) -> PathBuf {
    let keep = std::env::temp_dir().join(format!(
        "franz-failed-run-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    let _ = Command::new("cp").arg("-r").arg(runs).arg(&keep).status();
    keep
}

/// A model point (0..1000) of a pixel on a screen `len` pixels long: round(p*1000/(L-1)).
fn norm(p: i32, len: u32) -> i32 {
    (p as f64 * 1000.0 / (len as f64 - 1.0)).round() as i32
}

/// A private Xvfb for the test; franz runs on it through DISPLAY.
fn sandbox(width: u32, height: u32) -> Sandbox {
    common::xvfb(width, height)
}

/// A window from `xwininfo -tree`: (its line, width, height, abs x, abs y).
type Window = (String, i32, i32, i32, i32);

/// Windows under the root, from `xwininfo -root -tree`.
fn windows(display: &str) -> Vec<Window> {
    let out = Command::new("xwininfo")
        .args(["-root", "-tree"])
        .env("DISPLAY", display)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v = Vec::new();
    for line in text.lines() {
        // `0x400003 "Add a new entry": ("zenity" "Zenity")  194x119+303+240  +303+240`
        let f: Vec<&str> = line.split_whitespace().collect();
        let (Some(geom), Some(abs)) = (f.iter().rev().nth(1), f.last()) else {
            continue;
        };
        let Some((wh, _)) = geom.split_once('+') else {
            continue;
        };
        let Some((w, h)) = wh.split_once('x') else {
            continue;
        };
        let abs: Vec<&str> = abs.trim_start_matches('+').split('+').collect();
        if let (Ok(w), Ok(h), [ax, ay]) = (w.parse(), h.parse(), &abs[..])
            && let (Ok(ax), Ok(ay)) = (ax.parse(), ay.parse())
        {
            v.push((line.to_string(), w, h, ax, ay));
        }
    }
    v
}

/// The request's body with every image data URL replaced by `<image>`, and the image count.
fn without_images(req: &RecordedRequest) -> (String, usize) {
    fn walk(v: &mut Value, n: &mut usize) {
        match v {
            Value::String(s) if s.starts_with("data:image/") => {
                *n += 1;
                *s = "<image>".into();
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, n)),
            Value::Object(o) => o.values_mut().for_each(|x| walk(x, n)),
            _ => {}
        }
    }
    let mut v = req.json.clone().expect("a JSON request body");
    let mut n = 0;
    walk(&mut v, &mut n);
    (v.to_string(), n)
}

/// The request of turn `turn` as the run directory recorded it (exchange.jsonl, sanitised:
/// images are `<image sha256=... bytes=...>` markers).
fn recorded_request(dir: &Path, turn: u64) -> String {
    every_line_json(&dir.join("exchange.jsonl"))
        .into_iter()
        .find(|e| e["turn"] == turn && e.get("request").is_some())
        .unwrap_or_else(|| panic!("no recorded request for turn {turn}"))["request"]
        .to_string()
}

/// Only chat requests (not `GET /models`).
fn chats(server: &ScriptedServer) -> Vec<RecordedRequest> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect()
}

#[test]
fn narrative_fills_a_zenity_entry() {
    let (w, h) = (800, 600);
    let mut sb = sandbox(w, h);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("zenity.txt");
    sb.launch(&format!(
        "sh -c 'zenity --entry --text=Name > {}'",
        out.display()
    ))
    .unwrap();
    // zenity's dialog: the big top-level window of class Zenity (there is also a 10x10 one).
    // GTK maps it at the origin first and then centres it (there is no window manager), so
    // wait for the centred position before reading where the entry is.
    assert!(sb.wait_for_windows(1, TIMEOUT), "zenity never mapped");
    let (_, dw, dh, dx, dy) = poll("zenity's dialog, centred", TIMEOUT, || {
        windows(sb.display()).into_iter().find(|win| {
            win.0.contains("\"Zenity\")")
                && win.1 > 100
                && win.2 > 60
                && (win.3 - (w as i32 - win.1) / 2).abs() <= 1
                && (win.4 - (h as i32 - win.2) / 2).abs() <= 1
        })
    });
    // The entry sits just above the middle of the dialog (label above, buttons below).
    let (x, y) = (norm(dx + dw / 2, w), norm(dy + dh * 45 / 100, h));
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text(format!(
            "left_click({x}, {y})\nA dialog asks for a name; I clicked into its text field."
        )),
        ScriptedReply::text("type(\"Ada Lovelace\")\nI typed the name into the field."),
        ScriptedReply::text("press_key(\"enter\")\nThe name is in the field; Enter confirms it."),
        ScriptedReply::text("done(\"entered the name\")\nThe dialog is gone: done."),
    ]))
    .unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let runs_s = runs.display().to_string();
    let mut args = run_args(&url, &runs_s, "narrative");
    args.push("Enter the name Ada Lovelace into the dialog.");
    let mut franz = Franz::spawn(&args, Some(sb.display()), &[]);
    let code = franz.code();
    assert_eq!(code, 0, "stderr:\n{}", franz.stderr());
    let deadline = Instant::now() + TIMEOUT;
    let got = loop {
        let got = std::fs::read_to_string(&out).unwrap_or_default();
        if got.ends_with('\n') || Instant::now() >= deadline {
            break got;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if got != "Ada Lovelace\n" {
        let keep = keep_for_inspection(&runs);
        panic!(
            "zenity printed {got:?}; the run is kept in {}; stderr:\n{}",
            keep.display(),
            franz.stderr()
        );
    }
    assert_complete_logs(&common::run_dir(&runs), 0, 4);
}

#[test]
fn narrative_types_a_sentence_into_an_xterm() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("typed.txt");
    let sentence = "The quick brown fox jumps over the lazy dog, 42 times!";
    let replies = [
        "left_click(200, 150)\nA terminal at the top left; I clicked into it.".to_string(),
        format!("type(\"{sentence}\")\nThe terminal has focus; I typed the sentence."),
        "press_key(\"enter\")\nThe sentence is on the line; Enter sends it.".to_string(),
        "done(\"typed the sentence\")\nThe line was sent.".to_string(),
    ];
    let count = Arc::new(Mutex::new(0usize));
    let (c, file) = (count.clone(), out.clone());
    let server = ScriptedServer::start(Script::func(move |_| {
        let mut n = c.lock().unwrap();
        *n += 1;
        if *n == 4 {
            // The sandbox (and cat) dies with franz: answer `done` only once cat wrote the
            // line (bounded; the assertion below reports what arrived).
            let deadline = Instant::now() + TIMEOUT;
            while Instant::now() < deadline
                && !std::fs::read_to_string(&file).is_ok_and(|s| s.ends_with('\n'))
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        ScriptedReply::text(replies[(*n - 1).min(3)].clone()).into()
    }))
    .unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let runs_s = runs.display().to_string();
    let launch = format!(
        "--launch=xterm -geometry 60x10+0+0 -e sh -c 'cat > {}'",
        out.display()
    );
    let mut args = vec!["--sandbox=800x600", launch.as_str()];
    args.extend(run_args(&url, &runs_s, "narrative"));
    args.push("Type the sentence into the terminal and press Enter.");
    let mut franz = Franz::spawn(&args, None, &[]);
    let code = franz.code();
    assert_eq!(code, 0, "stderr:\n{}", franz.stderr());
    let got = std::fs::read_to_string(&out).unwrap();
    assert_eq!(got, format!("{sentence}\n"));
    assert_complete_logs(&common::run_dir(&runs), 0, 4);
}

#[test]
fn vision_clicks_an_xmessage_button_with_two_actions_in_one_turn() {
    let (w, h) = (800, 600);
    let mut sb = sandbox(w, h);
    let mut child = sb
        .launch_piped("xmessage -print -buttons Yes,No -geometry +200+150 'Go ahead?'")
        .unwrap();
    // The buttons are the two small windows on xmessage's bottom row; "No" is the right one.
    let no = poll("xmessage's buttons", TIMEOUT, || {
        let small: Vec<_> = windows(sb.display())
            .into_iter()
            .filter(|b| b.1 < 100 && b.2 < 40 && b.3 >= 200 && b.4 >= 150)
            .collect();
        let bottom = small.iter().map(|b| b.4).max()?;
        let row: Vec<_> = small.iter().filter(|b| b.4 == bottom).collect();
        (row.len() == 2).then(|| (*row.iter().max_by_key(|b| b.3).unwrap()).clone())
    });
    assert!(sb.wait_for_windows(1, TIMEOUT), "xmessage never mapped");
    let (x, y) = (norm(no.3 + no.1 / 2, w), norm(no.4 + no.2 / 2, h));
    let observation =
        "A small dialog asks Go ahead? with Yes and No buttons; I move onto No and click it.";
    let first = serde_json::json!({
        "observation": observation,
        "bboxes": [{"x1": x - 10, "y1": y - 10, "x2": x + 10, "y2": y + 10}],
        "actions": [
            {"name": "move", "x1": x, "y1": y},
            {"name": "click", "x1": x, "y1": y},
        ],
    });
    let second = serde_json::json!({
        "observation": "The dialog closed after my click on No.",
        "bboxes": [],
        "actions": [{"name": "done", "text": "clicked No"}],
    });
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text(first.to_string()),
        ScriptedReply::text(second.to_string()),
    ]))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let runs_s = runs.display().to_string();
    let mut args = run_args(&url, &runs_s, "vision");
    args.push("Answer No in the dialog.");
    let mut franz = Franz::spawn(&args, Some(sb.display()), &[]);
    let code = franz.code();
    assert_eq!(code, 0, "stderr:\n{}", franz.stderr());
    // xmessage prints the button's name and exits; read with a deadline, not forever.
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut printed = String::new();
        let _ = stdout.read_to_string(&mut printed);
        let _ = tx.send(printed);
    });
    let printed = rx.recv_timeout(TIMEOUT);
    if printed.is_err() {
        let _ = child.kill();
    }
    let _ = child.wait();
    assert_eq!(printed.as_deref(), Ok("No\n"));

    let dir = common::run_dir(&runs);
    let events = assert_complete_logs(&dir, 0, 2);
    let turn1: Vec<_> = events
        .iter()
        .filter(|e| e["turn"] == 1 && e["event"] == "action_result")
        .collect();
    assert_eq!(turn1.len(), 2, "two actions ran in turn 1: {turn1:?}");
    assert_eq!(turn1[0]["action"]["type"], "move");
    assert_eq!(turn1[1]["action"]["type"], "click");
    assert!(turn1.iter().all(|e| e["result"]["status"] == "ok"));

    // What vision must send: an image, its last observation and its last actions.
    let reqs = chats(&server);
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        assert_eq!(without_images(r).1, 1, "one image per request");
    }
    let (text, _) = without_images(&reqs[1]);
    assert!(text.contains(observation), "{text}");
    assert!(
        text.contains(r#"{\"type\":\"click\",\"x\":"#),
        "the last actions: {text}"
    );
    // and the run directory recorded the same
    let rec = recorded_request(&dir, 2);
    assert_eq!(rec.matches("<image sha256=").count(), 1, "{rec}");
    assert!(rec.contains(observation), "{rec}");
    assert!(rec.contains(r#"{\"type\":\"click\",\"x\":"#), "{rec}");
}

#[test]
fn narrative_request_does_not_grow_over_30_turns() {
    const STORY_LEN: usize = 120;
    // A different story every turn, always STORY_LEN bytes: a strategy that appends stories
    // (or keeps a chat history) would grow the request by at least that much per turn.
    let story = |n: usize| format!("{:-<STORY_LEN$}", format!("Turn {n}: nothing changed, "));
    let count = Arc::new(Mutex::new(0usize));
    let c = count.clone();
    let server = ScriptedServer::start(Script::func(move |_| {
        let mut n = c.lock().unwrap();
        *n += 1;
        ScriptedReply::text(format!("move(500, 500)\n{}", story(*n))).into()
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let runs_s = runs.display().to_string();
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "narrative"));
    *args.iter_mut().find(|a| **a == "10").unwrap() = "30";
    args.push("Keep the pointer in the middle.");
    let mut franz = Franz::spawn(&args, None, &[]);
    let code = franz.code();
    assert_eq!(
        code,
        1,
        "max-steps ends as failed; stderr:\n{}",
        franz.stderr()
    );
    assert!(
        franz.stderr().contains("--max-steps 30"),
        "{}",
        franz.stderr()
    );
    let dir = common::run_dir(&runs);
    assert_complete_logs(&dir, 1, 30);
    let rec = recorded_request(&dir, 30);
    assert_eq!(rec.matches("<image sha256=").count(), 1, "{rec}");
    assert!(rec.contains(&story(29)), "{rec}");
    assert!(
        rec.contains(r#"{\"type\":\"move\",\"x\":500,\"y\":500}"#),
        "{rec}"
    );

    let reqs = chats(&server);
    assert_eq!(reqs.len(), 30);
    let (t2, i2) = without_images(&reqs[1]);
    let (t30, i30) = without_images(&reqs[29]);
    assert_eq!((i2, i30), (1, 1), "one image per request");
    // Same size give or take the story (here the stories have equal length, so the only
    // differences are digits of turn numbers).
    let diff = t2.len().abs_diff(t30.len());
    assert!(
        diff <= STORY_LEN,
        "turn 2: {} bytes, turn 30: {} bytes",
        t2.len(),
        t30.len()
    );
    // What narrative must send: the image, the current story (in full, and only it), the last action.
    assert!(t30.contains(&story(29)), "{t30}");
    assert!(!t30.contains(&story(28)), "an old story was kept: {t30}");
    assert!(
        t30.contains(r#"{\"type\":\"move\",\"x\":500,\"y\":500}"#),
        "{t30}"
    );
    assert!(t2.contains(&story(1)), "{t2}");
    // the images of both turns are of the same screen, so of similar size too
    let full2 = reqs[1].body.len();
    let full30 = reqs[29].body.len();
    assert!(
        full30 < full2 * 2 && full2 < full30 * 2,
        "bodies: {full2} vs {full30}"
    );
}

#[test]
fn a_model_server_that_dies_mid_run_exits_3_with_complete_logs() {
    let count = Arc::new(Mutex::new(0usize));
    let c = count.clone();
    // Two turns answered; the third request is held until the server is dropped.
    let server = ScriptedServer::start(Script::func(move |_| {
        let mut n = c.lock().unwrap();
        *n += 1;
        let step: Step =
            ScriptedReply::text(format!("move(500, 500)\nStory of turn {}.", *n)).into();
        if *n <= 2 {
            step
        } else {
            step.delayed(Duration::from_secs(600))
        }
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let runs_s = runs.display().to_string();
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "narrative"));
    args.push("Do something.");
    let mut franz = Franz::spawn(&args, None, &[]);
    assert!(
        server.wait_for_requests(3, TIMEOUT),
        "franz never asked a third time; stderr:\n{}",
        franz.stderr()
    );
    drop(server); // closes the held connection and the port
    let code = franz.code();
    let stderr = franz.stderr();
    eprintln!("{stderr}");
    assert_eq!(code, 3, "stderr:\n{stderr}");
    assert!(
        stderr.contains(&url) && stderr.contains("pass --api-url"),
        "a clear message naming the server: {stderr}"
    );
    let events = assert_complete_logs(&common::run_dir(&runs), 3, 2);
    let last = events.last().unwrap();
    assert_eq!(last["outcome"], "unreachable", "{last}");
    assert_eq!(last["turns"], 3, "{last}");
}

#[test]
fn a_signal_mid_run_exits_130_names_the_signal_and_leaves_complete_logs() {
    for signal in ["INT", "TERM", "HUP"] {
        signal_mid_run(signal);
    }
}

/// `kill -SIGNAL` while franz waits for turn 2's answer.
fn signal_mid_run(signal: &str) {
    let count = Arc::new(Mutex::new(0usize));
    let c = count.clone();
    // Turn 1 is answered; turn 2's answer takes long, so the signal lands while waiting.
    let server = ScriptedServer::start(Script::func(move |_| {
        let mut n = c.lock().unwrap();
        *n += 1;
        let step: Step =
            ScriptedReply::text(format!("move(500, 500)\nStory of turn {}.", *n)).into();
        if *n == 1 {
            step
        } else {
            step.delayed(Duration::from_secs(600))
        }
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let runs_s = runs.display().to_string();
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "narrative"));
    args.push("Do something.");
    let mut franz = Franz::spawn(&args, None, &[]);
    assert!(
        server.wait_for_requests(2, TIMEOUT),
        "franz never asked a second time; stderr:\n{}",
        franz.stderr()
    );
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &franz.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = franz.code();
    let stderr = franz.stderr();
    eprintln!("{stderr}");
    let name = format!("SIG{signal}");
    assert_eq!(code, 130, "stderr:\n{stderr}");
    assert!(
        stderr.contains(&format!("franz: {name}: stopping now")),
        "{stderr}"
    );
    assert!(!stderr.contains("Ctrl+C)") || signal == "INT", "{stderr}");
    let events = assert_complete_logs(&common::run_dir(&runs), 130, 1);
    let last = events.last().unwrap();
    assert_eq!(last["outcome"], "interrupted", "{last}");
    assert_eq!(last["reason"], format!("interrupted ({name})"), "{last}");
}

#[test]
fn bad_configuration_exits_2_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().display().to_string();
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Case; 3] = [
        (
            &["--strategy", "telepathy"],
            &[],
            &["strategy", "telepathy"],
        ),
        (&["--size", "0x0"], &[], &["--size", "0x0"]),
        (
            &[],
            &[("FRANZ_MAX_STEPS", "ten")],
            &["max_steps", "FRANZ_MAX_STEPS", "ten"],
        ),
    ];
    for (flags, env, words) in cases {
        let mut args = vec!["run", "do nothing", "--runs-dir", runs.as_str()];
        args.extend_from_slice(flags);
        let mut franz = Franz::spawn(&args, None, env);
        let code = franz.code();
        let stderr = franz.stderr();
        assert_eq!(code, 2, "{flags:?} {env:?}: {stderr}");
        for w in words {
            assert!(
                stderr.contains(w),
                "{flags:?} {env:?}: {w:?} not in {stderr}"
            );
        }
    }
    // the shared plain runner (no env changes) agrees
    let out = common::franz(&["run", "x", "--strategy", "telepathy", "--runs-dir", &runs]);
    assert_eq!(out.status.code(), Some(2));
    // nothing ran, so no run directory was made
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn franz_demo_passes_on_a_fresh_sandbox() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().display().to_string();
    let mut franz = Franz::spawn(&["demo", "--runs-dir", &runs], None, &[]);
    let code = franz.code();
    assert_eq!(code, 0, "stderr:\n{}", franz.stderr());
    assert!(franz.stderr().contains("SCRIPTED"), "{}", franz.stderr());
    let stdout = franz.stdout();
    let report = stdout
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .unwrap_or_else(|| panic!("no report path in {stdout}"));
    let report = Path::new(report);
    assert!(report.starts_with(tmp.path()), "{}", report.display());
    let html = std::fs::read_to_string(report).unwrap();
    assert!(
        html.contains("<html"),
        "not a report: {}",
        &html[..200.min(html.len())]
    );
    assert_complete_logs(&common::run_dir(tmp.path()), 0, 4);
}

#[test]
fn fault_after_turns_is_reported_not_hung() {
    // A server that drops every connection from the second request on: the client retries,
    // then the run ends as unreachable (exit 3) with turn 1 recorded.
    let count = Arc::new(Mutex::new(0usize));
    let c = count.clone();
    let server = ScriptedServer::start(Script::func(move |_| {
        let mut n = c.lock().unwrap();
        *n += 1;
        if *n == 1 {
            ScriptedReply::text("move(500, 500)\nFirst turn.").into()
        } else {
            Step::fault(Fault::DropConnection)
        }
    }))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let url = server.url();
    let runs_s = runs.display().to_string();
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "narrative"));
    args.push("Do something.");
    let mut franz = Franz::spawn(&args, None, &[]);
    let code = franz.code();
    assert_eq!(code, 3, "stderr:\n{}", franz.stderr());
    assert!(
        franz.stderr().contains("dropped the connection"),
        "{}",
        franz.stderr()
    );
    assert_complete_logs(&common::run_dir(&runs), 3, 1);
    assert!(chats(&server).len() >= 2);
}

/// Sends SIGINT to franz once `ready` holds and returns how long after the signal the run's
/// `run_finished` was written (from its `t_ms`), with the exit code and the events.
fn sigint_latency(
    server: &ScriptedServer,
    args: &[&str],
    runs: &Path,
    ready: impl Fn(&ScriptedServer, &Path) -> bool,
) -> (Duration, i32, Vec<Value>) {
    let mut franz = Franz::spawn(args, None, &[]);
    poll("the moment to interrupt", TIMEOUT, || {
        ready(server, runs).then_some(())
    });
    let sent_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let status = Command::new("kill")
        .args(["-INT", &franz.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = franz.code();
    let events = every_line_json(&common::run_dir(runs).join("events.jsonl"));
    let last = events.last().unwrap();
    assert_eq!(last["event"], "run_finished", "stderr:\n{}", franz.stderr());
    let finished_ms = last["t_ms"].as_u64().unwrap();
    let latency = Duration::from_millis(finished_ms.saturating_sub(sent_ms));
    eprintln!("SIGINT to run_finished: {latency:?}");
    (latency, code, events)
}

#[test]
fn sigint_ends_the_run_within_2s_during_a_hung_model_call_and_a_60s_wait() {
    // a hung model call: the first request is answered after 600 s
    let server = ScriptedServer::start(Script::repeat(
        Step::from(ScriptedReply::text("move(500, 500)\nlate")).delayed(Duration::from_secs(600)),
    ))
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("hung");
    let (url, runs_s) = (server.url(), runs.display().to_string());
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "narrative"));
    args.push("Do something.");
    let (latency, code, events) =
        sigint_latency(&server, &args, &runs, |s, _| s.request_count() >= 1);
    assert!(latency < Duration::from_secs(2), "{latency:?}");
    assert_eq!(code, 130);
    assert_eq!(events.last().unwrap()["outcome"], "interrupted");

    // a 60 s wait: the model asks for it, then franz is interrupted during it
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(
        "wait(60)\nwaiting for the page",
    )))
    .unwrap();
    let runs = tmp.path().join("wait");
    let (url, runs_s) = (server.url(), runs.display().to_string());
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "narrative"));
    args.push("Do something.");
    let waiting = |_: &ScriptedServer, runs: &Path| {
        std::fs::read_dir(runs).is_ok_and(|mut d| {
            d.next().is_some_and(|e| {
                let events = e.unwrap().path().join("events.jsonl");
                std::fs::read_to_string(events).is_ok_and(|t| t.contains("\"model_reply\""))
            })
        })
    };
    let (latency, code, events) = sigint_latency(&server, &args, &runs, waiting);
    assert!(latency < Duration::from_secs(2), "{latency:?}");
    assert_eq!(code, 130);
    let wait = events
        .iter()
        .find(|e| e["event"] == "action_result")
        .expect("the wait's result");
    assert!(wait["result"].to_string().contains("interrupted"), "{wait}");
    assert_complete_logs(&common::run_dir(&runs), 130, 1);
}

/// A model that answers every request with 16 MB of unclosed braces (docs/architecture.md,
/// "The parser"), and the runs directory. The vision strategy reads it as JSON.
fn braces_run(tmp: &Path, name: &str) -> (ScriptedServer, PathBuf) {
    let reply = franz_core::parser::hostile::reply("braces", 16 << 20).unwrap();
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(reply))).unwrap();
    (server, tmp.join(name))
}

#[test]
fn max_time_ends_a_run_whose_model_sends_16_mb_of_open_braces() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, runs) = braces_run(tmp.path(), "max_time");
    let (url, runs_s) = (server.url(), runs.display().to_string());
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "vision"));
    args.extend(["--max-time", "1", "Do something."]);
    let mut franz = Franz::spawn(&args, None, &[]);
    // before the parser was linear, reading this reply took hours and nothing stopped it
    let code = franz.code();
    assert_eq!(code, 1, "stderr:\n{}", franz.stderr());
    let events = every_line_json(&common::run_dir(&runs).join("events.jsonl"));
    let last = events.last().unwrap();
    assert_eq!(last["event"], "run_finished", "{last}");
    assert!(last.to_string().contains("reached --max-time"), "{last}");
}

#[test]
fn ctrl_c_ends_a_run_while_it_reads_16_mb_of_open_braces() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, runs) = braces_run(tmp.path(), "sigint");
    let (url, runs_s) = (server.url(), runs.display().to_string());
    let mut args = vec!["--sandbox=640x400"];
    args.extend(run_args(&url, &runs_s, "vision"));
    args.push("Do something.");
    // the reply is in the exchange log: franz is reading it (it used to read for hours)
    let reading = |_: &ScriptedServer, runs: &Path| {
        std::fs::read_dir(runs).is_ok_and(|mut d| {
            d.next().is_some_and(|e| {
                let log = e.unwrap().path().join("exchange.jsonl");
                std::fs::read_to_string(log).is_ok_and(|t| t.contains("\"response\""))
            })
        })
    };
    let (_, code, events) = sigint_latency(&server, &args, &runs, reading);
    assert_eq!(code, 130);
    assert_eq!(events.last().unwrap()["outcome"], "interrupted");
}

#[test]
fn a_dry_run_goes_through_its_turns_and_nothing_reaches_the_screen() {
    let (sb, witness) = common::sandbox(640, 400);
    witness.focus().unwrap();
    let replies = [
        "left_click(500, 500)\nI clicked the middle.",
        "type(\"hello\")\nI typed a greeting.",
        "press_key(\"ctrl+s\")\nI saved.",
        "drag(100, 100, 900, 900)\nI dragged across.",
        "scroll(500, 500, \"down\", 3)\nI scrolled.",
        "done(\"all done\")\nEverything is done.",
    ];
    let server = ScriptedServer::start(Script::list(replies.map(ScriptedReply::text))).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("dry");
    let (url, runs_s) = (server.url(), runs.display().to_string());
    let mut args = run_args(&url, &runs_s, "narrative");
    args.extend(["--dry-run", "Do everything."]);
    let mut franz = Franz::spawn(&args, Some(sb.display()), &[]);
    assert_eq!(franz.code(), 0, "stderr:\n{}", franz.stderr());
    // the run went through every turn and each action was decided and "performed"
    assert_eq!(server.request_count(), replies.len());
    let events = assert_complete_logs(&common::run_dir(&runs), 0, replies.len() as u64);
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "action_result")
        .collect();
    assert_eq!(results.len(), replies.len(), "{results:?}");
    for r in &results {
        assert_eq!(r["result"]["status"], "ok", "{r}");
    }
    // ... and not one event reached the screen: no motion, no button, no key
    assert_eq!(
        witness.events(),
        vec![],
        "input reached the screen in a dry run"
    );
}
