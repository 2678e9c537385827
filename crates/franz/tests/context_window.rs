//! Token accounting and the context window through the real binary, on a sandbox with the
//! scripted model server refusing requests over its context (as llama.cpp and vLLM do):
//! - each `model_request` event carries the newest image's size and tokens and the request's
//!   estimate;
//! - a run whose history would overflow a context the server reports is kept inside it
//!   (fewer screenshots, then a smaller image, each step a `context_fitted` event), and the
//!   server never refuses a request;
//! - with no context known, the server's first refusal of a request as too long teaches it
//!   (llama-cpp-python says it nowhere else): that request is fitted and sent again; a refusal
//!   that still comes reaches the user as a clear message with the numbers and the setting;
//!   with a context too small for any request, franz says so before sending.

use crate::common;

use franz_core::model::ScriptedReply;
use franz_core::model::context::{ImageTokens, image_size};
use franz_core::model::scripted_server::{
    ContextReport, OverflowStyle, Script, ScriptedServer, ServerOptions, prompt_tokens,
};
use serde_json::{Value, json};
use std::process::Output;

const SCREEN: &str = "--sandbox=1024x768";
const MAX_TOKENS: u64 = 200;

fn press() -> ScriptedReply {
    ScriptedReply::text("I press shift.").tool_call("press_key", json!({"key": "shift"}))
}

/// Three presses, then the plain answer that ends a tools run as done.
fn script() -> Script {
    Script::list([
        press(),
        press(),
        press(),
        ScriptedReply::text("The task is finished."),
    ])
}

fn server(context: Option<u64>, report: ContextReport, style: OverflowStyle) -> ScriptedServer {
    let opts = ServerOptions {
        context_tokens: context,
        context_report: report,
        overflow_style: style,
        ..ServerOptions::default()
    };
    ScriptedServer::start_with(script(), opts).unwrap()
}

fn run(server: &ScriptedServer, runs: &tempfile::TempDir, extra: &[&str]) -> Output {
    common::franz_run(&server.url(), runs.path())
        .args([SCREEN, "press shift", "--strategy", "tools"])
        .args(["--max-tokens", &MAX_TOKENS.to_string(), "--motion", "fast"])
        .args(["--keep-last-screenshots", "3"])
        .args(extra)
        .env_remove("FRANZ_CONTEXT_TOKENS")
        // the script repeats one key press on a still screen on purpose: no loop breaker
        .env("FRANZ_LOOP_WARN", "0")
        .env("FRANZ_LOOP_STOP", "0")
        .output()
        .unwrap()
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

/// The newest image of a recorded request: its size.
fn newest_image(req: &Value) -> (u32, u32) {
    let urls: Vec<String> = req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter_map(|p| p["image_url"]["url"].as_str().map(str::to_string))
        .collect();
    image_size(urls.last().expect("an image")).expect("a PNG")
}

#[test]
fn requests_carry_their_estimate_and_a_reported_context_is_kept_with_fewer_and_smaller_images() {
    // first a run with no context: what the requests cost as they are
    let open = server(None, ContextReport::Hidden, OverflowStyle::LlamaCpp);
    let runs = tempfile::tempdir().unwrap();
    let out = run(&open, &runs, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("context length is unknown"),
        "said once: {err}"
    );
    assert_eq!(err.matches("context length is unknown").count(), 1, "{err}");
    let events = common::events_in(&runs.path().join("run_0001"));
    let asked = of_kind(&events, "model_request");
    assert_eq!(asked.len(), 4);
    for (i, e) in asked.iter().enumerate() {
        let image = &e["image"];
        let (w, h) = (
            image["width"].as_u64().unwrap(),
            image["height"].as_u64().unwrap(),
        );
        let sent = newest_image(open.requests()[i].json.as_ref().unwrap());
        assert_eq!((w, h), (u64::from(sent.0), u64::from(sent.1)), "{e}");
        assert_eq!(
            image["tokens"].as_u64().unwrap(),
            ImageTokens::FRANZ.tokens(sent.0, sent.1),
            "{e}"
        );
        // at most `--keep-last-screenshots 3`; the fourth prunes down to the newest one at once
        // (pruning in steps, docs/context.md)
        let images = [1, 2, 3, 1][i];
        assert_eq!(
            e["image_tokens"].as_u64().unwrap(),
            images * image["tokens"].as_u64().unwrap()
        );
        assert!(
            e["estimated_tokens"].as_u64().unwrap() > e["image_tokens"].as_u64().unwrap() + 500,
            "{e}"
        );
        assert!(e.get("context_tokens").is_none(), "{e}");
    }
    // the text of the first request, and one full image
    let first = asked[0];
    let text =
        first["estimated_tokens"].as_u64().unwrap() - first["image_tokens"].as_u64().unwrap();
    let image = first["image"]["tokens"].as_u64().unwrap();

    // now a server whose context holds the text and about half an image, as /props says
    let context = text + image / 2 + MAX_TOKENS + 100;
    let tight = server(Some(context), ContextReport::Props, OverflowStyle::LlamaCpp);
    let runs = tempfile::tempdir().unwrap();
    let out = run(&tight, &runs, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(tight.rejections(), 0, "the server never refused: {err}");
    assert_eq!(tight.requests().len(), 4);
    assert!(!tight.probes().is_empty(), "the context was asked for");
    assert!(
        err.contains(&format!("context: {context} tokens (llama.cpp GET /props)")),
        "{err}"
    );
    let events = common::events_in(&runs.path().join("run_0001"));
    let fitted = of_kind(&events, "context_fitted");
    let steps: Vec<&str> = fitted.iter().filter_map(|e| e["step"].as_str()).collect();
    assert!(steps.contains(&"fewer_screenshots"), "{steps:?}");
    assert!(steps.contains(&"smaller_image"), "{steps:?}");
    let budget = context - MAX_TOKENS;
    for e in &fitted {
        assert_eq!(e["budget"].as_u64(), Some(budget), "{e}");
        assert!(
            e["tokens_after"].as_u64() < e["tokens_before"].as_u64(),
            "{e}"
        );
    }
    for (i, e) in of_kind(&events, "model_request").iter().enumerate() {
        assert_eq!(e["context_tokens"].as_u64(), Some(context), "{e}");
        assert!(e["estimated_tokens"].as_u64().unwrap() <= budget, "{e}");
        // the server got the smaller image the event names
        let body = tight.requests()[i].json.clone().unwrap();
        let sent = newest_image(&body);
        assert_eq!(e["image"]["width"].as_u64(), Some(u64::from(sent.0)), "{e}");
        // the first request goes by the plain estimate, so its image is made smaller; later
        // ones by the estimate calibrated from the server's count (docs/context.md), which may
        // fit the whole image: what the server counts stays inside the budget either way
        if i == 0 {
            assert!(sent.0 < w0(&asked), "turn 1: {sent:?}");
        }
        assert!(prompt_tokens(&body) <= budget, "turn {}: {e}", i + 1);
    }
}

fn w0(asked: &[&Value]) -> u32 {
    asked[0]["image"]["width"].as_u64().unwrap() as u32
}

#[test]
fn a_run_learns_the_context_from_the_servers_first_refusal_and_fits_what_it_sends_next() {
    // a server that says its context nowhere (llama-cpp-python) but in its refusal; the
    // first request (a 1024x768 screenshot) is over it, a smaller screenshot fits
    const CONTEXT: u64 = 2300;
    for style in [OverflowStyle::LlamaCpp, OverflowStyle::Vllm] {
        let server = server(Some(CONTEXT), ContextReport::Hidden, style);
        let runs = tempfile::tempdir().unwrap();
        let out = run(&server, &runs, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{style:?}: {err}");
        assert_eq!(server.rejections(), 1, "refused once, then fitted: {err}");
        assert!(
            err.contains("context: 2300 tokens (learned from the server's refusal"),
            "{err}"
        );
        assert_eq!(
            err.matches("retrying").count(),
            0,
            "not retried as is: {err}"
        );
        let events = common::events_in(&runs.path().join("run_0001"));
        let asked = of_kind(&events, "model_request");
        assert_eq!(asked.len(), 5, "the refused request again, and four in all");
        // the requests before the lesson knew no context; every one after is kept inside it
        let learned = events
            .iter()
            .position(|e| {
                e["event"] == "note" && e["text"].as_str().unwrap_or("").contains("learned")
            })
            .expect("a note says what was learned");
        for (i, e) in events.iter().enumerate() {
            if e["event"] != "model_request" {
                continue;
            }
            if i < learned {
                assert!(e.get("context_tokens").is_none(), "{e}");
                continue;
            }
            assert_eq!(e["context_tokens"].as_u64(), Some(CONTEXT), "{e}");
            assert!(
                e["estimated_tokens"].as_u64().unwrap() <= CONTEXT - MAX_TOKENS,
                "{e}"
            );
        }
        let fitted = of_kind(&events, "context_fitted");
        assert!(!fitted.is_empty(), "the refused request was made smaller");
        assert_eq!(
            fitted[0]["turn"], events[learned]["turn"],
            "on the turn it was refused"
        );
    }
}

#[test]
fn a_refusal_the_learned_context_does_not_cure_ends_the_run_with_the_numbers_and_the_setting() {
    // llama-cpp-python's image path counts more than franz estimates: its real answer
    // (tests/fixtures in franz-core), every time
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/fixtures/llama_cpp_python/prompt_exceeds_n_ctx.http"
    );
    let raw = std::fs::read(path).unwrap();
    let step = franz_core::model::Step::fault(franz_core::model::Fault::Raw(raw));
    let server = ScriptedServer::start(Script::repeat(step)).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let out = run(&server, &runs, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        server.requests().len(),
        2,
        "asked again once, fitted: {err}"
    );
    assert!(err.contains("context: 4096 tokens (learned"), "{err}");
    assert!(
        err.contains("does not fit the model server's context"),
        "{err}"
    );
    assert!(
        err.contains("the request needs 5009 tokens, the context holds 4096"),
        "{err}"
    );
    assert!(err.contains("set context_tokens to 4096"), "{err}");
    assert!(
        err.contains("Prompt exceeds n_ctx"),
        "the server's own words: {err}"
    );
    assert_eq!(err.matches("retrying").count(), 0, "not retried: {err}");
}

#[test]
fn a_context_too_small_for_any_request_is_said_before_sending() {
    let server = server(None, ContextReport::Hidden, OverflowStyle::LlamaCpp);
    let runs = tempfile::tempdir().unwrap();
    let out = run(&server, &runs, &["--context-tokens", "700"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(server.requests().is_empty(), "nothing was sent");
    assert!(
        server
            .probes()
            .iter()
            .all(|p| p.header(franz_core::model::PROBE_HEADER) != Some("context")),
        "the setting is not asked of the server"
    );
    assert!(
        err.contains("does not fit the model's context even at its smallest"),
        "{err}"
    );
    assert!(
        err.contains("the context holds 700 tokens less max_tokens 200"),
        "{err}"
    );
    assert!(err.contains("--context-tokens"), "{err}");
    let events = common::events_in(&runs.path().join("run_0001"));
    let shrunk = of_kind(&events, "context_fitted");
    assert!(!shrunk.is_empty(), "it tried a smaller image first");
    assert!(shrunk.iter().all(|e| e["step"] == "smaller_image"));
}

#[test]
fn under_a_resize_profile_images_shrink_through_the_familys_fixed_points_and_cost_its_tokens() {
    use franz_core::geometry::ImageSize;
    let profile = franz_core::profile::by_name("qwen3-vl").unwrap();
    let rule = profile.smart_resize().unwrap();
    let factor = ImageTokens {
        pixels_per_token_side: rule.factor,
    };
    let args = ["--profile", "qwen3-vl"];
    // what the requests cost without a context
    let open = server(None, ContextReport::Hidden, OverflowStyle::LlamaCpp);
    let runs = tempfile::tempdir().unwrap();
    let out = run(&open, &runs, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let events = common::events_in(&runs.path().join("run_0001"));
    let first = of_kind(&events, "model_request")[0].clone();
    let sent = newest_image(open.requests()[0].json.as_ref().unwrap());
    assert!(
        rule.is_fixed_point(ImageSize::new(sent.0, sent.1)),
        "{sent:?}"
    );
    // an image costs the family's tokens: one per 32 x 32 pixels
    assert_eq!(
        first["image"]["tokens"].as_u64(),
        Some(factor.tokens(sent.0, sent.1)),
        "{first}"
    );
    let text =
        first["estimated_tokens"].as_u64().unwrap() - first["image_tokens"].as_u64().unwrap();
    let image = first["image"]["tokens"].as_u64().unwrap();
    // a context with room for the text and about a third of an image: two steps smaller
    let context = text + image / 3 + MAX_TOKENS + 100;
    let tight = server(Some(context), ContextReport::Props, OverflowStyle::LlamaCpp);
    let runs = tempfile::tempdir().unwrap();
    let out = run(&tight, &runs, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(tight.rejections(), 0, "the server never refused: {err}");
    let events = common::events_in(&runs.path().join("run_0001"));
    let smaller: Vec<_> = of_kind(&events, "context_fitted")
        .into_iter()
        .filter(|e| e["step"] == "smaller_image")
        .collect();
    assert!(!smaller.is_empty(), "{err}");
    for (i, e) in of_kind(&events, "model_request").iter().enumerate() {
        let sent = newest_image(tight.requests()[i].json.as_ref().unwrap());
        let full = newest_image(open.requests()[0].json.as_ref().unwrap());
        assert!(
            sent.0 * sent.1 < full.0 * full.1,
            "turn {}: {sent:?}",
            i + 1
        );
        // every shrunk image is one the family's processor keeps as it is
        assert!(
            rule.is_fixed_point(ImageSize::new(sent.0, sent.1)),
            "turn {}: {sent:?} is not a fixed point of qwen3-vl's smart_resize",
            i + 1
        );
        assert_eq!(
            e["image"]["tokens"].as_u64(),
            Some(factor.tokens(sent.0, sent.1)),
            "{e}"
        );
    }
}
