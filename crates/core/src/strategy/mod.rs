//! Strategies: what the model is asked each turn and how its reply is read. One module each;
//! adding one touches its module and the registration line in [`create`].
//!
//! A strategy has a small surface: build the request from its state and the observation, read
//! the reply into actions and notes, and update its state with what the actions did.

mod narrative;
mod prompts;
mod vision;

pub use narrative::Narrative;
pub use vision::Vision;

use crate::action::{Action, ActionResult};
use crate::geometry::NormBox;
use crate::model::{Message, Reply};
use crate::observe::Observation;

/// What a strategy sees when it builds a request.
pub struct TurnContext<'a> {
    pub task: &'a str,
    /// 1-based.
    pub turn: u32,
    pub observation: &'a Observation,
}

/// What a strategy made of a reply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub actions: Vec<Action>,
    /// The story (narrative) or observation (vision).
    pub text: String,
    /// Boxes to draw on the next screenshot.
    pub bboxes: Vec<NormBox>,
    /// Problems with the reply, fed back to the model next turn.
    pub errors: Vec<String>,
}

/// A request as a strategy builds it; the engine adds model, sampling and streaming.
#[derive(Debug, Clone, Default)]
pub struct Prompt {
    pub messages: Vec<Message>,
    pub tools: Vec<crate::model::Tool>,
}

pub trait Strategy: Send {
    fn name(&self) -> &'static str;
    /// This turn's request.
    fn prompt(&mut self, ctx: &TurnContext<'_>) -> Prompt;
    /// Reads the model's reply.
    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading;
    /// What the turn's actions did (errors included), for the next prompt.
    fn record(&mut self, reading: &Reading, results: &[ActionResult]);
    /// A reply to use instead of asking the model, e.g. the vision strategy's boot reply.
    fn scripted_reply(&mut self, _turn: u32) -> Option<String> {
        None
    }
}

/// How replies are parsed, shared by the strategies.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The dialect (`None`: the strategy's own, else detected).
    pub dialect: Option<crate::parser::Dialect>,
    /// The model answers in pixels of the image it was sent (`--coords pixels`).
    pub pixel_coords: bool,
    /// Replaces the built-in system prompt.
    pub system_prompt: Option<String>,
    /// The vision strategy's boot reply (seed 000's BOOT_VLM_OUTPUT).
    pub boot_reply: Option<String>,
}

/// The strategy called `name`.
pub fn create(name: &str, options: ReadOptions) -> Option<Box<dyn Strategy>> {
    match name {
        "narrative" => Some(Box::new(Narrative::new(options))),
        "vision" => Some(Box::new(Vision::new(options))),
        _ => None,
    }
}

/// One line per action result, for the next prompt: `click(500, 300): ok`.
pub fn describe_results(actions: &[Action], results: &[ActionResult]) -> String {
    let mut out = Vec::new();
    for (a, r) in actions.iter().zip(results) {
        let what = serde_json::to_string(a).unwrap_or_default();
        let how = match r {
            ActionResult::Ok { warnings } if warnings.is_empty() => "ok".to_string(),
            ActionResult::Ok { warnings } => {
                let w: Vec<String> = warnings
                    .iter()
                    .map(|w| format!("{}: {}", w.kind, w.message))
                    .collect();
                format!("ok ({})", w.join("; "))
            }
            ActionResult::Error(e) => format!("ERROR {e}"),
        };
        out.push(format!("{what} -> {how}"));
    }
    out.join("\n")
}

/// Parses a reply with the strategy's options; pixel coordinates are read against the size
/// of the image this turn sent.
pub fn parse(
    reply: &Reply,
    options: &ReadOptions,
    ctx: &TurnContext<'_>,
) -> crate::parser::ParsedReply {
    use crate::parser::{CoordMode, ParseOptions};
    let coords = if options.pixel_coords {
        CoordMode::Pixels(ctx.observation.size)
    } else {
        CoordMode::Norm
    };
    crate::parser::parse_reply(
        reply,
        &ParseOptions {
            dialect: options.dialect,
            coords,
        },
    )
}
