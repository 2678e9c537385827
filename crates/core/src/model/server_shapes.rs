//! The scripted server dressed as a real one: LM Studio, Ollama or llama.cpp, answering their
//! own endpoints with the bodies their documentation gives (`tests/fixtures/servers/`, with
//! only the model's id, type, capabilities and context changed), and a model that answers
//! like a small real one on a server that honours, or ignores, what a request asks
//! ([`Honours`]): `max_tokens`, `stop`, `temperature`, and the images.
//!
//! `franz doctor`'s tests run on these (`crates/franz/tests/doctor.rs`).

use super::scripted_server::{
    RecordedRequest, Route, Script, ScriptedReply, ServerOptions, Step, prompt_tokens,
};
use super::scripted_wire::tokens;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

const LM_STUDIO_MODELS: &str =
    include_str!("../../tests/fixtures/servers/lm_studio_api_v0_models.json");
const OLLAMA_SHOW: &str = include_str!("../../tests/fixtures/servers/ollama_api_show.json");
const LLAMA_CPP_PROPS: &str = include_str!("../../tests/fixtures/servers/llama_cpp_props.json");

fn fixture(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_default()
}

fn options(model: &str, context: Option<u64>, routes: Vec<Route>) -> ServerOptions {
    ServerOptions {
        models: vec![model.to_string()],
        context_tokens: context,
        routes,
        ..ServerOptions::default()
    }
}

/// LM Studio with `model` loaded at a context of `context` tokens; `kind` is its `type`
/// (`vlm` for a vision model, `llm` for a text one). A request longer than the context is
/// refused.
pub fn lm_studio(model: &str, kind: &str, context: u64) -> ServerOptions {
    let mut v = fixture(LM_STUDIO_MODELS);
    if let Some(list) = v.get_mut("data").and_then(Value::as_array_mut) {
        // the documented example's loaded entry becomes `model`; the others stay unloaded
        for m in list.iter_mut() {
            if m["state"] == "loaded" {
                m["id"] = json!(model);
                m["type"] = json!(kind);
                m["loaded_context_length"] = json!(context);
            }
        }
    }
    let route = Route::json("GET", "/api/v0/models", &v);
    options(model, Some(context), vec![route])
}

/// Ollama serving `model` with these `capabilities` (`vision` for one that takes images) and,
/// where given, `num_ctx` among its parameters. Ollama cuts a longer prompt silently, so
/// nothing is refused.
pub fn ollama(model: &str, capabilities: &[&str], num_ctx: Option<u64>) -> ServerOptions {
    let mut v = fixture(OLLAMA_SHOW);
    v["capabilities"] = json!(capabilities);
    if let Some(n) = num_ctx {
        let params = v["parameters"].as_str().unwrap_or("").to_string();
        v["parameters"] = json!(format!("num_ctx                        {n}\n{params}"));
    }
    let route = Route::json("POST", "/api/show", &v);
    options(model, None, vec![route])
}

/// llama.cpp's llama-server with `n_ctx` a slot, started with a projector when `vision`.
pub fn llama_cpp(model: &str, vision: bool, n_ctx: u64) -> ServerOptions {
    let mut v = fixture(LLAMA_CPP_PROPS);
    v["default_generation_settings"]["n_ctx"] = json!(n_ctx);
    v["modalities"]["vision"] = json!(vision);
    v["model_path"] = json!(format!("/models/{model}.gguf"));
    options(model, Some(n_ctx), vec![Route::json("GET", "/props", &v)])
}

/// What the server honours of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Honours {
    pub max_tokens: bool,
    pub stop: bool,
    /// At temperature 0 the same request gets the same reply.
    pub temperature: bool,
    /// The model sees the images (a vision model with its projector); otherwise the server
    /// drops them and counts the prompt without them.
    pub images: bool,
}

impl Honours {
    pub const ALL: Honours = Honours {
        max_tokens: true,
        stop: true,
        temperature: true,
        images: true,
    };
}

/// A small model on a server that honours what `h` says: it counts when asked to count from
/// 1 to N, describes an image it sees, and says OK otherwise; `usage` counts the prompt (without
/// the images it dropped) and the completion.
pub fn model_like(h: Honours) -> Script {
    let calls = AtomicU64::new(0);
    Script::func(move |req: &RecordedRequest| {
        let n = calls.fetch_add(1, Ordering::SeqCst);
        let Some(body) = req.json.as_ref() else {
            return Step::from(ScriptedReply::text("OK."));
        };
        let mut text = answer(body, h.images);
        if !h.temperature {
            text = format!("{text} (sample {n})");
        }
        let mut parts = tokens(&text);
        if h.stop
            && let Some(cut) = first_stop(&text, body)
        {
            parts = tokens(&text[..cut]);
        }
        if h.max_tokens
            && let Some(m) = body.get("max_tokens").and_then(Value::as_u64)
        {
            parts.truncate(m as usize);
        }
        let prompt = if h.images {
            prompt_tokens(body)
        } else {
            prompt_tokens(&without_images(body))
        };
        let completion = parts.len() as u64;
        Step::from(ScriptedReply::text(parts.concat()).usage(prompt, completion))
    })
}

/// The model's whole answer to the last user message.
fn answer(body: &Value, sees_images: bool) -> String {
    let last = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    let text = last.to_string();
    if let Some(n) = text
        .split("Count from 1 to ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse::<u32>().ok())
    {
        return (1..=n.min(200))
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(" ");
    }
    if sees_images && text.contains("data:image/") {
        return "I see a small white square.".into();
    }
    "OK.".into()
}

/// Where the first of the request's stop strings starts in `text`.
fn first_stop(text: &str, body: &Value) -> Option<usize> {
    let stops: Vec<String> = match body.get("stop") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => return None,
    };
    stops
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| text.find(s.as_str()))
        .min()
}

/// The request with its image parts left out, as a server without a projector reads it.
fn without_images(body: &Value) -> Value {
    let mut v = body.clone();
    if let Some(messages) = v.get_mut("messages").and_then(Value::as_array_mut) {
        for m in messages {
            if let Some(parts) = m.get_mut("content").and_then(Value::as_array_mut) {
                parts.retain(|p| p.get("type").and_then(Value::as_str) != Some("image_url"));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::server_info;

    #[test]
    fn each_shape_reads_back_as_its_server() {
        let routes = |o: ServerOptions| o.routes[0].body.clone();
        let lm: Value = serde_json::from_str(&routes(lm_studio("m-1", "llm", 4096))).unwrap();
        let info = server_info::from_lm_studio(&lm, "m-1").unwrap();
        assert_eq!((info.vision, info.context), (Some(false), Some(4096)));
        let ol: Value = serde_json::from_str(&routes(ollama(
            "m-2",
            &["completion", "vision"],
            Some(8192),
        )))
        .unwrap();
        let info = server_info::from_ollama_show(&ol).unwrap();
        assert_eq!((info.vision, info.context), (Some(true), Some(8192)));
        let ll: Value = serde_json::from_str(&routes(llama_cpp("m-3", true, 16384))).unwrap();
        let info = server_info::from_props(&ll).unwrap();
        assert_eq!((info.vision, info.context), (Some(true), Some(16384)));
    }

    #[test]
    fn the_model_counts_stops_and_truncates_as_its_server_honours() {
        let body = json!({"messages": [{"role": "user", "content": "Count from 1 to 12."}],
                          "stop": ["7"], "max_tokens": 3});
        assert_eq!(answer(&body, true), "1 2 3 4 5 6 7 8 9 10 11 12");
        assert_eq!(first_stop("1 2 3 4 5 6 7 8", &body), Some(12));
    }
}
