//! The tools strategy ends a run as done only when the model said so: a reply cut off at
//! max_tokens and an empty reply go back to the model as errors and count as empty turns, so
//! a model that only ever answers that way ends the run as failed, never as done.

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};

#[test]
fn cut_off_and_empty_replies_are_empty_turns_never_done() {
    let cut = || ScriptedReply::text("The task is done, the file").finish_reason("length");
    let server =
        ScriptedServer::start(Script::list([cut(), ScriptedReply::text(""), cut()])).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = common::franz_run(&server.url(), runs.path())
        .args(["--sandbox=320x240", "x", "--strategy", "tools"])
        .env("FRANZ_MAX_EMPTY_TURNS", "3")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let events = common::events_in(&runs.path().join("run_0001"));
    let end = events.last().unwrap();
    assert_eq!(end["outcome"], "failed", "{end}");
    assert_eq!(end["turns"], 3, "{end}");
    assert!(
        end["reason"]
            .as_str()
            .unwrap()
            .contains("3 turns in a row without a usable action"),
        "{end}"
    );
    assert!(
        events.iter().all(|e| e["event"] != "action_result"),
        "nothing ran"
    );
    let problems: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "error")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert!(
        problems[0].contains("cut off at max_tokens"),
        "{problems:?}"
    );
    assert!(problems.iter().any(|p| p.contains("empty")), "{problems:?}");
    // the model is told, in the next request
    let asked = server.requests();
    assert_eq!(asked.len(), 3);
    assert!(asked[1].body.contains("PROBLEM: your reply was cut off"));
    assert!(asked[2].body.contains("PROBLEM: your reply was empty"));
}
