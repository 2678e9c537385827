//! The model client fits requests to the server over real HTTP (the scripted server playing a
//! server whose chat template or constraint support is limited, with the error bodies real
//! servers send, tests/fixtures/server_errors): a template's refusal of the messages is answered
//! at once by resending them shaped, not by retrying them unchanged, and the shape is kept; a
//! refused constraint steps down; a server that ignores `tool_choice: "required"` gets calls
//! asked for as content.

use franz_core::model::{
    ChatRequest, ClientConfig, Constrain, Fault, Message, MessageShape, Mode, ModelClient,
    ModelError, RecordedRequest, ReplyFormat, Retry, Script, ScriptedReply, ScriptedServer, Shape,
    Step, Tool, ToolCall,
};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/server_errors")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn client_for(server: &ScriptedServer, shape: MessageShape, constrain: Constrain) -> ModelClient {
    ModelClient::new(ClientConfig {
        retries: 3,
        backoff: Duration::from_millis(5),
        message_shape: shape,
        constrain,
        ..ClientConfig::new(server.url())
    })
    .unwrap()
}

fn roles(r: &RecordedRequest) -> Vec<String> {
    r.json.as_ref().unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_string())
        .collect()
}

/// Gemma's template: after an optional system message, user and assistant alternate.
fn gemma(r: &RecordedRequest) -> Step {
    let roles = roles(r);
    let turns: Vec<&String> = roles.iter().filter(|r| *r != "system").collect();
    let alternate = turns
        .iter()
        .enumerate()
        .all(|(i, r)| (*r == "user") == (i % 2 == 0));
    if alternate {
        ScriptedReply::text("left_click(1, 2)").into()
    } else {
        Step::fault(Fault::Body(
            500,
            fixture("llama-cpp-python-roles-must-alternate.json"),
        ))
    }
}

/// The tools strategy's history after one call: the task and the screen in a row, a tool call
/// and its result.
fn tools_request() -> ChatRequest {
    let mut call = ToolCall::new("click_element", json!({"box": [1, 2]}));
    call.id = Some("call_1".into());
    let mut assistant = Message::assistant("");
    assistant.tool_calls = vec![call];
    ChatRequest::new(
        "gemma-3-270m",
        vec![
            Message::system("You are an agent."),
            Message::user("TASK: save"),
            Message::user_with_image("The screen now.", "data:image/png;base64,iVBORw0KGgo="),
            assistant,
            Message::tool("call_1", "click_element", "{\"ok\": true}"),
            Message::user_with_image("The screen after.", "data:image/png;base64,iVBORw0KGgo="),
        ],
    )
}

#[test]
fn a_template_refusal_is_answered_by_reshaping_at_once_and_the_shape_is_kept() {
    let server = ScriptedServer::start(Script::func(gemma)).unwrap();
    let client = client_for(&server, MessageShape::Auto, Constrain::Off);
    let mut retries: Vec<Retry> = Vec::new();
    let reply = client
        .chat_with(&tools_request(), &mut |r| retries.push(r.clone()))
        .unwrap();
    assert_eq!(reply.content, "left_click(1, 2)");
    let sent = server.requests();
    assert_eq!(sent.len(), 2, "one refusal, one shaped resend, no retries");
    assert_eq!(
        roles(&sent[0]),
        ["system", "user", "user", "assistant", "tool", "user"]
    );
    assert_eq!(roles(&sent[1]), ["system", "user", "assistant", "user"]);
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(
        retries[0]
            .reason
            .contains("Conversation roles must alternate")
            && retries[0].reason.contains("message_shape alternate"),
        "{retries:?}"
    );
    assert_eq!(client.learned().shape, Shape::Alternate);
    // the next request is shaped from the start
    client.chat(&tools_request()).unwrap();
    assert_eq!(server.requests().len(), 3);
    assert_eq!(
        roles(&server.requests()[2]),
        ["system", "user", "assistant", "user"]
    );
}

/// llama-cpp-python's own answers to Gemma's refusal, byte for byte
/// (`tests/fixtures/llama_cpp_python/`): streamed, a 200 with an empty event stream; asked
/// whole, the 500 with the template's words.
fn gemma_streamed(r: &RecordedRequest) -> Step {
    let stream = r.json.as_ref().is_some_and(|j| j["stream"] == true);
    let raw = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/llama_cpp_python")
            .join(name);
        Step::fault(Fault::Raw(std::fs::read(path).unwrap()))
    };
    let step = gemma(r);
    match (&step.fault, stream) {
        (Some(_), true) => raw("roles_must_alternate_stream.http"),
        (Some(_), false) => raw("roles_must_alternate.http"),
        (None, _) => step,
    }
}

#[test]
fn a_streamed_request_the_template_refused_is_reshaped_and_streamed_again() {
    let server = ScriptedServer::start(Script::func(gemma_streamed)).unwrap();
    let client = client_for(&server, MessageShape::Auto, Constrain::Off);
    let mut request = tools_request();
    request.stream = true;
    let mut retries: Vec<Retry> = Vec::new();
    let reply = client
        .chat_stream_with(&request, &mut |_| {}, &mut |r| retries.push(r.clone()))
        .unwrap();
    assert_eq!(reply.content, "left_click(1, 2)");
    let sent = server.requests();
    let streamed: Vec<bool> = sent
        .iter()
        .map(|r| r.json.as_ref().unwrap()["stream"] == true)
        .collect();
    // streamed and refused in silence, asked whole to learn why, then shaped and streamed
    assert_eq!(streamed, [true, false, true], "{retries:?}");
    assert_eq!(roles(&sent[2]), ["system", "user", "assistant", "user"]);
    assert_eq!(client.learned().shape, Shape::Alternate);
    assert!(
        retries
            .last()
            .is_some_and(|r| r.reason.contains("message_shape alternate")),
        "{retries:?}"
    );
}

#[test]
fn a_fixed_shape_is_kept_and_the_refusal_is_reported_at_once() {
    let server = ScriptedServer::start(Script::func(gemma)).unwrap();
    let client = client_for(&server, MessageShape::Fixed(Shape::None), Constrain::Off);
    let e = client.chat(&tools_request()).unwrap_err();
    assert_eq!(
        server.requests().len(),
        1,
        "a template's refusal is not retried"
    );
    assert!(
        matches!(e, ModelError::Refused { status: 500, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("set message_shape"), "{e}");
    assert!(
        e.to_string().contains("Conversation roles must alternate"),
        "{e}"
    );
    // strict is accepted by the same template at once
    let server = ScriptedServer::start(Script::func(gemma)).unwrap();
    let strict = client_for(&server, MessageShape::Fixed(Shape::Strict), Constrain::Off);
    strict.chat(&tools_request()).unwrap();
    assert_eq!(roles(&server.requests()[0]), ["user", "assistant", "user"]);
}

fn vision_request() -> ChatRequest {
    let mut r = ChatRequest::new("m", vec![Message::user("look")]);
    r.format = Some(ReplyFormat::Json {
        name: "vision_reply".into(),
        schema: json!({"type": "object", "required": ["actions"]}),
        gbnf: "root ::= \"{}\"".into(),
    });
    r
}

fn response_format(r: &RecordedRequest) -> Value {
    r.json.as_ref().unwrap()["response_format"].clone()
}

#[test]
fn auto_constraint_steps_down_from_json_schema_to_json_object_when_refused() {
    // llama-cpp-python's server refuses json_schema and takes json_object with a schema
    let server = ScriptedServer::start(Script::func(|r: &RecordedRequest| {
        if response_format(r)["type"] == "json_schema" {
            Step::fault(Fault::Body(
                500,
                fixture("llama-cpp-python-json-schema.json"),
            ))
        } else {
            ScriptedReply::text("{\"observation\": \"x\", \"actions\": []}").into()
        }
    }))
    .unwrap();
    let client = client_for(&server, MessageShape::Auto, Constrain::Auto);
    client.chat(&vision_request()).unwrap();
    let sent = server.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(response_format(&sent[0])["type"], "json_schema");
    assert_eq!(response_format(&sent[1])["type"], "json_object");
    assert_eq!(
        response_format(&sent[1])["schema"]["required"],
        json!(["actions"])
    );
    assert_eq!(client.learned().mode, Some(Mode::JsonObject));
    client.chat(&vision_request()).unwrap();
    assert_eq!(server.requests().len(), 3, "json_object from now on");
    // a request without a format is sent as it is
    client
        .chat(&ChatRequest::new("m", vec![Message::user("hi")]))
        .unwrap();
    assert!(
        server.requests()[3]
            .json
            .as_ref()
            .unwrap()
            .get("response_format")
            .is_none()
    );
}

#[test]
fn a_server_that_ignores_required_gets_its_next_calls_asked_as_content() {
    let server =
        ScriptedServer::start(Script::repeat(ScriptedReply::text("I will click."))).unwrap();
    let client = client_for(
        &server,
        MessageShape::Auto,
        Constrain::Fixed(Mode::JsonSchema),
    );
    let tools = vec![Tool::function(
        "press_key",
        "d",
        json!({"type": "object", "properties": {"key": {"type": "string"}}}),
    )];
    let mut r = ChatRequest::new("m", vec![Message::user("go")]);
    r.tools = tools.clone();
    r.format = franz_core::strategy::reply_format::of_tools(
        &tools,
        franz_core::strategy::grammar::Space::Norm1000,
    );
    client.chat(&r).unwrap();
    client.chat(&r).unwrap();
    let sent = server.requests();
    let body = |i: usize| sent[i].json.clone().unwrap();
    assert_eq!(body(0)["tool_choice"], "required");
    assert_eq!(body(1)["tool_choice"], "none");
    assert_eq!(body(1)["response_format"]["type"], "json_object");
    assert_eq!(
        body(1)["response_format"]["schema"]["anyOf"][0]["properties"]["name"]["const"],
        "press_key"
    );
}
