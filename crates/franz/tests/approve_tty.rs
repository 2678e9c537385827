//! `franz run --approve` without a panel asks on the terminal. util-linux `script` gives franz
//! a real pseudo-terminal; each answer is typed when its prompt shows: n with a reason rejects the click,
//! which reaches the run log as the error the model is told.

use crate::common::terminal::Terminal;

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};

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
    let mut terminal = Terminal::start(&franz);
    terminal.expect("run these? [y]es / [n]o / [e]dit: ");
    terminal.send("n\n");
    terminal.expect("why (told to the model)? ");
    terminal.send("wrong window\n");
    let (code, text) = terminal.finish();
    assert_eq!(code, Some(1), "{text}");
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
