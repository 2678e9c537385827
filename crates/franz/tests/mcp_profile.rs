//! `franz mcp`'s action tools build their observation pipeline from the same typed settings as
//! a run (`franz_core::config::Settings`), the model profile included: under a family with a
//! resize rule, the `screenshot` tool sends the image that family's processor keeps, as
//! `franz run` does, not franz's own fit; and a tool's point is mapped as the profile maps a
//! model's (a family's reference rule, docs/coordinates.md "Exact targets"). Driven by the
//! official MCP SDK (tests/mcp/driver.py).

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

/// What the driver printed for `calls` (one JSON line each) to `franz mcp FLAGS` on `display`.
fn call_tools(display: &str, flags: &[&str], calls: &str) -> (String, String) {
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
    let out = common::output_with_stdin(&mut cmd, calls);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `width` x `height` the `screenshot` tool reports under `franz mcp FLAGS` on `display`.
fn tool_screenshot_size(display: &str, flags: &[&str]) -> (u64, u64) {
    let call = r#"{"op": "call", "tool": "screenshot", "args": {}}"#;
    let (stdout, stderr) = call_tools(display, flags, &format!("{call}\n"));
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

/// Where the witness saw the `click` tool's press at norm1000 `(x, y)` under `franz mcp FLAGS`.
fn tool_click_lands(
    display: &str,
    witness: &franz_desktop::witness::Witness,
    flags: &[&str],
    (x, y): (u32, u32),
) -> franz_desktop::PixelPoint {
    use franz_desktop::witness::WitnessKind;
    witness.clear();
    let call = serde_json::json!({"op": "call", "tool": "click",
        "args": {"x": x, "y": y, "screenshot": false}});
    let (stdout, stderr) = call_tools(display, flags, &format!("{call}\n"));
    let pressed = |e: &[franz_desktop::witness::WitnessEvent]| {
        e.iter()
            .find(|e| e.is(WitnessKind::ButtonPress))
            .map(|e| e.at)
    };
    let (_, events) =
        witness.wait_for(|e| pressed(e).is_some(), std::time::Duration::from_secs(30));
    pressed(&events).unwrap_or_else(|| panic!("no click: {stdout}\n{stderr}\n{events:?}"))
}

#[test]
fn the_click_tool_maps_a_point_as_the_profile_says() {
    let (w, h) = (800, 600);
    let (sb, witness) = common::sandbox(w, h);
    let fast = ["--motion", "fast"];
    let at = (600, 600);
    // Qwen3-VL's reference code: min(L - 1, round(n * L / 1000)), not franz's n * (L - 1) / 1000
    let exact = franz_core::exact_target::exact_axis;
    let want = franz_desktop::PixelPoint::new(
        exact(at.0 as f64, 1000.0, 0, w),
        exact(at.1 as f64, 1000.0, 0, h),
    );
    let franz = franz_desktop::PixelPoint::new(
        franz_core::geometry::norm_to_axis(at.0 as i32, 0, w),
        franz_core::geometry::norm_to_axis(at.1 as i32, 0, h),
    );
    // the test tells the rules apart
    assert_ne!(want, franz);
    let qwen = [&fast[..], &["--profile", "qwen3-vl"]].concat();
    assert_eq!(tool_click_lands(sb.display(), &witness, &qwen, at), want);
    let own = [&fast[..], &["--profile", "franz"]].concat();
    assert_eq!(tool_click_lands(sb.display(), &witness, &own, at), franz);
}
