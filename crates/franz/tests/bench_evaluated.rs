//! `franz bench turn --api-url U` (docs/context.md, "Requests a server can cache"): each
//! strategy runs a few turns of `franz run` against the server, and every call's line says how
//! many prompt tokens the server had to evaluate and where the figure comes from. The scripted
//! server reports `prompt_tokens` only, so the figure is the estimate: the share of the request
//! after the first byte that differs from the last one. A narrative request keeps its system
//! prompt and goal from turn to turn, so from the second call on that share is below the
//! whole; a tools request appends to its history, so its share is smaller still.

#![cfg(target_os = "linux")]

use crate::common;

use franz_core::model::{Script, ScriptedReply, ScriptedServer};

/// `(prompt, evaluated)` of each `STRATEGY call N` line of the output.
fn calls(stdout: &str, strategy: &str) -> Vec<(u64, u64)> {
    let number = |l: &str, key: &str| -> u64 {
        let rest = &l[l.find(key).unwrap() + key.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    stdout
        .lines()
        .filter(|l| l.trim_start().starts_with(&format!("{strategy} call ")))
        .map(|l| (number(l, "prompt "), number(l, "evaluated ")))
        .collect()
}

#[test]
fn bench_turn_api_url_prints_each_call_s_evaluated_prompt_tokens_and_their_median() {
    let server = ScriptedServer::start(Script::repeat(ScriptedReply::text(
        "click(300, 400)\nI click the empty desktop.",
    )))
    .unwrap();
    let out = common::franz(&[
        "--sandbox=320x240",
        "bench",
        "turn",
        "--api-url",
        &server.url(),
        "--model",
        "scripted",
        "--strategy",
        "narrative",
        "--strategy",
        "tools",
        "--turns",
        "3",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for strategy in ["narrative", "tools"] {
        let calls = calls(&stdout, strategy);
        assert_eq!(calls.len(), 3, "{strategy}: {stdout}");
        // the first call has no last request to share a prefix with: all of it is new
        assert_eq!(calls[0].0, calls[0].1, "{strategy}: {stdout}");
        for (prompt, evaluated) in &calls[1..] {
            assert!(evaluated < prompt && *evaluated > 0, "{strategy}: {stdout}");
        }
        assert!(
            stdout.contains(&format!(
                "{strategy}: evaluated prompt tokens per call after the first: median "
            )),
            "{stdout}"
        );
    }
    assert!(
        stdout
            .contains("(estimate: after the first differing byte, of the server's prompt_tokens)"),
        "{stdout}"
    );
}

#[test]
fn bench_turn_api_url_refuses_stream_and_model_without_a_server() {
    let out = common::franz(&[
        "bench",
        "turn",
        "--stream",
        "--api-url",
        "http://127.0.0.1:9/v1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--api-url") && err.contains("--stream"),
        "{err}"
    );
    let out = common::franz(&["bench", "turn", "--model", "m"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--api-url"), "{err}");
}
