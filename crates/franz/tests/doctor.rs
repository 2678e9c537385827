//! `franz doctor` on a sandbox with the scripted model server: passes when everything works,
//! and names the fault when the server is down or the model is not listed. Against the
//! scripted server dressed as LM Studio, Ollama and llama.cpp (`model/server_shapes.rs`, their
//! documented answers): a model that cannot see images, a context smaller than one turn, a
//! server that drops images silently or ignores `max_tokens`, `stop` and `temperature`; each
//! named with the fix in that server's words. Without `--model`, doctor picks the model as
//! `franz run` does.

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Fault, Script, ScriptedServer, ServerOptions, Step};
use franz_core::model::server_shapes::{self, Honours, model_like};
use std::process::{Command, Output};

fn doctor(url: &str, model: &str) -> (Output, String) {
    doctor_on("640x480", url, &["--model", model])
}

/// `franz --sandbox=SCREEN doctor --api-url URL EXTRA...`: its output and all it printed.
fn doctor_on(screen: &str, url: &str, extra: &[&str]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_franz"))
        .arg(format!("--sandbox={screen}"))
        .args(["doctor", "--api-url", url])
        .args(extra)
        .env_remove("FRANZ_LOG")
        .env_remove("FRANZ_MODEL")
        .env_remove("FRANZ_PROFILE")
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
    // a model id that names no profile: a warning, with the profiles and how to pick one
    assert!(
        text.contains("warn profile: franz (auto: no profile matches \"scripted-model\""),
        "{text}"
    );
    assert!(
        text.contains("pick its profile with --profile NAME"),
        "{text}"
    );
    // each family named with the ids that pick it
    // every family with a match list, by name, its family and its ids
    for p in franz_core::profile::builtin() {
        if p.name == "franz" || p.matches.is_empty() {
            continue;
        }
        let line = format!(
            "{} for {} (ids containing {})",
            p.name,
            p.family,
            p.matches.join(" or ")
        );
        assert!(text.contains(&line), "{line}: {text}");
    }
    assert!(
        text.contains("qwen3-vl for Qwen3-VL (ids containing qwen3-vl)")
            && text.contains("holo3 for Holo3 / Holo3.1 (H Company) (ids containing holo3)")
            && text.contains("gta1 for GTA1 / GTA1.5 (grounding) (ids containing gta1)"),
        "{text}"
    );
    assert!(
        text.contains("GGUF builds as LM Studio and Ollama list them"),
        "{text}"
    );
    assert!(text.contains("ok   calibration: 9 clicks"), "{text}");
    assert!(
        text.contains("ok   message shape: the server takes the tools strategy's messages as none (message_shape auto)"),
        "{text}"
    );
    // the scripted server says no context length: unknown is not a failure
    assert!(text.contains("ok   context: unknown"), "{text}");
    assert!(text.contains("ok   vision: a 64x64 image added"), "{text}");
    assert!(text.contains("ok   sampling"), "{text}");
    assert!(text.contains("all 13 checks passed"), "{text}");
    // the image request really carried an image
    let posts: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert!(posts[0].body.contains("data:image/png;base64,"));
}

#[test]
fn doctor_reports_the_shape_a_template_that_wants_alternation_needed() {
    // Gemma's template, as llama-cpp-python's server answers with it (the captured body)
    let refusal = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/tests/fixtures/server_errors/llama-cpp-python-roles-must-alternate.json"
    ))
    .unwrap();
    let server = ScriptedServer::start(Script::func(move |r| {
        let roles: Vec<String> = r.json.as_ref().unwrap()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_string())
            .filter(|r| r != "system")
            .collect();
        let alternate = roles
            .iter()
            .enumerate()
            .all(|(i, r)| (r == "user") == (i % 2 == 0));
        if alternate {
            ScriptedReply::text("OK").into()
        } else {
            Step::fault(Fault::Body(500, refusal.clone()))
        }
    }))
    .unwrap();
    let (out, text) = doctor(&server.url(), "scripted-model");
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("ok   message shape: the server's chat template refused the messages as built; franz sends them as alternate (message_shape auto)"),
        "{text}"
    );
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

/// A failed check's line and its fix line.
fn failed<'a>(text: &'a str, name: &str) -> (&'a str, &'a str) {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!("FAIL {name}: ")))
        .unwrap_or_else(|| panic!("no FAIL {name} in:\n{text}"));
    (lines[at], lines.get(at + 1).copied().unwrap_or(""))
}

const BLIND: Honours = Honours {
    images: false,
    ..Honours::ALL
};

#[test]
fn lm_studio_with_a_text_model_and_a_4096_context_names_both_and_how_to_fix_them() {
    let opts = server_shapes::lm_studio("qwen2.5-7b-instruct", "llm", 4096);
    let server = ScriptedServer::start_with(model_like(BLIND), opts).unwrap();
    // no --model: the one model LM Studio serves
    let (out, text) = doctor_on("1920x1080", &server.url(), &[]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (vision, fix) = failed(&text, "vision");
    assert!(
        vision.contains("the model cannot see images: LM Studio GET /api/v0/models (qwen2.5-7b-instruct: type \"llm\")"),
        "{vision}"
    );
    assert!(fix.contains("lms load qwen2.5-vl-7b-instruct"), "{fix}");
    let (turn, fix) = failed(&text, "turn size");
    assert!(
        turn.contains("the context (4,096 tokens) is smaller than one turn needs: about"),
        "{turn}"
    );
    assert!(
        turn.contains("franz profile's image size 1536x864"),
        "{turn}"
    );
    assert!(
        fix.contains("in LM Studio, load qwen2.5-7b-instruct with a Context Length of at least")
            && fix.contains("lms load qwen2.5-7b-instruct --context-length"),
        "{fix}"
    );
    assert!(
        text.contains("ok   context: 4096 tokens (LM Studio GET /api/v0/models)"),
        "{text}"
    );
}

#[test]
fn a_good_lm_studio_set_up_passes_and_names_the_model_doctor_picked() {
    let opts = server_shapes::lm_studio("qwen2.5-vl-7b-instruct", "vlm", 32768);
    let server = ScriptedServer::start_with(model_like(Honours::ALL), opts).unwrap();
    let (out, text) = doctor_on("1920x1080", &server.url(), &[]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "ok   model: qwen2.5-vl-7b-instruct (no --model given: the only model the server lists"
        ),
        "{text}"
    );
    assert!(text.contains("ok   profile: qwen2.5-vl"), "{text}");
    assert!(
        text.contains("ok   vision: qwen2.5-vl-7b-instruct takes images (LM Studio"),
        "{text}"
    );
    assert!(
        text.contains("ok   turn size: one turn needs about"),
        "{text}"
    );
    assert!(text.contains("the context holds 32,768"), "{text}");
    // every request asked for the model doctor picked
    for r in server.requests() {
        if let Some(j) = &r.json {
            assert_eq!(j["model"], "qwen2.5-vl-7b-instruct", "{}", r.body);
        }
    }
}

#[test]
fn ollama_with_a_text_model_at_its_default_context_names_num_ctx_and_a_vision_model() {
    let opts = server_shapes::ollama("llama3.1:8b", &["completion", "tools"], None);
    let server = ScriptedServer::start_with(model_like(BLIND), opts).unwrap();
    let (out, text) = doctor_on("1920x1080", &server.url(), &["--model", "llama3.1:8b"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (vision, fix) = failed(&text, "vision");
    assert!(
        vision.contains("Ollama POST /api/show (capabilities [\"completion\", \"tools\"])"),
        "{vision}"
    );
    assert!(fix.contains("ollama pull qwen2.5vl:7b"), "{fix}");
    let (turn, fix) = failed(&text, "turn size");
    assert!(
        turn.contains("the context (4,096 tokens, Ollama's default: the model sets no num_ctx)"),
        "{turn}"
    );
    assert!(
        fix.contains("set num_ctx to at least") && fix.contains("OLLAMA_CONTEXT_LENGTH="),
        "{fix}"
    );
    // with num_ctx set and a vision model, both pass
    let opts = server_shapes::ollama("qwen2.5vl:7b", &["completion", "vision"], Some(32768));
    let server = ScriptedServer::start_with(model_like(Honours::ALL), opts).unwrap();
    let (out, text) = doctor_on("1920x1080", &server.url(), &["--model", "qwen2.5vl:7b"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("the context holds 32,768"), "{text}");
}

#[test]
fn llama_cpp_without_a_projector_and_a_small_context_names_mmproj_and_c() {
    let model = "Qwen2.5-VL-7B-Instruct-Q4_K_M";
    let server = ScriptedServer::start_with(
        model_like(BLIND),
        server_shapes::llama_cpp(model, false, 4096),
    )
    .unwrap();
    let (out, text) = doctor_on("1920x1080", &server.url(), &["--model", model]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (vision, fix) = failed(&text, "vision");
    assert!(
        vision.contains("llama.cpp GET /props (modalities.vision false)"),
        "{vision}"
    );
    assert!(fix.contains("--mmproj"), "{fix}");
    let (turn, fix) = failed(&text, "turn size");
    assert!(turn.contains("qwen2.5-vl profile's image size"), "{turn}");
    assert!(fix.contains("restart llama-server with -c "), "{fix}");
}

#[test]
fn a_server_that_drops_images_silently_is_caught_by_its_prompt_tokens() {
    let opts = ServerOptions {
        models: vec!["gemma-3-4b-it".into()],
        ..ServerOptions::default()
    };
    let server = ScriptedServer::start_with(model_like(BLIND), opts).unwrap();
    let (out, text) = doctor(&server.url(), "gemma-3-4b-it");
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (vision, fix) = failed(&text, "vision");
    assert!(
        vision.contains(
            "with a 64x64 image with 17 prompt tokens and the same request without it with 17"
        ),
        "{vision}"
    );
    assert!(
        vision.contains("drops images without saying so"),
        "{vision}"
    );
    assert!(fix.contains("image projector"), "{fix}");
    // the old check is fooled: the request with an image is accepted
    assert!(text.contains("ok   image request"), "{text}");
}

#[test]
fn a_server_that_ignores_max_tokens_stop_and_temperature_is_named() {
    let careless = Honours {
        max_tokens: false,
        stop: false,
        temperature: false,
        images: true,
    };
    let server = ScriptedServer::start(model_like(careless)).unwrap();
    let (out, text) = doctor(&server.url(), "scripted-model");
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (sampling, fix) = failed(&text, "sampling");
    assert!(
        sampling.contains("the server ignores max_tokens, stop, temperature: max_tokens: asked for at most 1 token"),
        "{sampling}"
    );
    assert!(
        sampling.contains("stop: asked to stop at \"7\""),
        "{sampling}"
    );
    assert!(fix.contains("max_tokens bounds each reply"), "{fix}");
}
