//! `franz replay --execute` performs a recorded run again: the demo's run, replayed into a
//! fresh terminal, types the same line.

use std::process::Command;
use std::time::{Duration, Instant};

fn franz() -> Command {
    Command::new(env!("CARGO_BIN_EXE_franz"))
}

#[test]
fn replaying_the_demo_types_the_line_again() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let out = franz()
        .args(["demo", "--runs-dir"])
        .arg(&runs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "demo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = runs.join("run_0001");

    let note = dir.path().join("again.txt");
    let launch = format!(
        "xterm -geometry 60x16+40+40 -e sh -c 'cat > {}'",
        note.display()
    );
    let out = franz()
        .args([
            "--sandbox=1280x800",
            "--launch",
            &launch,
            "replay",
            "--execute",
        ])
        .arg(&run)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "replay failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines.iter().all(|l| l["result"]["status"] == "ok"),
        "{stdout}"
    );
    // the sandbox is gone once replay returns, so the line must already be in the file
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut text = String::new();
    while Instant::now() < deadline && !text.ends_with('\n') {
        text = std::fs::read_to_string(&note).unwrap_or_default();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(text, "Hello from franz!\n");

    // without --execute nothing is performed, only described
    let out = franz().args(["replay"]).arg(&run).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("would type \"Hello from franz!\""));
}
