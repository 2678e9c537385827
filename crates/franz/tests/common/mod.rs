//! Shared helpers for the binary's end-to-end tests: run directories with real PNG
//! screenshots, running `franz`, and loading a page in headless Chromium.

#![allow(dead_code)]

pub mod browser;
/// Reading `docs/`, written once for both crates' tests.
#[path = "../../../core/tests/common/docs.rs"]
pub mod docs;
pub mod miniwob;
/// The module graph and the source walker, written once for both crates' tests.
#[path = "../../../core/tests/common/module_graph.rs"]
pub mod module_graph;
pub mod oracle;
pub mod panel;
pub mod terminal;

use franz_core::action::{Action, ActionError, ActionKind, ActionResult, ErrorKind};
use franz_core::geometry::NormBox;
use franz_core::observe::{ImageFormat, RgbaImage, StageTimings, encode_image};
use franz_core::overlay::{FeedbackHistory, Overlay, OverlayConfig, TurnFeedback};
use franz_core::runlog::{RunWriter, TurnEntry, TurnImage, TurnTimings};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A desktop-like frame that differs per turn (a window that moves right), for tests that
/// need many varied turns quickly; the crash test uses real sandbox captures instead.
pub fn screen(turn: u32, w: u32, h: u32) -> RgbaImage {
    let mut data = Vec::with_capacity((w * h * 4) as usize);
    let left = (turn * 37) % (w / 2);
    for y in 0..h {
        for x in 0..w {
            let inside = x >= left && x < left + w / 2 && y > h / 6 && y < h * 5 / 6;
            let c = if inside {
                [235, 235, (200 + turn * 10 % 50) as u8, 255]
            } else {
                [30, (60 + y * 100 / h) as u8, 110, 255]
            };
            data.extend_from_slice(&c);
        }
    }
    RgbaImage {
        width: w,
        height: h,
        data,
    }
}

/// The actions of turn `turn`: a click, then alternately a drag, typing and a bad key.
pub fn actions(turn: u32) -> (Vec<Action>, Vec<ActionResult>) {
    let t = turn as i32;
    let mut a: Vec<Action> = vec![
        ActionKind::Click {
            x: Some(100 * t),
            y: Some(500),
        }
        .into(),
    ];
    let mut r = vec![ActionResult::ok()];
    match turn % 3 {
        0 => {
            a.push(
                ActionKind::Drag {
                    x: Some(100),
                    y: Some(100),
                    x2: 600,
                    y2: 700,
                }
                .into(),
            );
            r.push(ActionResult::ok());
        }
        1 => {
            a.push(
                ActionKind::Type {
                    text: format!("hello {turn}"),
                }
                .into(),
            );
            r.push(ActionResult::ok());
        }
        _ => {
            a.push(
                ActionKind::Key {
                    keys: "ctrl+s".into(),
                }
                .into(),
            );
            r.push(ActionResult::Error(ActionError::new(
                ErrorKind::ExecutionFailed,
                "no window",
            )));
        }
    }
    (a, r)
}

/// Writes turn `turn` through the writer: raw pixels (encoded by the writer thread) and the
/// annotated image as PNG bytes, like the engine will.
pub fn write_turn(w: &mut RunWriter, overlay: &Overlay, history: &mut FeedbackHistory, turn: u32) {
    write_turn_image(w, overlay, history, turn, screen(turn, 320, 180));
}

/// `write_turn` with a given raw screenshot.
pub fn write_turn_image(
    w: &mut RunWriter,
    overlay: &Overlay,
    history: &mut FeedbackHistory,
    turn: u32,
    raw: RgbaImage,
) {
    let (actions, results) = actions(turn);
    let bboxes = vec![NormBox::from_corners(400, 300, 700, 600)];
    history.push(TurnFeedback {
        actions: actions.clone(),
        bboxes: bboxes.clone(),
    });
    let mut annotated = raw.clone();
    overlay.draw_image(&mut annotated, history).unwrap();
    let png = encode_image(&annotated, ImageFormat::Png).unwrap();
    w.submit_images(turn, TurnImage::Rgba(raw), Some(TurnImage::Png(png)))
        .unwrap();
    w.finish_turn(TurnEntry {
        turn,
        story: format!("Story after turn {turn}: the window moved <right>."),
        bboxes,
        actions,
        results,
        timings: TurnTimings {
            observe: Some(StageTimings {
                capture: 3.0,
                encode: 2.0,
                total: 6.0,
                ..Default::default()
            }),
            model_ms: Some(900.0),
            act_ms: Some(40.0),
            turn_ms: Some(950.0),
            ..Default::default()
        },
        error: None,
    })
    .unwrap();
}

/// Overlay and history for `write_turn`.
pub fn overlay() -> (Overlay, FeedbackHistory) {
    let o = Overlay::new(OverlayConfig::default()).unwrap();
    let h = o.history();
    (o, h)
}

/// Runs the franz binary.
pub fn franz(args: &[&str]) -> Output {
    franz_command().args(args).output().expect("run franz")
}

/// The franz binary as a command, without `FRANZ_LOG` (tests read its stderr as users see it).
pub fn franz_command() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_franz"));
    cmd.env_remove("FRANZ_LOG");
    cmd
}

/// Removes every variable of this process's environment that franz reads as a setting from
/// `cmd`'s (`FRANZ_*` and the designs' `AGENT_*` and `LMSTUDIO_*`), for tests that check
/// franz's own defaults.
pub fn no_franz_env(cmd: &mut Command) -> &mut Command {
    for (k, _) in std::env::vars() {
        if ["FRANZ_", "AGENT_", "LMSTUDIO_"]
            .iter()
            .any(|p| k.starts_with(p))
        {
            cmd.env_remove(k);
        }
    }
    cmd
}

/// The argument vector of `franz run` against the model server at `api_url`, writing its runs
/// under `runs`, with no pause between steps: what every end-to-end run starts from. The test
/// adds the task, the screen (`--sandbox=WxH` or `DISPLAY`), `--model` and its own flags.
pub fn run_args<'a>(api_url: &'a str, runs: &'a Path) -> [&'a str; 7] {
    let runs = runs.to_str().expect("a UTF-8 runs directory");
    [
        "run",
        "--api-url",
        api_url,
        "--runs-dir",
        runs,
        "--step-delay",
        "0",
    ]
}

/// `franz run` with [`run_args`], as a command.
pub fn franz_run(api_url: &str, runs: &Path) -> Command {
    let mut cmd = franz_command();
    cmd.args(run_args(api_url, runs));
    cmd
}

/// Loads `html` in headless Chromium and returns the DOM after scripts ran.
pub fn chromium_dom(html: &Path) -> String {
    let chromium = [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists())
    .expect("chromium is not installed (the README's test command installs it)");
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--virtual-time-budget=10000",
        "--dump-dom",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .arg(format!("file://{}", html.display()))
    .stdin(Stdio::null());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(cmd.output());
    });
    let out = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("chromium did not finish within 120 s")
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value of attribute `name` on the `<body>` element of a dumped DOM.
pub fn body_attr(dom: &str, name: &str) -> Option<String> {
    let body = &dom[dom.find("<body")?..];
    let tag = &body[..body.find('>')?];
    let key = format!("{name}=\"");
    let start = tag.find(&key)? + key.len();
    Some(tag[start..][..tag[start..].find('"')?].to_string())
}

/// A private Xvfb of `w`x`h` with nothing on it.
#[cfg(target_os = "linux")]
pub fn xvfb(w: u32, h: u32) -> franz_desktop::sandbox::Sandbox {
    use franz_desktop::sandbox::{Sandbox, SandboxOptions};
    Sandbox::start(&SandboxOptions {
        width: w,
        height: h,
        launch: vec![],
    })
    .unwrap()
}

/// A private Xvfb of `w`x`h` with the witness window over all of it.
#[cfg(target_os = "linux")]
pub fn sandbox(
    w: u32,
    h: u32,
) -> (
    franz_desktop::sandbox::Sandbox,
    franz_desktop::witness::Witness,
) {
    let sb = xvfb(w, h);
    let witness = franz_desktop::witness::Witness::open(
        sb.display(),
        franz_desktop::PixelRect::new(0, 0, w, h),
    )
    .unwrap();
    (sb, witness)
}

/// The JSON lines of a JSON Lines file, skipping lines that are not JSON; an absent file reads
/// as none (the test's own assertions then say what is missing).
pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The events of a run directory's `events.jsonl`, skipping lines that are not JSON.
pub fn events_in(dir: &Path) -> Vec<serde_json::Value> {
    jsonl(&dir.join("events.jsonl"))
}

/// The records of a run directory's `exchange.jsonl` (the model requests and answers),
/// skipping lines that are not JSON.
pub fn exchange_in(dir: &Path) -> Vec<serde_json::Value> {
    jsonl(&dir.join("exchange.jsonl"))
}

/// The run directories (`run_NNNN`) under `runs`, in order.
pub fn run_dirs(runs: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(runs)
        .unwrap_or_else(|e| panic!("{}: {e}", runs.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("run_"))
        })
        .collect();
    dirs.sort();
    dirs
}

/// The one run directory under `runs`, for a test that ran one run.
pub fn run_dir(runs: &Path) -> PathBuf {
    let dirs = run_dirs(runs);
    assert_eq!(
        dirs.len(),
        1,
        "run directories under {}: {dirs:?}",
        runs.display()
    );
    dirs[0].clone()
}

/// The events of the one run under `runs`.
pub fn run_events(runs: &Path) -> Vec<serde_json::Value> {
    events_in(&run_dir(runs))
}

/// `franz report DIR -o HTML`, which must succeed; returns the page it wrote.
pub fn report(dir: &Path, html: &Path) -> String {
    let out = franz(&["report", path_str(dir), "-o", path_str(html)]);
    assert!(
        out.status.success(),
        "franz report {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(html).unwrap_or_else(|e| panic!("{}: {e}", html.display()))
}

/// `franz --sandbox=640x480 bench observe --turns 3` with `extra` flags and none of the
/// environment's settings, which must succeed; returns what it printed.
pub fn bench_observe(extra: &[&str]) -> String {
    let mut cmd = franz_command();
    no_franz_env(&mut cmd);
    let out = cmd
        .env_remove("DISPLAY")
        .args(["--sandbox=640x480", "bench", "observe", "--turns", "3"])
        .args(extra)
        .output()
        .expect("run franz bench observe");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// The franz binary with `args` as one shell command line, each argument quoted, for
/// [`terminal::Terminal`].
pub fn shell_line(args: &[&str]) -> String {
    std::iter::once(env!("CARGO_BIN_EXE_franz").to_string())
        .chain(args.iter().map(|a| format!("'{a}'")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Everything left on a child's pipe (`child.stdout.take()`), read to the end.
pub fn read_pipe(pipe: Option<impl std::io::Read>) -> String {
    let mut text = String::new();
    pipe.unwrap().read_to_string(&mut text).unwrap();
    text
}

/// Runs `cmd` with `stdin` written to it and stdout and stderr captured. A program that exits
/// before reading its input (a usage error) closes the pipe: that is not a failure here.
pub fn output_with_stdin(cmd: &mut std::process::Command, stdin: &str) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let written = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().expect("wait")
}

/// The PNGs of every `data:image/png;base64,` URL in `text`.
pub fn data_url_pngs(text: &str) -> Vec<Vec<u8>> {
    use base64::Engine as _;
    text.split("data:image/png;base64,")
        .skip(1)
        .map(|rest| {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
                .unwrap_or(rest.len());
            base64::engine::general_purpose::STANDARD
                .decode(&rest[..end])
                .unwrap()
        })
        .collect()
}

/// Polls `f` until it returns `Some`, or panics with `what` after `timeout`.
pub fn poll<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The text of `path` once it contains `want`; what it holds after 10 s otherwise (the caller's
/// assertion then shows it).
pub fn wait_for_file(path: &Path, want: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = std::fs::read_to_string(path).unwrap_or_default();
        if got.contains(want) || Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `franz --policy <file with policy> act --motion fast ACTIONS` on `display` with
/// `stdin` as its input; returns the exit code, the result lines and stderr.
pub fn act_with_policy(
    display: &str,
    policy: &str,
    stdin: &str,
    actions: &[&str],
) -> (i32, Vec<serde_json::Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.toml");
    std::fs::write(&file, policy).unwrap();
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_franz"))
            .arg("--policy")
            .arg(&file)
            .args(["act", "--motion", "fast"])
            .args(actions)
            .env("DISPLAY", display)
            .env_remove("FRANZ_LOG"),
        stdin,
    );
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The model id a user types for each built-in profile (`--profile auto`, the default, picks
/// the profile from it): the ids of the families' own releases and of the servers people run
/// them on.
pub const MODEL_IDS: [(&str, &str); 23] = [
    ("franz", "gemma-3-12b-it"),
    ("qwen3-vl", "qwen3-vl-8b-instruct"),
    ("qwen2.5-vl", "Qwen/Qwen2.5-VL-7B-Instruct"),
    ("ui-tars-1.5", "ui-tars-1.5-7b@q4_k_m"),
    ("glm-4.5v", "glm-4.5v"),
    ("openai-computer", "computer-use-preview"),
    ("anthropic-computer", "claude-sonnet-4-20250514"),
    ("pyautogui", "osworld-pyautogui-agent"),
    ("gui-owl-1.5", "mPLUG/GUI-Owl-1.5-8B-Instruct"),
    ("evocua", "meituan/EvoCUA-32B-20260105"),
    ("mai-ui", "MAI-UI-8B"),
    ("glm-4.6v", "glm-4.6v-flash"),
    ("fara-7b", "microsoft/Fara-7B"),
    ("opencua", "OpenCUA-7B"),
    ("holo3", "hf.co/Hcompany/Holo3-35B-A3B-GGUF:Q4_K_M"),
    ("holo1.5", "Hcompany/Holo1.5-7B"),
    ("ui-venus-1.5", "ui-venus-1.5-8b@q4_k_m"),
    ("gta1", "HelloKKMe/GTA1-7B-2507"),
    ("uground", "osunlp/UGround-V1-7B"),
    ("os-atlas", "os-atlas-base-7b-gguf"),
    ("showui", "showlab/ShowUI-2B"),
    ("gemini-computer", "gemini-2.5-computer-use-preview-10-2025"),
    ("opencua-relative", "opencua-a3b@q4_k_m"),
];

/// The model id users type for built-in profile `profile`; panics for a profile missing from
/// [`MODEL_IDS`] (a new built-in profile needs its line there), or whose id `--profile auto`
/// does not read as that profile (an id no profile matches gets `franz`).
pub fn model_id(profile: &str) -> &'static str {
    let id = MODEL_IDS
        .iter()
        .find(|(p, _)| *p == profile)
        .map(|(_, m)| *m)
        .unwrap_or_else(|| panic!("profile {profile} has no model id in MODEL_IDS"));
    let picked = franz_core::profile::for_model(id).map_or("franz".to_string(), |(p, _)| p.name);
    assert_eq!(picked, profile, "--profile auto on {id}");
    id
}
