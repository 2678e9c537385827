//! Whether one turn fits the server's context: the first turn's request as the strategy builds
//! it, with a screenshot at the profile's image size for this screen, estimated as a run
//! estimates it (`model/context.rs`), plus the reply's `max_tokens`. Where it does not, the
//! numbers and the setting to raise in the server's own words (`ServerKind::raise_context`).

use super::check::Check;
use franz_core::config::{Chosen, Settings};
use franz_core::geometry::{ImageSize, WorkArea};
use franz_core::model::ChatRequest;
use franz_core::model::context::estimate;
use franz_core::model::server_info::{OLLAMA_DEFAULT_CONTEXT, ServerInfo, ServerKind};
use franz_core::observe::{ImageFormat, RgbaImage, Screenshot, encode_image};
use franz_core::strategy::TurnContext;
use franz_core::turn_tokens::thousands;
use franz_desktop::PixelRect;

const NAME: &str = "turn size";

/// A short task, as the first turn's request carries one.
const TASK: &str = "Open the text editor, write a short note and save it on the desktop.";

/// What one turn takes.
struct Need {
    image: ImageSize,
    image_tokens: u64,
    text_tokens: u64,
    reply_tokens: u64,
    /// The screenshots a run keeps in its requests.
    kept: u64,
}

impl Need {
    fn turn(&self) -> u64 {
        self.image_tokens + self.text_tokens + self.reply_tokens
    }
    /// A later turn's, with every kept screenshot (text aside, which grows with the history).
    fn with_history(&self) -> u64 {
        self.turn() + self.image_tokens * self.kept.saturating_sub(1)
    }
}

pub(super) fn check(
    settings: &Settings,
    chosen: &Chosen,
    screen: Option<PixelRect>,
    info: &ServerInfo,
    known: Option<u64>,
) -> Check {
    let Some(screen) = screen else {
        return Check::fail(NAME, "skipped: no desktop", "fix the display first");
    };
    let c = settings.config();
    let need = match need(settings, chosen, screen) {
        Ok(n) => n,
        Err(e) => return Check::fail(NAME, format!("{e:#}"), "check --crop and --size"),
    };
    let what = format!(
        "about {} tokens at the {} profile's image size {}x{} (image {}, text {}, reply up to {})",
        thousands(need.turn()),
        chosen.profile().name,
        need.image.width,
        need.image.height,
        thousands(need.image_tokens),
        thousands(need.text_tokens),
        thousands(need.reply_tokens)
    );
    let (context, whence) = match (known.or(info.context), info.kind) {
        (Some(n), _) => (n, String::new()),
        (None, ServerKind::Ollama) => (
            OLLAMA_DEFAULT_CONTEXT,
            ", Ollama's default: the model sets no num_ctx".to_string(),
        ),
        (None, _) => {
            let text = format!("one turn needs {what}; the server's context is unknown");
            return Check::pass(NAME, text);
        }
    };
    if need.turn() <= context {
        let text = format!(
            "one turn needs {what}; the context holds {}",
            thousands(context)
        );
        return Check::pass(NAME, text);
    }
    let suggest = need.with_history().max(need.turn()).div_ceil(1024) * 1024;
    Check::fail(
        NAME,
        format!(
            "the context ({} tokens{whence}) is smaller than one turn needs: {what}",
            thousands(context)
        ),
        format!(
            "{} (one turn with the {} screenshot(s) a run keeps needs about {}); or lower the \
             image size (--pixel-budget) or max_tokens",
            info.kind.raise_context(&c.model, suggest),
            need.kept.max(1),
            thousands(need.with_history())
        ),
    )
}

/// The first turn's request, built by the run's strategy under the chosen profile.
fn need(settings: &Settings, chosen: &Chosen, screen: PixelRect) -> anyhow::Result<Need> {
    let c = settings.config();
    let area = settings.crop.work_area(screen)?;
    let image = settings.size.resolve(area.rect.width, area.rect.height);
    let rule = franz_core::config::context(Some(chosen.profile()), None).image_tokens;
    let shot = screenshot(area, image)?;
    let mut strategy = c.strategy.create(c.read_options(Some(&chosen.applied)));
    let prompt = strategy.prompt(&TurnContext {
        task: TASK,
        turn: 1,
        screenshot: &shot,
    });
    let reply_tokens = prompt.max_tokens.map_or(c.max_tokens, u64::from);
    let mut request = ChatRequest::new(c.model.clone(), prompt.messages);
    request.tools = prompt.tools;
    request.tool_choice = prompt.tool_choice;
    let cost = estimate(&request, rule);
    Ok(Need {
        image,
        image_tokens: cost.image_tokens,
        text_tokens: cost.text_tokens,
        reply_tokens,
        kept: c.keep_last_screenshots,
    })
}

/// A blank screenshot of `size` (its PNG header is what the estimate reads).
fn screenshot(area: WorkArea, size: ImageSize) -> anyhow::Result<Screenshot> {
    let image = RgbaImage {
        width: size.width,
        height: size.height,
        data: vec![255; size.width as usize * size.height as usize * 4],
    };
    let encoded = encode_image(&image, ImageFormat::Png)?;
    Ok(Screenshot {
        work_area: area,
        area: franz_core::observe::ObservedArea::whole(area),
        size,
        data_url: franz_core::model::data_url("image/png", &encoded),
        image,
        encoded,
        format: ImageFormat::Png,
        timings: Default::default(),
        change: Default::default(),
        reused: false,
    })
}
