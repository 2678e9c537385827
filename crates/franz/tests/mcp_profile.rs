//! `franz mcp`'s action tools build their observation pipeline from the same typed settings as
//! a run (`franz_core::config::Settings`), the model profile included: under a family with a
//! resize rule, the `screenshot` tool sends the image that family's processor keeps, as
//! `franz run` does, not franz's own fit. Driven by the official MCP SDK (tests/mcp/driver.py).

#![cfg(target_os = "linux")]

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn python() -> PathBuf {
    std::env::var_os("FRANZ_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv-test/bin/python")
        })
}

/// The `width` x `height` the `screenshot` tool reports under `franz mcp FLAGS` on `display`.
fn tool_screenshot_size(display: &str, flags: &[&str]) -> (u64, u64) {
    let mut cmd = Command::new(python());
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/driver.py"))
        .args([
            "--mode",
            "2026-07-28",
            "--",
            env!("CARGO_BIN_EXE_franz"),
            "mcp",
        ])
        .args(flags)
        .env("DISPLAY", display)
        .env_remove("FRANZ_LOG");
    let call = r#"{"op": "call", "tool": "screenshot", "args": {}}"#;
    let out = common::output_with_stdin(&mut cmd, &format!("{call}\n"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let answer: Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("content").is_some())
        .unwrap_or_else(|| panic!("no tool answer: {stdout}\n{stderr}"));
    let info = answer["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .filter_map(|t| serde_json::from_str::<Value>(t.lines().last()?).ok())
        .find(|v| v.get("width").is_some())
        .unwrap_or_else(|| panic!("no screenshot info in {answer}"));
    (
        info["width"].as_u64().expect("width"),
        info["height"].as_u64().expect("height"),
    )
}

#[test]
fn the_screenshot_tool_is_sized_by_the_profile() {
    let (w, h) = (800, 600);
    let (sb, _witness) = common::sandbox(w, h);
    let qwen = franz_core::profile::by_name("qwen3-vl").expect("a built-in profile");
    let want = qwen.size_rule(0).resolve(w, h);
    // the test tells only where the family's rule changes this screen
    assert_ne!((want.width, want.height), (w, h));
    assert_eq!(
        tool_screenshot_size(sb.display(), &["--profile", "qwen3-vl"]),
        (want.width as u64, want.height as u64)
    );
    // franz's own profile keeps the screen (its fit never upscales)
    assert_eq!(
        tool_screenshot_size(sb.display(), &["--profile", "franz"]),
        (w as u64, h as u64)
    );
}
