use super::*;
use crate::model::{Reply, ToolCall};
use serde_json::json;

const IMG: &str = "data:image/png;base64,AAAA";

/// The tools strategy's history after one tool call: system, task, screen, the call, its
/// result, the next screen.
fn tools_history() -> Vec<Message> {
    let mut call = ToolCall::new("click_element", json!({"label": "OK", "box": [5, 6]}));
    call.id = Some("call_1_1".into());
    let reply = Reply {
        content: "I click OK.".into(),
        tool_calls: vec![call],
        ..Reply::default()
    };
    vec![
        Message::system("You are an agent."),
        Message::user("TASK: press OK"),
        Message::user_with_image("The screen now.", IMG),
        Message::from_reply(&reply),
        Message::tool("call_1_1", "click_element", "{\"ok\": true}"),
        Message::user_with_image("The screen after your last action (turn 2).", IMG),
    ]
}

fn roles(ms: &[Message]) -> Vec<Role> {
    ms.iter().map(|m| m.role).collect()
}

fn images(ms: &[Message]) -> usize {
    ms.iter()
        .map(|m| match &m.content {
            Content::Parts(p) => p
                .iter()
                .filter(|p| matches!(p, ContentPart::ImageUrl { .. }))
                .count(),
            Content::Text(_) => 0,
        })
        .sum()
}

fn text(m: &Message) -> String {
    text_of(&m.content)
}

#[test]
fn none_sends_the_messages_as_built() {
    let h = tools_history();
    assert_eq!(messages(&h, Shape::None), h);
}

#[test]
fn alternate_merges_runs_of_one_role_and_turns_tool_traffic_into_text() {
    let h = tools_history();
    let out = messages(&h, Shape::Alternate);
    assert_eq!(
        roles(&out),
        [Role::System, Role::User, Role::Assistant, Role::User]
    );
    assert_eq!(images(&out), 2, "every image is kept");
    let first = text(&out[1]);
    assert!(
        first.starts_with("TASK: press OK\n\nThe screen now."),
        "{first}"
    );
    let call = text(&out[2]);
    assert!(call.starts_with("I click OK.\n<tool_call>\n"), "{call}");
    assert!(
        call.contains("\"name\":\"click_element\"") && call.contains("\"box\":[5,6]"),
        "{call}"
    );
    assert!(out[2].tool_calls.is_empty(), "no call is left unanswered");
    let result = text(&out[3]);
    assert!(
        result.starts_with("Result of click_element: {\"ok\": true}\n\nThe screen after"),
        "{result}"
    );
    assert!(out.iter().all(|m| m.tool_call_id.is_none()));
}

#[test]
fn strict_folds_the_system_prompt_into_the_first_user_message() {
    let out = messages(&tools_history(), Shape::Strict);
    assert_eq!(roles(&out), [Role::User, Role::Assistant, Role::User]);
    let first = text(&out[0]);
    assert!(
        first.starts_with("You are an agent.\n\nTASK: press OK"),
        "{first}"
    );
    let Content::Parts(parts) = &out[0].content else {
        panic!("the first user message keeps its image: {:?}", out[0]);
    };
    assert!(matches!(parts[0], ContentPart::Text { .. }));
    assert!(matches!(parts[1], ContentPart::ImageUrl { .. }));
    // a request of only a system message becomes one user message
    let only = messages(&[Message::system("s")], Shape::Strict);
    assert_eq!(roles(&only), [Role::User]);
}

#[test]
fn a_later_system_message_and_a_leading_assistant_become_user_turns() {
    let h = vec![
        Message::assistant("hello"),
        Message::system("note"),
        Message::user("u"),
    ];
    let out = messages(&h, Shape::Alternate);
    assert_eq!(
        roles(&out),
        [Role::User, Role::Assistant, Role::User],
        "{out:?}"
    );
    assert_eq!(text(&out[2]), "note\n\nu");
}

#[test]
fn every_shape_is_stable_once_applied() {
    for shape in Shape::ALL {
        let once = messages(&tools_history(), shape);
        assert_eq!(messages(&once, shape), once, "{shape:?}");
    }
}

#[test]
fn refusals_name_the_shape_they_need() {
    let gemma = r#"{"error":{"message":"Conversation roles must alternate user/assistant/user/assistant/...","type":"internal_server_error"}}"#;
    let gemma2 = "jinja2.exceptions.TemplateError: System role not supported";
    let mistral = "Only user and assistant roles are supported!";
    let nemo = "After the optional system message, conversation roles must alternate user/assistant/user/assistant/...";
    assert_eq!(learn(Shape::None, gemma), Some(Shape::Alternate));
    assert_eq!(learn(Shape::None, nemo), Some(Shape::Alternate));
    let llama3 = "This model only supports single tool-calls at once!";
    assert_eq!(learn(Shape::None, llama3), Some(Shape::Alternate));
    assert_eq!(learn(Shape::None, gemma2), Some(Shape::Strict));
    assert_eq!(learn(Shape::None, mistral), Some(Shape::Strict));
    // the same refusal again: one step further, then nothing is left
    assert_eq!(learn(Shape::Alternate, gemma), Some(Shape::Strict));
    assert_eq!(learn(Shape::Strict, gemma), None);
    for other in [
        "the request exceeds the available context size",
        "model not found",
        "",
    ] {
        assert_eq!(learn(Shape::None, other), None, "{other}");
        assert!(!is_refusal(other));
    }
    assert!(is_refusal(gemma));
}

#[test]
fn the_setting_starts_where_it_says() {
    assert_eq!(MessageShape::Auto.initial(), Shape::None);
    assert_eq!(MessageShape::Fixed(Shape::Strict).initial(), Shape::Strict);
    assert_eq!(MessageShape::Auto.name(), "auto");
    let req = ChatRequest::new("m", tools_history());
    assert_eq!(
        apply(&req, Shape::Strict).messages,
        messages(&req.messages, Shape::Strict)
    );
}
