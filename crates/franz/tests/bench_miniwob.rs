//! MiniWoB++ through `franz bench tasks --suite miniwob` (docs/bench.md): third-party task
//! pages, scored by their own rewards. The oracle model (tests/common/miniwob.rs) reads each
//! page's DOM and answers as each family would, so every profile's clicks, drags and typing
//! must land for the pages to give 1.0; the baselines are scored by the same pages. Needs the
//! test venv's `miniwob` package (scripts/requirements-test.txt), Chromium and Xvfb.

use crate::common;
use common::miniwob;

use miniwob::TASKS;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// The profiles the oracle answers as, by the model ids users type for them.
const PROFILES: [&str; 4] = ["qwen3-vl", "qwen2.5-vl", "ui-tars-1.5", "franz"];
/// The tasks of the second screen size and of the crop: clicks, drags and typing.
const SOME_TASKS: [&str; 4] = ["click-checkboxes", "drag-box", "login-user", "use-slider"];

fn bench(out: &Path, extra: &[&str]) -> Output {
    let pkg = miniwob::package();
    let mut args = vec![
        "bench", "tasks", "--suite", "miniwob", "--jobs", "1", "--out",
    ];
    let out_s = out.display().to_string();
    let pkg_s = pkg.display().to_string();
    args.push(&out_s);
    args.extend(["--miniwob-dir", &pkg_s]);
    args.extend(extra);
    Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(&args)
        .env_remove("FRANZ_LOG")
        .output()
        .expect("run franz bench tasks")
}

fn rows(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs the oracle as `profile` over `tasks` on a `screen` with `crop`, and asserts that
/// every page gave 1.0; a failure names the task, the family, and where each click landed
/// against its element's box.
fn oracle_run(profile: &str, tasks: &[&str], screen: &str, scale: &str, crop: [u32; 4]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let oracle = miniwob::start(&out, profile, crop);
    let config = dir.path().join("crop.toml");
    let c = crop.map(|v| v.to_string()).join(",");
    std::fs::write(&config, format!("crop = \"{c}\"\n")).unwrap();
    let (url, tasks) = (oracle.server.url(), tasks.join(","));
    let config_s = config.display().to_string();
    let model = common::model_id(profile);
    let output = bench(
        &out,
        &[
            "--config",
            &config_s,
            "--tasks",
            &tasks,
            "--model",
            model,
            "--api-url",
            &url,
            "--seeds",
            "3",
            "--miniwob-screen",
            screen,
            "--miniwob-scale",
            scale,
        ],
    );
    let rows = rows(&out);
    let log = oracle.log.lock().unwrap();
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r["reward"].as_f64() != Some(1.0))
        .map(|r| {
            let task = r["task"].as_str().unwrap_or("");
            let lines: Vec<&str> = log
                .lines
                .iter()
                .filter(|l| l.starts_with(&format!("{task} ")))
                .map(String::as_str)
                .collect();
            format!(
                "{task} as {profile} on {screen} x{scale}, crop {c}: reward {}, {}\n    {}",
                r["reward"],
                r["error"],
                lines.join("\n    ")
            )
        })
        .collect();
    assert!(
        failed.is_empty() && rows.len() == tasks.split(',').count(),
        "{} of {} episodes below 1.0:\n{}\nstderr: {}",
        failed.len(),
        rows.len(),
        failed.join("\n"),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{output:?}");
    check_sizes(profile, &log.images);
}

/// The images franz sent a smart_resize family are fixed points of its reference
/// smart_resize (tests/oracle/profiles.py), so the oracle's pixels are the family's.
fn check_sizes(profile: &str, images: &[(u32, u32)]) {
    if !["qwen3-vl", "qwen2.5-vl", "ui-tars-1.5"].contains(&profile) {
        return;
    }
    let sizes: Vec<Value> = images
        .iter()
        .map(|(w, h)| serde_json::json!([profile, w, h]))
        .collect();
    let req = serde_json::json!({"sizes": sizes, "uitars": []}).to_string();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/profiles.py");
    let out = common::output_with_stdin(Command::new(miniwob::python()).arg(script), &req);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (fixed, size) in v["fixed"].as_array().unwrap().iter().zip(images) {
        assert_eq!(
            fixed, true,
            "{profile}: franz sent {size:?}, not a fixed point"
        );
    }
}

/// Runs `f` for each profile, two at a time (the CI machine has two cores; each episode is a
/// Chromium, an Xvfb and a franz run).
fn per_profile(f: impl Fn(&str) + Sync) {
    std::thread::scope(|s| {
        for pair in PROFILES.chunks(2) {
            let f = &f;
            s.spawn(move || pair.iter().for_each(|p| f(p)));
        }
    });
}

#[test]
fn the_oracle_gets_full_reward_as_each_family_on_every_task() {
    per_profile(|p| oracle_run(p, &TASKS, "1280x800", "2", [0, 0, 1000, 1000]));
}

#[test]
fn the_oracle_gets_full_reward_on_another_screen_and_in_a_crop() {
    per_profile(|p| {
        oracle_run(p, &SOME_TASKS, "1920x1080", "3", [0, 0, 1000, 1000]);
        oracle_run(p, &SOME_TASKS, "1366x768", "2", [0, 0, 600, 700]);
    });
}

/// The baselines are rows of the leaderboard scored by the pages: doing nothing ends no
/// episode (0, as miniwob's own `force_stop` scores it); random clicks get what the pages
/// give them. The leaderboard renders them in Chromium, with a screenshot of it.
#[test]
fn the_baselines_are_scored_by_the_pages_and_shown_on_the_leaderboard() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let tasks = "click-test,click-button,focus-text";
    let output = bench(
        &out,
        &[
            "--tasks",
            tasks,
            "--model",
            "baseline-nothing",
            "--model",
            "baseline-random",
            "--seeds",
            "0",
        ],
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 6, "{output:?}");
    for r in &rows {
        let reward = r["reward"]
            .as_f64()
            .expect("every row has the page's reward");
        assert!((-1.0..=1.0).contains(&reward), "{r}");
        assert_eq!(r["success"], reward > 0.0, "{r}");
        if r["model"] == "baseline-nothing" {
            assert_eq!(reward, 0.0, "{r}");
            assert!(r["error"].as_str().unwrap().contains("did not end"), "{r}");
        } else {
            assert!(r["steps"].as_u64().unwrap() >= 1, "{r}");
        }
    }
    let index = out.join("index.html");
    let dom = common::chromium_dom(&index);
    for want in [
        "baseline-nothing / narrative",
        "baseline-random / narrative",
        "mean reward",
        "click-button",
        "focus-text",
    ] {
        assert!(
            dom.contains(want),
            "{want} missing from the leaderboard: {dom}"
        );
    }
    let shot = dir.path().join("board.png");
    let status = Command::new("/usr/bin/chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1200,700",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", index.display()))
        .output()
        .expect("run chromium");
    assert!(status.status.success(), "{status:?}");
    let img = image::open(&shot).expect("the screenshot").to_rgb8();
    let dark = img
        .pixels()
        .filter(|p| p.0.iter().all(|c| *c < 100))
        .count();
    assert!(
        dark > 2000,
        "the leaderboard's screenshot shows almost no text ({dark} dark pixels)"
    );
}
