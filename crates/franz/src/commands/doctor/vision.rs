//! Whether the model sees images: what the server's own endpoint says (`server_info`), else
//! what a request with a small image costs against the same request without it
//! (`honours::image_seen`): a server that drops images silently answers both alike.

use super::check::Check;
use franz_core::model::ModelClient;
use franz_core::model::honours::{self, ImageSeen};
use franz_core::model::server_info::ServerInfo;

const NAME: &str = "vision";

pub(super) fn check(client: &ModelClient, model: &str, info: &ServerInfo) -> Check {
    match info.vision {
        Some(true) => Check::pass(NAME, format!("{model} takes images ({})", info.source)),
        Some(false) => Check::fail(
            NAME,
            format!(
                "the model cannot see images: {} says {model} takes text only",
                info.source
            ),
            info.kind.load_vision(model),
        ),
        None => by_tokens(client, model, info),
    }
}

/// No endpoint said: compare the prompt tokens of a request with and without an image.
fn by_tokens(client: &ModelClient, model: &str, info: &ServerInfo) -> Check {
    match honours::image_seen(client, model) {
        ImageSeen::Seen { with, without } => Check::pass(
            NAME,
            format!(
                "a 64x64 image added {} prompt tokens ({with} with it, {without} without; {})",
                with - without,
                info.source
            ),
        ),
        ImageSeen::Dropped { with, without } => Check::fail(
            NAME,
            format!(
                "the model cannot see images: {} answered a request with a 64x64 image with \
                 {with} prompt tokens and the same request without it with {without}, so it \
                 drops images without saying so",
                info.kind.name()
            ),
            info.kind.load_vision(model),
        ),
        ImageSeen::Unknown(why) => Check::warn(
            NAME,
            format!(
                "not known whether {model} sees images ({}; comparing a request with and \
                 without an image: {why})",
                info.source
            ),
            info.kind.load_vision(model),
        ),
    }
}
