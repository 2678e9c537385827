//! `franz mcp` end to end with the official Python MCP SDK as the client
//! (`tests/mcp/driver.py`, in the venv scripts/deps.sh builds from
//! scripts/requirements-test.txt; or `$FRANZ_TEST_PYTHON`), over stdio and streamable HTTP,
//! in the handshake revision (`initialize`, 2025-11-25) and the stateless one (2026-07-28),
//! on a private Xvfb with real applications: the witness window, an xterm.

#![cfg(target_os = "linux")]

use crate::common;

use base64::Engine as _;
use common::sandbox;
use franz_core::geometry::{ImageSize, norm_to_axis};
use franz_core::model::{Fault, Script, ScriptedReply, ScriptedServer, Step};
use franz_desktop::PixelPoint;
use franz_desktop::witness::{Witness, WitnessEvent, WitnessKind as K};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(60);
const LEGACY: &str = "legacy";
const STATELESS: &str = "2026-07-28";
const TOOLS: [&str; 13] = [
    "click",
    "cursor_position",
    "drag",
    "elements",
    "focus_window",
    "list_windows",
    "move",
    "press_key",
    "run_task",
    "screenshot",
    "scroll",
    "type_text",
    "wait",
];

/// Waits for org.a11y.Bus on the fresh session bus, then runs the command given.
const UNDER_BUS: &str = r#"
    until dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress >/dev/null 2>&1; do sleep 0.05; done
    exec "$@"
"#;

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("FRANZ_TEST_PYTHON") {
        return p.into();
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv-test/bin/python");
    assert!(
        p.exists(),
        "no test venv at {}: run scripts/deps.sh (it builds .venv-test from scripts/requirements-test.txt) or set FRANZ_TEST_PYTHON",
        p.display()
    );
    p
}

/// Reads a pipe's lines into a channel, and keeps all of it for failure messages.
fn lines_of(pipe: impl Read + Send + 'static, keep: Arc<Mutex<String>>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            keep.lock().unwrap().push_str(&format!("{line}\n"));
            if tx.send(line).is_err() {
                // nobody reads the lines any more; keep draining the pipe
            }
        }
    });
    rx
}

/// The Python MCP client, one JSON command and answer a line.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    out: mpsc::Receiver<String>,
    err: Arc<Mutex<String>>,
    protocol: String,
}

impl Client {
    fn spawn(args: &[String], display: &str) -> Client {
        let mut cmd = Command::new(python());
        cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/driver.py"))
            .args(args);
        Client::spawn_cmd(cmd, display)
    }

    /// Starts `franz mcp FLAGS` over stdio on `display`, client and server inside a private
    /// D-Bus session that runs the accessibility bus (for `elements`); `runtime` is its
    /// XDG_RUNTIME_DIR.
    fn stdio_under_bus(display: &str, runtime: &Path, flags: &[&str]) -> Client {
        let mut cmd = Command::new("dbus-run-session");
        cmd.env("XDG_RUNTIME_DIR", runtime)
            .args(["--", "sh", "-c", UNDER_BUS, "sh"])
            .arg(python())
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/driver.py"))
            .args([
                "--mode",
                STATELESS,
                "--",
                env!("CARGO_BIN_EXE_franz"),
                "mcp",
            ])
            .args(flags);
        Client::spawn_cmd(cmd, display)
    }

    fn spawn_cmd(mut cmd: Command, display: &str) -> Client {
        let mut child = cmd
            .env("DISPLAY", display)
            .env_remove("FRANZ_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the Python MCP client");
        let err = Arc::new(Mutex::new(String::new()));
        let _stderr = lines_of(child.stderr.take().unwrap(), err.clone());
        let out = lines_of(
            child.stdout.take().unwrap(),
            Arc::new(Mutex::new(String::new())),
        );
        let stdin = child.stdin.take();
        let mut c = Client {
            child,
            stdin,
            out,
            err,
            protocol: String::new(),
        };
        let ready = c.read();
        assert_eq!(ready["ready"], true, "{ready}");
        c.protocol = ready["protocol"].as_str().unwrap().to_string();
        std::mem::forget(_stderr);
        c
    }

    /// Starts `franz mcp FLAGS` over stdio on `display`.
    fn stdio(display: &str, mode: &str, flags: &[&str]) -> Client {
        let mut args = vec![
            "--mode".to_string(),
            mode.to_string(),
            "--".to_string(),
            env!("CARGO_BIN_EXE_franz").to_string(),
            "mcp".to_string(),
        ];
        args.extend(flags.iter().map(|s| s.to_string()));
        Client::spawn(&args, display)
    }

    fn http(server: &HttpServer, mode: &str) -> Client {
        let args = [
            "--mode",
            mode,
            "--url",
            server.url.as_str(),
            "--token",
            server.token.as_str(),
        ]
        .map(String::from);
        Client::spawn(&args, &server.display)
    }

    fn read(&mut self) -> Value {
        match self.out.recv_timeout(T) {
            // under a private D-Bus session the accessibility registry announces itself on the
            // same stdout: the driver's own lines are JSON objects
            Ok(line) if !line.starts_with('{') => self.read(),
            Ok(line) => serde_json::from_str(&line).unwrap(),
            Err(_) => panic!(
                "the MCP client did not answer within {T:?}; its stderr:\n{}",
                self.err.lock().unwrap()
            ),
        }
    }

    fn cmd(&mut self, v: Value) -> Value {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
        let answer = self.read();
        assert!(
            answer.get("exception").is_none(),
            "{v}: {answer}\n{}",
            self.err.lock().unwrap()
        );
        answer
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.cmd(json!({"op": "call", "tool": tool, "args": args}))
    }

    /// The pid of the franz the client started (stdio).
    fn server_pid(&self) -> u32 {
        let me = self.child.id();
        let deadline = Instant::now() + T;
        loop {
            for task in std::fs::read_dir(format!("/proc/{me}/task")).unwrap() {
                let children = task.unwrap().path().join("children");
                let text = std::fs::read_to_string(children).unwrap_or_default();
                for pid in text.split_whitespace() {
                    let cmd =
                        std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    if cmd.contains("franz") {
                        return pid.parse().unwrap();
                    }
                }
            }
            assert!(
                Instant::now() < deadline,
                "franz mcp is not a child of the client"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // closing stdin ends the driver, which stops franz (stdio)
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `franz mcp --http 127.0.0.1:0` on a display.
struct HttpServer {
    child: Child,
    url: String,
    token: String,
    display: String,
}

impl HttpServer {
    fn start(display: &str, flags: &[&str]) -> HttpServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_franz"))
            .args(["mcp", "--http", "127.0.0.1:0"])
            .args(flags)
            .env("DISPLAY", display)
            .env_remove("FRANZ_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let keep = Arc::new(Mutex::new(String::new()));
        let lines = lines_of(child.stderr.take().unwrap(), keep.clone());
        let (mut url, mut token) = (None, None);
        while url.is_none() || token.is_none() {
            let line = lines.recv_timeout(T).unwrap_or_else(|_| {
                panic!("franz mcp --http printed no URL: {}", keep.lock().unwrap())
            });
            if let Some(u) = line.strip_prefix("mcp: ") {
                url = Some(u.to_string());
            }
            if let Some(t) = line.strip_prefix("mcp token: ") {
                token = t.split_whitespace().next().map(str::to_string);
            }
        }
        HttpServer {
            child,
            url: url.unwrap(),
            token: token.unwrap(),
            display: display.to_string(),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn texts(answer: &Value) -> String {
    answer["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_else(|| answer["mcp_error"].as_str().unwrap_or_default().to_string())
}

/// Whether a tool call failed: an MCP error, or a tool result with `isError`.
fn failed(answer: &Value) -> bool {
    answer.get("mcp_error").is_some() || answer["is_error"] == true
}

/// The screenshot in a tool's answer: the decoded PNG and the text block's JSON.
fn shot_of(answer: &Value) -> (image::RgbaImage, Value) {
    let blocks = answer["content"].as_array().expect("content");
    let i = blocks
        .iter()
        .position(|b| b["type"] == "image")
        .unwrap_or_else(|| panic!("no image in {answer}"));
    assert_eq!(blocks[i]["mime"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(blocks[i]["data"].as_str().unwrap())
        .unwrap();
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .unwrap()
        .to_rgba8();
    let text = blocks[i + 1]["text"].as_str().unwrap();
    let info: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    (img, info)
}

fn presses(ev: &[WitnessEvent]) -> Vec<PixelPoint> {
    ev.iter()
        .filter(|e| e.is(K::ButtonPress))
        .map(|e| e.at)
        .collect()
}

/// Waits for the witness to see a button press; returns where.
fn press_at(witness: &Witness) -> PixelPoint {
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok, "the witness saw no click: {ev:?}");
    presses(&ev)[0]
}

fn check_tools(list: &Value, expected: &[&str]) {
    let tools = list["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, expected);
    for t in tools {
        let s = &t["inputSchema"];
        assert_eq!(s["type"], "object", "{t}");
        let none = serde_json::Map::new();
        let props = match &s["properties"] {
            Value::Null => &none,
            p => p.as_object().unwrap_or_else(|| panic!("{t}")),
        };
        for r in s["required"].as_array().into_iter().flatten() {
            assert!(props.contains_key(r.as_str().unwrap()), "{t}: required {r}");
        }
        assert!(t["description"].as_str().unwrap().len() > 30, "{t}");
    }
}

/// What every transport and revision must do: list the tools, screenshot, click exactly,
/// refuse bad arguments and keep serving.
fn exercise(c: &mut Client, witness: &Witness, (w, h): (u32, u32)) {
    check_tools(&c.cmd(json!({"op": "list_tools"})), &TOOLS);
    let shot = c.call("screenshot", json!({}));
    assert!(!failed(&shot), "{shot}");
    let (img, info) = shot_of(&shot);
    assert_eq!((img.width(), img.height()), (w, h));
    assert_eq!(
        (info["width"].as_u64(), info["height"].as_u64()),
        (Some(w as u64), Some(h as u64))
    );
    assert_eq!(info["coords"], "norm1000");

    witness.clear();
    let r = c.call("click", json!({"x": 250, "y": 750, "screenshot": false}));
    assert!(!failed(&r), "{r}");
    let want = PixelPoint::new(norm_to_axis(250, 0, w), norm_to_axis(750, 0, h));
    assert_eq!(press_at(witness), want);

    for (tool, args, says) in [
        ("move", json!({"x": 1}), "missing field `y`"),
        (
            "click",
            json!({"x": "a", "y": 1}),
            "x: invalid type: string",
        ),
        (
            "type_text",
            json!({"text": "a", "speed": 2}),
            "unknown field `speed`",
        ),
        ("click", json!({"x": 1001, "y": 5}), "out of range"),
        (
            "drag",
            json!({"x": 1, "y": 2, "x2": -1, "y2": 5}),
            "out of range",
        ),
        ("no_such_tool", json!({}), "not found"),
    ] {
        let r = c.call(tool, args.clone());
        assert!(failed(&r), "{tool} {args}: {r}");
        assert!(texts(&r).contains(says), "{tool} {args}: {r}");
    }
    // still serving
    assert!(!failed(&c.call("cursor_position", json!({}))));
}

#[test]
fn serves_both_revisions_over_stdio_and_http() {
    let (w, h) = (800, 600);
    let (sb, witness) = sandbox(w, h);
    for mode in [LEGACY, STATELESS] {
        let mut c = Client::stdio(sb.display(), mode, &["--motion", "fast"]);
        assert_eq!(
            c.protocol,
            if mode == LEGACY {
                "2025-11-25"
            } else {
                STATELESS
            }
        );
        exercise(&mut c, &witness, (w, h));
    }
    let server = HttpServer::start(sb.display(), &["--motion", "fast"]);
    for mode in [LEGACY, STATELESS] {
        let mut c = Client::http(&server, mode);
        assert_eq!(
            c.protocol,
            if mode == LEGACY {
                "2025-11-25"
            } else {
                STATELESS
            }
        );
        exercise(&mut c, &witness, (w, h));
    }
}

#[test]
fn the_screenshot_is_the_pixels_of_franz_screenshot() {
    let (sb, _witness) = sandbox(640, 480);
    let mut c = Client::stdio(sb.display(), STATELESS, &["--size", "500x400"]);
    let (img, info) = shot_of(&c.call("screenshot", json!({})));
    assert_eq!((img.width(), img.height()), (500, 400));
    assert_eq!(info["image_id"], "img-1");
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("s.png");
    let out = Command::new(env!("CARGO_BIN_EXE_franz"))
        .arg("screenshot")
        .arg(&png)
        .args(["500", "400"])
        .env("DISPLAY", sb.display())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = image::open(&png).unwrap().to_rgba8();
    assert_eq!(theirs.dimensions(), img.dimensions());
    let differ = img
        .pixels()
        .zip(theirs.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differ, 0, "{differ} pixels differ");
}

#[test]
fn pixel_coordinates_need_the_current_image_id_and_land_exactly() {
    let (w, h) = (800, 600);
    let (sb, witness) = sandbox(w, h);
    let mut c = Client::stdio(
        sb.display(),
        LEGACY,
        &[
            "--coords", "pixels", "--size", "640x480", "--motion", "fast",
        ],
    );
    let r = c.call("click", json!({"x": 1, "y": 1}));
    assert!(failed(&r) && texts(&r).contains("screenshot first"), "{r}");
    let (_, info) = shot_of(&c.call("screenshot", json!({})));
    assert_eq!(info["coords"], "pixels");
    let first = info["image_id"].as_str().unwrap().to_string();

    witness.clear();
    let r = c.call(
        "click",
        json!({"x": 123, "y": 321, "image_id": first, "screenshot": false}),
    );
    assert!(!failed(&r), "{r}");
    let n = ImageSize::new(640, 480).to_norm(123, 321);
    let want = PixelPoint::new(norm_to_axis(n.x, 0, w), norm_to_axis(n.y, 0, h));
    assert_eq!(press_at(&witness), want);

    let r = c.call("click", json!({"x": 10, "y": 10}));
    assert!(failed(&r) && texts(&r).contains(&first), "no id: {r}");
    let r = c.call("click", json!({"x": 640, "y": 10, "image_id": first}));
    assert!(failed(&r) && texts(&r).contains("out of range"), "{r}");
    // an acting tool returns a new screenshot, so the first id is stale now
    let r = c.call("move", json!({"x": 5, "y": 5, "image_id": first}));
    let (_, now) = shot_of(&r);
    let current = now["image_id"].as_str().unwrap();
    assert_ne!(current, first);
    let r = c.call("click", json!({"x": 10, "y": 10, "image_id": first}));
    assert!(failed(&r), "{r}");
    assert!(
        texts(&r).contains(current),
        "the error names the current id: {r}"
    );
}

/// Waits until `path` holds text that `done` accepts.
fn wait_file(path: &Path, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + T;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if done(&text) || Instant::now() > deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn type_text_and_press_key_reach_an_xterm() {
    use franz_desktop::sandbox::{Sandbox, SandboxOptions};
    let dir = tempfile::tempdir().unwrap();
    let typed = dir.path().join("typed.txt");
    let ended = dir.path().join("ended.txt");
    let launch = format!(
        "xterm -u8 -geometry 60x10+0+0 -e sh -c 'cat > {}; echo eof > {}'",
        typed.display(),
        ended.display()
    );
    let sb = Sandbox::start(&SandboxOptions {
        width: 800,
        height: 600,
        launch: vec![launch],
    })
    .unwrap();
    assert!(sb.wait_for_windows(1, T), "xterm never mapped");
    let mut c = Client::stdio(sb.display(), STATELESS, &["--motion", "fast"]);
    // the pointer gives the focus (no window manager): into the terminal
    assert!(!failed(
        &c.call("click", json!({"x": 100, "y": 50, "screenshot": false}))
    ));
    let text = "Grüße, 你好 — ünïcødé ✓";
    let r = c.call("type_text", json!({"text": text}));
    assert!(!failed(&r), "{r}");
    shot_of(&r); // a screenshot after the action
    assert!(!failed(&c.call(
        "press_key",
        json!({"keys": "enter", "screenshot": false})
    )));
    let got = wait_file(&typed, |t| t.ends_with('\n'));
    assert_eq!(got, format!("{text}\n"));
    // a combo: ctrl+d ends cat
    assert!(!failed(&c.call(
        "press_key",
        json!({"keys": "ctrl+d", "screenshot": false})
    )));
    assert_eq!(wait_file(&ended, |t| t == "eof\n"), "eof\n");
}

fn task_flags<'a>(url: &'a str, runs: &'a str) -> Vec<&'a str> {
    vec![
        "--api-url",
        url,
        "--model",
        "scripted",
        "--runs-dir",
        runs,
        "--motion",
        "fast",
        "--step-delay",
        "0",
        "--strategy",
        "narrative",
    ]
}

#[test]
fn run_task_reports_each_turn_and_its_run_is_a_resource() {
    let (sb, witness) = sandbox(800, 600);
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs").display().to_string();
    for http in [false, true] {
        let server = ScriptedServer::start(Script::list([
            ScriptedReply::text("left_click(500, 500)\nA test window; I click its middle."),
            ScriptedReply::text("left_click(250, 250)\nNow the upper left."),
            ScriptedReply::text("done(\"clicked twice\")\nBoth clicks landed."),
        ]))
        .unwrap();
        let url = server.url();
        let flags = task_flags(&url, &runs);
        let (_http_server, mut c) = if http {
            let s = HttpServer::start(sb.display(), &flags);
            let c = Client::http(&s, STATELESS);
            (Some(s), c)
        } else {
            (None, Client::stdio(sb.display(), LEGACY, &flags))
        };
        witness.clear();
        one_task(&mut c, &witness);
    }
}

/// Runs a three-turn task through `c` and reads its run back as resources.
fn one_task(c: &mut Client, witness: &Witness) {
    let r = c.cmd(json!({
        "op": "run_task",
        "args": {"task": "click the middle, then the upper left"},
        "during": {"tool": "click", "args": {"x": 1, "y": 1}},
    }));
    assert!(!failed(&r), "{r}");
    let result: Value = serde_json::from_str(&texts(&r)).unwrap();
    assert_eq!(result["outcome"], "done", "{r}");
    assert_eq!(result["turns"], 3);
    let progress = r["progress"].as_array().unwrap();
    assert_eq!(progress.len(), 3, "one progress notification per turn: {r}");
    assert!(
        progress[0]["message"]
            .as_str()
            .unwrap()
            .contains("click its middle")
    );
    // meanwhile the other tools were busy
    let during = &r["during"];
    assert!(
        failed(during) && texts(during).contains("busy") && texts(during).contains("task-"),
        "{during}"
    );
    let (_, ev) = witness.wait_for(|e| presses(e).len() >= 2, T);
    assert_eq!(presses(&ev).len(), 2, "only the task's two clicks: {ev:?}");

    let run_dir = result["run_dir"].as_str().unwrap();
    let name = Path::new(run_dir).file_name().unwrap().to_str().unwrap();
    let list = c.cmd(json!({"op": "list_resources"}));
    let uris: Vec<&str> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["uri"].as_str().unwrap())
        .collect();
    let report = format!("franz://runs/{name}/report");
    let turns = format!("franz://runs/{name}/turns");
    assert!(
        uris.contains(&report.as_str()) && uris.contains(&turns.as_str()),
        "{list}"
    );
    let html = c.cmd(json!({"op": "read_resource", "uri": report}));
    assert_eq!(html["mime"], "text/html");
    assert!(
        html["text"].as_str().unwrap().contains("click its middle"),
        "{html}"
    );
    let jsonl = c.cmd(json!({"op": "read_resource", "uri": turns}));
    let lines: Vec<Value> = jsonl["text"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6, "two records per turn");
    let bad = c.cmd(json!({"op": "read_resource", "uri": "franz://runs/../report"}));
    assert!(
        bad["mcp_error"]
            .as_str()
            .unwrap()
            .contains("not a franz resource"),
        "{bad}"
    );
    // no longer busy
    assert!(!failed(&c.call("cursor_position", json!({}))));
}

#[test]
fn cancelling_run_task_stops_it_and_leaves_the_run_complete() {
    let (sb, _witness) = sandbox(800, 600);
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    let runs_s = runs.display().to_string();
    for (i, mode) in [LEGACY, STATELESS].into_iter().enumerate() {
        // turn 1 answers, turn 2's model call never does: only a stop ends the run (before
        // or during that call)
        let server = ScriptedServer::start(Script::list([
            Step::from(ScriptedReply::text(
                "left_click(500, 500)\nI click the middle.",
            )),
            Step::fault(Fault::Hang),
        ]))
        .unwrap();
        let url = server.url();
        let mut c = Client::stdio(sb.display(), mode, &task_flags(&url, &runs_s));
        let r = c.cmd(json!({"op": "run_task", "args": {"task": "click"}, "cancel_after": 1}));
        assert_eq!(r["cancelled"], true, "{r}");
        assert_eq!(r["progress"].as_array().unwrap().len(), 1, "{r}");
        let started = Instant::now();
        let dir = runs.join(format!("run_{:04}", i + 1));
        let events = wait_file(&dir.join("events.jsonl"), |t| {
            t.contains("\"run_finished\"")
        });
        eprintln!(
            "{mode}: run_finished {:?} after the cancellation",
            started.elapsed()
        );
        let last: Value = serde_json::from_str(events.lines().last().unwrap()).unwrap();
        assert_eq!(last["event"], "run_finished", "{events}");
        assert_eq!(last["outcome"], "interrupted", "{events}");
        assert!(
            last["reason"]
                .as_str()
                .unwrap()
                .contains("cancelled by the MCP client")
        );
        let log = franz_core::runlog::read_run(&dir).unwrap();
        assert_eq!(log.turns.len(), 1, "turn 1 is in the log");
        assert!(log.warnings.is_empty(), "{:?}", log.warnings);
        // the server is free again once the engine thread let go of the task
        let deadline = Instant::now() + T;
        let shot = loop {
            let shot = c.call("screenshot", json!({}));
            if !texts(&shot).contains("busy") || Instant::now() > deadline {
                break shot;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(!failed(&shot), "{shot}");
    }
}

#[test]
fn failsafe_and_dry_run_apply_to_tool_calls() {
    let (sb, witness) = sandbox(800, 600);
    let xdotool = |args: &[&str]| {
        let ok = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", sb.display())
            .status()
            .unwrap();
        assert!(ok.success());
    };
    // dry run: the result says so, and nothing reaches the desktop
    let mut c = Client::stdio(sb.display(), LEGACY, &["--dry-run", "--motion", "fast"]);
    witness.clear();
    let r = c.call("click", json!({"x": 500, "y": 500, "screenshot": false}));
    assert!(!failed(&r), "{r}");
    assert!(texts(&r).contains("\"dry_run\":true"), "{r}");
    // a real click as a marker: once it arrived, any click of franz's would have too
    xdotool(&["mousemove", "17", "19", "click", "1"]);
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok);
    assert_eq!(presses(&ev), vec![PixelPoint::new(17, 19)]);
    drop(c);

    // the failsafe: the pointer in the top-left corner stops the action
    let mut c = Client::stdio(sb.display(), STATELESS, &["--motion", "fast"]);
    xdotool(&["mousemove", "0", "0"]);
    witness.clear();
    let r = c.call("click", json!({"x": 500, "y": 500}));
    assert!(failed(&r), "{r}");
    assert!(texts(&r).contains("failsafe"), "{r}");
    xdotool(&["mousemove", "30", "40", "click", "1"]);
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok);
    assert_eq!(
        presses(&ev),
        vec![PixelPoint::new(30, 40)],
        "franz did not click"
    );
}

#[test]
fn read_only_exposes_only_the_looking_tools() {
    let (sb, _witness) = sandbox(400, 300);
    let mut c = Client::stdio(sb.display(), LEGACY, &["--read-only"]);
    check_tools(
        &c.cmd(json!({"op": "list_tools"})),
        &["cursor_position", "screenshot"],
    );
    let r = c.call("click", json!({"x": 1, "y": 1}));
    assert!(failed(&r) && texts(&r).contains("not found"), "{r}");
    assert!(!failed(&c.call("screenshot", json!({}))));
}

/// A run directory with one real turn (`common::write_turn`) under `runs`.
fn real_run(runs: &Path, name: &str) -> PathBuf {
    let (overlay, mut history) = common::overlay();
    let dir = runs.join(name);
    let mut w =
        franz_core::runlog::RunWriter::open_dir(&dir, franz_core::runlog::Layout::Flat).unwrap();
    common::write_turn(&mut w, &overlay, &mut history, 1);
    w.close().unwrap();
    dir
}

#[test]
fn a_run_file_that_links_outside_the_runs_directory_is_not_served() {
    use std::os::unix::fs::symlink;
    let (sb, _witness) = sandbox(400, 300);
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    // a run whose turns.jsonl is /etc/passwd
    std::fs::create_dir(runs.join("run_0001")).unwrap();
    symlink("/etc/passwd", runs.join("run_0001/turns.jsonl")).unwrap();
    // a run directory that is a link to a run elsewhere
    let outside = real_run(tmp.path(), "elsewhere");
    std::fs::write(outside.join("note"), "h28-outside-secret").unwrap();
    symlink(&outside, runs.join("run_0002")).unwrap();
    // a real run whose screenshot links out
    let linked = real_run(&runs, "run_0003");
    std::fs::remove_file(linked.join("turn_0001_raw.png")).unwrap();
    symlink("/etc/passwd", linked.join("turn_0001_raw.png")).unwrap();
    real_run(&runs, "run_0004");
    let dir = runs.display().to_string();
    let mut c = Client::stdio(sb.display(), LEGACY, &["--read-only", "--runs-dir", &dir]);
    for uri in [
        "franz://runs/run_0001/turns",
        "franz://runs/run_0001/report",
        "franz://runs/run_0002/turns",
        "franz://runs/run_0002/report",
        "franz://runs/run_0003/report",
    ] {
        let r = c.cmd(json!({"op": "read_resource", "uri": uri}));
        let error = r["mcp_error"].as_str().unwrap_or_default();
        assert!(error.contains("outside the runs directory"), "{uri}: {r}");
        assert!(
            !r.to_string().contains("root:"),
            "{uri} served /etc/passwd: {r}"
        );
    }
    // the run that is wholly inside is served
    let ok = c.cmd(json!({"op": "read_resource", "uri": "franz://runs/run_0004/turns"}));
    assert!(ok["text"].as_str().unwrap().contains("\"turn\":1"), "{ok}");
}

#[test]
fn http_needs_the_token_a_loopback_origin_and_a_loopback_host() {
    let (sb, _witness) = sandbox(400, 300);
    let server = HttpServer::start(sb.display(), &[]);
    let http = reqwest::blocking::Client::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let post = |headers: &[(&str, String)]| {
        let mut r = http
            .post(&server.url)
            .header("Accept", "application/json, text/event-stream")
            .json(&body);
        for (k, v) in headers {
            r = r.header(*k, v);
        }
        r.send().unwrap()
    };
    let bearer = format!("Bearer {}", server.token);
    let r = post(&[]);
    assert_eq!(r.status().as_u16(), 401);
    assert!(r.text().unwrap().contains("token"));
    assert_eq!(
        post(&[("Authorization", "Bearer wrong".into())])
            .status()
            .as_u16(),
        401
    );
    let r = post(&[
        ("Authorization", bearer.clone()),
        ("Origin", "http://evil.example".into()),
    ]);
    assert_eq!(r.status().as_u16(), 403);
    let ok = post(&[
        ("Authorization", bearer.clone()),
        ("Origin", "http://localhost:3000".into()),
    ]);
    assert_eq!(ok.status().as_u16(), 200, "{}", ok.text().unwrap());
    let ok = post(&[("Authorization", bearer.clone())]);
    assert_eq!(ok.status().as_u16(), 200);
    // DNS rebinding: a page of evil.example that resolves to 127.0.0.1 sends its own Host
    let port = server
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let r = post(&[
        ("Authorization", bearer),
        ("Host", format!("evil.example:{port}")),
    ]);
    assert_eq!(r.status().as_u16(), 403);

    // a non-loopback address needs --allow-remote
    let out = Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(["mcp", "--http", "0.0.0.0:0"])
        .env("DISPLAY", sb.display())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
}

fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Also the benchmark of a screenshot call over stdio: prints the median (not asserted).
#[test]
fn a_hundred_screenshots_keep_the_memory_flat() {
    let (sb, _witness) = sandbox(1280, 800);
    let mut c = Client::stdio(sb.display(), LEGACY, &[]);
    let pid = c.server_pid();
    let mut ms = Vec::new();
    let mut rss10 = 0;
    for i in 1..=100 {
        let r = c.cmd(json!({"op": "bench", "n": 1}));
        ms.push(r["ms"][0].as_f64().unwrap_or_else(|| panic!("{r}")));
        if i == 10 {
            rss10 = rss_kb(pid);
        }
    }
    let rss100 = rss_kb(pid);
    ms.sort_by(f64::total_cmp);
    eprintln!(
        "bench mcp: screenshot over stdio, median {:.1} ms per call (100 calls, 1280x800); RSS {rss10} kB after 10, {rss100} kB after 100",
        ms[50]
    );
    assert!(
        rss100 as f64 <= rss10 as f64 * 1.1,
        "RSS grew from {rss10} kB (call 10) to {rss100} kB (call 100)"
    );
}

/// `franz bench mcp` speaks to a real `franz mcp` over stdio and prints its median (the
/// figure is for people; the test checks only that the bench ran every call and said so).
#[test]
fn bench_mcp_times_screenshot_calls_against_a_real_server() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(["bench", "mcp", "--calls", "3", "--", "--sandbox=640x480"])
        .env_remove("DISPLAY")
        .output()
        .expect("run franz bench mcp");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("mcp screenshot over stdio, 3 calls"),
        "{text}"
    );
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("mcp screenshot: median ") && last.ends_with(" ms"),
        "{text}"
    );
}

/// The PNG of every `data:image/png;base64,` URL in a request body.
fn sent_images(body: &str) -> Vec<image::RgbaImage> {
    common::data_url_pngs(body)
        .iter()
        .map(|png| image::load_from_memory(png).unwrap().to_rgba8())
        .collect()
}

/// The top-left quarter is black (masked), the bottom-right corner is not.
fn assert_masked(img: &image::RgbaImage, what: &str) {
    let (w, h) = img.dimensions();
    for (x, y) in [(2, 2), (w / 4, h / 4), (w / 2 - 6, h / 2 - 6)] {
        assert_eq!(img.get_pixel(x, y).0[..3], [0, 0, 0], "{what}: ({x}, {y})");
    }
    assert_ne!(img.get_pixel(w - 10, h - 10).0[..3], [0, 0, 0], "{what}");
}

#[test]
fn the_tools_and_run_task_obey_the_safety_policy_and_the_privacy_masks() {
    let (sb, witness) = sandbox(800, 600);
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs").display().to_string();
    let policy = tmp.path().join("policy.toml");
    let rules =
        "deny_regions = [[400, 400, 600, 600]]\n[confirm]\nregions = [[0, 800, 200, 1000]]\n";
    std::fs::write(&policy, rules).unwrap();
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("left_click(500, 500)\nThe middle."),
        ScriptedReply::text("left_click(100, 900)\nThe lower left."),
        ScriptedReply::text("left_click(750, 750)\nThe lower right then."),
        ScriptedReply::text("done(\"clicked the lower right\")\nDone."),
    ]))
    .unwrap();
    let url = server.url();
    let mut args: Vec<String> = [
        "--mode",
        LEGACY,
        "--",
        env!("CARGO_BIN_EXE_franz"),
        "--policy",
    ]
    .map(String::from)
    .to_vec();
    args.push(policy.display().to_string());
    args.push("mcp".into());
    args.extend(task_flags(&url, &runs).iter().map(|s| s.to_string()));
    args.extend(["--no-cursor", "--mask-regions", "0,0,500,500"].map(String::from));
    let mut c = Client::spawn(&args, sb.display());

    // the tools: the masked region is black, a click in a denied region is refused
    let (img, _) = shot_of(&c.call("screenshot", json!({})));
    assert_masked(&img, "the screenshot tool");
    witness.clear();
    let refused = c.call("click", json!({"x": 500, "y": 500, "screenshot": false}));
    assert!(texts(&refused).contains("deny_regions"), "{refused}");
    // a confirm rule: nobody to ask over MCP (stdin carries the protocol), so not performed
    let unasked = c.call("click", json!({"x": 100, "y": 900, "screenshot": false}));
    assert!(texts(&unasked).contains("no one confirmed it"), "{unasked}");
    let r = c.call("click", json!({"x": 750, "y": 750, "screenshot": false}));
    assert!(!failed(&r), "{r}");
    let lower_right = PixelPoint::new(norm_to_axis(750, 0, 800), norm_to_axis(750, 0, 600));
    assert_eq!(
        press_at(&witness),
        lower_right,
        "the refused click sent nothing"
    );

    // run_task: the same policy and masks, the model told of the refusal
    witness.clear();
    let r = c.cmd(json!({"op": "run_task", "args": {"task": "click the middle"}}));
    let result: Value = serde_json::from_str(&texts(&r)).unwrap();
    assert_eq!(result["outcome"], "done", "{r}");
    let (_, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert_eq!(
        presses(&ev),
        [lower_right],
        "only the allowed click: {ev:?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "three clicks and done");
    assert!(
        requests[1].body.contains("deny_regions"),
        "the model was told"
    );
    assert!(
        requests[2].body.contains("no one confirmed it"),
        "the model was told"
    );
    for (i, req) in requests.iter().enumerate() {
        for img in sent_images(&req.body) {
            assert_masked(&img, &format!("request {i}"));
        }
    }
}

/// The window tools and `elements` are MCP tools: `list_windows` lists a zenity dialog, `focus_window` focuses the dialog, `elements` lists its OK button (through
/// AT-SPI, client and server inside a private D-Bus session).
#[test]
fn window_tools_and_elements_are_mcp_tools() {
    let (sb, _witness) = sandbox(800, 600);
    let runtime = tempfile::tempdir().unwrap();
    let mut c = Client::stdio_under_bus(
        sb.display(),
        runtime.path(),
        &["--launch", "zenity --entry --title=Ask --text=Name"],
    );
    let listed = c.call("list_windows", json!({}));
    assert!(!failed(&listed), "{listed}");
    let text = texts(&listed);
    assert!(text.contains("Zenity \\\"Ask\\\" ["), "{text}");
    let focused = c.call(
        "focus_window",
        json!({"window": "Ask", "screenshot": false}),
    );
    assert!(!failed(&focused), "{focused}");
    assert!(texts(&focused).contains("Ask"), "{focused}");
    let missing = c.call(
        "focus_window",
        json!({"window": "no such window", "screenshot": false}),
    );
    assert!(failed(&missing), "{missing}");
    // the dialog registers with the accessibility bus a moment after it shows
    let deadline = Instant::now() + T;
    let elements = loop {
        let e = c.call("elements", json!({"budget_ms": 1000}));
        assert!(!failed(&e), "{e}");
        if texts(&e).contains("\"OK\"") || Instant::now() >= deadline {
            break e;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let text = texts(&elements);
    assert!(text.contains("ELEMENTS (number role"), "{text}");
    let ok = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["name"] == "OK")
        .unwrap_or_else(|| panic!("no OK element: {text}"));
    assert!(ok["role"].as_str().unwrap().contains("button"), "{ok}");
    assert!(
        ok["id"].as_u64() >= Some(1) && ok["bounds"].is_object(),
        "{ok}"
    );
}

#[test]
fn a_cancelled_call_stops_its_action_and_the_next_call_is_answered() {
    let (sb, witness) = sandbox(800, 600);
    witness.focus().unwrap();
    for mode in [LEGACY, STATELESS] {
        let mut c = Client::stdio(sb.display(), mode, &["--motion", "human"]);
        // typing at a person's pace: cancelled once it is under way, the keys stop coming
        witness.clear();
        let word = "a".repeat(300);
        let typing = c.cmd(json!({"op": "start", "tool": "type_text",
            "args": {"text": word, "screenshot": false}}));
        let keys = |ev: &[WitnessEvent]| ev.iter().filter(|e| e.is(K::KeyPress)).count();
        let (under_way, _) = witness.wait_for(|ev| keys(ev) >= 10, T);
        assert!(under_way, "{mode}: the typing never started");
        let cancelled = c.cmd(json!({"op": "cancel", "id": typing["started"]}));
        assert_eq!(cancelled["cancelled"], true, "{mode}: {cancelled}");
        // the next call is answered once the action stopped: nothing is typed after it
        let next = c.call("cursor_position", json!({}));
        assert!(!failed(&next), "{mode}: {next}");
        let typed = keys(&witness.events());
        assert!(
            typed < 150,
            "{mode}: {typed} of 300 characters typed after the cancel"
        );
        // a 30 s wait, cancelled: the next call comes back while the wait would still run
        let started = Instant::now();
        let waiting = c.cmd(json!({"op": "start", "tool": "wait",
            "args": {"seconds": 30, "screenshot": false}}));
        c.cmd(json!({"op": "cancel", "id": waiting["started"]}));
        let next = c.call("cursor_position", json!({}));
        assert!(!failed(&next), "{mode}: {next}");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{mode}: the wait held up the next call"
        );
    }
}
