//! The scripted model answering as a grounding model (docs/grounding.md): a request that
//! carries a built-in profile's grounding prompt (its `[grounding]` table's text around
//! `{target}`), or franz's own, is answered in that prompt's answer form (the table's
//! `answer`, e.g. `(x,y)`, `[x, y]`, OS-Atlas's box) with the point in the space the profile
//! reads: pixels of the image the request carries, 0..1000 (or 0..999), fractions.

use super::{Space, number};
use crate::exact_target::Space as Exact;
use crate::model::scripted_wire::ScriptedReply;
use crate::profile::GroundingPrompt;
use serde_json::Value;

/// The grounder's answer at fractions `fx`, `fy` of the image to `request`; `None` when the
/// request is no grounding request.
pub(super) fn answer(request: &Value, fx: f64, fy: f64) -> Option<ScriptedReply> {
    let text = super::all_text(request);
    let (w, h) = super::image_size(request)?;
    let asked = asked_by(&text)?;
    let space = match asked.space {
        Some(Exact::Pixels) => Space::Pixels(w, h),
        Some(Exact::Relative) => Space::Relative,
        _ => Space::Norm1000,
    };
    let (mut x, mut y) = space.point(fx, fy);
    if let Some(m) = asked.max.filter(|m| *m > 1 && *m != 1000) {
        let m = f64::from(m);
        (x, y) = ((x * m / 1000.0).round(), (y * m / 1000.0).round());
    }
    let show = |v: f64| number(v).to_string();
    // a box answer: a small box around the point
    let d = if matches!(space, Space::Relative) {
        0.01
    } else {
        4.0
    };
    let values = [
        ("x1", show(x - d)),
        ("y1", show(y - d)),
        ("x2", show(x + d)),
        ("y2", show(y + d)),
        ("x", show(x)),
        ("y", show(y)),
    ];
    let reply = crate::placeholder::fill(&asked.answer, |name| {
        values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    });
    Some(ScriptedReply::text(reply.replace("{target}", "the target")))
}

/// What a grounding request asks for: the space its points are in (`None`: 0..1000), that
/// space's maximum, the answer's form.
struct Asked {
    space: Option<Exact>,
    max: Option<u32>,
    answer: String,
}

/// What the grounding prompt `text` carries asks for: a built-in profile's (its `[grounding]`
/// table), else franz's own (read from its wording); `None` for no grounding prompt.
fn asked_by(text: &str) -> Option<Asked> {
    let own = crate::profile::builtin().into_iter().find_map(|p| {
        let g = p.grounding.as_ref()?;
        carries(text, g).then(|| Asked {
            space: p.coords.space(),
            max: p.space_max(),
            answer: g.answer.clone(),
        })
    });
    if own.is_some() {
        return own;
    }
    let head = text.find(crate::grounder::FRANZ_PROMPT_HEAD)?;
    let words = &text[head..];
    let space = if words.contains("in pixels of this") {
        Exact::Pixels
    } else if words.contains("as fractions 0 to 1") {
        Exact::Relative
    } else {
        Exact::Norm1000
    };
    Some(Asked {
        space: Some(space),
        max: words.contains("in 0..999").then_some(999),
        answer: "(x, y)".into(),
    })
}

/// Whether `text` holds the fixed words of `prompt` (the parts around its placeholders).
fn carries(text: &str, prompt: &GroundingPrompt) -> bool {
    let parts = [
        prompt.system.as_deref(),
        prompt.before_image.as_deref(),
        Some(prompt.user.as_str()),
    ];
    let fixed: Vec<&str> = parts
        .into_iter()
        .flatten()
        .flat_map(|t| t.split(['{', '}']))
        .map(str::trim)
        .filter(|s| s.len() >= 12)
        .collect();
    !fixed.is_empty() && fixed.iter().all(|f| text.contains(f))
}
