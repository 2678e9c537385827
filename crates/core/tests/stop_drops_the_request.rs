//! A session stopped during a model call over real HTTP (the scripted server, a fake desktop,
//! no X): `run_finished` follows `Op::Stop` at once, and the server sees the request's
//! connection closed within 2 s, whether it never answered or its stream stalled midway. The
//! request is dropped, not left running on a thread until the timeout.

use franz_core::agent::Agent;
use franz_core::config::Settings;
use franz_core::engine::Op;
use franz_core::event::{EventKind, Outcome};
use franz_core::executor::ExecConfig;
use franz_core::model::{
    ClientConfig, Fault, ModelClient, Script, ScriptedReply, ScriptedServer, Step,
};
use franz_core::observe::ObserveConfig;
use franz_core::strategy::{ReadOptions, StrategyName};
use franz_desktop::fake::FakeDesktop;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Starts a one-turn session against `server`, stops it once the server holds its request,
/// and checks the stop, the outcome and the closed connection.
fn stop_during_the_model_call(server: &ScriptedServer, stream: bool) {
    let desktop = Box::new(FakeDesktop::new(640, 480));
    let mut client = ClientConfig::new(server.url());
    client.api_key = None;
    // far beyond the test's deadlines: only the stop can end the call
    client.timeout = Duration::from_secs(120);
    let model = Arc::new(ModelClient::new(client).unwrap());
    let (handle, mut events) = Agent::builder(&Settings::defaults(), "wait for the model")
        .desktop(desktop)
        .model(model)
        .strategy(StrategyName::Narrative)
        .observing(|o| {
            *o = ObserveConfig {
                cursor: false,
                ..ObserveConfig::default()
            }
        })
        .overlay(None)
        .executor(|e| *e = ExecConfig::default())
        .dry_run(true)
        .reading(|r| *r = ReadOptions::default())
        .options(|o| {
            (o.model, o.temperature, o.top_p, o.max_tokens) = ("scripted".into(), 0.0, 1.0, 100);
            (o.stream, o.early_exec, o.feedback) = (stream, false, false);
            (o.max_steps, o.max_time, o.max_empty_turns) = (1, None, 1);
            o.step_delay = Duration::ZERO;
        })
        .spawn()
        .unwrap();
    assert!(server.wait_for_requests(1, Duration::from_secs(20)));
    if stream {
        // the stream is under way before the stop
        loop {
            let e = events.next_timeout(Duration::from_secs(20)).unwrap();
            match e.map(|e| e.kind) {
                Some(EventKind::ModelDelta { .. }) => break,
                Some(EventKind::RunFinished { reason, .. }) => panic!("ended early: {reason}"),
                Some(_) => {}
                None => panic!("the session ended without a delta"),
            }
        }
    }
    assert_eq!(
        server.wait_for_hangup(0, Duration::from_millis(300)),
        None,
        "the connection is open until the stop"
    );
    let at = Instant::now();
    handle
        .submit(Op::Stop("stopped by the test".into()))
        .unwrap();
    let finished = loop {
        match events.next_timeout(Duration::from_secs(2)) {
            Ok(Some(e)) if matches!(e.kind, EventKind::RunFinished { .. }) => break at.elapsed(),
            Ok(Some(_)) => {}
            Ok(None) => panic!("the session ended without run_finished"),
            Err(_) => panic!("no run_finished within 2 s of the stop"),
        }
    };
    assert!(finished < Duration::from_secs(2), "{finished:?}");
    let closed = server.wait_for_hangup(0, Duration::from_secs(2));
    assert!(
        closed.is_some_and(|t| t >= at),
        "the server did not see the connection closed within 2 s of the stop"
    );
    let summary = events.finish().unwrap();
    assert_eq!(summary.outcome, Outcome::Interrupted, "{summary:?}");
    assert_eq!(server.request_count(), 1);
}

#[test]
fn a_stop_during_a_hung_model_call_closes_its_connection() {
    let server = ScriptedServer::start(Script::repeat(Step::fault(Fault::Hang))).unwrap();
    stop_during_the_model_call(&server, false);
}

#[test]
fn a_stop_during_a_stalled_stream_closes_its_connection() {
    let server = ScriptedServer::start(Script::repeat(Step {
        fault: Some(Fault::StallStream { after_events: 3 }),
        ..Step::from(ScriptedReply::text("wait(1)\nwaiting for the answer"))
    }))
    .unwrap();
    stop_during_the_model_call(&server, true);
}
