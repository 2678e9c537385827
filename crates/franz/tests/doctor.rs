//! `franz doctor` on a sandbox with the scripted model server: passes when everything works,
//! and names the fault when the server is down or the model is not listed.

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer};
use std::process::{Command, Output};

fn doctor(url: &str, model: &str) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_franz"))
        .args([
            "--sandbox=640x480",
            "doctor",
            "--api-url",
            url,
            "--model",
            model,
        ])
        .env_remove("FRANZ_LOG")
        .output()
        .expect("run franz");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

#[test]
fn doctor_passes_on_a_sandbox_with_the_scripted_server() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("OK"))).unwrap();
    let (out, text) = doctor(&server.url(), "scripted-model");
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("ok   sandbox: x11"), "{text}");
    assert!(
        text.contains("ok   capture: 640x480 through MIT-SHM"),
        "{text}"
    );
    assert!(text.contains("ok   input: a click"), "{text}");
    assert!(text.contains("ok   image request"), "{text}");
    assert!(
        text.contains("ok   profile: franz (auto: no profile matches \"scripted-model\""),
        "{text}"
    );
    assert!(text.contains("ok   calibration: 9 clicks"), "{text}");
    // the scripted server says no context length: unknown is not a failure
    assert!(text.contains("ok   context: unknown"), "{text}");
    assert!(text.contains("all 9 checks passed"), "{text}");
    // the image request really carried an image
    let posts: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert_eq!(posts.len(), 1);
    assert!(posts[0].body.contains("data:image/png;base64,"));
}

#[test]
fn doctor_names_a_server_that_is_down() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let (out, text) = doctor(&format!("http://127.0.0.1:{port}/v1"), "scripted-model");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL model server"), "{text}");
    assert!(
        text.contains("start your model server or pass --api-url"),
        "{text}"
    );
    assert!(text.contains("ok   input"), "{text}");
}

#[test]
fn doctor_names_a_model_that_is_not_listed() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("OK"))).unwrap();
    let (out, text) = doctor(&server.url(), "no-such-model");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "FAIL model: no-such-model is not listed by the server (it offers: scripted-model)"
        ),
        "{text}"
    );
    assert!(text.contains("pass --model"), "{text}");
    assert!(text.contains("ok   model server"), "{text}");
}

#[test]
fn doctor_shows_the_profile_auto_picks_and_why() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text("OK"))).unwrap();
    let (_, text) = doctor(&server.url(), "UI-TARS-1.5-7B-GGUF@q4_k_m");
    assert!(
        text.contains(
            "ok   profile: ui-tars-1.5 (auto: the model setting names \"UI-TARS-1.5-7B-GGUF@q4_k_m\", which matches \"ui-tars-1.5\")"
        ),
        "{text}"
    );
}
