//! Keeping each request inside the model's context: when the context length is known (the
//! `context_tokens` setting, else what the server reports at the start of the run), a request
//! whose estimate (`model/context.rs`) is over the context less the reply's `max_tokens` is made
//! smaller, one step at a time, each step a `context_fitted` event:
//!
//! 1. `fewer_screenshots`: older images are left out of the request, oldest first (replaced by a
//!    short text); the newest stays.
//! 2. `smaller_image`: the newest screenshot is shrunk to the next smaller size that
//!    [`ContextOptions::shrink`] gives (franz's default: [`franz_shrink`]; a model family plugs
//!    in its own, e.g. the next smaller fixed point of its `smart_resize`). The turn's reply is
//!    then read against the image the model was sent.
//!
//! The estimate is the calibrated one (`model/calibrate.rs`) once the server has said its
//! count of an earlier request.
//!
//! If even the smallest image does not fit, the request is not sent: the run ends with an
//! error naming the numbers and the setting to change.

use crate::event::EventKind;
use crate::geometry::ImageSize;
use crate::model::context::{RequestCost, estimate};
use crate::model::{Calibration, ChatRequest, Content, ContentPart, ImageTokens};
use crate::observe::{RgbaImage, Screenshot, encode_image};
use std::sync::Arc;

/// The next smaller image size, or `None` when there is none.
pub type ShrinkStep = Arc<dyn Fn(ImageSize) -> Option<ImageSize> + Send + Sync>;

/// What an image left out of a request is replaced with.
pub const LEFT_OUT_SCREENSHOT: &str = "[older screenshot left out to fit the model's context]";

/// franz's default shrink step stops before the longer side goes under this many pixels.
pub const MIN_SIDE: u32 = 256;

/// How requests are kept inside the model's context.
#[derive(Clone)]
pub struct ContextOptions {
    /// The context length in tokens. `None` at the start of a run: asked of the server; still
    /// `None` after: unknown, and no limit is enforced.
    pub tokens: Option<u64>,
    /// How images count (the model family's rule; franz's default without one).
    pub image_tokens: ImageTokens,
    /// The next smaller size of the newest screenshot.
    pub shrink: ShrinkStep,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            tokens: None,
            image_tokens: ImageTokens::FRANZ,
            shrink: Arc::new(franz_shrink),
        }
    }
}

impl std::fmt::Debug for ContextOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextOptions")
            .field("tokens", &self.tokens)
            .field("image_tokens", &self.image_tokens)
            .finish_non_exhaustive()
    }
}

/// franz's default shrink step (no model family): 3/4 of the size on each side, keeping the
/// aspect, while the longer side stays at least [`MIN_SIDE`].
pub fn franz_shrink(size: ImageSize) -> Option<ImageSize> {
    let scale = |v: u32| (u64::from(v) * 3 / 4).max(1) as u32;
    let next = ImageSize::new(scale(size.width), scale(size.height));
    (next.width.max(next.height) >= MIN_SIDE).then_some(next)
}

/// A request made to fit: the steps taken (as `context_fitted` events), the newest
/// screenshot as sent when it was shrunk, and the message for the user when even the smallest
/// request does not fit.
#[derive(Default)]
pub(super) struct Fit {
    pub steps: Vec<EventKind>,
    pub shrunk: Option<Screenshot>,
    pub error: Option<String>,
}

/// Makes `request` fit `context` (see the module doc). `newest`: the turn's screenshot, which
/// may be shrunk; without it only older images are left out. Nothing to do without a known
/// context length.
pub(super) fn fit_request(
    request: &mut ChatRequest,
    newest: Option<&Screenshot>,
    context: &ContextOptions,
    cal: &Calibration,
) -> Fit {
    let mut fit = Fit::default();
    let Some(limit) = context.tokens else {
        return fit;
    };
    let max_tokens = u64::from(request.max_tokens.unwrap_or(0));
    let budget = limit.saturating_sub(max_tokens);
    let rule = context.image_tokens;
    let mut cost = estimate(request, rule);
    if cal.tokens(&cost) <= budget {
        return fit;
    }
    let before = cal.tokens(&cost);
    if leave_out_older_images(request, budget, rule, cal) {
        cost = estimate(request, rule);
        fit.steps
            .push(step("fewer_screenshots", before, &cost, cal, budget));
    }
    let mut shot = newest.cloned();
    while cal.tokens(&cost) > budget {
        let Some(current) = shot.as_ref().filter(|s| holds(request, &s.data_url)) else {
            break;
        };
        let Some(size) = (context.shrink)(current.size).filter(|s| *s != current.size) else {
            break;
        };
        let smaller = match shrink(current, size) {
            Ok(s) => s,
            Err(e) => {
                fit.error = Some(e);
                return fit;
            }
        };
        replace_image(request, &current.data_url, &smaller.data_url);
        let before = cal.tokens(&cost);
        cost = estimate(request, rule);
        fit.steps
            .push(step("smaller_image", before, &cost, cal, budget));
        shot = Some(smaller);
    }
    if cal.tokens(&cost) > budget {
        fit.error = Some(too_small(&cost, cal, limit, max_tokens));
    }
    fit.shrunk = shot.filter(|s| newest.is_some_and(|n| n.size != s.size));
    fit
}

fn step(name: &str, before: u64, cost: &RequestCost, cal: &Calibration, budget: u64) -> EventKind {
    let newest = cost.images.last();
    EventKind::ContextFitted {
        step: name.to_string(),
        tokens_before: before,
        tokens_after: cal.tokens(cost),
        budget,
        images: cost.images.len(),
        width: newest.map_or(0, |i| i.width),
        height: newest.map_or(0, |i| i.height),
    }
}

/// The message when a request cannot be made to fit.
fn too_small(cost: &RequestCost, cal: &Calibration, limit: u64, max_tokens: u64) -> String {
    let image = match cost.images.last() {
        Some(i) => format!(
            ", its one screenshot at {}x{} ({} tokens)",
            i.width, i.height, i.tokens
        ),
        None => String::new(),
    };
    format!(
        "the request does not fit the model's context even at its smallest: about {} tokens (estimated{image}), \
         but the context holds {limit} tokens less max_tokens {max_tokens} for the reply, {} for the request: \
         if the server's context is larger, set context_tokens to it (--context-tokens, FRANZ_CONTEXT_TOKENS or the config file); \
         else load the model with a larger context (llama.cpp: -c; LM Studio: the model's context length), or lower max_tokens",
        cal.tokens(cost),
        limit.saturating_sub(max_tokens)
    )
}

/// The image parts of a request, oldest first.
fn image_urls(request: &mut ChatRequest) -> impl Iterator<Item = &mut ContentPart> {
    request
        .messages
        .iter_mut()
        .filter_map(|m| match &mut m.content {
            Content::Parts(parts) => Some(parts.iter_mut()),
            Content::Text(_) => None,
        })
        .flatten()
        .filter(|p| matches!(p, ContentPart::ImageUrl { .. }))
}

/// Leaves out images, oldest first, until the request fits `budget` or only the newest is
/// left. True if it left any out.
fn leave_out_older_images(
    request: &mut ChatRequest,
    budget: u64,
    rule: ImageTokens,
    cal: &Calibration,
) -> bool {
    let mut left_out = false;
    loop {
        let total = image_urls(request).count();
        if total <= 1 || cal.tokens(&estimate(request, rule)) <= budget {
            return left_out;
        }
        if let Some(part) = image_urls(request).next() {
            *part = ContentPart::Text {
                text: LEFT_OUT_SCREENSHOT.into(),
            };
            left_out = true;
        }
    }
}

fn holds(request: &ChatRequest, url: &str) -> bool {
    request.messages.iter().any(|m| match &m.content {
        Content::Parts(parts) => parts
            .iter()
            .any(|p| matches!(p, ContentPart::ImageUrl { image_url } if image_url.url == url)),
        Content::Text(_) => false,
    })
}

fn replace_image(request: &mut ChatRequest, from: &str, to: &str) {
    for part in image_urls(request) {
        if let ContentPart::ImageUrl { image_url } = part
            && image_url.url == from
        {
            image_url.url = to.to_string();
        }
    }
}

/// The screenshot resized to `size` (the same work area), encoded as before.
fn shrink(shot: &Screenshot, size: ImageSize) -> Result<Screenshot, String> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot shrink the screenshot: {e}");
    let buffer =
        image::RgbaImage::from_raw(shot.image.width, shot.image.height, shot.image.data.clone())
            .ok_or_else(|| cannot(&"its pixels do not match its size"))?;
    let resized = image::imageops::resize(
        &buffer,
        size.width,
        size.height,
        image::imageops::FilterType::Triangle,
    );
    let image = RgbaImage {
        width: size.width,
        height: size.height,
        data: resized.into_raw(),
    };
    let encoded = encode_image(&image, shot.format).map_err(|e| cannot(&e))?;
    let data_url = crate::model::data_url(shot.format.mime(), &encoded);
    Ok(Screenshot {
        size,
        image,
        encoded,
        data_url,
        ..shot.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::WorkArea;
    use crate::model::Message;
    use crate::observe::{ImageFormat, StageTimings};

    fn screenshot(w: u32, h: u32, shade: u8) -> Screenshot {
        let image = RgbaImage {
            width: w,
            height: h,
            data: vec![shade; (w * h * 4) as usize],
        };
        let encoded = encode_image(&image, ImageFormat::Png).unwrap();
        Screenshot {
            work_area: WorkArea {
                rect: franz_desktop::PixelRect::new(0, 0, w, h),
            },
            area: crate::observe::ObservedArea::whole(WorkArea {
                rect: franz_desktop::PixelRect::new(0, 0, w, h),
            }),
            size: ImageSize::new(w, h),
            data_url: crate::model::data_url("image/png", &encoded),
            image,
            encoded,
            format: ImageFormat::Png,
            timings: StageTimings::default(),
            change: Default::default(),
            reused: false,
        }
    }

    fn request(shots: &[&Screenshot], max_tokens: u32) -> ChatRequest {
        let mut messages = vec![Message::system("s".repeat(400))];
        for s in shots {
            messages.push(Message::user_with_image("screen", s.data_url.clone()));
        }
        let mut r = ChatRequest::new("m", messages);
        r.max_tokens = Some(max_tokens);
        r
    }

    fn context(tokens: Option<u64>) -> ContextOptions {
        ContextOptions {
            tokens,
            ..ContextOptions::default()
        }
    }

    #[test]
    fn the_default_shrink_keeps_the_aspect_down_to_the_minimum() {
        assert_eq!(
            franz_shrink(ImageSize::new(1536, 864)),
            Some(ImageSize::new(1152, 648))
        );
        // 255 < 256: no smaller step
        assert_eq!(franz_shrink(ImageSize::new(340, 200)), None);
        assert_eq!(
            franz_shrink(ImageSize::new(342, 100)),
            Some(ImageSize::new(256, 75))
        );
    }

    #[test]
    fn a_request_that_fits_or_has_no_known_context_is_left_alone() {
        let (a, b) = (screenshot(560, 560, 10), screenshot(560, 560, 20));
        let mut r = request(&[&a, &b], 100);
        let want = r.clone();
        let fit = fit_request(&mut r, Some(&b), &context(None), &Calibration::default());
        assert!(fit.steps.is_empty() && fit.shrunk.is_none());
        assert_eq!(r, want);
        let fit = fit_request(
            &mut r,
            Some(&b),
            &context(Some(100_000)),
            &Calibration::default(),
        );
        assert!(fit.steps.is_empty());
        assert_eq!(r, want);
    }

    #[test]
    fn older_screenshots_go_first_then_the_newest_image_shrinks() {
        // 560x560 is 400 tokens at 28 px a side
        let (a, b, c) = (
            screenshot(560, 560, 10),
            screenshot(560, 560, 20),
            screenshot(560, 560, 30),
        );
        let mut r = request(&[&a, &b, &c], 100);
        let full = estimate(&r, ImageTokens::FRANZ).total();
        // room for one full image: two are left out, nothing shrinks
        let mut one = r.clone();
        let fit = fit_request(
            &mut one,
            Some(&c),
            &context(Some(full - 700 + 100)),
            &Calibration::default(),
        );
        assert_eq!(fit.steps.len(), 1);
        assert!(
            matches!(&fit.steps[0], EventKind::ContextFitted { step, images: 1, width: 560, .. } if step == "fewer_screenshots")
        );
        assert!(fit.shrunk.is_none());
        assert!(holds(&one, &c.data_url) && !holds(&one, &a.data_url) && !holds(&one, &b.data_url));
        // room for less than one full image: the newest shrinks too, and the reply is read
        // against the smaller one
        let fit = fit_request(
            &mut r,
            Some(&c),
            &context(Some(full - 1000 + 100)),
            &Calibration::default(),
        );
        let steps: Vec<&str> = fit
            .steps
            .iter()
            .map(|e| match e {
                EventKind::ContextFitted { step, .. } => step.as_str(),
                _ => "?",
            })
            .collect();
        assert_eq!(steps[0], "fewer_screenshots");
        assert!(steps[1..].iter().all(|s| *s == "smaller_image") && steps.len() >= 2);
        let shrunk = fit.shrunk.expect("shrunk");
        assert!(shrunk.size.width < 560 && shrunk.size.width == shrunk.size.height);
        assert_eq!(shrunk.work_area, c.work_area);
        assert!(holds(&r, &shrunk.data_url));
        let cost = estimate(&r, ImageTokens::FRANZ);
        assert!(cost.total() <= full - 1000, "{}", cost.total());
        assert_eq!(
            cost.images,
            vec![crate::model::ImageCost {
                width: shrunk.size.width,
                height: shrunk.size.height,
                tokens: ImageTokens::FRANZ.tokens(shrunk.size.width, shrunk.size.height)
            }]
        );
    }

    #[test]
    fn a_family_shrink_step_and_image_rule_are_used_as_given() {
        let c = screenshot(640, 640, 30);
        let mut r = request(&[&c], 0);
        let qwen3 = ContextOptions {
            tokens: Some(estimate(&r, ImageTokens::FRANZ).total() - 200),
            image_tokens: ImageTokens {
                pixels_per_token_side: 32,
            },
            shrink: Arc::new(|s: ImageSize| {
                (s.width > 320).then(|| ImageSize::new(s.width - 64, s.height - 64))
            }),
        };
        let fit = fit_request(&mut r, Some(&c), &qwen3, &Calibration::default());
        assert!(fit.error.is_none());
        let shrunk = fit.shrunk.expect("shrunk");
        assert_eq!(shrunk.size.width % 64, 0);
        assert!(shrunk.size.width < 640);
    }

    #[test]
    fn a_request_that_cannot_fit_is_an_error_naming_the_numbers_and_the_setting() {
        let c = screenshot(560, 560, 30);
        let mut r = request(&[&c], 2048);
        let fit = fit_request(
            &mut r,
            Some(&c),
            &context(Some(2100)),
            &Calibration::default(),
        );
        assert!(!fit.steps.is_empty(), "smaller images were tried first");
        let e = fit.error.expect("error");
        assert!(
            e.contains("2100 tokens") && e.contains("max_tokens 2048"),
            "{e}"
        );
        assert!(
            e.contains("context_tokens") && e.contains("--context-tokens"),
            "{e}"
        );
    }
}
