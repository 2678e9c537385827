//! The model client against the scripted server over real HTTP on 127.0.0.1: streaming and
//! whole replies agree, retries, timeouts, refused connections, cut streams, argument forms,
//! errors that name the URL, the API key, `GET /models`; a cancel that drops the request and
//! closes its connection.

use franz_core::cancel::Cancel;
use franz_core::model::{
    ChatRequest, ClientConfig, Fault, Message, Model, ModelClient, ModelError, Progress, Reply,
    Script, ScriptedReply, ScriptedServer, ServerOptions, Step, Tool, ToolChoice,
};
use franz_core::parser::{self, ParseOptions};
use serde_json::json;
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn config(url: &str) -> ClientConfig {
    ClientConfig {
        api_url: url.to_string(),
        api_key: None,
        connect_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(30),
        retries: 2,
        backoff: Duration::from_millis(5),
        max_response_bytes: franz_core::model::DEFAULT_MAX_RESPONSE_BYTES,
    }
}

fn client(server: &ScriptedServer) -> ModelClient {
    ModelClient::new(config(&server.url())).unwrap()
}

fn request(stream: bool) -> ChatRequest {
    let mut r = ChatRequest::new(
        "test-model",
        vec![
            Message::system("You drive a computer."),
            Message::user_with_image("What next?", "data:image/png;base64,iVBORw0KGgo="),
        ],
    );
    r.stream = stream;
    r
}

/// A reply with prose, reasoning and two tool calls.
fn rich_reply() -> ScriptedReply {
    ScriptedReply::text("I will open the file menu and type the name.")
        .reasoning("The menu is at the top left.")
        .tool_call(
            "click_element",
            json!({"label": "File", "box": [10, 20, 30, 40]}),
        )
        .tool_call("type_text", json!({"text": "report \"final\".txt"}))
}

fn actions(reply: &franz_core::model::Reply) -> serde_json::Value {
    let parsed = parser::parse_reply(reply, &ParseOptions::default());
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    serde_json::to_value(&parsed.actions).unwrap()
}

#[test]
fn streaming_and_whole_replies_give_identical_actions() {
    let server = ScriptedServer::start_with(
        Script::repeat(rich_reply()),
        ServerOptions {
            tokens_per_second: Some(5000.0),
            ..ServerOptions::default()
        },
    )
    .unwrap();
    let c = client(&server);
    let whole = c.chat(&request(false)).unwrap();
    let mut pieces = Vec::new();
    let streamed = c
        .chat_stream(&request(false), &mut |t| pieces.push(t.to_string()))
        .unwrap();
    assert!(pieces.len() > 3, "content arrived in pieces: {pieces:?}");
    assert_eq!(pieces.concat(), streamed.content);
    assert_eq!(whole.content, streamed.content);
    assert_eq!(whole.reasoning, streamed.reasoning);
    assert_eq!(whole.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(streamed.finish_reason.as_deref(), Some("tool_calls"));
    assert!(streamed.usage.is_some(), "the final usage chunk is kept");
    let a = actions(&whole);
    assert_eq!(a, actions(&streamed));
    assert_eq!(
        a,
        json!([{"type": "click", "x": 20, "y": 30, "note": "File"},
               {"type": "type", "text": "report \"final\".txt"}])
    );
    // what was sent
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    let body0 = reqs[0].json.as_ref().unwrap();
    assert_eq!(body0["model"], "test-model");
    assert_eq!(
        body0["messages"][1]["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgo="
    );
    assert!(body0.get("stream").is_none());
    assert!(reqs[1].wants_stream());
    assert_eq!(
        reqs[1].json.as_ref().unwrap()["stream_options"]["include_usage"],
        true
    );
}

#[test]
fn arguments_as_object_and_as_string_both_work() {
    let text_args = ScriptedReply::default().tool_call(
        "computer_use",
        json!({"action": "left_click", "coordinate": [640, 360]}),
    );
    let server = ScriptedServer::start(Script::list([
        text_args.clone(),
        text_args.clone().args_as_object(),
        text_args.clone(),
        text_args.args_as_object(),
    ]))
    .unwrap();
    let c = client(&server);
    let want = json!([{"type": "click", "x": 640, "y": 360}]);
    for stream in [false, false, true, true] {
        let r = c.chat(&request(stream)).unwrap();
        assert_eq!(actions(&r), want, "stream={stream}: {r:?}");
    }
    assert_eq!(server.request_count(), 4);
}

#[test]
fn a_500_then_success_is_retried() {
    let server = ScriptedServer::start(Script::list([
        Step::fault(Fault::Status(500)),
        Step::fault(Fault::RateLimited),
        ScriptedReply::text("left_click(1, 2)").into(),
    ]))
    .unwrap();
    let r = client(&server).chat(&request(false)).unwrap();
    assert_eq!(r.content, "left_click(1, 2)");
    assert_eq!(server.request_count(), 3);
}

#[test]
fn retries_are_bounded_and_the_last_status_is_reported() {
    let server = ScriptedServer::start(Script::repeat(Step::fault(Fault::Status(503)))).unwrap();
    let err = client(&server).chat(&request(false)).unwrap_err();
    assert_eq!(server.request_count(), 3, "1 attempt + 2 retries");
    assert_eq!(err.status(), Some(503));
    assert!(!err.is_unreachable());
    let msg = err.to_string();
    assert!(
        msg.contains(&server.url()) && msg.contains("503") && msg.contains("3 attempts"),
        "{msg}"
    );
}

#[test]
fn a_dropped_connection_is_retried_then_reported_as_unreachable() {
    let server = ScriptedServer::start(Script::list([
        Step::fault(Fault::DropConnection),
        ScriptedReply::text("ok").into(),
    ]))
    .unwrap();
    assert_eq!(client(&server).chat(&request(false)).unwrap().content, "ok");
    assert_eq!(server.request_count(), 2);

    let server = ScriptedServer::start(Script::repeat(Step::fault(Fault::DropConnection))).unwrap();
    let err = client(&server).chat(&request(false)).unwrap_err();
    assert!(err.is_unreachable(), "{err:?}");
    assert_eq!(server.request_count(), 3);
}

#[test]
fn the_timeout_fires() {
    let server = ScriptedServer::start(Script::repeat(
        Step::from(ScriptedReply::text("too late")).delayed(Duration::from_secs(20)),
    ))
    .unwrap();
    let mut cfg = config(&server.url());
    cfg.timeout = Duration::from_millis(300);
    let c = ModelClient::new(cfg).unwrap();
    for stream in [false, true] {
        let err = c.chat(&request(stream)).unwrap_err();
        assert!(
            matches!(err, ModelError::Timeout { .. }),
            "stream={stream}: {err:?}"
        );
        assert!(err.to_string().contains("--timeout"), "{err}");
    }
    // timeouts are not retried: one request each
    assert_eq!(server.request_count(), 2);
}

#[test]
fn the_timeout_covers_a_slow_stream() {
    let long = "word ".repeat(200);
    let server = ScriptedServer::start_with(
        Script::repeat(ScriptedReply::text(long)),
        ServerOptions {
            tokens_per_second: Some(20.0),
            ..ServerOptions::default()
        },
    )
    .unwrap();
    let mut cfg = config(&server.url());
    cfg.timeout = Duration::from_millis(400);
    let mut got = 0;
    let err = ModelClient::new(cfg)
        .unwrap()
        .chat_stream(&request(true), &mut |_| got += 1)
        .unwrap_err();
    assert!(matches!(err, ModelError::Timeout { .. }), "{err:?}");
    assert!(got > 0, "some tokens arrived before the deadline");
}

#[test]
fn connection_refused_gives_the_clear_message() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let mut cfg = config(&url);
    cfg.retries = 1;
    let err = ModelClient::new(cfg)
        .unwrap()
        .chat(&request(false))
        .unwrap_err();
    assert!(err.is_unreachable());
    assert_eq!(
        err.to_string(),
        format!(
            "no model server at {url} (connection refused): start your model server (e.g. LM Studio's local server) or pass --api-url"
        )
    );
    assert!(
        matches!(err, ModelError::Unreachable { attempts: 2, .. }),
        "{err:?}"
    );
}

#[test]
fn a_stream_cut_midway_is_an_error_not_a_hang() {
    let server = ScriptedServer::start(Script::repeat(Step {
        fault: Some(Fault::TruncateStream { after_events: 4 }),
        ..Step::from(rich_reply())
    }))
    .unwrap();
    let c = client(&server);
    for stream in [true, false] {
        let err = c.chat(&request(stream)).unwrap_err();
        assert!(
            matches!(err, ModelError::Stream { .. }),
            "stream={stream}: {err:?}"
        );
        assert!(err.to_string().contains(&server.url()), "{err}");
    }
}

#[test]
fn a_body_that_is_not_json_is_named() {
    let server = ScriptedServer::start(Script::repeat(Step::fault(Fault::InvalidJson))).unwrap();
    let c = client(&server);
    let err = c.chat(&request(false)).unwrap_err();
    assert!(matches!(err, ModelError::NotJson { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains(&format!("{}/chat/completions", server.url())),
        "{err}"
    );
    let err = c.chat(&request(true)).unwrap_err();
    assert!(err.to_string().contains("not JSON"), "{err}");
}

#[test]
fn status_errors_say_what_to_do() {
    for (code, hint) in [
        (404, "--model"),
        (401, "FRANZ_API_KEY"),
        (400, "rejected the request"),
    ] {
        let server =
            ScriptedServer::start(Script::repeat(Step::fault(Fault::Status(code)))).unwrap();
        let err = client(&server).chat(&request(false)).unwrap_err();
        assert_eq!(err.status(), Some(code));
        assert_eq!(server.request_count(), 1, "{code} is not retried");
        let msg = err.to_string();
        assert!(
            msg.contains(hint) && msg.contains(&server.url()),
            "{code}: {msg}"
        );
    }
}

#[test]
fn the_api_key_is_sent_but_never_shown() {
    let server = ScriptedServer::start(Script::repeat(Step::fault(Fault::Status(401)))).unwrap();
    let mut cfg = config(&format!("{}/chat/completions/", server.url()));
    cfg.api_key = Some("sk-secret-123".into());
    assert!(!format!("{cfg:?}").contains("sk-secret-123"));
    let c = ModelClient::new(cfg).unwrap();
    assert!(!format!("{c:?}").contains("sk-secret-123"));
    let err = c.chat(&request(false)).unwrap_err();
    assert!(!err.to_string().contains("sk-secret-123"));
    assert!(err.to_string().contains("refused the API key"), "{err}");
    let reqs = server.requests();
    assert_eq!(
        reqs[0].header("authorization"),
        Some("Bearer sk-secret-123")
    );
    assert_eq!(
        reqs[0].path, "/v1/chat/completions",
        "the full endpoint form works"
    );
}

#[test]
fn models_are_listed() {
    let server = ScriptedServer::start_with(
        Script::list(Vec::<Step>::new()),
        ServerOptions {
            models: vec!["qwen3-vl-8b".into(), "ui-tars-1.5-7b".into()],
            ..ServerOptions::default()
        },
    )
    .unwrap();
    let c = client(&server);
    assert_eq!(c.list_models().unwrap(), ["qwen3-vl-8b", "ui-tars-1.5-7b"]);
    assert_eq!(server.requests()[0].method, "GET");
    // an exhausted script answers 500 (retried, then reported)
    let err = c.chat(&request(false)).unwrap_err();
    assert_eq!(err.status(), Some(500));
}

#[test]
fn tools_and_tool_choice_are_sent_and_a_function_script_sees_the_request() {
    let server = ScriptedServer::start(Script::func(|req| {
        let n = req
            .json
            .as_ref()
            .map_or(0, |j| j["tools"].as_array().map_or(0, Vec::len));
        ScriptedReply::text(format!("{n} tools")).into()
    }))
    .unwrap();
    let mut req = request(false);
    req.tools = vec![Tool::function(
        "observe_screen",
        "Take a screenshot",
        json!({"type": "object", "properties": {}}),
    )];
    req.tool_choice = Some(ToolChoice::required());
    req.temperature = Some(0.5);
    req.max_tokens = Some(64);
    let r = client(&server).chat(&req).unwrap();
    assert_eq!(r.content, "1 tools");
    assert!(server.wait_for_requests(1, Duration::from_secs(5)));
    let body = server.requests()[0].json.clone().unwrap();
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(body["tools"][0]["function"]["name"], "observe_screen");
    assert_eq!(body["max_tokens"], 64);
}

#[test]
fn bad_urls_are_configuration_errors() {
    for url in ["localhost:1234/v1", "ftp://x/v1", "http://"] {
        let err = ModelClient::new(config(url)).unwrap_err();
        assert!(matches!(err, ModelError::BadUrl { .. }), "{url}: {err:?}");
        assert!(err.to_string().contains("--api-url"));
    }
}

#[test]
fn the_server_waits_with_a_timeout_and_stops_on_drop() {
    let server = ScriptedServer::start(Script::repeat(
        Step::from(ScriptedReply::text("slow")).delayed(Duration::from_secs(60)),
    ))
    .unwrap();
    assert!(!server.wait_for_requests(1, Duration::from_millis(50)));
    let url = server.url();
    // a request in flight while the server is dropped
    let handle = std::thread::spawn(move || {
        ModelClient::new(config(&url))
            .unwrap()
            .chat(&request(false))
    });
    assert!(server.wait_for_requests(1, Duration::from_secs(10)));
    let addr = server.addr();
    drop(server);
    assert!(std::net::TcpStream::connect(addr).is_err(), "stopped");
    // the delayed reply was abandoned: the client sees a dropped connection, not a hang
    assert!(handle.join().unwrap().is_err());
}

#[test]
fn each_retry_is_reported_with_its_number_and_reason() {
    let server = ScriptedServer::start(Script::list([
        Step::fault(Fault::Status(503)),
        Step::fault(Fault::DropConnection),
        ScriptedReply::text("left_click(1, 2)").into(),
    ]))
    .unwrap();
    let mut retries = Vec::new();
    let r = client(&server)
        .chat_with(&request(false), &mut |r| retries.push(r.clone()))
        .unwrap();
    assert_eq!(r.content, "left_click(1, 2)");
    let attempts: Vec<u32> = retries.iter().map(|r| r.attempt).collect();
    assert_eq!(attempts, [2, 3], "{retries:?}");
    let first = &retries[0].reason;
    assert!(
        first.contains("HTTP 503")
            && first.contains("scripted fault")
            && first.contains("retrying in"),
        "{retries:?}"
    );
    assert!(
        retries[1].reason.contains("dropped the connection"),
        "{retries:?}"
    );
}

#[test]
fn a_streamed_request_reports_its_retries_too() {
    let server = ScriptedServer::start(Script::list([
        Step::fault(Fault::RateLimited),
        ScriptedReply::text("ok").into(),
    ]))
    .unwrap();
    let mut retries = Vec::new();
    let r = client(&server)
        .chat_stream_with(&request(true), &mut |_| {}, &mut |r| {
            retries.push(r.clone())
        })
        .unwrap();
    assert_eq!(r.content, "ok");
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert_eq!(retries[0].attempt, 2);
    assert!(retries[0].reason.contains("HTTP 429"), "{retries:?}");
}

#[test]
fn a_reply_over_max_response_bytes_is_refused_and_names_the_setting() {
    let big = ScriptedReply::text("x".repeat(20_000));
    let server = ScriptedServer::start(Script::repeat(big)).unwrap();
    let mut cfg = config(&server.url());
    cfg.max_response_bytes = 4096;
    let c = ModelClient::new(cfg).unwrap();
    for stream in [false, true] {
        let err = c.chat(&request(stream)).unwrap_err();
        assert!(
            matches!(err, ModelError::TooLarge { limit: 4096, .. }),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("max_response_bytes") && msg.contains(&server.url()),
            "{msg}"
        );
    }
    assert_eq!(server.request_count(), 2, "a body too large is not retried");
    // the default cap reads it
    let c = client(&server);
    assert_eq!(c.chat(&request(false)).unwrap().content.len(), 20_000);
    assert_eq!(c.chat(&request(true)).unwrap().content.len(), 20_000);
}

/// A [`Model::complete`] call on its own thread. The progress it reports and then its result
/// (with the moment it returned) come back on the channel.
fn complete_in_thread(
    c: ModelClient,
    req: ChatRequest,
    cancel: &Cancel,
) -> mpsc::Receiver<Result<Result<Reply, ModelError>, String>> {
    let (tx, rx) = mpsc::channel();
    let cancel = cancel.clone();
    std::thread::spawn(move || {
        let progress = tx.clone();
        let result = c.complete(&req, &cancel, &mut |p| {
            if let Progress::Delta(d) = p {
                let _ = progress.send(Err(d.to_string()));
            }
        });
        let _ = tx.send(Ok(result));
    });
    rx
}

/// Cancels `cancel`, then asserts that the call behind `rx` returned `Cancelled` at once and
/// that the server saw the connection of request 0 closed within 2 s.
fn cancel_and_expect_the_connection_closed(
    server: &ScriptedServer,
    cancel: &Cancel,
    rx: &mpsc::Receiver<Result<Result<Reply, ModelError>, String>>,
) {
    // the client holds the connection open while the server is silent: only the cancel ends it
    assert_eq!(
        server.wait_for_hangup(0, Duration::from_millis(300)),
        None,
        "the client hung up before the cancel"
    );
    let at = Instant::now();
    cancel.cancel();
    let result = loop {
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(Ok(result)) => break result,
            Ok(Err(_delta)) => {}
            Err(e) => panic!("complete did not return after the cancel: {e}"),
        }
    };
    let returned = at.elapsed();
    assert!(matches!(result, Err(ModelError::Cancelled)), "{result:?}");
    assert!(
        returned < Duration::from_millis(500),
        "complete returned {returned:?} after the cancel"
    );
    let closed = server.wait_for_hangup(0, Duration::from_secs(2));
    let closed = closed.unwrap_or_else(|| {
        panic!("the server did not see the connection closed within 2 s of the cancel")
    });
    assert!(closed >= at, "the connection was open until the cancel");
}

/// A timeout far beyond the test's 2 s, so only the cancel can close the connection.
fn patient_client(server: &ScriptedServer) -> ModelClient {
    let mut cfg = config(&server.url());
    cfg.timeout = Duration::from_secs(60);
    ModelClient::new(cfg).unwrap()
}

#[test]
fn a_cancel_closes_the_connection_of_a_request_the_server_never_answers() {
    let server = ScriptedServer::start(Script::repeat(Step::fault(Fault::Hang))).unwrap();
    let cancel = Cancel::new();
    let rx = complete_in_thread(patient_client(&server), request(false), &cancel);
    assert!(server.wait_for_requests(1, Duration::from_secs(10)));
    cancel_and_expect_the_connection_closed(&server, &cancel, &rx);
    assert_eq!(server.request_count(), 1, "a cancel is not retried");
}

#[test]
fn a_cancel_closes_the_connection_of_a_stream_that_stalls_midway() {
    let server = ScriptedServer::start(Script::repeat(Step {
        // the role, then two words of content, then nothing
        fault: Some(Fault::StallStream { after_events: 3 }),
        ..Step::from(ScriptedReply::text("one two three four five six"))
    }))
    .unwrap();
    let cancel = Cancel::new();
    let rx = complete_in_thread(patient_client(&server), request(true), &cancel);
    // the stream is under way: all that was sent arrived, then nothing more comes
    let mut text = String::new();
    while text != "one two " {
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Err(delta)) => text.push_str(&delta),
            other => panic!("expected the deltas \"one two \" first, got {text:?} then {other:?}"),
        }
    }
    cancel_and_expect_the_connection_closed(&server, &cancel, &rx);
}

#[test]
fn a_cancel_during_a_retry_backoff_ends_the_call_at_once() {
    let server = ScriptedServer::start(Script::repeat(Step::fault(Fault::Status(503)))).unwrap();
    let mut cfg = config(&server.url());
    cfg.backoff = Duration::from_secs(60);
    let cancel = Cancel::new();
    let rx = complete_in_thread(ModelClient::new(cfg).unwrap(), request(false), &cancel);
    assert!(server.wait_for_requests(1, Duration::from_secs(10)));
    let at = Instant::now();
    cancel.cancel();
    let result = rx.recv_timeout(Duration::from_secs(5)).unwrap().unwrap();
    assert!(matches!(result, Err(ModelError::Cancelled)), "{result:?}");
    assert!(
        at.elapsed() < Duration::from_millis(500),
        "{:?}",
        at.elapsed()
    );
    assert_eq!(server.request_count(), 1, "no retry after the cancel");
}

#[test]
fn a_cancelled_token_sends_nothing() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("ok"))).unwrap();
    let cancel = Cancel::new();
    cancel.cancel();
    let c = client(&server);
    let result = c.complete(&request(false), &cancel, &mut |_| {});
    assert!(matches!(result, Err(ModelError::Cancelled)), "{result:?}");
    // the same client answers a call with a fresh token
    let r = c.complete(&request(true), &Cancel::new(), &mut |_| {});
    assert_eq!(r.unwrap().content, "ok");
    assert_eq!(server.request_count(), 1);
}

#[test]
fn an_api_key_with_a_line_break_is_named_as_the_problem_not_a_missing_server() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("click(1, 2)"))).unwrap();
    let cfg = ClientConfig {
        api_key: Some("sk-secret\nrest".into()),
        ..config(&server.url())
    };
    let Err(err) = ModelClient::new(cfg) else {
        panic!("a key with a line break was accepted");
    };
    let msg = err.to_string();
    assert!(matches!(err, ModelError::BadHeader { .. }), "{err:?}");
    assert!(!err.is_unreachable(), "{msg}");
    assert!(
        msg.contains("API key") && msg.contains("line break (character 10"),
        "{msg}"
    );
    assert!(!msg.contains("start your model server"), "{msg}");
    assert!(!msg.contains("sk-secret"), "the key stays secret: {msg}");
    assert_eq!(server.request_count(), 0, "nothing was sent");
}
