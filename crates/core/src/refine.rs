//! Zoom-in refinement (docs/refine.md): after a model gives a point, a region around it is cut
//! from the full-resolution screen, sent at full resolution (the profile's image rule applied to
//! the crop) with the same instruction, and the point the model writes on the crop is mapped
//! back to the screen exactly (crop image -> crop -> screen, `crate::exact`'s formula with the
//! crop's corner as P0; nothing is rounded through 0..1000 on the way).
//!
//! The engine calls [`refine_point`] for each point of a pointer action (`engine/zoom.rs`); a
//! grounding model can call it on its own point, with its own [`PointAsker`]. A refinement that
//! fails keeps the first point: franz never acts on a point the model did not write.

use crate::action::{Action, ActionKind};
use crate::exact_target::{Exact, Num, norm_point};
use crate::executor::fence::Fence;
use crate::geometry::{ImageSize, WorkArea};
use crate::model::{ChatRequest, Reply};
use crate::observe::{ObserveConfig, ObserveError, Pipeline, Screenshot, StageTimings};
use crate::strategy::{ReadOptions, Strategy, StrategyName, TurnContext};
use franz_desktop::{FrameView, PixelPoint, PixelRect};
use std::time::Instant;

/// Whether pointer actions are refined (`refine` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Refine {
    /// The model's first point is acted on.
    #[default]
    Off,
    /// A second request on a crop around the point (docs/refine.md).
    Zoom,
}

/// The crop's side as a fraction of the working area's, by default (MAI-UI's and Holo2's
/// zoom-in: a third of the image each way).
pub const DEFAULT_CROP: f64 = 1.0 / 3.0;

/// The smallest crop fraction: below it a crop of a 1280-pixel screen is under 64 pixels, too
/// little for a model to see what is around its target.
pub const MIN_CROP: f64 = 0.05;

/// Reads the `refine_crop` setting: a fraction `a/b` or a decimal, in `MIN_CROP..=1`.
pub fn parse_crop(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let value = match t.split_once('/') {
        Some((a, b)) => match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
            (Ok(a), Ok(b)) if b != 0.0 => Some(a / b),
            _ => None,
        },
        None => t.parse::<f64>().ok(),
    };
    match value {
        Some(v) if v.is_finite() && (MIN_CROP..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "{t:?} is not a crop size: give the crop's side as a fraction of the screen's, from {MIN_CROP} to 1, as 1/3 or 0.33"
        )),
    }
}

/// What a run refines, and how it asks: a fresh strategy of the run's kind reads the crop.
#[derive(Debug, Clone, Default)]
pub struct RefineOptions {
    pub mode: Refine,
    /// The crop's side as a fraction of the working area's side.
    pub crop: f64,
    /// The strategy whose request carries the crop, and its reading options (the profile's).
    pub strategy: StrategyName,
    pub read: ReadOptions,
}

impl RefineOptions {
    pub fn is_on(&self) -> bool {
        self.mode == Refine::Zoom
    }
}

/// The crop of `fraction` of `area` on each axis around `p`: centred on it, moved (never
/// shrunk) to stay inside the area, at least one pixel.
pub fn crop_box(area: PixelRect, p: PixelPoint, fraction: f64) -> PixelRect {
    let side = |len: u32| ((len as f64 * fraction).round() as u32).clamp(1, len.max(1));
    let (w, h) = (side(area.width), side(area.height));
    let start = |c: i32, len: u32, lo: i32, full: u32| {
        let s = c - (len / 2) as i32;
        s.clamp(lo, lo + full as i32 - len as i32)
    };
    PixelRect::new(
        start(p.x, w, area.x, area.width),
        start(p.y, h, area.y, area.height),
        w,
        h,
    )
}

/// The crop `rect` of the screen in `frame` (whose top-left pixel is `origin`), as the model
/// is sent it: `observe`'s image rule and masks applied to the crop, no cursor, no overlay.
pub fn crop_shot(
    frame: FrameView<'_>,
    origin: PixelPoint,
    rect: PixelRect,
    observe: &ObserveConfig,
) -> Result<Screenshot, ObserveError> {
    let config = ObserveConfig {
        cursor: false,
        ..observe.clone()
    };
    let start = Instant::now();
    Pipeline::new(config).process(
        frame,
        origin,
        &crate::observe::ObservedArea::whole(WorkArea { rect }),
        None,
        |_| {},
        start,
        StageTimings::default(),
    )
}

/// The screen pixel a pointer action read on a crop acts at, mapped through the crop exactly
/// as the executor maps a point through the working area; an error when the model's point is
/// not a point inside the crop.
pub fn crop_point(action: &Action, crop: &Screenshot) -> Result<PixelPoint, String> {
    let fence = Fence::new(crop.work_area);
    if action.element.is_some() {
        return Err("it named an element instead of a point".into());
    }
    if action.kind.point().is_none() {
        return Err(format!("its {} has no point", action.kind.name()));
    }
    if let Some(why) = fence.refusal(&action.kind, action.exact, None) {
        return Err(format!("its point is outside the crop ({why})"));
    }
    match fence.targets(action).0 {
        Some(p) if crop.work_area.contains(p) => Ok(p),
        _ => Err("its point is outside the crop".into()),
    }
}

/// How a refinement request is made and read: the planner's strategy, or a grounding model's
/// own prompt and format.
pub trait PointAsker {
    /// The request asking where `instruction` points on the crop `shot`.
    fn request(&mut self, instruction: &str, shot: &Screenshot) -> ChatRequest;
    /// The first pointer action of `reply`, read on `shot`; why there is none otherwise.
    fn read(&mut self, reply: &Reply, shot: &Screenshot) -> Result<Action, String>;
}

/// A [`PointAsker`] that asks in a run's own strategy: a fresh one each time, so the request
/// is the strategy's first-turn request with the crop for its screenshot, and its reply is read
/// with the profile's dialect and space.
pub struct StrategyAsker {
    strategy: Box<dyn Strategy>,
    /// Builds the request from the strategy's prompt (the engine's `build_request`).
    build: Box<dyn Fn(crate::strategy::Prompt) -> ChatRequest + Send>,
}

impl StrategyAsker {
    pub fn new(
        name: StrategyName,
        read: ReadOptions,
        build: Box<dyn Fn(crate::strategy::Prompt) -> ChatRequest + Send>,
    ) -> Self {
        StrategyAsker {
            strategy: name.create(read),
            build,
        }
    }
}

impl PointAsker for StrategyAsker {
    fn request(&mut self, instruction: &str, shot: &Screenshot) -> ChatRequest {
        let ctx = TurnContext {
            task: instruction,
            turn: 1,
            screenshot: shot,
        };
        (self.build)(self.strategy.prompt(&ctx))
    }

    fn read(&mut self, reply: &Reply, shot: &Screenshot) -> Result<Action, String> {
        let ctx = TurnContext {
            task: "",
            turn: 1,
            screenshot: shot,
        };
        let reading = self.strategy.read(reply, &ctx);
        if let Some(a) = reading.actions.iter().find(|a| a.kind.is_pointer()) {
            return Ok(a.clone());
        }
        Err(match reading.errors.first() {
            Some(e) => format!("no pointer action in the reply: {e}"),
            None => "no pointer action in the reply".into(),
        })
    }
}

/// The instruction a planner's point is refined with: the task, and what the action aims at
/// when the model said (its note).
pub fn instruction(task: &str, action: &Action) -> String {
    match action.note.as_deref().map(str::trim) {
        Some(note) if !note.is_empty() => format!(
            "{task}\n\nThe next action: {} {note}. This image is a zoomed-in part of the screen: give the action's point on it.",
            action.kind.name()
        ),
        _ => format!(
            "{task}\n\nThe next action: {}. This image is a zoomed-in part of the screen: give the action's point on it.",
            action.kind.name()
        ),
    }
}

/// What one refinement did: the `refined` event's fields (docs/events.md).
#[derive(Debug, Clone, PartialEq)]
pub struct Refinement {
    /// The model's first point and the point acted at, in screen pixels (the same when the
    /// refinement failed).
    pub from: PixelPoint,
    pub to: PixelPoint,
    pub crop: PixelRect,
    /// The crop's size as sent.
    pub image: ImageSize,
    pub ms: f64,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// Why the first point was kept, when it was.
    pub error: Option<String>,
}

impl Refinement {
    /// The distance between the two points, in screen pixels.
    pub fn distance(&self) -> f64 {
        let (dx, dy) = (self.to.x - self.from.x, self.to.y - self.from.y);
        ((dx as f64).powi(2) + (dy as f64).powi(2)).sqrt()
    }
}

/// Why a refinement request did not come back: the run stops (`Stop`), or the first point is
/// kept (`Failed`, with the reason).
pub enum AskFailure<S> {
    Stop(S),
    Failed(String),
}

/// Refines `from` on the crop `shot` (made with [`crop_box`] and [`crop_shot`]): asks through
/// `ask` (one request), reads the reply with `asker` and maps its point back to the screen. A
/// reply without a usable point inside the crop, or a failed request, keeps `from` and says
/// why; a stop is returned at once.
pub fn refine_point<S>(
    from: PixelPoint,
    shot: &Screenshot,
    instruction: &str,
    asker: &mut dyn PointAsker,
    ask: &mut dyn FnMut(&ChatRequest) -> Result<Reply, AskFailure<S>>,
) -> Result<Refinement, S> {
    let start = Instant::now();
    let request = asker.request(instruction, shot);
    let mut done = Refinement {
        from,
        to: from,
        crop: shot.work_area.rect,
        image: shot.size,
        ms: 0.0,
        prompt_tokens: None,
        completion_tokens: None,
        error: None,
    };
    let got = match ask(&request) {
        Ok(reply) => {
            done.prompt_tokens = reply.usage.as_ref().map(|u| u.prompt_tokens);
            done.completion_tokens = reply.usage.as_ref().map(|u| u.completion_tokens);
            asker.read(&reply, shot).and_then(|a| crop_point(&a, shot))
        }
        Err(AskFailure::Stop(s)) => return Err(s),
        Err(AskFailure::Failed(why)) => Err(format!("the request failed: {why}")),
    };
    match got {
        Ok(p) => done.to = p,
        Err(why) => done.error = Some(format!("kept the first point: {why}")),
    }
    done.ms = start.elapsed().as_secs_f64() * 1000.0;
    Ok(done)
}

/// `action` acting at `at` (and a drag's end at `to`) instead, both screen pixels of `area`:
/// its exact target becomes those pixels of the working area (S = L, so the executor's
/// `P0 + min(L - 1, round(v * L / S))` gives them back unchanged), its 0..1000 point their
/// rounding for display.
pub fn retarget(action: &mut Action, area: &WorkArea, at: PixelPoint, to: Option<PixelPoint>) {
    let r = area.rect;
    let of = [Num(r.width as f64), Num(r.height as f64)];
    let local = |p: PixelPoint| [Num((p.x - r.x) as f64), Num((p.y - r.y) as f64)];
    let size = ImageSize::new(r.width, r.height);
    let norm = |p: PixelPoint| norm_point([(p.x - r.x) as f64, (p.y - r.y) as f64], size);
    let n = norm(at);
    set_point(&mut action.kind, n.x, n.y);
    if let (ActionKind::Drag { x2, y2, .. }, Some(end)) = (&mut action.kind, to) {
        let m = norm(end);
        (*x2, *y2) = (m.x, m.y);
    }
    action.exact = Some(Exact {
        at: Some(local(at)),
        to: to.map(local),
        of,
    });
}

/// Sets a pointer action's 0..1000 point.
fn set_point(kind: &mut ActionKind, nx: i32, ny: i32) {
    use ActionKind::*;
    match kind {
        Move { x, y }
        | Click { x, y }
        | RightClick { x, y }
        | MiddleClick { x, y }
        | DoubleClick { x, y }
        | TripleClick { x, y }
        | MouseDown { x, y, .. }
        | MouseUp { x, y, .. }
        | LongPress { x, y, .. }
        | Drag { x, y, .. }
        | Scroll { x, y, .. } => (*x, *y) = (Some(nx), Some(ny)),
        _ => {}
    }
}

#[cfg(test)]
#[path = "refine_tests.rs"]
mod tests;
