//! Whether a server does what a request asks, found by asking: that the model sees an image
//! (where no endpoint says so, `server_info.rs`), and that `max_tokens`, `stop` and
//! `temperature` take effect. `franz doctor` runs these; each costs one or two short requests.

use super::client::ModelClient;
use super::error::ModelError;
use super::types::{ChatRequest, Content, ContentPart, Message, Reply, data_url};
use crate::observe::{ImageFormat, RgbaImage, encode_image};

/// The fewest prompt tokens an image adds where the model sees it: a 64x64 image is 4 tokens
/// for Qwen2.5-VL after its 56x56 minimum, 256 for Gemma 3, 576 for LLaVA, and vision
/// markers come on top. A server that drops the image adds none (llama-cpp-python with Gemma 3
/// 270M and no projector: 20 prompt tokens with the image or without it; 103 and 20 with one).
pub const MIN_IMAGE_TOKENS: u64 = 4;

/// What comparing a request with an image to the same request without one showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSeen {
    /// The image added at least [`MIN_IMAGE_TOKENS`] prompt tokens.
    Seen { with: u64, without: u64 },
    /// It added fewer: the server dropped it.
    Dropped { with: u64, without: u64 },
    /// No answer to compare (a request failed, or the server reports no `usage`).
    Unknown(String),
}

/// A 64x64 grey PNG as a data URL.
fn small_image() -> Result<String, String> {
    let img = RgbaImage {
        width: 64,
        height: 64,
        data: [200u8, 200, 200, 255].repeat(64 * 64),
    };
    let png = encode_image(&img, ImageFormat::Png).map_err(|e| e.to_string())?;
    Ok(data_url("image/png", &png))
}

fn ask(client: &ModelClient, model: &str, parts: Vec<ContentPart>) -> Result<Reply, ModelError> {
    let mut message = Message::user("");
    message.content = Content::Parts(parts);
    let mut req = ChatRequest::new(model, vec![message]);
    req.max_tokens = Some(1);
    req.temperature = Some(0.0);
    client.chat(&req)
}

/// Sends the same question with and without a small image and compares the prompt tokens
/// the server counted.
pub fn image_seen(client: &ModelClient, model: &str) -> ImageSeen {
    let url = match small_image() {
        Ok(u) => u,
        Err(e) => return ImageSeen::Unknown(e),
    };
    let text = || ContentPart::Text {
        text: "What is in the picture? Answer in one word.".into(),
    };
    let prompt = |parts| -> Result<Option<u64>, String> {
        let reply = ask(client, model, parts).map_err(|e| e.to_string())?;
        Ok(reply.usage.map(|u| u.prompt_tokens))
    };
    let with = prompt(vec![text(), ContentPart::image(url)]);
    let without = prompt(vec![text()]);
    match (with, without) {
        (Ok(Some(with)), Ok(Some(without))) if with >= without + MIN_IMAGE_TOKENS => {
            ImageSeen::Seen { with, without }
        }
        (Ok(Some(with)), Ok(Some(without))) => ImageSeen::Dropped { with, without },
        (Err(e), _) | (_, Err(e)) => ImageSeen::Unknown(e),
        _ => ImageSeen::Unknown("the server reports no usage to compare".into()),
    }
}

/// A request setting the server ignored, and what showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// `max_tokens`, `stop` or `temperature`.
    pub setting: &'static str,
    pub evidence: String,
}

fn count_request(model: &str, max_tokens: u32, stop: Option<&str>) -> ChatRequest {
    let mut req = ChatRequest::new(
        model,
        vec![Message::user(
            "Count from 1 to 30, separated by spaces. Write only the numbers.",
        )],
    );
    req.max_tokens = Some(max_tokens);
    req.temperature = Some(0.0);
    req.top_p = Some(1.0);
    req.stop = stop.map(|s| vec![s.to_string()]);
    req
}

/// Asks the model to count from 1 to 30 three times: with `max_tokens` 1 (a reply of more
/// tokens ignores it), with the stop string "7" (a reply holding it ignores it; one that never
/// reached 7 shows nothing), and once more as the second at temperature 0 (a different reply
/// ignores the temperature, or samples anyway).
pub fn ignored_settings(client: &ModelClient, model: &str) -> Result<Vec<Ignored>, ModelError> {
    let mut out = Vec::new();
    let short = client.chat(&count_request(model, 1, None))?;
    let words = short.content.split_whitespace().count() as u64;
    let produced = short.usage.as_ref().map_or(words, |u| u.completion_tokens);
    if produced > 2 || words > 2 {
        out.push(Ignored {
            setting: "max_tokens",
            evidence: format!(
                "asked for at most 1 token, the reply has {produced} ({:?})",
                crate::model::body::snippet(&short.content)
            ),
        });
    }
    let first = client.chat(&count_request(model, 80, Some("7")))?;
    if first.content.contains('7') {
        out.push(Ignored {
            setting: "stop",
            evidence: format!(
                "asked to stop at \"7\", the reply goes on: {:?}",
                crate::model::body::snippet(&first.content)
            ),
        });
    }
    let second = client.chat(&count_request(model, 80, Some("7")))?;
    if second.content != first.content {
        out.push(Ignored {
            setting: "temperature",
            evidence: format!(
                "the same request at temperature 0 got two replies: {:?} and {:?}",
                crate::model::body::snippet(&first.content),
                crate::model::body::snippet(&second.content)
            ),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::server_shapes::{Honours, llama_cpp, model_like};
    use crate::model::{ClientConfig, ScriptedServer};

    fn client(url: String) -> ModelClient {
        ModelClient::new(ClientConfig {
            retries: 0,
            ..ClientConfig::new(url)
        })
        .unwrap()
    }

    #[test]
    fn a_server_that_drops_images_counts_the_same_prompt_with_one() {
        let blind = Honours {
            images: false,
            ..Honours::ALL
        };
        let s = ScriptedServer::start_with(model_like(blind), llama_cpp("m", false, 8192)).unwrap();
        let seen = image_seen(&client(s.url()), "m");
        assert!(
            matches!(seen, ImageSeen::Dropped { with, without } if with == without),
            "{seen:?}"
        );
        let s = ScriptedServer::start_with(model_like(Honours::ALL), llama_cpp("m", true, 8192))
            .unwrap();
        let seen = image_seen(&client(s.url()), "m");
        assert!(matches!(seen, ImageSeen::Seen { .. }), "{seen:?}");
    }

    #[test]
    fn each_ignored_setting_is_named_and_an_honest_server_has_none() {
        let s = ScriptedServer::start_with(model_like(Honours::ALL), llama_cpp("m", true, 8192))
            .unwrap();
        assert_eq!(ignored_settings(&client(s.url()), "m").unwrap(), vec![]);
        let careless = Honours {
            max_tokens: false,
            stop: false,
            temperature: false,
            images: true,
        };
        let s =
            ScriptedServer::start_with(model_like(careless), llama_cpp("m", true, 8192)).unwrap();
        let ignored = ignored_settings(&client(s.url()), "m").unwrap();
        let names: Vec<_> = ignored.iter().map(|i| i.setting).collect();
        assert_eq!(names, ["max_tokens", "stop", "temperature"], "{ignored:?}");
    }
}
