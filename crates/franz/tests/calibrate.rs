//! `franz calibrate` end to end on private Xvfb desktops: every click of
//! the 5x5 grid lands within 1 px at 1366x768 and 1920x1080, with and without a crop; a
//! deliberately wrong mapping (`--test-offset`) fails and names the worst target; several RandR
//! monitors are calibrated one by one (or the one `--monitor` names).

#![cfg(target_os = "linux")]

use crate::common;

/// The `max error E px` values the command printed, one per monitor.
fn max_errors(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("max error "))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn every_click_lands_within_1_px_with_and_without_a_crop() {
    for size in ["1366x768", "1920x1080"] {
        for crop in ["0,0,1000,1000", "123,77,901,999"] {
            let sandbox = format!("--sandbox={size}");
            let out = common::franz(&[&sandbox, "--crop", crop, "calibrate"]);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{size} {crop}: {stdout}{stderr}"
            );
            let errors = max_errors(&stdout);
            assert_eq!(errors.len(), 1, "{stdout}");
            assert!(errors[0] <= 1.0, "{size} {crop}: {stdout}");
            // 25 targets, the corners among them
            assert_eq!(stdout.matches("target (").count(), 26, "{stdout}");
            assert!(stdout.contains("target (0, 0) ") && stdout.contains("target (1000, 1000) "));
        }
    }
}

#[test]
fn a_wrong_mapping_fails_and_names_the_worst_target() {
    // 3 px to the right: the right column's clicks would land outside the working area, so
    // the work_area rule refuses them (reported as refused, not as an error of 0 px); the
    // other 20 clicks arrive 3 px off
    let out = common::franz(&["--sandbox=1366x768", "calibrate", "--test-offset", "3,0"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("calibration failed")
            && stderr.contains("worst target (1000, 0) -> pixel (1365, 0): refused"),
        "{stderr}"
    );
    assert_eq!(max_errors(&stdout), vec![3.0], "{stdout}");
    let refused: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("target (") && l.contains(": refused"))
        .collect();
    assert_eq!(refused.len(), 5, "{stdout}");
    for l in &refused {
        assert!(
            l.contains("target (1000, ")
                && l.contains("(work_area: click lands at pixel (1368, ")
                && !l.contains("error 0.0 px"),
            "{l}"
        );
    }
    assert!(stdout.contains("refused 5 of 25 targets"), "{stdout}");
    assert_eq!(stdout.matches("error 3.0 px").count(), 20 + 1, "{stdout}");
}

#[test]
fn doctor_runs_a_short_calibration() {
    let out = common::franz(&[
        "--sandbox=800x600",
        "doctor",
        "--api-url",
        "http://127.0.0.1:9/v1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("ok   calibration: 9 clicks on a 3x3 grid"),
        "{stdout}"
    );
}

#[test]
fn each_randr_monitor_is_calibrated_on_its_own() {
    let sb = common::xvfb(1600, 600);
    // two monitors of different sizes side by side, the right one primary
    for (name, geometry) in [
        ("franz-left", "1000/265x600/159+0+0"),
        ("*franz-right", "600/159x450/119+1000+0"),
    ] {
        let status = std::process::Command::new("xrandr")
            .args([
                "--display",
                sb.display(),
                "--setmonitor",
                name,
                geometry,
                "none",
            ])
            .status()
            .unwrap();
        assert!(status.success(), "xrandr --setmonitor {name}");
    }
    let calibrate = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_franz"))
            .args(args)
            .arg("calibrate")
            .env("DISPLAY", sb.display())
            .env_remove("FRANZ_LOG")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{text}{stderr}");
        text
    };
    // every monitor (Xvfb's whole-screen output is one too), the primary first
    let all = calibrate(&[]);
    let errors = max_errors(&all);
    assert!(errors.len() >= 2, "one maximum per monitor: {all}");
    assert!(errors.iter().all(|e| *e <= 1.0), "{all}");
    assert_eq!(all.matches("target (").count(), 26 * errors.len(), "{all}");
    assert!(all.contains("monitor 0 (600x450 at 1000,0)"), "{all}");
    assert!(all.contains("monitor 1 (1000x600 at 0,0)"), "{all}");
    // --monitor N: that one only
    let one = calibrate(&["--monitor", "1"]);
    assert_eq!(max_errors(&one).len(), 1, "{one}");
    assert!(one.contains("monitor 1 (1000x600 at 0,0)"), "{one}");
    assert!(!one.contains("monitor 0 "), "{one}");
}
