//! The model client against a real server's refusals, replayed byte for byte by the scripted
//! server (`Fault::Raw`) from `tests/fixtures/llama_cpp_python/`: answers captured from
//! llama-cpp-python 0.3.36's server (`scripts/model-server.sh`: Gemma 3 270M with Gemma 3's
//! chat template) for requests franz sent before its messages were shaped.
//!
//! A refusal that a retry cannot change fails at once with the server's message and what to
//! set; a stream that such a refusal ended before its first event is reported as that refusal,
//! not as a crash; an overflow on the image path is an overflow with its numbers.

use franz_core::model::{
    ChatRequest, ClientConfig, Fault, Message, ModelClient, ModelError, Refusal, Retry, Script,
    ScriptedServer, Step,
};
use std::time::Duration;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/llama_cpp_python/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn replay(name: &str) -> Step {
    Step::fault(Fault::Raw(fixture(name)))
}

/// A client that would retry 3 times (the default) without waiting long between tries.
fn client(server: &ScriptedServer) -> ModelClient {
    ModelClient::new(ClientConfig {
        backoff: Duration::from_millis(5),
        ..ClientConfig::new(server.url())
    })
    .unwrap()
}

/// The tools strategy's old order: the task, then the screen, as two user messages.
fn two_user_messages(stream: bool) -> ChatRequest {
    let mut r = ChatRequest::new(
        "gemma-3-270m",
        vec![
            Message::system("You operate a computer."),
            Message::user("The task: type hello"),
            Message::user_with_image("The screen now.", "data:image/png;base64,iVBORw0KGgo="),
        ],
    );
    r.stream = stream;
    r
}

fn chat_collecting_retries(c: &ModelClient, req: &ChatRequest) -> (ModelError, Vec<Retry>) {
    let mut retries = Vec::new();
    let err = if req.stream {
        c.chat_stream_with(req, &mut |_| {}, &mut |r| retries.push(r.clone()))
    } else {
        c.chat_with(req, &mut |r| retries.push(r.clone()))
    }
    .unwrap_err();
    (err, retries)
}

#[test]
fn a_chat_templates_refusal_fails_at_once_with_its_message_and_the_setting() {
    let server =
        ScriptedServer::start(Script::repeat(replay("roles_must_alternate.http"))).unwrap();
    let (err, retries) = chat_collecting_retries(&client(&server), &two_user_messages(false));
    assert!(
        matches!(
            &err,
            ModelError::Refused {
                status: 500,
                kind: Refusal::Template,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 1, "a refusal is not retried");
    assert!(retries.is_empty(), "{retries:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("Conversation roles must alternate user/assistant"),
        "{msg}"
    );
    assert!(msg.contains("message_shape"), "{msg}");
    assert!(msg.contains(&server.url()), "{msg}");
    assert!(!msg.contains("is the model loaded"), "{msg}");
    assert!(!err.is_unreachable());
}

#[test]
fn a_validation_refusal_is_not_retried_either() {
    let server = ScriptedServer::start(Script::repeat(replay("tool_message.http"))).unwrap();
    let (err, retries) = chat_collecting_retries(&client(&server), &two_user_messages(false));
    assert!(
        matches!(
            &err,
            ModelError::Refused {
                kind: Refusal::Validation,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 1);
    assert!(retries.is_empty(), "{retries:?}");
    assert!(err.to_string().contains("validation errors"), "{err}");
}

#[test]
fn a_stream_ended_by_a_template_error_is_reported_as_the_refusal_not_a_crash() {
    // streamed, the server sends 200 and an empty event stream; asked again without
    // streaming, it says why
    let server = ScriptedServer::start(Script::list([
        replay("roles_must_alternate_stream.http"),
        replay("roles_must_alternate.http"),
    ]))
    .unwrap();
    let (err, retries) = chat_collecting_retries(&client(&server), &two_user_messages(true));
    assert!(
        matches!(
            &err,
            ModelError::Refused {
                kind: Refusal::Template,
                ..
            }
        ),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(!msg.contains("crashed"), "{msg}");
    assert!(msg.contains("Conversation roles must alternate"), "{msg}");
    let bodies: Vec<_> = server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .collect();
    assert_eq!(
        bodies.len(),
        2,
        "the stream, then one request without streaming"
    );
    assert_eq!(bodies[0]["stream"], true);
    assert_ne!(bodies[1]["stream"], true);
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert_eq!(retries[0].attempt, 2);
    assert!(
        retries[0].reason.contains("ended before its first event"),
        "{retries:?}"
    );
}

#[test]
fn an_overflow_on_the_image_path_is_an_overflow_with_its_numbers() {
    let server =
        ScriptedServer::start(Script::repeat(replay("prompt_exceeds_n_ctx.http"))).unwrap();
    let (err, retries) = chat_collecting_retries(&client(&server), &two_user_messages(false));
    assert!(
        matches!(
            &err,
            ModelError::ContextOverflow {
                requested: Some(5009),
                limit: Some(4096),
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(server.request_count(), 1);
    assert!(retries.is_empty(), "{retries:?}");
    assert!(
        err.to_string().contains("set context_tokens to 4096"),
        "{err}"
    );
    // streamed: the empty stream, then the whole answer's overflow
    let server = ScriptedServer::start(Script::list([
        replay("prompt_exceeds_n_ctx_stream.http"),
        replay("prompt_exceeds_n_ctx.http"),
    ]))
    .unwrap();
    let (err, _) = chat_collecting_retries(&client(&server), &two_user_messages(true));
    assert!(
        matches!(
            &err,
            ModelError::ContextOverflow {
                limit: Some(4096),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_transient_500_is_still_retried_and_a_stream_cut_by_a_dead_server_is_still_a_stream_error() {
    let server = ScriptedServer::start(Script::list([
        Step::fault(Fault::Status(500)),
        replay("roles_must_alternate.http"),
    ]))
    .unwrap();
    let (err, retries) = chat_collecting_retries(&client(&server), &two_user_messages(false));
    assert_eq!(retries.len(), 1, "the generic 500 is retried: {retries:?}");
    assert!(matches!(err, ModelError::Refused { .. }), "{err:?}");
    // an empty stream, then a server that hangs up without answering: the stream's own error
    let server = ScriptedServer::start(Script::list([
        replay("roles_must_alternate_stream.http"),
        Step::fault(Fault::DropConnection),
    ]))
    .unwrap();
    let (err, _) = chat_collecting_retries(&client(&server), &two_user_messages(true));
    assert!(matches!(err, ModelError::Stream { .. }), "{err:?}");
    assert_eq!(server.request_count(), 2);
}
