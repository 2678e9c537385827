//! Token accounting and the context window: what a request costs in tokens (an estimate), how
//! long the server's context is (where the server says it), and what a server's
//! context-overflow error says.
//!
//! - **Images** cost what the family's processor makes of them: one token per
//!   `pixels_per_token_side` x `pixels_per_token_side` pixels after patch merging
//!   ([`ImageTokens`]). franz's default (no family) is [`ImageTokens::FRANZ`], 28 px a side.
//! - **Text** is estimated at [`CHARS_PER_TOKEN`] characters a token over the request's JSON
//!   body with the images left out (the JSON's quotes and keys stand in for the chat template's
//!   role markers, and the tool schema counts as the server writes it into the prompt).
//! - **Context length**: llama.cpp's `GET /props` (`default_generation_settings.n_ctx`, or
//!   `n_ctx` at the top level in older servers), LM Studio's `GET /api/v0/models`
//!   (`loaded_context_length`, else `max_context_length`), vLLM's `GET /v1/models`
//!   (`max_model_len`). See [`ModelClient::context_length`](super::ModelClient::context_length).
//!   llama-cpp-python's server says it only when it refuses a request as too long
//!   (`context_probe.rs`).
//! - **Overflow errors**: [`context_overflow`] recognises the wordings of llama.cpp,
//!   llama-cpp-python, vLLM and OpenAI, LM Studio and Ollama, and takes the numbers out where
//!   the server gives them.

use super::types::{ChatRequest, Content, ContentPart};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Characters per token of text: about 4 for English under the BPE tokenizers of the GPT and
/// Qwen families (the same rule as the tools strategy's history budget, `strategy/budget.rs`).
pub const CHARS_PER_TOKEN: u64 = 4;

/// Tokens of an image whose size cannot be read from its data URL.
pub const UNKNOWN_IMAGE_TOKENS: u64 = 1_500;

/// How a family's image processor turns pixels into tokens: one token per square of
/// `pixels_per_token_side` pixels a side after patch merging (Qwen2.5-VL and UI-TARS-1.5: 14-px
/// patches merged 2x2, 28; Qwen3-VL: 16-px patches merged 2x2, 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageTokens {
    pub pixels_per_token_side: u32,
}

impl ImageTokens {
    /// franz's estimate for a model of no known family: 28 px a side (Qwen2-VL and Qwen2.5-VL
    /// exactly; GPT-4o's high detail comes close: a 1280x720 screenshot is 1,196 here, 1,105
    /// there).
    pub const FRANZ: ImageTokens = ImageTokens {
        pixels_per_token_side: 28,
    };

    /// The tokens of a `width` x `height` image: `ceil(w/f) * ceil(h/f)`, which is exactly
    /// `(w/f) * (h/f)` for the sizes a family's `smart_resize` makes (multiples of `f`).
    pub fn tokens(self, width: u32, height: u32) -> u64 {
        let f = self.pixels_per_token_side.max(1);
        u64::from(width.div_ceil(f)) * u64::from(height.div_ceil(f))
    }
}

impl Default for ImageTokens {
    fn default() -> Self {
        Self::FRANZ
    }
}

/// One image of a request: its size and its tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageCost {
    pub width: u32,
    pub height: u32,
    pub tokens: u64,
}

/// What a request costs, estimated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestCost {
    /// The text's tokens ([`CHARS_PER_TOKEN`] over the body without its images).
    pub text_tokens: u64,
    /// The part of `text_tokens` that is the tool schema (`tools`), which some servers' chat
    /// templates never write into the prompt (`calibrate.rs` learns whether they do).
    pub tool_tokens: u64,
    /// Every image's tokens ([`UNKNOWN_IMAGE_TOKENS`] for one whose size is unknown).
    pub image_tokens: u64,
    /// The images whose size is known, in request order (the newest last).
    pub images: Vec<ImageCost>,
}

impl RequestCost {
    /// The whole request's tokens.
    pub fn total(&self) -> u64 {
        self.text_tokens + self.image_tokens
    }
}

/// The estimated cost of `request` with images counted by `rule`.
pub fn estimate(request: &ChatRequest, rule: ImageTokens) -> RequestCost {
    let mut cost = RequestCost::default();
    let mut image_chars = 0u64;
    for m in &request.messages {
        let Content::Parts(parts) = &m.content else {
            continue;
        };
        for p in parts {
            let ContentPart::ImageUrl { image_url } = p else {
                continue;
            };
            image_chars += image_url.url.len() as u64;
            match image_size(&image_url.url) {
                Some((width, height)) => {
                    let tokens = rule.tokens(width, height);
                    cost.image_tokens += tokens;
                    cost.images.push(ImageCost {
                        width,
                        height,
                        tokens,
                    });
                }
                None => cost.image_tokens += UNKNOWN_IMAGE_TOKENS,
            }
        }
    }
    let body_chars = request.to_body().to_string().len() as u64;
    cost.text_tokens = body_chars
        .saturating_sub(image_chars)
        .div_ceil(CHARS_PER_TOKEN);
    let tool_chars = match request.tools.is_empty() {
        true => 0,
        false => serde_json::to_string(&request.tools).map_or(0, |t| t.len() as u64),
    };
    cost.tool_tokens = tool_chars.div_ceil(CHARS_PER_TOKEN).min(cost.text_tokens);
    cost
}

/// The width and height of an image given as a `data:` URL: from a PNG's header, else by
/// reading the image's header with the `image` crate (JPEG, WebP).
pub fn image_size(url: &str) -> Option<(u32, u32)> {
    use base64::Engine as _;
    let (head, b64) = url.strip_prefix("data:")?.split_once(',')?;
    if !head.ends_with(";base64") {
        return None;
    }
    let engine = base64::engine::general_purpose::STANDARD;
    if head.starts_with("image/png")
        && let Some(bytes) = b64.get(..32).and_then(|s| engine.decode(s).ok())
        && bytes.starts_with(b"\x89PNG\r\n\x1a\n")
        && bytes.get(12..16) == Some(b"IHDR".as_slice())
    {
        let be = |at: usize| -> Option<u32> {
            Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        return Some((be(16)?, be(20)?));
    }
    let bytes = engine.decode(b64).ok()?;
    image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

/// The context length a server reported, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextInfo {
    /// `None`: the server did not say.
    pub tokens: Option<u64>,
    /// Where it came from, e.g. `llama.cpp GET /props`; what was asked when unknown.
    pub source: String,
}

/// llama.cpp's `GET /props`: `default_generation_settings.n_ctx` (a slot's context, which is
/// what one request may fill), or `default_generation_settings.params.n_ctx`, or a top-level
/// `n_ctx` (other versions).
pub fn context_from_props(v: &Value) -> Option<u64> {
    v.pointer("/default_generation_settings/n_ctx")
        .or_else(|| v.pointer("/default_generation_settings/params/n_ctx"))
        .or_else(|| v.get("n_ctx"))
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
}

/// A model list (`GET /api/v0/models` of LM Studio, `GET /v1/models` of vLLM and others): the
/// context of the entry whose `id` is `model` (else of the only loaded one, else of the only
/// one): LM Studio's `loaded_context_length` or `max_context_length`, vLLM's `max_model_len`.
pub fn context_from_models(v: &Value, model: &str) -> Option<u64> {
    let list = v.get("data").and_then(Value::as_array)?;
    let loaded: Vec<&Value> = list
        .iter()
        .filter(|m| m.get("state").and_then(Value::as_str) != Some("not-loaded"))
        .collect();
    let entry = list
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (loaded.len() == 1).then(|| loaded[0]))
        .or_else(|| (list.len() == 1).then(|| &list[0]))?;
    [
        "loaded_context_length",
        "max_model_len",
        "max_context_length",
    ]
    .iter()
    .find_map(|k| entry.get(*k).and_then(Value::as_u64))
    .filter(|n| *n > 0)
}

/// A server's context-overflow error: the tokens the request needed and the context's length,
/// where the server said them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow {
    pub requested: Option<u64>,
    pub limit: Option<u64>,
}

/// Phrases that mark a context overflow (lowercase): llama.cpp, vLLM and OpenAI, LM Studio,
/// Ollama.
const OVERFLOW_MARKERS: &[&str] = &[
    "exceed_context_size_error",
    "exceeds the available context size",
    "maximum context length",
    "context_length_exceeded",
    "when context the overflows",
    "context length of only",
    "reached context length of",
    "context size has been exceeded",
    "exceeds context length",
    "exceeds the context length",
    "exceeds the maximum context length",
    "input is larger than the max context size",
    "prompt exceeds n_ctx",
];

/// Where the requested tokens follow (lowercase marker; the number is the first after it).
const REQUESTED_AFTER: &[&str] = &[
    "request (",
    "you requested ",
    "your request has ",
    "resulted in ",
    "keep the first ",
    "input length ",
    "prompt has ",
    "prompt exceeds n_ctx: ",
];

/// Where the context's length follows.
const LIMIT_AFTER: &[&str] = &[
    "available context size (",
    "maximum context length is ",
    "context length of only ",
    "reached context length of ",
    "exceeds context length ",
];

/// llama-cpp-python's image path says "Prompt exceeds n_ctx: 352 > 256": the tokens up to the
/// part that did not fit, then the context's length.
const LIMIT_AFTER_COUNT: &[&str] = &["prompt exceeds n_ctx: "];

/// The overflow an error body reports, if it is one (`None`: another error).
pub fn context_overflow(body: &str) -> Option<Overflow> {
    let lower = body.to_lowercase();
    if !OVERFLOW_MARKERS.iter().any(|m| lower.contains(m)) {
        return None;
    }
    let field = |key: &str| -> Option<u64> {
        let v: Value = serde_json::from_str(body).ok()?;
        let e = v.get("error").unwrap_or(&v);
        e.get(key).and_then(Value::as_u64)
    };
    let text = super::body::server_message(body).to_lowercase();
    let find = |after: &[&str]| after.iter().find_map(|m| number_after(&text, m));
    Some(Overflow {
        requested: field("n_prompt_tokens").or_else(|| find(REQUESTED_AFTER)),
        limit: field("n_ctx").or_else(|| find(LIMIT_AFTER)).or_else(|| {
            LIMIT_AFTER_COUNT
                .iter()
                .find_map(|m| limit_after_count(&text, m))
        }),
    })
}

/// The second number of `marker N > M`: M.
fn limit_after_count(text: &str, marker: &str) -> Option<u64> {
    let at = text.find(marker)? + marker.len();
    let rest = text[at..].trim_start_matches(|c: char| c.is_ascii_digit());
    number_after(rest.trim_start(), "> ")
}

/// The number right after `marker` in `text` (digits, with `,` or `_` separators).
fn number_after(text: &str, marker: &str) -> Option<u64> {
    let at = text.find(marker)? + marker.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '_')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Tool};
    use serde_json::json;

    fn png_url(w: u32, h: u32) -> String {
        let mut head = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        head.extend_from_slice(&w.to_be_bytes());
        head.extend_from_slice(&h.to_be_bytes());
        head.extend_from_slice(&[8, 6, 0, 0, 0]);
        crate::model::types::data_url("image/png", &head)
    }

    #[test]
    fn image_tokens_are_patches_after_merging_for_the_family_factor() {
        // Qwen2.5-VL / UI-TARS: a smart_resize fixed point 1092x616 is 39x22 tokens
        let qwen25 = ImageTokens {
            pixels_per_token_side: 28,
        };
        assert_eq!(qwen25.tokens(1092, 616), 39 * 22);
        // Qwen3-VL: 32 px a side
        let qwen3 = ImageTokens {
            pixels_per_token_side: 32,
        };
        assert_eq!(qwen3.tokens(1280, 704), 40 * 22);
        // franz's default rounds a partial square up
        assert_eq!(ImageTokens::FRANZ.tokens(1280, 720), 46 * 26);
        assert_eq!(ImageTokens::FRANZ.tokens(1, 1), 1);
        assert_eq!(ImageTokens::default(), ImageTokens::FRANZ);
    }

    #[test]
    fn the_estimate_counts_text_at_four_characters_a_token_and_every_image() {
        let text = "x".repeat(4000);
        let mut req = ChatRequest::new(
            "m",
            vec![
                Message::system(text.clone()),
                Message::user_with_image("old", png_url(560, 280)),
                Message::user_with_image("new", png_url(1092, 616)),
            ],
        );
        let cost = estimate(&req, ImageTokens::FRANZ);
        assert_eq!(cost.image_tokens, 20 * 10 + 39 * 22);
        assert_eq!(
            cost.images.last().copied(),
            Some(ImageCost {
                width: 1092,
                height: 616,
                tokens: 39 * 22
            })
        );
        // 4,000 characters of text and a little JSON around them
        assert!(
            (1000..1100).contains(&cost.text_tokens),
            "{}",
            cost.text_tokens
        );
        assert_eq!(cost.total(), cost.text_tokens + cost.image_tokens);
        // the tool schema counts as text; the base64 of an image does not
        let before = cost.text_tokens;
        req.tools = vec![Tool::function("f", &"d".repeat(400), json!({}))];
        assert!(estimate(&req, ImageTokens::FRANZ).text_tokens >= before + 100);
        let qwen3 = ImageTokens {
            pixels_per_token_side: 32,
        };
        assert_eq!(
            estimate(&req, qwen3).image_tokens,
            qwen3.tokens(560, 280) + qwen3.tokens(1092, 616)
        );
    }

    #[test]
    fn image_sizes_are_read_from_png_headers_and_other_formats() {
        assert_eq!(image_size(&png_url(1366, 768)), Some((1366, 768)));
        let img = crate::observe::RgbaImage {
            width: 30,
            height: 20,
            data: vec![200; 30 * 20 * 4],
        };
        let jpeg =
            crate::observe::encode_image(&img, crate::observe::ImageFormat::Jpeg { quality: 80 })
                .expect("jpeg");
        let url = crate::model::types::data_url("image/jpeg", &jpeg);
        assert_eq!(image_size(&url), Some((30, 20)));
        assert_eq!(image_size("data:image/png;base64,AA"), None);
        assert_eq!(image_size("https://example.com/a.png"), None);
        let req = ChatRequest::new(
            "m",
            vec![Message::user_with_image("?", "data:image/png;base64,AA")],
        );
        assert_eq!(
            estimate(&req, ImageTokens::FRANZ).image_tokens,
            UNKNOWN_IMAGE_TOKENS
        );
    }

    #[test]
    fn context_lengths_are_read_where_each_server_says_them() {
        let props = json!({"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1});
        assert_eq!(context_from_props(&props), Some(8192));
        assert_eq!(context_from_props(&json!({"n_ctx": 4096})), Some(4096));
        let nested = json!({"default_generation_settings": {"params": {"n_ctx": 2048}}});
        assert_eq!(context_from_props(&nested), Some(2048));
        assert_eq!(context_from_props(&json!({"model_path": "x"})), None);
        let lmstudio = json!({"object": "list", "data": [
            {"id": "qwen2.5-vl-7b-instruct", "state": "loaded",
             "max_context_length": 128000, "loaded_context_length": 8192},
            {"id": "other", "state": "not-loaded", "max_context_length": 32768}]});
        assert_eq!(
            context_from_models(&lmstudio, "qwen2.5-vl-7b-instruct"),
            Some(8192)
        );
        assert_eq!(
            context_from_models(&lmstudio, "local-model"),
            Some(8192),
            "the only loaded model"
        );
        assert_eq!(context_from_models(&lmstudio, "other"), Some(32768));
        let vllm = json!({"data": [{"id": "Qwen/Qwen2.5-VL-7B-Instruct", "max_model_len": 16384}]});
        assert_eq!(context_from_models(&vllm, "anything"), Some(16384));
        let plain = json!({"data": [{"id": "a"}, {"id": "b"}]});
        assert_eq!(context_from_models(&plain, "a"), None);
    }

    #[test]
    fn overflow_errors_of_each_server_are_recognised_with_their_numbers() {
        let llama = r#"{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}"#;
        assert_eq!(
            context_overflow(llama),
            Some(Overflow {
                requested: Some(4476),
                limit: Some(4096)
            })
        );
        let old_llama = r#"{"error":{"code":500,"message":"the request exceeds the available context size, try increasing it","type":"server_error"}}"#;
        assert_eq!(
            context_overflow(old_llama),
            Some(Overflow {
                requested: None,
                limit: None
            })
        );
        let vllm = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (2952 in the messages, 2048 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
        assert_eq!(
            context_overflow(vllm),
            Some(Overflow {
                requested: Some(5000),
                limit: Some(4096)
            })
        );
        let openai = r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130,512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        assert_eq!(
            context_overflow(openai),
            Some(Overflow {
                requested: Some(130_512),
                limit: Some(128_000)
            })
        );
        let lmstudio = r#"{"error":"Trying to keep the first 10136 tokens when context the overflows. However, the model is loaded with context length of only 7866 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input"}"#;
        assert_eq!(
            context_overflow(lmstudio),
            Some(Overflow {
                requested: Some(10136),
                limit: Some(7866)
            })
        );
        // llama-cpp-python: the image path (a 500), and the text path (its own 400)
        let mtmd = r#"{"error":{"message":"Prompt exceeds n_ctx: 352 > 256","type":"internal_server_error","param":null,"code":null}}"#;
        assert_eq!(
            context_overflow(mtmd),
            Some(Overflow {
                requested: Some(352),
                limit: Some(256)
            })
        );
        let ollama = r#"{"error":"the input length exceeds the context length"}"#;
        assert_eq!(
            context_overflow(ollama),
            Some(Overflow {
                requested: None,
                limit: None
            })
        );
        for other in [
            r#"{"error":{"message":"model does not support images"}}"#,
            "",
            "Internal Server Error",
        ] {
            assert_eq!(context_overflow(other), None, "{other}");
        }
    }
}
