//! A grounding model beside the planner (docs/grounding.md). The planner names a click's or a
//! move's target in words (`click(target="the Save button")`); the grounder is asked for its
//! point in the grounding model's own prompt and format (its profile's `[grounding]` table,
//! else franz's prompt worded in its space), on a screenshot sized by its own image rule. Its
//! answer is read in its dialect and kept exactly in its space (`crate::exact`), so the click
//! lands where the grounder pointed, whatever the planner's space.
//!
//! An answer with no point (garbage, an echo of the prompt's example, nothing) is an error for
//! the planner, never a guess: the action is not performed.

use crate::action::{Action, ActionKind};
use crate::cancel::Cancel;
use crate::exact_target::{Exact, Num};
use crate::geometry::{ImageSize, WorkArea};
use crate::model::{ChatRequest, Content, ContentPart, Message, Model, ModelError, Reply, Role};
use crate::observe::{ObserveConfig, Pipeline, Screenshot};
use crate::parser::{CoordMode, Dialect, ParseOptions};
use crate::profile::{GroundingPrompt, Profile};
use franz_desktop::{Desktop, PixelPoint};
use std::sync::Arc;
use std::time::Instant;

/// The words franz's own grounding prompt opens with (the scripted model knows it by them).
pub const FRANZ_PROMPT_HEAD: &str = "Find this element on the screenshot:";

/// The most tokens a grounding answer may take: one point and a few words.
const MAX_TOKENS: u32 = 256;

/// The grounding model, its profile and the pipeline that sizes its screenshots.
pub struct Grounder {
    model: Arc<dyn Model>,
    /// The model id sent with each request.
    id: String,
    profile: Profile,
    pipeline: Pipeline,
    /// The settings' `max_tokens` when lower than [`MAX_TOKENS`].
    max_tokens: u32,
}

/// Where the grounder found a target.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The grounder's point in its own space (`exact.at`, of `exact.of`).
    pub exact: Exact,
    /// The screen pixel it maps to.
    pub screen: PixelPoint,
    /// The size of the image the grounder was sent.
    pub image: ImageSize,
    pub ms: f64,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    /// The grounder's reply, as it wrote it.
    pub text: String,
}

/// Why a target has no point.
#[derive(Debug, thiserror::Error)]
pub enum GroundError {
    /// A stop came while the grounder was asked.
    #[error("stopped while the grounding model was asked")]
    Cancelled,
    #[error("the grounding model {model} could not be asked: {error}")]
    Model { model: String, error: ModelError },
    #[error("cannot take the grounding model's screenshot: {0}")]
    Observe(String),
    /// The answer holds no point in the grounder's format.
    #[error(
        "the grounding model {model} gave no point for {target:?} ({why}); its answer: {answer:?}"
    )]
    NoPoint {
        model: String,
        target: String,
        why: String,
        answer: String,
    },
}

impl Grounder {
    /// The grounder `id` on `model`, answering in `profile`'s space; its screenshots are the
    /// run's (`observe`: the working area and the masked regions) at its profile's size
    /// (`pixel_budget` as the setting), without the pointer drawn.
    pub fn new(
        model: Arc<dyn Model>,
        id: impl Into<String>,
        profile: Profile,
        observe: &ObserveConfig,
        pixel_budget: u64,
        max_tokens: u32,
    ) -> Self {
        let config = ObserveConfig {
            size: profile.size_rule(pixel_budget),
            cursor: false,
            ..observe.clone()
        };
        Self {
            model,
            id: id.into(),
            profile,
            pipeline: Pipeline::new(config),
            max_tokens: max_tokens.clamp(1, MAX_TOKENS),
        }
    }

    /// The grounding model's id.
    pub fn model_id(&self) -> &str {
        &self.id
    }

    /// The grounder's profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Finds `target` on the screen now: one screenshot of `area` (the turn's observed
    /// rectangle, docs/coordinates.md) at the grounder's size, one request (shown to `log` as
    /// it is sent and answered, for the run's exchange log).
    pub fn ground(
        &mut self,
        desktop: &mut dyn Desktop,
        area: WorkArea,
        target: &str,
        cancel: &Cancel,
        log: &mut dyn FnMut(Asked<'_>),
    ) -> Result<Found, GroundError> {
        let shot = self
            .pipeline
            .observe_in(desktop, &crate::observe::ObservedArea::whole(area), |_| {})
            .map_err(|e| GroundError::Observe(e.to_string()))?;
        let request = self.request(target, &shot);
        let start = Instant::now();
        let reply = self
            .complete(&request, cancel, log)
            .map_err(|error| match error {
                ModelError::Cancelled => GroundError::Cancelled,
                error => GroundError::Model {
                    model: self.id.clone(),
                    error,
                },
            })?;
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let found = self.read(&reply, target, shot.size, &shot.work_area);
        self.pipeline.recycle(shot);
        let (exact, screen) = found?;
        Ok(Found {
            exact,
            screen,
            image: exact_image(&exact),
            ms,
            prompt_tokens: reply.usage.as_ref().map(|u| u.prompt_tokens),
            completion_tokens: reply.usage.as_ref().map(|u| u.completion_tokens),
            text: reply.content,
        })
    }

    /// The request for `target` on `shot`: the family's prompt (or franz's), the image.
    pub fn request(&self, target: &str, shot: &Screenshot) -> ChatRequest {
        let prompt = self.prompt();
        let fill = |t: &str| {
            t.replace("{target}", target)
                .replace("{width}", &shot.size.width.to_string())
                .replace("{height}", &shot.size.height.to_string())
        };
        let mut messages = Vec::new();
        if let Some(system) = &prompt.system {
            messages.push(Message::system(fill(system)));
        }
        let mut parts = Vec::new();
        if let Some(before) = &prompt.before_image {
            parts.push(ContentPart::Text { text: fill(before) });
        }
        parts.push(ContentPart::image(shot.data_url.clone()));
        if !prompt.user.is_empty() {
            parts.push(ContentPart::Text {
                text: fill(&prompt.user),
            });
        }
        messages.push(Message::new(Role::User, Content::Parts(parts)));
        let mut request = ChatRequest::new(self.id.clone(), messages);
        request.temperature = Some(self.profile.sampling.temperature.unwrap_or(0.0));
        request.max_tokens = Some(self.max_tokens);
        request
    }

    /// The prompt the grounder is asked in: its family's, else franz's in its space.
    pub fn prompt(&self) -> GroundingPrompt {
        self.profile
            .grounding
            .clone()
            .unwrap_or_else(|| franz_prompt(&self.profile))
    }

    /// The dialect the answer is read in: the one its own prompt names, else the family's
    /// with its own prompt, else the point answer franz's prompt asks for.
    fn dialect(&self) -> Option<Dialect> {
        match &self.profile.grounding {
            Some(g) => match &g.dialect {
                Some(d) => d.parse::<Dialect>().ok(),
                None => self.profile.dialect().ok().flatten(),
            }
            .or(Some(Dialect::Point)),
            None => Some(Dialect::Point),
        }
    }

    /// The grounder's point in `reply`, read in its dialect and space for an image of `size`,
    /// and the screen pixel it maps to on `area`.
    pub fn read(
        &self,
        reply: &Reply,
        target: &str,
        size: ImageSize,
        area: &WorkArea,
    ) -> Result<(Exact, PixelPoint), GroundError> {
        let no_point = |why: String| GroundError::NoPoint {
            model: self.id.clone(),
            target: target.to_string(),
            why,
            answer: crate::model::body::snippet(&reply.content),
        };
        let opts = ParseOptions {
            dialect: self.dialect(),
            coords: CoordMode::Exact(self.extent(size)),
        };
        let parsed = crate::parser::parse_reply(reply, &opts);
        let exact = parsed
            .actions
            .iter()
            .find_map(|a| a.exact.filter(|e| e.at.is_some()));
        let Some(exact) = exact else {
            let why = match parsed.errors.first() {
                Some(e) => e.clone(),
                None if reply.content.trim().is_empty() => "the answer is empty".into(),
                None => "no point in its format".into(),
            };
            return Err(no_point(why));
        };
        let Some(at) = exact.at else {
            return Err(no_point("no point in its format".into()));
        };
        Ok((exact, exact.to_screen(area, at)))
    }

    /// The extent S of the grounder's space for an image of `size`.
    fn extent(&self, size: ImageSize) -> ImageSize {
        match self.profile.coords.space() {
            Some(space) => {
                let of = space.extent(size);
                match (space, self.profile.space_max()) {
                    (crate::exact_target::Space::Norm1000, Some(m)) => ImageSize::new(m, m),
                    _ => of,
                }
            }
            // franz's rule: 0..1000
            None => ImageSize::new(1000, 1000),
        }
    }
}

/// The image size an exact point's extent names, where it is pixels (else the extent).
fn exact_image(e: &Exact) -> ImageSize {
    ImageSize::new(e.of[0].0 as u32, e.of[1].0 as u32)
}

/// franz's grounding prompt for a profile without its family's own: one point, in the
/// profile's space, as `(x, y)`.
fn franz_prompt(profile: &Profile) -> GroundingPrompt {
    let space = match (profile.coords.space(), profile.space_max()) {
        (Some(crate::exact_target::Space::Pixels), _) => {
            "in pixels of this {width}x{height} image".to_string()
        }
        (Some(crate::exact_target::Space::Relative), _) => {
            "as fractions 0 to 1 of the image's width and height".to_string()
        }
        (_, Some(m)) => format!("in 0..{m} of the image's width and height"),
        (_, None) => "in 0..1000 of the image's width and height".to_string(),
    };
    GroundingPrompt {
        system: None,
        before_image: None,
        user: format!(
            "{FRANZ_PROMPT_HEAD} {{target}}\n\nAnswer with one point on it, {space}, as (x, y), and nothing else."
        ),
        answer: "(x, y)".into(),
        dialect: None,
    }
}

/// `action` acting at the grounder's point: its `exact` target and its rounded 0..1000 point.
/// Only clicks and `move` take a target (the parser refuses it elsewhere).
pub fn at_found(action: &Action, found: &Found) -> Action {
    at_exact(action, &found.exact)
}

/// The grounder as zoom-in refinement's asker (`crate::refine`, docs/refine.md): a point it
/// found for `target` is refined by asking it again, in its own prompt and format, on a crop.
pub struct GrounderAsker<'a> {
    grounder: &'a Grounder,
    target: &'a str,
}

impl<'a> GrounderAsker<'a> {
    pub fn new(grounder: &'a Grounder, target: &'a str) -> Self {
        GrounderAsker { grounder, target }
    }
}

impl crate::refine::PointAsker for GrounderAsker<'_> {
    fn request(&mut self, _instruction: &str, shot: &Screenshot) -> ChatRequest {
        self.grounder.request(self.target, shot)
    }

    fn read(&mut self, reply: &Reply, shot: &Screenshot) -> Result<Action, String> {
        let (exact, _) = self
            .grounder
            .read(reply, self.target, shot.size, &shot.work_area)
            .map_err(|e| e.to_string())?;
        let click = Action::from(ActionKind::Click { x: None, y: None });
        Ok(at_exact(&click, &exact))
    }
}

/// One step of a request to the grounding model, for the run's exchange log
/// (`exchange.jsonl`, docs/grounding.md): the body as sent, then its answer or its failure.
pub enum Asked<'a> {
    Request(serde_json::Value),
    Reply(&'a Reply),
    Failed(&'a ModelError),
}

impl Grounder {
    /// One request to the grounding model, as [`Grounder::ground`] sends it: `log` is shown
    /// the body as sent, then the answer or the failure (not a stop).
    pub fn complete(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        log: &mut dyn FnMut(Asked<'_>),
    ) -> Result<Reply, ModelError> {
        log(Asked::Request(self.model.wire_body(request, cancel)));
        let result = self.model.complete(request, cancel, &mut |_| {});
        match &result {
            Ok(reply) => log(Asked::Reply(reply)),
            Err(ModelError::Cancelled) => {}
            Err(e) => log(Asked::Failed(e)),
        }
        result
    }
}

/// `action` acting at `exact`'s point (of its extent): the `exact` target and its rounded
/// 0..1000 point.
fn at_exact(action: &Action, exact: &Exact) -> Action {
    let Some(at) = exact.at else {
        return action.clone();
    };
    let of = ImageSize::new(exact.of[0].0 as u32, exact.of[1].0 as u32);
    let p = crate::exact_target::norm_point([at[0].0, at[1].0], of);
    let (x, y) = (Some(p.x), Some(p.y));
    let kind = match action.kind {
        ActionKind::Click { .. } => ActionKind::Click { x, y },
        ActionKind::RightClick { .. } => ActionKind::RightClick { x, y },
        ActionKind::MiddleClick { .. } => ActionKind::MiddleClick { x, y },
        ActionKind::DoubleClick { .. } => ActionKind::DoubleClick { x, y },
        ActionKind::TripleClick { .. } => ActionKind::TripleClick { x, y },
        ActionKind::Move { .. } => ActionKind::Move { x, y },
        ref other => other.clone(),
    };
    Action {
        kind,
        exact: Some(Exact {
            at: Some(at),
            to: None,
            of: [Num(of.width as f64), Num(of.height as f64)],
        }),
        ..action.clone()
    }
}

#[cfg(test)]
#[path = "grounder_tests.rs"]
mod tests;
