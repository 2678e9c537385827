//! The typed configuration through the real binary: a command takes only the setting flags of
//! the groups it uses (`franz doctor --approve` is a usage error, exit 2), `franz config
//! --markdown` is the committed docs/config.md, and the config file's `[overlay]` table changes
//! what a run draws onto its screenshots.

#[cfg(target_os = "linux")]
use crate::common;
use franz_core::model::ScriptedReply;
#[cfg(target_os = "linux")]
use franz_core::model::scripted_server::{Script, ScriptedServer};
use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;
use std::process::{Output, Stdio};

fn franz(args: &[&str]) -> Output {
    let mut cmd = common::franz_command();
    common::no_franz_env(&mut cmd);
    cmd.args(args).stdin(Stdio::null()).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn commands_that_only_read_files_refuse_the_global_desktop_and_setting_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap();
    for (args, flag) in [
        (vec!["report", d, "--dry-run"], "--dry-run"),
        (vec!["--crop", "0,0,10,10", "report", d], "--crop"),
        (vec!["scenarios", d, "--sandbox"], "--sandbox"),
        (vec!["replay", d, "--monitor", "1"], "--monitor"),
        (vec!["replay", d, "--size", "640x480"], "--size"),
    ] {
        let out = franz(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("does not use") && stderr(&out).contains(flag),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // replay --execute acts on a desktop: it takes them (here it fails later: no run there)
    let out = franz(&["replay", d, "--execute", "--dry-run"]);
    assert!(!stderr(&out).contains("does not use"), "{}", stderr(&out));
}

#[test]
fn a_command_refuses_the_flags_of_settings_it_does_not_use() {
    let out = franz(&["doctor", "--approve"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--approve"), "{}", stderr(&out));
    for args in [
        &["doctor", "--max-steps", "3"][..],
        &["doctor", "--strategy", "tools"][..],
        &["act", "--model", "m", r#"{"type":"wait","seconds":0}"#][..],
        &["report", "--api-url", "http://x", "runs/run_0001"][..],
        &["screenshot", "--motion", "fast"][..],
    ] {
        let out = franz(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("unexpected argument"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // what they do use is still there: doctor the model server's, act the input's, and the
    // global flags everywhere
    let out = franz(&["config", "--approve", "--max-steps", "3", "--no-failsafe"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("max_steps = 3  # flag --max-steps"), "{text}");
    assert!(
        text.contains("failsafe = false  # flag --no-failsafe"),
        "{text}"
    );
    let help = String::from_utf8_lossy(&franz(&["doctor", "--help"]).stdout).into_owned();
    assert!(
        help.contains("--api-url") && help.contains("--timeout"),
        "{help}"
    );
    assert!(
        !help.contains("--max-steps") && !help.contains("--approve"),
        "{help}"
    );
    let help = String::from_utf8_lossy(&franz(&["act", "--help"]).stdout).into_owned();
    assert!(help.contains("--motion <human|fast>") && help.contains("--no-failsafe"));
    assert!(
        help.contains("--crop") && !help.contains("--model"),
        "{help}"
    );
}

#[test]
fn every_setting_flag_of_the_table_reaches_franz_config() {
    for s in franz_core::config::SETTINGS {
        let Some(flag) = s.flag() else { continue };
        let long = format!("--{}", flag.long());
        let mut args = vec!["config", long.as_str()];
        let value = match (&flag, s.key) {
            (franz_core::config::Flag::Switch { .. }, _) => None,
            (_, "size") => Some("640x480"),
            // api_url is checked as a URL where the configuration is resolved
            (_, "api_url") => Some("http://x-from-flag/v1"),
            (_, "model" | "runs_dir") => Some("x-from-flag"),
            _ => Some(s.default),
        };
        args.extend(value);
        let out = franz(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{} = ", s.key)))
            .unwrap_or_else(|| panic!("no {} in {text}", s.key));
        assert!(line.contains(&format!("# flag {long}")), "{args:?}: {line}");
    }
}

#[test]
fn franz_config_markdown_is_the_committed_docs_config_md() {
    let out = franz(&["config", "--markdown"]);
    assert!(out.status.success());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/config.md");
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout) == committed,
        "docs/config.md is not current: regenerate it with `cargo run -p franz -- config --markdown > docs/config.md`"
    );
}

/// Counts the pixels of one exact colour in a PNG.
#[cfg(target_os = "linux")]
fn count(png: &Path, rgb: [u8; 3]) -> usize {
    let img = image::open(png)
        .unwrap_or_else(|e| panic!("{}: {e}", png.display()))
        .to_rgb8();
    img.pixels().filter(|p| p.0 == rgb).count()
}

/// A two-turn run on a private desktop (a left click at the centre, then done) with `config`
/// as its config file; returns its run directory.
#[cfg(target_os = "linux")]
fn run_with_config(dir: &Path, config: &str) -> PathBuf {
    let server = ScriptedServer::start(Script::list([
        ScriptedReply::text("left_click(500, 500)\nI click the middle of the screen."),
        ScriptedReply::text("done(\"clicked\")\nThe click is done."),
    ]))
    .unwrap();
    let file = dir.join("franz.toml");
    std::fs::write(&file, config).unwrap();
    let runs = dir.join("runs");
    let url = server.url();
    let out = franz(
        &[
            &["--sandbox=640x480", "--config", file.to_str().unwrap()][..],
            &common::run_args(&url, &runs),
            &["click the middle", "--model", "scripted"],
            &["--motion", "fast", "--max-steps", "4"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = common::run_dir(&runs);
    let recorded = std::fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(recorded.contains("[overlay"), "{recorded}");
    run
}

#[test]
#[cfg(target_os = "linux")]
fn the_overlay_table_of_the_config_file_changes_what_is_drawn() {
    const MAGENTA: [u8; 3] = [255, 0, 255];
    const RED: [u8; 3] = [255, 0, 0];
    let tmp = tempfile::tempdir().unwrap();
    // the default marks: a red crosshair for the left click, no magenta
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let run = run_with_config(&plain, "motion = \"fast\"\n");
    let drawn = run.join("turn_0002_annotated.png");
    let (red, magenta) = (count(&drawn, RED), count(&drawn, MAGENTA));
    assert!(
        red > 20 && magenta == 0,
        "default: {red} red, {magenta} magenta"
    );
    // the [overlay] table: a magenta crosshair, twice as big
    let styled = tmp.path().join("styled");
    std::fs::create_dir_all(&styled).unwrap();
    let run = run_with_config(
        &styled,
        "motion = \"fast\"\n[overlay.marks]\nleft = \"#ff00ff\"\ncrosshair_size = 40\n",
    );
    let drawn = run.join("turn_0002_annotated.png");
    let (red2, magenta2) = (count(&drawn, RED), count(&drawn, MAGENTA));
    assert!(
        magenta2 > red && red2 < magenta2,
        "[overlay]: {magenta2} magenta, {red2} red (default run: {red} red)"
    );
    // the raw screenshot has none of it
    assert_eq!(count(&run.join("turn_0002_raw.png"), MAGENTA), 0);
}
