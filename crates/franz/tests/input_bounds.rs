//! What franz refuses before it starts: files beyond their size cap (named in the message),
//! a dry run where the command's result is what its input did, settings out of their range.
//! The real binary, no display needed.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs franz with `args` and no FRANZ_ variables but `env`.
fn franz_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_franz"));
    for (k, _) in std::env::vars() {
        if k.starts_with("FRANZ_") || k.starts_with("AGENT_") || k.starts_with("LMSTUDIO_") {
            cmd.env_remove(k);
        }
    }
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
