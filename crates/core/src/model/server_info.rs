//! What a model server says about the model it serves, through its own API (not the OpenAI
//! one): which server it is, whether the model takes images, and the context it serves.
//!
//! - llama.cpp `GET /props`: `modalities.vision`, `default_generation_settings.n_ctx`;
//! - LM Studio `GET /api/v0/models`: the model's `type` (`vlm`, `llm`), `loaded_context_length`;
//! - Ollama `POST /api/show`: `capabilities` (`vision`), `num_ctx` in `parameters`.
//!
//! Their shapes, and the documentation each comes from, are in
//! `crates/core/tests/fixtures/servers/`. `franz doctor` uses this to say what to fix, and in
//! which server's words ([`ServerKind`]).

use super::client::ModelClient;
use serde_json::{Value, json};

/// Which server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerKind {
    LlamaCpp,
    LlamaCppPython,
    LmStudio,
    Ollama,
    /// None of their endpoints answered (vLLM, a proxy, an OpenAI-compatible service).
    Other,
}

impl ServerKind {
    pub fn name(self) -> &'static str {
        match self {
            ServerKind::LlamaCpp => "llama.cpp",
            ServerKind::LlamaCppPython => "llama-cpp-python",
            ServerKind::LmStudio => "LM Studio",
            ServerKind::Ollama => "Ollama",
            ServerKind::Other => "the server",
        }
    }

    /// How to give the model a context of at least `tokens`, in this server's words.
    pub fn raise_context(self, model: &str, tokens: u64) -> String {
        match self {
            ServerKind::LmStudio => format!(
                "in LM Studio, load {model} with a Context Length of at least {tokens} (the \
                 model's load settings, or `lms load {model} --context-length {tokens}`)"
            ),
            ServerKind::Ollama => format!(
                "in Ollama, set num_ctx to at least {tokens} (`/set parameter num_ctx {tokens}` \
                 in `ollama run {model}`, `PARAMETER num_ctx {tokens}` in a Modelfile, or \
                 OLLAMA_CONTEXT_LENGTH={tokens} ollama serve)"
            ),
            ServerKind::LlamaCpp => {
                format!("restart llama-server with -c {tokens} (--ctx-size) or more")
            }
            ServerKind::LlamaCppPython => {
                format!("restart python -m llama_cpp.server with --n_ctx {tokens} or more")
            }
            ServerKind::Other => format!(
                "raise the server's context length to at least {tokens} tokens (vLLM: \
                 --max-model-len {tokens})"
            ),
        }
    }

    /// How to serve a model that takes images, in this server's words.
    pub fn load_vision(self, model: &str) -> String {
        match self {
            ServerKind::LmStudio => format!(
                "{model} is a text model in LM Studio: load a vision model (type vlm in \
                 `GET /api/v0/models`, the eye icon in My Models), e.g. `lms get \
                 qwen2.5-vl-7b-instruct` then `lms load qwen2.5-vl-7b-instruct`, and pass its \
                 id with --model"
            ),
            ServerKind::Ollama => format!(
                "{model} has no vision capability in Ollama (`ollama show {model}`): pull a \
                 vision model, e.g. `ollama pull qwen2.5vl:7b`, and pass it with --model"
            ),
            ServerKind::LlamaCpp => "start llama-server with the model's projector: \
                 --mmproj mmproj-MODEL.gguf (or -hf with a repository that has one)"
                .into(),
            ServerKind::LlamaCppPython => "start python -m llama_cpp.server with the model's \
                 projector (--clip_model_path mmproj-MODEL.gguf) and its chat handler \
                 (--chat_format, e.g. qwen2.5-vl)"
                .into(),
            ServerKind::Other => "serve a vision-language model (e.g. Qwen2.5-VL or \
                 Qwen3-VL) with its image projector, so that the server passes images to it"
                .into(),
        }
    }
}

/// What the server said about the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    pub kind: ServerKind,
    /// Whether the model takes images; `None`: the server did not say.
    pub vision: Option<bool>,
    /// The context the server serves the model with, where it said it.
    pub context: Option<u64>,
    /// Where the answer came from, e.g. `LM Studio GET /api/v0/models (type "llm")`.
    pub source: String,
}

impl ServerInfo {
    fn other() -> ServerInfo {
        ServerInfo {
            kind: ServerKind::Other,
            vision: None,
            context: None,
            source: "no capability endpoint answered (llama.cpp GET /props, LM Studio GET \
                     /api/v0/models, Ollama POST /api/show)"
                .into(),
        }
    }
}

/// Asks the server's own endpoints about `model`, llama.cpp's first (its server also answers
/// an Ollama-style `/api/show`), then LM Studio's, then Ollama's.
pub fn ask(client: &ModelClient, model: &str) -> ServerInfo {
    if let Some(info) = client
        .probe_server("/props", None)
        .and_then(|v| from_props(&v))
    {
        return info;
    }
    let lm = client.probe_server("/api/v0/models", None);
    if let Some(info) = lm.and_then(|v| from_lm_studio(&v, model)) {
        return info;
    }
    let show = client.probe_server("/api/show", Some(&json!({ "model": model })));
    if let Some(info) = show.and_then(|v| from_ollama_show(&v)) {
        return info;
    }
    let listing = client.models_listing();
    if listing.is_some_and(|v| super::wire::is_llama_cpp_python(&v)) {
        return ServerInfo {
            kind: ServerKind::LlamaCppPython,
            source: "llama-cpp-python's model list (it has no capability endpoint)".into(),
            ..ServerInfo::other()
        };
    }
    ServerInfo::other()
}

/// llama.cpp's `GET /props`; `None` when `v` is not one (no `default_generation_settings`).
pub fn from_props(v: &Value) -> Option<ServerInfo> {
    v.get("default_generation_settings")?;
    let vision = v.pointer("/modalities/vision").and_then(Value::as_bool);
    Some(ServerInfo {
        kind: ServerKind::LlamaCpp,
        vision,
        context: super::context::context_from_props(v),
        source: match vision {
            Some(b) => format!("llama.cpp GET /props (modalities.vision {b})"),
            None => "llama.cpp GET /props (no modalities: an older server)".into(),
        },
    })
}

/// LM Studio's `GET /api/v0/models`: the entry of `model` (else the only loaded one); `None`
/// when `v` is not LM Studio's list (no entry with a `type`) or names no such model.
pub fn from_lm_studio(v: &Value, model: &str) -> Option<ServerInfo> {
    let list = v.get("data").and_then(Value::as_array)?;
    if !list.iter().any(|m| m.get("type").is_some()) {
        return None;
    }
    let loaded: Vec<&Value> = list
        .iter()
        .filter(|m| m.get("state").and_then(Value::as_str) == Some("loaded"))
        .collect();
    let entry = list
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (loaded.len() == 1).then(|| loaded[0]))?;
    let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
    let id = entry.get("id").and_then(Value::as_str).unwrap_or(model);
    Some(ServerInfo {
        kind: ServerKind::LmStudio,
        vision: match kind {
            "vlm" => Some(true),
            "llm" | "embeddings" => Some(false),
            _ => None,
        },
        context: entry
            .get("loaded_context_length")
            .and_then(Value::as_u64)
            .filter(|n| *n > 0),
        source: format!("LM Studio GET /api/v0/models ({id}: type \"{kind}\")"),
    })
}

/// Ollama's `POST /api/show`; `None` when `v` is not one (no `capabilities`, `model_info` or
/// `details`).
pub fn from_ollama_show(v: &Value) -> Option<ServerInfo> {
    if ["capabilities", "model_info", "details"]
        .iter()
        .all(|k| v.get(*k).is_none())
    {
        return None;
    }
    let caps: Option<Vec<&str>> = v
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect());
    let num_ctx = v
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(num_ctx);
    Some(ServerInfo {
        kind: ServerKind::Ollama,
        vision: caps.as_ref().map(|c| c.contains(&"vision")),
        context: num_ctx,
        source: match &caps {
            Some(c) => format!("Ollama POST /api/show (capabilities {c:?})"),
            None => "Ollama POST /api/show (no capabilities: an older Ollama)".into(),
        },
    })
}

/// `num_ctx N` in an Ollama model's `parameters` text (one `name value` a line).
fn num_ctx(parameters: &str) -> Option<u64> {
    parameters.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some("num_ctx"))
            .then(|| words.next()?.parse().ok())
            .flatten()
    })
}

/// Ollama's context when the model sets no `num_ctx`: 4096 below 24 GiB of VRAM (ollama/ollama
/// `docs/context-length.mdx`; older versions 2048). `OLLAMA_CONTEXT_LENGTH` changes it.
pub const OLLAMA_DEFAULT_CONTEXT: u64 = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/tests/fixtures/servers/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn llama_cpps_props_say_vision_and_the_slot_context() {
        let info = from_props(&fixture("llama_cpp_props.json")).unwrap();
        assert_eq!(info.kind, ServerKind::LlamaCpp);
        assert_eq!(info.vision, Some(false));
        assert_eq!(info.context, Some(1024));
        assert!(from_props(&json!({"data": []})).is_none());
    }

    #[test]
    fn lm_studios_list_says_the_models_type_and_loaded_context() {
        let v = fixture("lm_studio_api_v0_models.json");
        let text = from_lm_studio(&v, "meta-llama-3.1-8b-instruct").unwrap();
        assert_eq!(text.kind, ServerKind::LmStudio);
        assert_eq!((text.vision, text.context), (Some(false), Some(4096)));
        let vlm = from_lm_studio(&v, "qwen2-vl-7b-instruct").unwrap();
        assert_eq!((vlm.vision, vlm.context), (Some(true), None));
        // a name LM Studio does not list: the only loaded model answers
        let only = from_lm_studio(&v, "qwen3-vl-8b-instruct").unwrap();
        assert!(
            only.source.contains("meta-llama-3.1-8b-instruct"),
            "{only:?}"
        );
        // vLLM's and llama.cpp's /v1/models have no type
        let vllm = json!({"data": [{"id": "m", "object": "model", "max_model_len": 8192}]});
        assert!(from_lm_studio(&vllm, "m").is_none());
    }

    #[test]
    fn ollamas_show_says_capabilities_and_num_ctx_only_where_set() {
        let v = fixture("ollama_api_show.json");
        let info = from_ollama_show(&v).unwrap();
        assert_eq!(info.kind, ServerKind::Ollama);
        assert_eq!(info.vision, Some(false));
        // the trained llama.context_length (8192) is not the served context
        assert_eq!(info.context, None);
        let mut vision = v.clone();
        vision["capabilities"] = json!(["completion", "vision"]);
        vision["parameters"] = json!("num_ctx                        8192\nstop \"<end>\"");
        let info = from_ollama_show(&vision).unwrap();
        assert_eq!((info.vision, info.context), (Some(true), Some(8192)));
        assert!(from_ollama_show(&json!({"error": "model not found"})).is_none());
    }
}
