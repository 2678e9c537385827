//! Every command resolves the same configuration as `franz run` (flags > environment > config
//! file > defaults): `franz act` with `FRANZ_DRY_RUN=1` or a config file's `dry_run = true`
//! sends no input, a config file's crop and motion apply to it, and `franz screenshot` takes
//! the configured crop. Checked on a private Xvfb with the witness window.

#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox;
use franz_desktop::PixelPoint;
use franz_desktop::witness::{WitnessEvent, WitnessKind as K};
use std::process::Output;
use std::time::Duration;

const T: Duration = Duration::from_secs(20);

/// Runs franz on `display` with `env` added; FRANZ_* settings of the caller are removed.
fn franz(display: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    cmd.env("DISPLAY", display)
        .envs(env.iter().copied())
        .args(args)
        .output()
        .unwrap()
}

fn presses(ev: &[WitnessEvent]) -> Vec<PixelPoint> {
    ev.iter()
        .filter(|e| e.is(K::ButtonPress))
        .map(|e| e.at)
        .collect()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn act_takes_dry_run_crop_and_motion_from_the_environment_and_the_config_file() {
    let (sb, witness) = sandbox(800, 600);
    let dir = tempfile::tempdir().unwrap();
    let dry = dir.path().join("dry.toml");
    std::fs::write(&dry, "dry_run = true\nmotion = \"fast\"\n").unwrap();
    let dry = dry.to_str().unwrap();
    let cropped = dir.path().join("crop.toml");
    std::fs::write(
        &cropped,
        "crop = \"500,500,1000,1000\"\nmotion = \"fast\"\n",
    )
    .unwrap();
    let cropped = cropped.to_str().unwrap();
    let click = r#"{"type":"click","x":250,"y":250}"#;

    let from_env = vec![("FRANZ_DRY_RUN", "1"), ("FRANZ_MOTION", "fast")];
    for (env, args) in [
        (from_env, vec!["act", click]),
        (vec![], vec!["--config", dry, "act", click]),
    ] {
        let out = franz(sb.display(), &env, &args);
        assert!(out.status.success(), "{}", text(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("\"status\":\"ok\""));
    }
    // positive control: input arrives, in the config file's crop (the bottom-right quarter,
    // x 400..800, y 300..600) and with its motion (a jump, not human's 20 steps)
    let out = franz(sb.display(), &[], &["--config", cropped, "act", click]);
    assert!(out.status.success(), "{}", text(&out));
    let (ok, ev) = witness.wait_for(|e| !presses(e).is_empty(), T);
    assert!(ok, "{ev:?}");
    // X delivers in order: had a dry run clicked, its press would have come first
    assert_eq!(presses(&ev), [PixelPoint::new(500, 375)]);
    let moves = ev.iter().filter(|e| e.is(K::Motion)).count();
    assert!(moves <= 2, "{moves} motion events: not the fast profile");
}

#[test]
fn screenshot_takes_the_crop_from_the_environment() {
    let (sb, _witness) = sandbox(800, 600);
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let out = franz(
        sb.display(),
        &[("FRANZ_CROP", "500,500,1000,1000")],
        &["screenshot", png.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(" 400x300 "),
        "{}",
        text(&out)
    );
}
