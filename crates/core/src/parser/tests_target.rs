//! Targets in words (docs/grounding.md): each of franz's grammars reads a click's or a move's
//! target given in words in place of its point, and refuses a placeholder the model repeated
//! from the example.

use super::*;
use crate::action::ActionKind;
use crate::model::ToolCall;
use serde_json::json;

fn read(reply: &Reply, dialect: Dialect) -> ParsedReply {
    let opts = ParseOptions {
        dialect: Some(dialect),
        coords: CoordMode::Norm,
    };
    parse_reply(reply, &opts)
}

fn one_target(p: &ParsedReply) -> (&ActionKind, &str) {
    assert_eq!(p.actions.len(), 1, "{p:?}");
    let a = &p.actions[0];
    (
        &a.kind,
        a.target.as_deref().unwrap_or_else(|| panic!("{p:?}")),
    )
}

#[test]
fn each_grammar_reads_a_target_in_words() {
    // digits in the words are no stray position
    let words = "the Save button in the 2nd dialog";
    let calls = Reply::text(format!("click(target=\"{words}\")\nI save."));
    let json = Reply::text(
        json!({"observation": "o", "bboxes": [],
        "actions": [{"name": "click", "target": words}]})
        .to_string(),
    );
    let tools = Reply {
        tool_calls: vec![ToolCall::new(
            "click_element",
            json!({"target": words, "label": "Save", "justification": "save it"}),
        )],
        ..Reply::text("")
    };
    for (reply, dialect) in [
        (calls, Dialect::Calls),
        (json, Dialect::Json),
        (tools, Dialect::Tools),
    ] {
        let p = read(&reply, dialect);
        let (kind, target) = one_target(&p);
        assert_eq!(target, words, "{dialect}");
        assert!(kind.is_click(), "{dialect}: {kind:?}");
        assert_eq!(kind.point(), None, "{dialect}: no point of its own");
    }
    // the other clicks and move take it too
    for (text, name) in [
        ("double_click(target=\"the file\")", "double_click"),
        ("right_click(target=\"the file\")", "right_click"),
        ("move(target=\"the menu\")", "move"),
    ] {
        let p = read(&Reply::text(text), Dialect::Calls);
        let (kind, _) = one_target(&p);
        assert_eq!(kind.name(), name);
    }
}

#[test]
fn a_repeated_placeholder_target_is_refused() {
    for words in [
        "description",
        "target",
        "<description>",
        "text",
        "Element Description",
    ] {
        let p = read(
            &Reply::text(format!("click(target=\"{words}\")")),
            Dialect::Calls,
        );
        assert!(p.actions.is_empty(), "{words}: {p:?}");
        let refused = |e: &String| e.contains("nothing was performed") && e.contains(words);
        assert!(p.errors.iter().any(refused), "{words}: {p:?}");
        let json = json!({"observation": "o", "bboxes": [],
            "actions": [{"name": "click", "target": words}]});
        let p = read(&Reply::text(json.to_string()), Dialect::Json);
        assert!(p.actions.is_empty(), "{words}: {p:?}");
    }
}

#[test]
fn a_target_on_an_action_without_a_place_or_an_empty_one_is_an_error() {
    let p = read(
        &Reply::text("type(\"hi\", target=\"the box\")"),
        Dialect::Calls,
    );
    assert!(p.actions.is_empty(), "{p:?}");
    assert!(
        p.errors.iter().any(|e| e.contains("takes no target")),
        "{p:?}"
    );
    let p = read(&Reply::text("click(target=\"  \")"), Dialect::Calls);
    assert!(p.actions.is_empty(), "{p:?}");
    assert!(
        p.errors.iter().any(|e| e.contains("describe the element")),
        "{p:?}"
    );
}

#[test]
fn a_target_is_kept_in_the_canonical_json() {
    let p = read(
        &Reply::text("click(target=\"the OK button\")"),
        Dialect::Calls,
    );
    let v = serde_json::to_value(&p.actions[0]).unwrap();
    assert_eq!(v, json!({"type": "click", "target": "the OK button"}));
    let back = crate::action::Action::from_json(&v.to_string()).unwrap();
    assert_eq!(back.target.as_deref(), Some("the OK button"));
}

#[test]
fn a_dialect_that_reads_no_target_never_clicks_at_the_pointer_for_one() {
    // Qwen's computer_use reads no target: its numbers (or words) there are no position
    for args in [
        json!({"action": "left_click", "target": [12, 34]}),
        json!({"action": "left_click", "target": "the 2nd button"}),
    ] {
        let reply = Reply {
            tool_calls: vec![ToolCall::new("computer_use", args.clone())],
            ..Reply::default()
        };
        let p = read(&reply, Dialect::Qwen);
        assert!(p.actions.is_empty(), "{args}: {p:?}");
    }
}
