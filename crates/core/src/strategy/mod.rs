//! Strategies: what the model is asked each turn and how its reply is read. One module each;
//! adding one touches its module and the registration line in [`create`].
//!
//! A strategy has a small surface: build the request from its state and the observation, read
//! the reply into actions and notes, and update its state with what the actions did.

mod budget;
pub mod caps;
pub mod commander;
pub mod finish;
pub mod format;
pub mod gbnf;
pub mod grammar;
pub mod json_grammar;
mod memo;
mod name;
mod narrative;
mod prompts;
mod prose;
mod quoted;
pub mod reply_format;
pub mod schema;
#[cfg(test)]
mod test_support;
mod text_reply;
pub mod tools;
mod vision;

pub use commander::{Commander, CommanderSettings};
pub use name::StrategyName;
pub use narrative::Narrative;
pub use text_reply::{PlainReply, read_plain};
pub use tools::Tools;
pub use vision::Vision;

use crate::action::{Action, ActionResult};
use crate::geometry::NormBox;
use crate::model::{Message, Reply};
use crate::observe::Screenshot;

/// What a strategy sees when it builds a request.
pub struct TurnContext<'a> {
    pub task: &'a str,
    /// 1-based.
    pub turn: u32,
    pub screenshot: &'a Screenshot,
}

/// What a strategy made of a reply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub actions: Vec<Action>,
    /// The story (narrative), the notes (vision: the JSON's `observation` text) or the thought.
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
    /// Replaces the run's temperature for this request (the commander's leader and operator).
    pub temperature: Option<f64>,
    /// Replaces the run's max tokens for this request.
    pub max_tokens: Option<u32>,
    pub tool_choice: Option<crate::model::ToolChoice>,
    /// What the reply must be, for a server asked to constrain it (`strategy/format.rs`); a
    /// request with tools and no format gets one from its tools.
    pub format: Option<crate::model::ReplyFormat>,
}

/// Sends a request of the strategy's own through the engine, which logs it to exchange.jsonl
/// and emits `model_request`/`model_reply` for it like for the turn's request. `None`: the call
/// failed or the run was interrupted; the engine ends the run once `consult` returns.
pub type Ask<'a> = dyn FnMut(Prompt) -> Option<Reply> + 'a;

pub trait Strategy: Send {
    fn name(&self) -> &'static str;
    /// This turn's request.
    fn prompt(&mut self, ctx: &TurnContext<'_>) -> Prompt;
    /// Reads the model's reply.
    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading;
    /// What the turn's actions did (errors included), for the next prompt.
    fn record(&mut self, reading: &Reading, results: &[ActionResult]);
    /// Model calls of the strategy's own before this turn's request, e.g. the commander's
    /// leader. `Some(reading)` is used as this turn's reading without asking the model (loop
    /// recovery). The default asks nothing.
    fn consult(&mut self, _ctx: &TurnContext<'_>, _ask: &mut Ask<'_>) -> Option<Reading> {
        None
    }
    /// The loop breaker's word before this turn's request (`crate::loop_breaker`): how many turns in a
    /// row repeated one action on a screen unchanged around it, and a note for the model (a
    /// loop from `loop_warn` on, or `unchanged_note`), to pass on in the strategy's own channel.
    fn loop_status(&mut self, _repeats: u32, _note: Option<&str>) {}
    /// A reply to use instead of asking the model, e.g. the vision strategy's boot reply.
    fn scripted_reply(&mut self, _turn: u32) -> Option<String> {
        None
    }
    /// Early execution (`engine/early.rs`): how this turn's streamed reply is parsed when its
    /// first action may be performed before the reply ends, which needs a strategy that takes
    /// that action whatever the rest of the reply says. `None` (the default): the whole reply
    /// is read first.
    fn early_reading(&self, _ctx: &TurnContext<'_>) -> Option<crate::parser::ParseOptions> {
        None
    }
    /// Early execution of structured tool calls: the action of the reply's first tool call,
    /// complete while the reply still streams, when the strategy performs it whatever else the
    /// reply holds. `None` (the default): the whole reply is read first.
    fn early_call(&self, _call: &crate::model::ToolCall, _ctx: &TurnContext<'_>) -> Option<Action> {
        None
    }
}

/// How replies are parsed and histories kept, shared by the strategies.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// The dialect (`None`: the strategy's own, else detected).
    pub dialect: Option<crate::parser::Dialect>,
    /// The model answers in pixels of the image it was sent (`--coords pixels`, or a profile
    /// whose space is pixels: prompts say so).
    pub pixel_coords: bool,
    /// A family profile's coordinate space, read exactly (docs/coordinates.md, "Exact
    /// targets"); it wins over `pixel_coords` when replies are parsed. `None` keeps franz's
    /// own rule.
    pub exact_space: Option<crate::exact_target::Space>,
    /// The largest value of `exact_space`'s `Norm1000` on each axis: 1000, or 999 for a
    /// profile whose `norm_max` says so.
    pub norm_max: u32,
    /// Replaces the built-in system prompt.
    pub system_prompt: Option<String>,
    /// The boot reply, every strategy's first turn (BOOT_VLM_OUTPUT in docs/designs.md (vision
    /// loop)).
    pub boot_reply: Option<String>,
    /// tools: images kept in the history.
    pub keep_last_screenshots: usize,
    /// tools: assistant messages that keep their `<think>`.
    pub keep_last_thinks: usize,
    /// tools: the history's size budget in characters (an image counts as its token
    /// estimate); beyond it the oldest turns are dropped (see `budget`).
    pub history_max_chars: usize,
    pub commander: CommanderSettings,
    /// A grounding model is configured (docs/grounding.md): the actions of one point may name
    /// their target in words, and the constrained formats let a model write it.
    pub targets_in_words: bool,
}

/// The settings table's defaults (`config/settings.rs`); the mapping from the configuration
/// and the chosen profile is `Config::read_options` (`config/parts.rs`).
impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            dialect: None,
            pixel_coords: false,
            exact_space: None,
            norm_max: crate::geometry::NORM_MAX as u32,
            system_prompt: None,
            boot_reply: None,
            keep_last_screenshots: 2,
            keep_last_thinks: 2,
            history_max_chars: budget::DEFAULT_HISTORY_MAX_CHARS,
            commander: CommanderSettings::default(),
            targets_in_words: false,
        }
    }
}

impl ReadOptions {
    /// How the parser reads the coordinates of a reply to an image of `image` (as the
    /// profile's [`Applied::coord_mode`](crate::profile::Applied::coord_mode) reads them).
    pub fn coord_mode(&self, image: crate::geometry::ImageSize) -> crate::parser::CoordMode {
        crate::profile::Applied {
            exact_space: self.exact_space,
            pixel_coords: self.pixel_coords,
            norm_max: self.norm_max,
        }
        .coord_mode(image)
    }

    /// The parser's options of `strategy` for a reply to an image of `image`: the dialect it
    /// asks for ([`StrategyName::dialect`]) and the coordinates.
    pub fn parse_options(
        &self,
        strategy: StrategyName,
        image: crate::geometry::ImageSize,
    ) -> crate::parser::ParseOptions {
        crate::parser::ParseOptions {
            dialect: strategy.dialect(self.dialect),
            coords: self.coord_mode(image),
        }
    }
}

/// The strategy called `name` (one of [`StrategyName::NAMES`]).
pub fn create(name: &str, options: ReadOptions) -> Option<Box<dyn Strategy>> {
    name.parse::<StrategyName>().ok().map(|n| n.create(options))
}

/// The configured boot reply on turn 1, read instead of the model's reply with the strategy's
/// dialects (every strategy's `scripted_reply`).
pub fn boot_turn(options: &ReadOptions, turn: u32) -> Option<String> {
    if turn == 1 {
        options.boot_reply.clone()
    } else {
        None
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
    crate::parser::parse_reply(reply, &parse_options(options, ctx))
}

/// How [`parse`] parses: the strategy's dialect (its options hold the one it asks for) and the
/// coordinates of this turn's image.
pub fn parse_options(options: &ReadOptions, ctx: &TurnContext<'_>) -> crate::parser::ParseOptions {
    crate::parser::ParseOptions {
        dialect: options.dialect,
        coords: options.coord_mode(ctx.screenshot.size),
    }
}

/// Parses only the reply's tool call `first` with the tool-call dialect, at most one action:
/// the tools and commander strategies execute one tool per turn.
pub fn parse_one_call(
    reply: &Reply,
    first: &crate::model::ToolCall,
    options: &ReadOptions,
    ctx: &TurnContext<'_>,
) -> crate::parser::ParsedReply {
    let one = Reply {
        tool_calls: vec![first.clone()],
        ..reply.clone()
    };
    let mut options = options.clone();
    // under a family grammar its function and any other call are read in its dialect first (a
    // call of another dialect is read again by its name, `parser/fallback.rs`), the operator's
    // own report tools as franz's tools; without one, every call as franz's tools
    let family = options.dialect.filter(|d| grammar::of(Some(*d)).is_some());
    let reports = ["report_progress", "report_completion"];
    options.dialect = match family {
        Some(_)
            if reports
                .iter()
                .any(|r| r.eq_ignore_ascii_case(first.name.trim())) =>
        {
            Some(crate::parser::Dialect::Tools)
        }
        Some(d) => Some(d),
        None => Some(crate::parser::Dialect::Tools),
    };
    let mut parsed = parse(&one, &options, ctx);
    keep_one(&mut parsed.actions);
    parsed
}

/// Keeps the one action a tools or commander turn executes; returns how many were given.
pub fn keep_one(actions: &mut Vec<Action>) -> usize {
    let given = actions.len();
    actions.truncate(1);
    given
}

/// A stateless request: the system prompt (the built-in one unless overridden, with the
/// strategy's form of targets in words, `targets`, when a grounder is configured) and one user
/// message with the filled template and this turn's screenshot.
pub fn one_shot_prompt(
    options: &ReadOptions,
    (system, targets): (&str, &str),
    template: &str,
    vars: &[(&str, &str)],
    ctx: &TurnContext<'_>,
) -> Prompt {
    let system = options.system_prompt.as_deref().unwrap_or(system);
    Prompt {
        messages: vec![
            Message::system(with_targets_note(options, system.to_string(), targets)),
            Message::user_with_image(
                with_area_note(prompts::fill(template, vars), ctx.screenshot),
                ctx.screenshot.data_url.clone(),
            ),
        ],
        ..Prompt::default()
    }
}

/// `system` (franz's, a family's or the user's own system prompt) with `note`, the strategy's
/// form of a target in words (`prompts::TARGETS_*`), after it when a grounding model is
/// configured (docs/grounding.md); unchanged without one, so the planner is never offered it.
/// It sits in the system prompt, which stays the same from turn to turn (docs/context.md).
pub fn with_targets_note(options: &ReadOptions, mut system: String, note: &str) -> String {
    if options.targets_in_words {
        system.push_str("\n\n");
        system.push_str(note);
    }
    system
}

/// `text` (the text of the message that carries `shot`) with the line that tells the model
/// what the image shows, when it is not simply the screen (`observe_area`, docs/context.md):
/// last, after what stays the same from turn to turn.
pub fn with_area_note(mut text: String, shot: &Screenshot) -> String {
    if let Some(note) = shot.area.note() {
        text.push_str("\n\n");
        text.push_str(&note);
    }
    text
}

/// What the next prompt says about the last turn: each action's result, or that none was
/// recognised, and the reply's problems.
pub fn last_turn(reading: &Reading, results: &[ActionResult]) -> String {
    let mut last = if reading.actions.is_empty() {
        "(no action was recognised in your reply)".to_string()
    } else {
        describe_results(&reading.actions, results)
    };
    for e in &reading.errors {
        last.push_str(&format!("\nPROBLEM: {e}"));
    }
    last
}
#[cfg(test)]
mod roundtrip_tests;
#[cfg(test)]
mod targets_tests;
