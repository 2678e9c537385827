//! `franz run --approve` without a panel asks on the terminal. util-linux `script` gives franz
//! a real pseudo-terminal; the answers are typed into it: n with a reason rejects the click,
//! which reaches the run log as the error the model is told.

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use std::io::Write;

#[test]
fn on_a_terminal_approve_mode_asks_and_a_no_rejects_with_the_reason() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(
        "left_click(500, 500)\nclicked",
    )))
    .unwrap();
    let runs = tempfile::tempdir().unwrap();
    let franz = format!(
        "{} --sandbox=320x240 run x --approve --api-url {} --runs-dir {} --max-steps 1",
        env!("CARGO_BIN_EXE_franz"),
        server.url(),
        runs.path().display()
    );
    let mut child = common::on_a_terminal(&franz);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"n\nwrong window\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("run these? [y]es / [n]o / [e]dit"), "{text}");
    let run = runs.path().join("run_0001");
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert!(
        events.contains("\"event\":\"awaiting_approval\""),
        "{events}"
    );
    let rejected = events
        .lines()
        .find(|l| l.contains("\"event\":\"action_result\""))
        .unwrap();
    assert!(
        rejected.contains("the user rejected: wrong window"),
        "{rejected}"
    );
    assert!(rejected.contains("\"status\":\"error\""), "{rejected}");
}
