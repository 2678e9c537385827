//! The action grammars of model families: when `dialect` names a family (qwen, uitars, pyautogui,
//! anthropic, openai), every strategy's prompt describes that family's grammar and the tools
//! strategy and the commander's operator send its tool schema, while each strategy keeps its
//! own structure (story, notes, leader and operator). With `auto` and franz's own dialects
//! (json, calls, tools) nothing here is used: the prompts of `prompts.rs` and the schemas of
//! `schema.rs` stay as they are.
//!
//! One file a family, each after the family's own published prompt or schema (listed in
//! docs/actions.md, "Where each family grammar comes from"):
//! adding one is a new file and one arm in [`of`].

mod anthropic;
mod openai;
pub mod prompts;
pub mod pyautogui;
mod qwen;
mod uitars;

use super::ReadOptions;
use crate::geometry::ImageSize;
use crate::model::Tool;
use crate::parser::Dialect;

/// The coordinate space the model answers in, as a prompt words it: the space the parser
/// reads the run's replies in ([`crate::strategy::ReadOptions::parse_options`]), so that
/// prompt and parser agree (the round-trip test in `strategy/roundtrip_tests.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// Integers 0..1000 on each axis of the image (`--coords norm`).
    Norm1000,
    /// Pixels of the image sent, of this size (`--coords pixels`).
    Pixels(ImageSize),
    /// Fractions 0..1 of each axis (`--coords relative`).
    Relative,
}

impl Space {
    /// The space of a strategy's options for an image of `size`.
    pub fn of(options: &ReadOptions, size: ImageSize) -> Space {
        match options.exact_space {
            Some(crate::exact_target::Space::Relative) => Space::Relative,
            Some(crate::exact_target::Space::Pixels) => Space::Pixels(size),
            Some(crate::exact_target::Space::Norm1000) => Space::Norm1000,
            None if options.pixel_coords => Space::Pixels(size),
            None => Space::Norm1000,
        }
    }

    /// One sentence saying how coordinates are given.
    pub fn wording(&self) -> String {
        match self {
            Space::Norm1000 => "Coordinates are integers from 0 to 1000 on each axis of the screenshot: (0,0) is the top-left pixel and (1000,1000) the bottom-right pixel.".to_string(),
            Space::Pixels(s) => format!(
                "Coordinates are pixels of the screenshot, which is {w}x{h} pixels: x from 0 (left edge) to {xm} (right edge), y from 0 (top edge) to {ym} (bottom edge).",
                w = s.width,
                h = s.height,
                xm = s.width.saturating_sub(1),
                ym = s.height.saturating_sub(1),
            ),
            Space::Relative => "Coordinates are fractions from 0 to 1 on each axis of the screenshot, written as decimals: (0,0) is the top-left corner and (1,1) the bottom-right corner, (0.5,0.5) the centre.".to_string(),
        }
    }

    /// The range of a point, for a tool parameter's description: `0..1000 of the screen`.
    pub fn range(&self) -> String {
        match self {
            Space::Norm1000 => {
                "0..1000 of the screen (x: 0 left, 1000 right; y: 0 top, 1000 bottom)".to_string()
            }
            Space::Pixels(s) => format!(
                "pixels of the {w}x{h} screenshot (x: 0 left, {xm} right; y: 0 top, {ym} bottom)",
                w = s.width,
                h = s.height,
                xm = s.width.saturating_sub(1),
                ym = s.height.saturating_sub(1),
            ),
            Space::Relative => {
                "fractions 0..1 of the screen (x: 0 left, 1 right; y: 0 top, 1 bottom)".to_string()
            }
        }
    }

    /// The screen size a tool's description names (Qwen's `display_width_px` and
    /// `display_height_px`): the image's, or 1000x1000 for the 0..1000 space as Qwen3-VL's
    /// cookbook sets it (and for fractions, which no family's function names).
    pub fn resolution(&self) -> (u32, u32) {
        match self {
            Space::Norm1000 | Space::Relative => (1000, 1000),
            Space::Pixels(s) => (s.width, s.height),
        }
    }
}

/// One family's grammar.
pub struct Grammar {
    pub dialect: Dialect,
    /// The function the family calls (`computer_use`, `computer`, ...); `None`: the grammar is
    /// text only (UI-TARS) and no tool schema is sent.
    pub tool_name: Option<&'static str>,
    /// The tool schema sent by the tools strategy and the commander's operator.
    pub tools: fn(Space) -> Vec<Tool>,
    /// The prompt's action section: how to write actions in the text of a reply.
    pub actions: fn(Space) -> String,
    /// The prompt's action section when the tool schema is sent with the request.
    pub tool_actions: fn(Space) -> String,
    /// Where the text that goes with the actions (a story, notes, a SITREP) is written.
    pub text_where: &'static str,
    /// How the model says the task is complete; `None`: the grammar has no action for it
    /// (Anthropic, OpenAI), and as in the family's own loop a plain answer without an action
    /// ends the task, in every strategy ([`finish_by_answer`]).
    pub finish: Option<&'static str>,
    /// The finish form carries no answer (Qwen's `terminate` with a status, pyautogui's
    /// `DONE`): written as the prompt shows it, it is complete, and the reply's text around it
    /// is its answer (`strategy/finish.rs`).
    pub bare_finish: bool,
}

impl Grammar {
    /// Whether a tool call named `name` is this grammar's function.
    pub fn calls(&self, name: &str) -> bool {
        self.tool_name
            .is_some_and(|t| t.eq_ignore_ascii_case(name.trim()))
    }

    /// How a prompt says to finish.
    pub fn finish_wording(&self) -> &'static str {
        self.finish
            .unwrap_or("answer in plain text without an action, saying what on the screen shows it (or giving the answer the task asks for): that answer ends the task")
    }

    /// The action section for a request that carries the tool schema (`with_tools`) or not.
    pub fn section(&self, space: Space, with_tools: bool) -> String {
        if with_tools && self.tool_name.is_some() {
            (self.tool_actions)(space)
        } else {
            (self.actions)(space)
        }
    }
}

/// The grammar of a family's dialect; `None` for `auto` and franz's own dialects.
pub fn of(dialect: Option<Dialect>) -> Option<&'static Grammar> {
    match dialect? {
        Dialect::Qwen => Some(&qwen::GRAMMAR),
        Dialect::Uitars => Some(&uitars::GRAMMAR),
        Dialect::Anthropic => Some(&anthropic::GRAMMAR),
        Dialect::Openai => Some(&openai::GRAMMAR),
        Dialect::Pyautogui => Some(&pyautogui::GRAMMAR),
        // franz's own formats; and the families whose own format franz reads but whose prompt
        // it does not write (docs/coordinates.md): the strategy's own prompt goes to them
        Dialect::Json | Dialect::Calls | Dialect::Tools | Dialect::None => None,
        Dialect::Holo | Dialect::Venus | Dialect::Gemini | Dialect::Point => None,
    }
}

/// A reply of the narrative or vision strategy without an action, in a grammar that has no
/// finish action: the plain answer (see `read_plain`) that would end the task as `done` with
/// its text, if `strategy/finish.rs` lets it.
pub fn finish_by_answer(
    reply: &crate::model::Reply,
    options: &ReadOptions,
    ctx: &super::TurnContext<'_>,
) -> Option<String> {
    if of(options.dialect)?.finish.is_some() {
        return None;
    }
    match super::read_plain(reply, options, ctx, "") {
        super::PlainReply::Answer(text) => Some(text),
        _ => None,
    }
}

/// The function-call wrapper of a tool schema written into a prompt's text (Qwen's chat
/// template and Hermes-style servers): the signature in `<tools>` and the `<tool_call>` form.
pub fn tagged_tool_text(tool: &Tool) -> String {
    let signature = serde_json::to_string(tool).unwrap_or_default();
    format!(
        "You are provided with the function signature within <tools></tools> XML tags:\n<tools>\n{signature}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>"
    )
}

#[cfg(test)]
mod tests;
