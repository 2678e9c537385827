//! The router on 127.0.0.1:0 with a session handle and no engine: the access check, the body cap, JSON
//! errors and the seq checks, over real HTTP with reqwest.

use super::{BODY_LIMIT, PanelState, app, new_token};
use franz_core::engine::{EngineStandin, Modes};
use reqwest::StatusCode;
use std::sync::Arc;
use std::time::Duration;

struct Server {
    base: String,
    token: String,
    state: Arc<PanelState>,
    /// What the engine would wait for and take: no engine runs.
    engine: EngineStandin,
}

fn serve(annotate: bool, approve: bool) -> Server {
    let (remote, engine) = EngineStandin::new(Modes {
        annotate,
        approve,
        ..Modes::default()
    });
    let token = new_token();
    let state = PanelState::new(token.clone(), remote, serde_json::json!({"capture": {}}));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = app(state.clone(), false);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(l, router).await.unwrap();
        });
    });
    Server {
        base,
        token,
        state,
        engine,
    }
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

impl Server {
    fn url(&self, path: &str) -> String {
        format!("{}{path}?token={}", self.base, self.token)
    }
    fn post(&self, path: &str, body: &str) -> (StatusCode, String) {
        let r = client()
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap();
        (r.status(), r.text().unwrap())
    }
}

#[test]
fn every_endpoint_needs_the_token() {
    let s = serve(false, false);
    let c = client();
    for path in ["/", "/config", "/state", "/events", "/screenshot"] {
        let r = c.get(format!("{}{path}", s.base)).send().unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path}");
        let r = c
            .get(format!("{}{path}?token=wrong{}", s.base, s.token))
            .send()
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    for path in ["/inject", "/annotated", "/control", "/approve"] {
        let r = c
            .post(format!("{}{path}", s.base))
            .body(r#"{"command":"stop"}"#)
            .send()
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    assert_eq!(
        s.engine.gate(Duration::ZERO),
        franz_core::engine::Gate::Go,
        "nothing got through"
    );
    // the bearer header works as well as the query
    let r = c
        .get(format!("{}/state", s.base))
        .bearer_auth(&s.token)
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let page = c.get(s.url("/")).send().unwrap().text().unwrap();
    assert!(page.contains("franz panel"));
}

#[test]
fn other_origins_are_refused() {
    let s = serve(false, false);
    let r = client()
        .post(s.url("/control"))
        .header("origin", "http://evil.example")
        .header("content-type", "application/json")
        .body(r#"{"command":"pause"}"#)
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert!(!s.state.session.is_paused());
    let own = s.base.clone();
    let r = client()
        .post(s.url("/control"))
        .header("origin", own)
        .header("content-type", "application/json")
        .body(r#"{"command":"pause"}"#)
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(s.state.session.is_paused());
}

#[test]
fn another_host_is_refused_and_no_response_sends_a_referrer() {
    let s = serve(false, false);
    // DNS rebinding: evil.example resolves to 127.0.0.1, and its page knows the token
    let port = s.base.rsplit(':').next().unwrap().to_string();
    for host in [
        format!("evil.example:{port}"),
        "evil.example".into(),
        String::new(),
    ] {
        let r = client()
            .post(s.url("/control"))
            .header("host", host.clone())
            .header("content-type", "application/json")
            .body(r#"{"command":"pause"}"#)
            .send()
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{host:?}");
        assert_eq!(r.headers()["referrer-policy"], "no-referrer");
    }
    assert!(!s.state.session.is_paused());
    for host in [format!("localhost:{port}"), format!("[::1]:{port}")] {
        let r = client()
            .get(s.url("/state"))
            .header("host", host.clone())
            .send()
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{host}");
        assert_eq!(r.headers()["referrer-policy"], "no-referrer");
        assert_eq!(r.headers()["cache-control"], "no-store");
    }
    for path in ["/", "/config", "/screenshot?seq=1&x=1", "/nowhere"] {
        let r = client().get(s.url(path)).send().unwrap();
        assert_eq!(r.headers()["referrer-policy"], "no-referrer", "{path}");
    }
    let r = client().get(format!("{}/state", s.base)).send().unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(r.headers()["referrer-policy"], "no-referrer");
}

/// Reads `want` model replies from an event stream on its own thread, counting them into
/// `progress` as they come; returns how many it read.
fn read_replies(
    reading: reqwest::blocking::Response,
    want: usize,
    progress: Arc<std::sync::atomic::AtomicUsize>,
) -> std::thread::JoinHandle<usize> {
    use std::io::Read;
    std::thread::spawn(move || {
        let needle = b"\"model_reply\"";
        let (mut seen, mut body) = (0, reading);
        let mut buf = vec![0u8; 1 << 16];
        let mut tail: Vec<u8> = Vec::new();
        while seen < want {
            let n = body.read(&mut buf).unwrap();
            assert!(n > 0, "the reading client was cut off after {seen} replies");
            tail.extend_from_slice(&buf[..n]);
            seen += tail.windows(needle.len()).filter(|w| w == needle).count();
            progress.store(seen, std::sync::atomic::Ordering::Relaxed);
            // what is kept cannot hold a whole needle again
            tail.drain(..tail.len().saturating_sub(needle.len() - 1));
        }
        seen
    })
}

#[test]
fn a_client_that_never_reads_events_is_dropped_and_memory_stays_bounded() {
    const REPLIES: usize = 40;
    use franz_core::event::{Event, EventKind};
    use std::io::Write;
    let s = serve(false, false);
    // a client that asks for /events and then never reads
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut slow = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        slow,
        "GET /events?token={} HTTP/1.1\r\nHost: {addr}\r\n\r\n",
        s.token
    )
    .unwrap();
    // and one that reads everything
    let reading = client().get(s.url("/events")).send().unwrap();
    assert_eq!(reading.status(), StatusCode::OK);
    // how many replies the reading client has read: the events are sent no faster than it
    // reads (at most 2 MB ahead), so that it keeps up however loaded the machine is
    let progress = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let read_so_far = progress.clone();
    let reader = read_replies(reading, REPLIES, read_so_far);
    let subscribed = std::time::Instant::now();
    while s.state.events.clients() < 2 {
        assert!(
            subscribed.elapsed() < Duration::from_secs(30),
            "no second client"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // 40 MB in all: past what the kernel's socket buffers and the bound can hold
    let big = "x".repeat(1 << 20);
    for turn in 1..=REPLIES as u32 {
        let reply = EventKind::ModelReply {
            ms: 1.0,
            text: big.clone(),
            story: None,
            actions: vec![],
            bboxes: vec![],
            prompt_tokens: None,
            completion_tokens: None,
        };
        s.state.record(&Event::now(turn, reply));
        let sent = std::time::Instant::now();
        while progress.load(std::sync::atomic::Ordering::Relaxed) + 2 < turn as usize
            && !reader.is_finished()
        {
            assert!(
                sent.elapsed() < Duration::from_secs(60),
                "the reading client read nothing for 60 s"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    assert!(
        reader.join().unwrap() >= REPLIES,
        "the reading client got every reply"
    );
    assert_eq!(
        s.state.events.dropped(),
        1,
        "the client that never read was dropped"
    );
    let bound = super::fanout::CLIENT_BYTES + big.len() + 1024;
    let peak = s.state.events.peak_bytes();
    assert!(peak <= bound, "{peak} bytes queued for one client");
    drop(slow);
}

#[test]
fn oversized_bodies_get_413_and_malformed_json_400() {
    let s = serve(false, false);
    let big = format!(r#"{{"vlm_text": "{}"}}"#, "a".repeat(BODY_LIMIT + 1));
    let (status, _) = s.post("/inject", &big);
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(s.engine.injected_reply(), None);
    let (status, body) = s.post("/inject", r#"{"vlm_text": "#);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("malformed JSON"), "{body}");
    let (status, body) = s.post("/control", r#"{"command": "explode"}"#);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("unknown command"), "{body}");
    let (status, _) = s.post("/inject", r#"{"vlm_text": "done(\"ok\")"}"#);
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.engine.injected_reply().as_deref(), Some("done(\"ok\")"));
}

#[test]
fn a_wrong_seq_gets_409_and_the_engine_keeps_waiting() {
    let s = serve(true, true);
    let b64 =
        |bytes: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes);
    let broken = b64(b"\x89PNG\r\n\x1a\nrest");
    let (status, msg) = s.post(
        "/annotated",
        &format!(r#"{{"seq": 4, "image_b64": "{broken}"}}"#),
    );
    assert_eq!(status, StatusCode::BAD_REQUEST, "{msg}");
    assert!(msg.contains("not a readable PNG"), "{msg}");
    let mut encoded = Vec::new();
    image::RgbaImage::new(2, 2)
        .write_to(
            &mut std::io::Cursor::new(&mut encoded),
            image::ImageFormat::Png,
        )
        .unwrap();
    let png = b64(&encoded);
    let body = |seq: u32| format!(r#"{{"seq": {seq}, "image_b64": "{png}"}}"#);
    assert_eq!(
        s.post("/annotated", &body(1)).0,
        StatusCode::CONFLICT,
        "nothing waits"
    );
    assert_eq!(s.engine.annotation(4, Duration::ZERO), None);
    let (status, msg) = s.post("/annotated", &body(3));
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(msg.contains("seq 4"), "{msg}");
    assert_eq!(
        s.engine.annotation(4, Duration::ZERO),
        None,
        "still waiting"
    );
    let v: serde_json::Value = client()
        .get(s.url("/state"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(v["pending_seq"], 4);
    assert_eq!(s.post("/annotated", &body(4)).0, StatusCode::OK);
    assert!(s.engine.annotation(4, Duration::ZERO).is_some());

    assert_eq!(s.engine.decision(2, Duration::ZERO), None);
    let (status, _) = s.post("/approve", r#"{"seq": 1, "decision": "approve"}"#);
    assert_eq!(status, StatusCode::CONFLICT);
    let (status, _) = s.post(
        "/approve",
        r#"{"seq": 2, "decision": "reject", "reason": "not now"}"#,
    );
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        s.engine.decision(2, Duration::ZERO),
        Some(franz_core::engine::Decision::Reject("not now".into()))
    );
}

#[test]
fn a_stream_delta_goes_out_on_events_and_leaves_the_state_alone() {
    use franz_core::event::{Event, EventKind};
    let s = serve(false, false);
    let rx = s.state.events.subscribe();
    let before = s.state.view().msg_id;
    let delta = EventKind::ModelDelta {
        text: "I see a".into(),
    };
    s.state.record(&Event::now(1, delta));
    let line = rx.try_recv().unwrap();
    assert!(
        line.contains("\"model_delta\"") && line.contains("I see a"),
        "{line}"
    );
    assert_eq!(s.state.view().msg_id, before, "/state did not change");
    // /answer with nothing asked: 409
    let (status, _) = s.post("/answer", r#"{"text": "blue"}"#);
    assert_eq!(status, StatusCode::CONFLICT);
}

#[test]
fn the_screenshot_needs_a_known_seq_and_state_carries_no_image() {
    let s = serve(false, false);
    let r = client()
        .get(format!("{}/screenshot?seq=1&token={}", s.base, s.token))
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(r.text().unwrap().contains("the latest is none yet"));
    for query in ["", "seq=x&"] {
        let r = client()
            .get(format!("{}/screenshot?{query}token={}", s.base, s.token))
            .send()
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{query}");
        assert!(r.text().unwrap().contains("/screenshot?seq=N"));
    }
    let v: serde_json::Value = client()
        .get(s.url("/state"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(v.get("raw_b64").is_none(), "{v}");
    assert_eq!(v["image_seq"], 0);
}

#[test]
fn a_loop_detected_event_shows_in_the_state() {
    use franz_core::event::{Event, EventKind};
    let s = serve(false, false);
    assert_eq!(s.state.view().loop_detected, None);
    let kind = EventKind::LoopDetected {
        action: r#"{"type":"click","x":400,"y":408}"#.into(),
        turns: vec![1, 2, 3, 4, 5],
        repeats: 5,
        stop: true,
    };
    s.state.record(&Event::now(6, kind));
    let shown = s.state.view().loop_detected.unwrap();
    assert!(
        shown.contains("click") && shown.contains("[1, 2, 3, 4, 5]") && shown.contains("stopped"),
        "{shown}"
    );
}

#[test]
fn what_the_page_posts_reaches_the_engine_as_the_intended_op() {
    use franz_core::engine::{Decision, Gate};
    let s = serve(true, true);
    let ok = |path: &str, body: &str| {
        let (status, msg) = s.post(path, body);
        assert_eq!(status, StatusCode::OK, "{path} {body}: {msg}");
    };
    ok("/inject", r#"{"vlm_text": "click(1, 2)"}"#);
    assert_eq!(s.engine.injected_reply().as_deref(), Some("click(1, 2)"));
    ok("/control", r#"{"command": "pause"}"#);
    assert_eq!(s.engine.gate(Duration::ZERO), Gate::Paused);
    ok("/control", r#"{"command": "step"}"#);
    assert_eq!(s.engine.gate(Duration::ZERO), Gate::Go, "one step");
    assert_eq!(s.engine.gate(Duration::ZERO), Gate::Paused);
    ok("/control", r#"{"command": "resume"}"#);
    assert_eq!(s.engine.gate(Duration::ZERO), Gate::Go);
    assert_eq!(s.engine.decision(3, Duration::ZERO), None);
    ok("/approve", r#"{"seq": 3, "decision": "approve"}"#);
    assert_eq!(
        s.engine.decision(3, Duration::ZERO),
        Some(Decision::Approve)
    );
    assert_eq!(s.engine.decision(4, Duration::ZERO), None);
    ok(
        "/approve",
        r#"{"seq": 4, "decision": "reject", "reason": ""}"#,
    );
    assert_eq!(
        s.engine.decision(4, Duration::ZERO),
        Some(Decision::Reject("no reason given".into()))
    );
    ok("/control", r#"{"command": "stop"}"#);
    assert_eq!(
        s.engine.gate(Duration::ZERO),
        Gate::Stop("stopped from the panel".into())
    );
    assert!(s.state.session.cancel_token().is_cancelled());
}

/// The decisions the engine takes are the panel's too: a replacement reply (`replace`, as the
/// terminal approver's `e`) was refused as an unknown decision.
#[test]
fn the_panel_can_replace_the_reply_it_approves() {
    let s = serve(false, true);
    assert_eq!(s.engine.decision(2, Duration::ZERO), None);
    let (status, msg) = s.post(
        "/approve",
        r#"{"seq": 2, "decision": "replace", "reply": "done(\"edited\")"}"#,
    );
    assert_eq!(status, StatusCode::OK, "{msg}");
    assert_eq!(
        s.engine.decision(2, Duration::ZERO),
        Some(franz_core::engine::Decision::Replace(
            "done(\"edited\")".into()
        ))
    );
}

/// A misspelt field was dropped without a word: `reson` rejected with "no reason given".
#[test]
fn a_misspelt_field_is_refused_naming_the_fields_accepted() {
    let s = serve(true, true);
    assert_eq!(s.engine.decision(2, Duration::ZERO), None);
    let (status, msg) = s.post(
        "/approve",
        r#"{"seq": 2, "decision": "reject", "reson": "wrong window"}"#,
    );
    assert_eq!(status, StatusCode::BAD_REQUEST, "{msg}");
    assert!(
        msg.contains("unknown field `reson`") && msg.contains("`reason`"),
        "{msg}"
    );
    assert_eq!(
        s.engine.decision(2, Duration::ZERO),
        None,
        "no decision was made"
    );
    let (status, msg) = s.post("/approve", r#"{"seq": 2, "decision": "maybe"}"#);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(msg.contains("`approve`, `reject`, `replace`"), "{msg}");
    let (status, msg) = s.post("/control", r#"{"command": "pause", "for": 10}"#);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(msg.contains("unknown field `for`"), "{msg}");
    assert!(!s.state.session.is_paused());
}

#[test]
fn a_grounded_event_shows_in_the_state() {
    use franz_core::event::{Event, EventKind};
    let s = serve(false, false);
    assert_eq!(s.state.view().grounded, None);
    let kind = EventKind::sample_grounded();
    s.state.record(&Event::now(2, kind));
    let shown = s.state.view().grounded.unwrap();
    assert!(
        shown.contains("the Save button")
            && shown.contains("gta1-7b")
            && shown.contains("(954, 534)"),
        "{shown}"
    );
}
