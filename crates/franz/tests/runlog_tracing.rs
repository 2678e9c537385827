//! `franz.log` through the real binary: a `franz run` against the scripted server writes its
//! run's log lines (events, the client's retry warning) into the run directory's `franz.log`,
//! and each `model_request` attempt is an event with its number and the retry's reason.

#![cfg(target_os = "linux")]

use crate::common;
use franz_core::model::{Fault, Script, ScriptedReply, ScriptedServer, Step};
use franz_core::runlog::{EVENTS_FILE, LOG_FILE};
use serde_json::Value;

#[test]
fn franz_run_writes_its_franz_log_and_one_model_request_per_attempt() {
    let server = ScriptedServer::start(Script::list([
        Step::fault(Fault::Status(503)),
        ScriptedReply::text("done(\"nothing to do\")\nAll done.").into(),
    ]))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let mut cmd = common::franz_run(&server.url(), runs.path());
    let out = common::no_franz_env(&mut cmd)
        .args(["--sandbox=320x240", "check the log"])
        .args(["--model", "scripted", "--max-steps", "3"])
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let dir = runs.path().join("run_0001");
    let log = std::fs::read_to_string(dir.join(LOG_FILE))
        .unwrap_or_else(|e| panic!("no franz.log in {}: {e}; stderr:\n{stderr}", dir.display()));
    for want in [
        "run_started: narrative with scripted: check the log",
        "model server error; retrying status=503 attempt=1",
        "model_request: attempt 2: HTTP 503",
        "run_finished: done:",
    ] {
        assert!(log.contains(want), "franz.log lacks {want:?}:\n{log}");
    }
    assert!(
        log.lines()
            .all(|l| l.contains(" INFO ") || l.contains(" WARN ")),
        "{log}"
    );
    assert!(!log.contains('\x1b'), "no colour codes in a file:\n{log}");
    assert!(
        stderr.contains("turn 1: model request, attempt 2: HTTP 503") && !stderr.contains("run{"),
        "the terminal shows the retry once, without the run span's fields:\n{stderr}"
    );
    assert!(!stderr.contains("model server error; retrying"), "{stderr}");

    let events: Vec<Value> = std::fs::read_to_string(dir.join(EVENTS_FILE))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let requests: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "model_request")
        .collect();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0]["attempt"], 1);
    assert!(requests[0].get("reason").is_none(), "{}", requests[0]);
    assert_eq!(requests[1]["attempt"], 2);
    let reason = requests[1]["reason"].as_str().unwrap();
    assert!(
        reason.contains("HTTP 503") && reason.contains("retrying in"),
        "{reason}"
    );
    assert_eq!(server.request_count(), 2);
}
