//! `deny_text` is matched with the text as the focused field will hold it: a backspace inside a
//! typed text, a backspace key between two texts, characters sent as keys, a move between two
//! pieces and the cursor keys cannot assemble a forbidden command. Each bypass is tried with
//! `franz act` against bash in a real xterm: the forbidden command would create a file; it
//! never appears, while the allowed commands typed around it run (so the test can fail).

#![cfg(target_os = "linux")]

use crate::common;

use common::{act_with_policy, poll};
use franz_desktop::sandbox::Sandbox;
use std::path::Path;
use std::time::Duration;

const T: Duration = Duration::from_secs(60);

/// A private Xvfb with one xterm over it, running bash in `dir`.
fn xterm_in(dir: &Path) -> Sandbox {
    let mut sb = common::xvfb(640, 400);
    sb.launch(&format!(
        "xterm -geometry 120x40+0+0 -e sh -c 'cd {} && touch ready && exec bash --norc --noprofile'",
        dir.display()
    ))
    .unwrap();
    poll("bash in the xterm", T, || {
        dir.join("ready").exists().then_some(())
    });
    assert!(sb.wait_for_windows(1, T), "xterm never mapped");
    sb
}

fn t(text: &str) -> String {
    serde_json::json!({"type": "type", "text": text}).to_string()
}

fn k(keys: &str) -> String {
    serde_json::json!({"type": "key", "keys": keys}).to_string()
}

const CLICK: &str = r#"{"type":"click","x":500,"y":500}"#;
const MOVE: &str = r#"{"type":"move","x":700,"y":300}"#;
const ENTER: &str = r#"{"type":"key","keys":"enter"}"#;

#[test]
fn no_edit_assembles_a_denied_command_in_a_real_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let _sb = xterm_in(dir.path());
    let display = _sb.display().to_string();
    // each bypass, then Enter: what the field holds then runs (a harmless file or nothing)
    let bypasses: Vec<Vec<String>> = vec![
        // a backspace inside a typed text
        vec![t("touch pwnex\u{8}d")],
        // press_key("backspace") between two types
        vec![t("touch pwnex"), k("backspace"), t("d")],
        // characters sent as keys between types
        vec![t("touch pw"), k("n"), k("e"), t("d")],
        vec![t("touch pwne"), k("d")],
        // a move between two pieces
        vec![t("touch pw"), MOVE.into(), t("ned")],
        // the cursor keys
        vec![t("touch pwnxed"), k("left"), k("left"), k("backspace")],
    ];
    let mut actions: Vec<String> = Vec::new();
    for b in &bypasses {
        actions.push(CLICK.into());
        actions.extend(b.iter().cloned());
        actions.push(ENTER.into());
    }
    // the allowed sentinel: bash runs commands in order, so once it ran, any earlier command
    // that got through would have run too
    actions.push(t("touch allowed\n"));
    let args: Vec<&str> = actions.iter().map(String::as_str).collect();
    let policy = "deny_text = ['touch pwned']\npolicy_violations_max = 100\n";
    let (code, lines, err) = act_with_policy(&display, policy, "", &args);
    assert_eq!(code, 1, "{err}");
    let denied = lines
        .iter()
        .filter(|l| l["kind"] == "policy_denied")
        .count();
    assert_eq!(denied, bypasses.len(), "{lines:#?}");
    poll("the allowed command", T, || {
        dir.path().join("allowed").exists().then_some(())
    });
    // what the field held at Enter ran: the bypasses' harmless prefixes
    for made in ["pwne", "pw", "pwnxed"] {
        assert!(dir.path().join(made).exists(), "{made} was not created");
    }
    assert!(
        !dir.path().join("pwned").exists(),
        "a denied command ran: {lines:#?}"
    );
}
