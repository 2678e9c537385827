//! `franz bench tasks` end to end: the whole task suite (`tasks/`) with the scripted model on
//! two jobs, each task run its own franz process on its own Xvfb; the leaderboard in headless
//! Chromium; a wrong golden trajectory caught by its checker; shards as separate processes
//! merged with `franz bench merge`; `franz export` of a run.

use crate::common;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tasks_dir() -> PathBuf {
    repo().join("tasks")
}

fn bench(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_franz"))
        .args(["bench", "tasks", "--model", "scripted"])
        .args(args)
        .arg("--out")
        .arg(out)
        .env_remove("FRANZ_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run franz bench tasks")
}

fn rows(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn s<'a>(row: &'a Value, k: &str) -> &'a str {
    row[k].as_str().unwrap_or("")
}

/// The task files' names (file stems) in `dir`.
fn task_names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// Headless Chromium loads `html` with logging on: the DOM and every console message.
fn chromium_console(html: &Path) -> (String, Vec<String>) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("/usr/bin/chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("CONSOLE"))
        .map(str::to_string)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

/// Every `href="..."` of a page.
fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|p| p.split('"').next())
        .map(|h| h.replace("&amp;", "&"))
        .collect()
}

/// Sandboxes that overlap in time never share a display, and no two runs share a folder.
fn assert_isolated(rows: &[Value]) {
    let dirs: BTreeSet<&str> = rows.iter().map(|r| s(r, "dir")).collect();
    assert_eq!(dirs.len(), rows.len(), "two runs share a folder");
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            // the sandboxes' own times: a run's report is written after its display is free
            let (a0, a1) = (a["display_ms"][0].as_u64(), a["display_ms"][1].as_u64());
            let (b0, b1) = (b["display_ms"][0].as_u64(), b["display_ms"][1].as_u64());
            assert!(a1 > a0 && b1 > b0, "{a} {b}: no sandbox times");
            let overlap = a0 < b1 && b0 < a1;
            if overlap {
                assert_ne!(
                    s(a, "display"),
                    s(b, "display"),
                    "{a} and {b} shared a display"
                );
            }
        }
    }
}

#[test]
fn the_whole_suite_passes_with_the_scripted_model_on_two_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("bench");
    let t0 = Instant::now();
    let run = bench(
        &["--jobs", "2", "--tasks-dir", tasks_dir().to_str().unwrap()],
        &out,
    );
    let took = t0.elapsed().as_secs_f64();
    let rows = rows(&out);
    eprintln!(
        "bench: the whole suite ({} task runs) on --jobs 2 took {took:.1} s",
        rows.len()
    );
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r["success"] != true)
        .map(|r| format!("{}: {}", s(r, "task"), s(r, "error")))
        .collect();
    assert!(failed.is_empty(), "failed: {failed:#?}");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // one row per task file, each with the fields a leaderboard needs
    let names: BTreeSet<String> = rows.iter().map(|r| s(r, "task").to_string()).collect();
    assert_eq!(names, task_names(&tasks_dir()));
    assert!(rows.len() >= 30);
    let apps: BTreeSet<String> = names
        .iter()
        .map(|n| n.split('-').next().unwrap().to_string())
        .collect();
    assert!(apps.len() >= 6, "{apps:?}");
    for r in &rows {
        for k in [
            "task", "model", "strategy", "profile", "success", "steps", "wall_s", "model_s",
            "tokens", "error",
        ] {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
        assert!(r["steps"].as_u64().unwrap() >= 2, "{r}");
        assert!(r["tokens"].as_u64().unwrap() > 0, "{r}");
    }
    assert_isolated(&rows);
    // in a pipe, progress is a plain line per finished task run: task n of N and the tally
    let err = String::from_utf8_lossy(&run.stderr);
    let total = rows.len();
    for n in 1..=total {
        assert!(err.contains(&format!("task {n} of {total}: ")), "{err}");
    }
    assert!(
        err.contains(&format!("{total} of {total} passed so far, nothing left")),
        "{err}"
    );
    assert!(!err.contains('\x1b') && !err.contains('\r'), "{err:?}");
    // the leaderboard: no console errors, every link resolves to a file
    let index = out.join("index.html");
    let (dom, console) = chromium_console(&index);
    assert!(console.is_empty(), "console: {console:#?}");
    assert!(
        dom.contains("scripted / narrative") && dom.contains("100%"),
        "{}",
        &dom[..dom.len().min(1500)]
    );
    let html = std::fs::read_to_string(&index).unwrap();
    let links = hrefs(&html);
    assert_eq!(links.len(), rows.len(), "a link per run");
    for l in &links {
        assert!(out.join(l).is_file(), "the link {l} does not resolve");
        assert!(l.ends_with("report.html"), "{l}");
    }
}

#[test]
fn the_console_check_sees_a_page_error() {
    // what the leaderboard test relies on: a console error on a page is seen
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("bad.html");
    std::fs::write(
        &page,
        "<!doctype html><title>x</title><script>console.error('boom')</script>",
    )
    .unwrap();
    let (_, console) = chromium_console(&page);
    assert!(console.iter().any(|l| l.contains("boom")), "{console:?}");
}

#[test]
fn a_wrong_golden_click_is_reported_as_a_failure_by_its_checker() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("bench");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench-wrong");
    let run = bench(&["--tasks-dir", dir.to_str().unwrap()], &out);
    assert!(!run.status.success(), "a failed task is a failed bench");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("task 1 of 1: xmessage-wrong scripted ")
            && err.contains("0 of 1 passed so far, nothing left"),
        "{err}"
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["success"], false);
    // the model said done: only the checker knows it clicked Red
    let err = s(r, "error");
    assert!(
        err.contains("checker 0") && err.contains("\"Red\\n\"") && err.contains("Blue"),
        "{err}"
    );
    let events =
        std::fs::read_to_string(out.join(s(r, "dir")).join("runs/run_0001/events.jsonl")).unwrap();
    assert!(events.contains("\"outcome\":\"done\""), "{events}");
    // exported for OSWorld, the run's result is the checker's, not the model's done
    let osw = tmp.path().join("osworld");
    export_osworld(&out.join(s(r, "dir")).join("runs/run_0001"), &osw);
    assert_eq!(
        std::fs::read_to_string(osw.join("result.txt")).unwrap(),
        "0.0\n"
    );
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.contains("0% (0/1)") && html.contains(">fail<"),
        "{html}"
    );
}

#[test]
fn a_bad_task_field_is_an_error_naming_the_file_and_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench-bad");
    let run = bench(
        &["--tasks-dir", dir.to_str().unwrap()],
        &tmp.path().join("o"),
    );
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("zenity-bad.toml") && err.contains("`golden[0].click`"),
        "{err}"
    );
    assert!(err.contains("never fixed screen pixels"), "{err}");
    // a desktop or setting flag would be ignored by the task runs: refused
    let run = bench(&["--sandbox", "--dry-run"], &tmp.path().join("o"));
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("drop --dry-run, --sandbox"), "{err}");
}

const SHARD_TASKS: &str = "xmessage-button,xmessage-quiz,zenity-list,zenity-question,xterm-echo";

/// The rows without what differs between runs (times, displays).
fn outcomes(rows: &[Value]) -> Vec<(String, String, String, bool, String)> {
    let mut v: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                s(r, "task").to_string(),
                s(r, "strategy").to_string(),
                s(r, "dir").to_string(),
                r["success"] == true,
                s(r, "error").to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn shards_as_separate_processes_merge_into_the_results_of_one_run_and_export_works() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tasks_dir();
    let common_args = [
        "--tasks",
        SHARD_TASKS,
        "--tasks-dir",
        tasks.to_str().unwrap(),
        "--strategy",
        "narrative",
        "--strategy",
        "vision",
    ];
    let whole = tmp.path().join("whole");
    let run = bench(&[&common_args[..], &["--jobs", "2"]].concat(), &whole);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // three shards, as three processes at once
    let shards: Vec<PathBuf> = (0..3)
        .map(|i| tmp.path().join(format!("shard{i}")))
        .collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            Command::new(env!("CARGO_BIN_EXE_franz"))
                .args(["bench", "tasks", "--model", "scripted", "--jobs", "1"])
                .args(common_args)
                .args(["--shard", &format!("{i}/3"), "--out", dir.to_str().unwrap()])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let sizes: Vec<usize> = shards.iter().map(|d| rows(d).len()).collect();
    assert_eq!(sizes, vec![4, 3, 3], "ten runs split over three shards");
    let merged = tmp.path().join("merged");
    let mut args = vec!["bench".to_string(), "merge".into()];
    args.extend(shards.iter().map(|d| d.display().to_string()));
    args.extend(["--out".into(), merged.display().to_string()]);
    let m = common::franz(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let (one, all) = (rows(&whole), rows(&merged));
    assert_eq!(outcomes(&one), outcomes(&all));
    assert!(all.iter().all(|r| r["success"] == true));
    let html = std::fs::read_to_string(merged.join("index.html")).unwrap();
    for l in hrefs(&html) {
        assert!(
            merged.join(&l).is_file(),
            "merged link {l} does not resolve"
        );
    }
    // merging a folder twice is refused
    let again = common::franz(&[
        "bench",
        "merge",
        shards[0].to_str().unwrap(),
        shards[0].to_str().unwrap(),
        "--out",
        tmp.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    export_checks(&merged, &all[0]);
}

/// `franz export` of one run: one OSWorld line per action, pyautogui code or DONE, each step's
/// screenshot present but after the last, and the checkers' verdict as the result.
fn export_checks(out: &Path, row: &Value) {
    let run_dir = out.join(s(row, "dir")).join("runs/run_0001");
    let records: Vec<Value> = std::fs::read_to_string(run_dir.join("turns.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &Value| r.get("raw_png").is_some())
        .collect();
    let turns = records.len();
    let actions: usize = records
        .iter()
        .map(|r| r["actions"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(turns >= 2);
    let osw = out.join("osworld");
    let lines = export_osworld(&run_dir, &osw);
    assert_eq!(lines.len(), actions);
    for l in &lines {
        let code = s(l, "action");
        assert!(code.starts_with("pyautogui.") || code == "DONE", "{l}");
        assert!(s(l, "action_timestamp").contains('@'), "{l}");
        let step = l["step_num"].as_u64().unwrap() as usize;
        assert!((1..=turns).contains(&step), "{l}");
        if step < turns {
            let shot = osw.join(s(l, "screenshot_file"));
            assert!(
                shot.is_file() && std::fs::metadata(&shot).unwrap().len() > 100,
                "{l}"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(osw.join("result.txt")).unwrap(),
        "1.0\n",
        "the checkers held"
    );
    let flat = out.join("flat");
    let e = common::franz(&[
        "export",
        run_dir.to_str().unwrap(),
        "--format",
        "jsonl",
        "--out",
        flat.to_str().unwrap(),
    ]);
    assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
    let lines: Vec<Value> = std::fs::read_to_string(flat.join("steps.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), turns);
    for l in &lines {
        assert!(flat.join(s(l, "screenshot")).is_file(), "{l}");
        assert!(
            !s(l, "instruction").is_empty() && !s(l, "reply").is_empty(),
            "{l}"
        );
        assert!(l["actions"][0]["type"].is_string(), "{l}");
    }
}

/// `franz export --format osworld` of a run: its lines.
fn export_osworld(run_dir: &Path, out: &Path) -> Vec<Value> {
    let e = common::franz(&[
        "export",
        run_dir.to_str().unwrap(),
        "--format",
        "osworld",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
    std::fs::read_to_string(out.join("traj.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Prints the wall time of the same tasks on one job and on two (never asserted).
#[test]
#[ignore = "a benchmark: run with --ignored --nocapture"]
fn bench_jobs_two_against_one() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tasks_dir();
    let mut took = Vec::new();
    for jobs in ["1", "2"] {
        let t0 = Instant::now();
        let run = bench(
            &[
                "--tasks",
                SHARD_TASKS,
                "--tasks-dir",
                tasks.to_str().unwrap(),
                "--jobs",
                jobs,
            ],
            &tmp.path().join(jobs),
        );
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        took.push(t0.elapsed().as_secs_f64());
    }
    println!(
        "bench tasks ({SHARD_TASKS}): --jobs 1 {:.1} s, --jobs 2 {:.1} s",
        took[0], took[1]
    );
}

#[test]
fn every_task_file_is_a_scenario_franz_run_reads() {
    // `franz run --scenario tasks/X.toml` resolves the same configuration `franz config` shows:
    // the bench keys (checker, tags, golden, ...) are not taken for unknown settings
    for name in task_names(&tasks_dir()) {
        let path = tasks_dir().join(format!("{name}.toml"));
        let out = common::franz(&["config", "--scenario", path.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("max_steps") && l.contains("# scenario")),
            "{name}: {text}"
        );
    }
}

#[test]
fn the_scripted_model_answers_in_each_profiles_grammar_and_pixels() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("bench");
    let tasks = tasks_dir();
    let run = bench(
        &[
            "--tasks",
            "xmessage-button,xterm-echo,xterm-ctrl-c,zenity-scale-drag",
            "--tasks-dir",
            tasks.to_str().unwrap(),
            "--strategy",
            "narrative",
            "--profile",
            "qwen2.5-vl",
            "--profile",
            "ui-tars-1.5",
            "--jobs",
            "2",
        ],
        &out,
    );
    let rows = rows(&out);
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r["success"] != true)
        .map(|r| format!("{} {}: {}", s(r, "task"), s(r, "profile"), s(r, "error")))
        .collect();
    assert!(failed.is_empty(), "failed: {failed:#?}");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(rows.len(), 8);
    let profiles: BTreeSet<&str> = rows.iter().map(|r| s(r, "profile")).collect();
    assert_eq!(profiles, BTreeSet::from(["qwen2.5-vl", "ui-tars-1.5"]));
    // each reply in the family's grammar, its point in pixels of the image the profile sent:
    // a fixed point of the family's smart_resize
    for r in &rows {
        let profile = s(r, "profile");
        let rule = franz_core::profile::by_name(profile)
            .unwrap()
            .smart_resize()
            .unwrap();
        let events = common::events_in(&out.join(s(r, "dir")).join("runs/run_0001"));
        let first = events
            .iter()
            .find(|e| e["event"] == "model_reply")
            .expect("a reply");
        let text = first["text"].as_str().unwrap();
        let grammar = if profile == "ui-tars-1.5" {
            "\nAction: "
        } else {
            "<tool_call>\n{\"arguments\":{\"action\":"
        };
        assert!(text.contains(grammar), "{profile}: {text}");
        let of = &first["actions"][0]["exact"]["of"];
        let image = franz_core::geometry::ImageSize::new(
            of[0].as_u64().unwrap() as u32,
            of[1].as_u64().unwrap() as u32,
        );
        assert!(rule.is_fixed_point(image), "{profile}: {first}");
    }
}
