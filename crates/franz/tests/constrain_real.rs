//! Constrained output against the real model server (`scripts/model-server.sh`: llama-cpp-python
//! with Gemma 3 270M, whose actions are noise): every strategy runs the same turns with
//! `--constrain off` and `--constrain auto`, and the share of turns whose reply gave a valid action
//! or a valid done is printed for both. With `auto`, every turn must.
//!
//! A turn counts as valid when the last model reply of the turn (the operator's, for the
//! commander) was read into at least one action (a `done` included) and the turn reported no
//! problem with the reply. The server is the one `scripts/model-server.sh` started, named by
//! `FRANZ_MODEL_SERVER_URL` and `FRANZ_MODEL_SERVER_MODEL` (the exports it prints); without
//! them the test says so and checks nothing. `FRANZ_CONSTRAIN_TURNS` sets the turns per run
//! (3 by default; the figures in the report were measured with 10).

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The real server's URL and model id, when one is running.
fn server() -> Option<(String, String)> {
    let url = std::env::var("FRANZ_MODEL_SERVER_URL").ok()?;
    let model = std::env::var("FRANZ_MODEL_SERVER_MODEL").ok()?;
    Some((url, model))
}

fn turns() -> u32 {
    std::env::var("FRANZ_CONSTRAIN_TURNS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(3)
}

/// One dry run on a sandbox: its events.
fn run(url: &str, model: &str, strategy: &str, constrain: &str, runs: &Path) -> Vec<Value> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_franz"));
    for (k, _) in std::env::vars() {
        if k.starts_with("FRANZ_") {
            cmd.env_remove(k);
        }
    }
    let steps = turns().to_string();
    let out = cmd
        .args([
            "run",
            "--sandbox",
            "--dry-run",
            "--api-url",
            url,
            "--model",
            model,
        ])
        .args(["--strategy", strategy, "--constrain", constrain])
        .args([
            "--max-steps",
            &steps,
            "--max-empty-turns",
            "1000",
            "--max-tokens",
            "192",
        ])
        .args(["--step-delay", "0", "--runs-dir"])
        .arg(runs)
        .arg("open the text editor and type hello")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let dir = std::fs::read_dir(runs)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join("events.jsonl").exists())
        .unwrap_or_else(|| panic!("{strategy}/{constrain}: no run directory: {stderr}"));
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    events
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// (turns with a valid action or done, turns with a reply), and the refused requests seen.
fn share(events: &[Value]) -> (u32, u32, Vec<String>) {
    let mut last_reply: BTreeMap<u64, &Value> = BTreeMap::new();
    let mut problems: BTreeMap<u64, u32> = BTreeMap::new();
    let mut refused = Vec::new();
    for e in events {
        let turn = e["turn"].as_u64().unwrap_or(0);
        match e["event"].as_str() {
            Some("model_reply") => {
                last_reply.insert(turn, e);
            }
            Some("error") => *problems.entry(turn).or_default() += 1,
            Some("model_request") if e.get("reason").is_some() => {
                refused.push(e["reason"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    let valid = last_reply
        .iter()
        .filter(|(turn, r)| {
            r["actions"].as_array().is_some_and(|a| !a.is_empty()) && !problems.contains_key(turn)
        })
        .count() as u32;
    (valid, last_reply.len() as u32, refused)
}

#[test]
fn constrained_turns_of_every_strategy_give_a_valid_action_or_done() {
    let Some((url, model)) = server() else {
        eprintln!(
            "no real model server: start one with `eval \"$(scripts/model-server.sh)\"` (FRANZ_MODEL_SERVER_URL, FRANZ_MODEL_SERVER_MODEL)"
        );
        return;
    };
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for strategy in ["narrative", "vision", "tools", "commander"] {
        let mut line = format!("{strategy:>9}:");
        for constrain in ["off", "auto"] {
            let runs = tempfile::tempdir().unwrap();
            let events = run(&url, &model, strategy, constrain, runs.path());
            let (valid, total, refused) = share(&events);
            let pct = if total == 0 {
                0.0
            } else {
                100.0 * f64::from(valid) / f64::from(total)
            };
            line.push_str(&format!("  {constrain} {valid}/{total} ({pct:.0}%)"));
            // a valid done ends a run before its turns are up
            if constrain == "auto" && (valid != total || total == 0) {
                failures.push(format!(
                    "{strategy}: {valid} of {total} constrained turns valid"
                ));
            }
            for r in refused {
                line.push_str(&format!("\n           {constrain}: resent: {r}"));
            }
        }
        eprintln!("{line}");
        report.push(line);
    }
    assert!(failures.is_empty(), "{failures:?}\n{}", report.join("\n"));
}
