//! Safe defaults and bounded inputs, through the real binary: a run is bounded unless told
//! otherwise (`franz config` shows max_steps 100 and max_time 30 min, with what 0 means; a
//! model that keeps answering a harmless action that succeeds is stopped at 100 turns), and
//! `franz screenshot OUT W H` takes the same 1..16384 bounds as `--size`.

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

fn franz(args: &[&str]) -> Output {
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    cmd.args(args).stdin(Stdio::null()).output().unwrap()
}

#[test]
fn franz_config_shows_bounded_default_limits_and_what_zero_means() {
    let out = franz(&["config"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .to_string()
    };
    let steps = line("max_steps");
    assert!(steps.starts_with("max_steps = 100  # default"), "{steps}");
    assert!(steps.contains("0 = unbounded"), "{steps}");
    let time = line("max_time");
    assert!(time.starts_with("max_time = 1800.0  # default"), "{time}");
    assert!(
        time.contains("30m") && time.contains("0 = unbounded"),
        "{time}"
    );
    // 0 still means unbounded, and a unit is understood
    let out = franz(&["config", "--max-steps", "0", "--max-time", "2h"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("max_steps = 0  # flag --max-steps"), "{text}");
    assert!(
        text.contains("max_time = 7200.0  # flag --max-time"),
        "{text}"
    );
}

#[test]
fn screenshot_sizes_take_the_bounds_of_size() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let png = png.to_str().unwrap();
    for (w, h) in [("16385", "10"), ("10", "100000"), ("0", "10")] {
        let out = franz(&["--sandbox=320x240", "screenshot", png, w, h]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{w}x{h}: {err}");
        assert!(
            err.contains(&format!("bad size \"{w}x{h}\"")) && err.contains("16384"),
            "{err}"
        );
        assert!(!std::path::Path::new(png).exists());
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_model_that_never_finishes_is_stopped_at_the_default_100_turns() {
    // Every turn's action succeeds, so no turn is empty: only the default limit ends the run.
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(
        "move(500, 500)\nThe pointer is in the middle; I keep it there.",
    )))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    let url = server.url();
    let mut child = cmd
        .arg("--sandbox=320x240")
        .args(common::run_args(&url, runs.path()))
        .args([
            "keep the pointer still",
            "--model",
            "scripted",
            "--motion",
            "fast",
        ])
        // one move on a still screen 100 times, on purpose: the loop breaker (default
        // loop_stop 5) would end it first
        .args(["--loop-warn", "0", "--loop-stop", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not stop by itself within 300 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let err = common::read_pipe(child.stderr.take());
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("gave up: reached --max-steps 100"), "{err}");
    let chats = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .count();
    assert_eq!(chats, 100);
}
