//! What franz refuses before it starts: files beyond their size cap (named in the message),
//! a dry run where the command's result is what its input did, settings out of their range.
//! The real binary, no display needed.

use crate::common;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs franz with `args` and no FRANZ_ variables but `env`.
fn franz_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    cmd.env_remove("DISPLAY").envs(env.iter().copied());
    cmd.args(args).stdin(Stdio::null()).output().unwrap()
}

fn franz(args: &[&str]) -> Output {
    franz_env(args, &[])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A sparse file of 5 MiB (one more than the settings cap) named `name` in `dir`.
fn big_file(dir: &Path, name: &str) -> String {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().set_len(5 << 20).unwrap();
    p.display().to_string()
}

#[test]
fn every_file_franz_is_given_is_refused_beyond_its_cap_with_the_cap_named() {
    let tmp = tempfile::tempdir().unwrap();
    let big = big_file(tmp.path(), "big.toml");
    for args in [
        vec!["config", "--config", &big],
        vec!["config", "--policy", &big],
        vec!["config", "--scenario", &big],
        vec!["config", "--scenario", "/dev/zero"],
        vec!["parse", "--profile", &big],
        vec!["run", "--scenario", "/dev/zero", "--dry-run"],
        vec![
            "run",
            "--sandbox",
            "--dry-run",
            "--system-prompt",
            &big,
            "--api-url",
            "http://127.0.0.1:9",
            "t",
        ],
    ] {
        let out = franz(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("larger than 4 MiB"), "{args:?}: {err}");
    }
    // a reply on stdin: at most what the model client takes from a server
    let mut child = Command::new(env!("CARGO_BIN_EXE_franz"))
        .arg("parse")
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("stdin is larger than 32 MiB"), "{err}");
}

#[test]
fn commands_whose_result_is_their_input_refuse_a_dry_run_and_say_where_it_came_from() {
    for args in [
        &["calibrate", "--dry-run"][..],
        &["--dry-run", "demo"][..],
        &["doctor", "--dry-run"][..],
        &["bench", "act", "--dry-run"][..],
        &["bench", "turn", "--dry-run"][..],
        &["bench", "turn", "--stream", "--dry-run"][..],
        &["bench", "soak", "--dry-run"][..],
    ] {
        let out = franz(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("cannot run dry") && err.contains("flag --dry-run"),
            "{args:?}: {err}"
        );
    }
    let out = franz_env(&["calibrate"], &[("FRANZ_DRY_RUN", "1")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("environment FRANZ_DRY_RUN"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn franz_config_refuses_what_franz_run_refuses_with_the_same_message() {
    let tmp = tempfile::tempdir().unwrap();
    let overlay = tmp.path().join("overlay.toml");
    std::fs::write(&overlay, "[overlay.labels]\nfont_px = 1e30\n").unwrap();
    let overlay = overlay.display().to_string();
    for (args, says) in [
        (vec!["--mask-regions", "0,0,2000,2000"], "mask_regions"),
        (vec!["--config", overlay.as_str()], "labels.font_px"),
        (vec!["--api-url", "not a url"], "api_url"),
        (vec!["--profile", "no-such-profile"], "unknown profile"),
    ] {
        let config = franz(&[&["config"][..], &args].concat());
        let run = franz(&[&["run", "--dry-run"][..], &args, &["t"]].concat());
        let (c, r) = (stderr(&config), stderr(&run));
        assert_eq!(config.status.code(), Some(2), "config {args:?}: {c}");
        assert_eq!(run.status.code(), Some(2), "run {args:?}: {r}");
        assert!(c.contains(says), "{args:?}: {c}");
        assert_eq!(c, r, "{args:?}: the same message from config and run");
    }
}

#[test]
fn an_api_key_with_a_line_break_is_reported_as_such_by_every_command() {
    for args in [
        &["config"][..],
        &["doctor", "--api-url", "http://127.0.0.1:9"][..],
        &["run", "--dry-run", "--api-url", "http://127.0.0.1:9", "t"][..],
    ] {
        let out = franz_env(args, &[("FRANZ_API_KEY", "sk-secret\nrest")]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("api_key") && err.contains("line break"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("start your model server"), "{args:?}: {err}");
        assert!(
            !err.contains("sk-secret"),
            "{args:?}: the key stays secret: {err}"
        );
    }
}
