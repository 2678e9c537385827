//! `franz parse` end to end: the reply corpus of franz-core (crates/core/tests/fixtures/replies)
//! through the real binary, plus its exit codes.

use crate::common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn franz(args: &[&str], stdin: &str) -> Output {
    // franz may exit before it reads stdin (a usage error): the helper allows that
    common::output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_franz"))
            .args(args)
            .env_remove("FRANZ_LOG"),
        stdin,
    )
}

fn franz_parse(args: &[&str], stdin: &str) -> Output {
    let mut all = vec!["parse"];
    all.extend_from_slice(args);
    franz(&all, stdin)
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/fixtures/replies")
}

#[test]
fn corpus_through_the_binary() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 80, "only {} replies", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let input = std::fs::read_to_string(path).unwrap();
        let args = std::fs::read_to_string(path.with_extension("args")).unwrap_or_default();
        let mut args: Vec<&str> = args.split_whitespace().collect();
        // the corpus is read by detection, as the tools strategy reads a reply's text
        if !args.contains(&"--strategy") {
            args.extend(["--strategy", "tools"]);
        }
        let out = franz_parse(&args, &input);
        if out.status.code() != Some(0) {
            failures.push(format!(
                "{name}: exit {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            stdout.lines().count(),
            1,
            "{name}: one JSON object, one line"
        );
        let actual: Value = serde_json::from_str(&stdout).unwrap();
        let mut keys: Vec<&String> = actual.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            ["actions", "dialect", "errors", "norm_max", "text"],
            "{name}"
        );
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("expected.json")).unwrap(),
        )
        .unwrap();
        for k in ["dialect", "actions", "text"] {
            if actual[k] != expected[k] {
                failures.push(format!(
                    "{name}: {k}: expected {} got {}",
                    expected[k], actual[k]
                ));
            }
        }
        let (a, e) = (
            actual["errors"].as_array().unwrap(),
            expected["errors"].as_array().unwrap(),
        );
        let same = a.len() == e.len()
            && a.iter()
                .zip(e)
                .all(|(a, e)| a.as_str().unwrap().contains(e.as_str().unwrap()));
        if !same {
            failures.push(format!("{name}: errors: expected {e:?} got {a:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} replies differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn nothing_parsed_still_exits_0() {
    let out = franz_parse(&["--strategy", "tools"], "just some words");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["dialect"], "none");
    assert_eq!(v["actions"], json!([]));
    assert!(v["errors"][0].as_str().unwrap().contains("no action found"));
    // as the default strategy (narrative) reads it: its function-call lines, then any other
    let out = franz_parse(&[], "just some words");
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["dialect"], "calls");
    assert!(
        v["errors"][0]
            .as_str()
            .unwrap()
            .contains("no function call found")
    );
}

#[test]
fn bad_flags_exit_2() {
    for args in [
        &["--dialect", "klingon"][..],
        &["--coords", "inches"],
        &["--coords", "pixels"],
        &["--coords", "pixels", "--image-size", "0x5"],
    ] {
        let out = franz_parse(args, "left_click(1, 2)");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn global_size_stands_in_for_image_size() {
    let out = franz(
        &["--size", "1001x1001", "parse", "--coords", "pixels"],
        "left_click(500, 1000)",
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["actions"],
        json!([{"type": "click", "x": 500, "y": 1000}])
    );
}
