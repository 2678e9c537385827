//! The tools strategy (docs/designs.md (tool calling)): OpenAI function calling with the designs'
//! tool schema and a chat history kept across turns.
//!
//! - The history starts with the system prompt, the task and a screenshot (the tool-calling design
//!   observes the screen before the first request).
//! - Exactly one tool call is executed per step; the others of a reply are answered with a
//!   `too_many_tool_calls` error. Results go back as role=tool messages, each turn's
//!   screenshot as a role=user image message.
//! - A reply without tool calls is read by [`super::read_plain`]: an action written in its
//!   text (a `<tool_call>` block, `click(500, 300)`, any dialect) runs, and its result goes
//!   back as a user message (the assistant message has no tool call to answer); a plain
//!   answer that ended with `finish_reason: stop` and reads as prose ends the run as `done`
//!   with that text when `finish.rs` lets it (not a restatement of the task, and an action
//!   performed first on a task that asks for one); a cut-off, empty or garbled reply is a
//!   problem sent back as a user message and runs nothing.
//! - A reply cut off at max_tokens performs nothing, its tool calls included; a call performed
//!   early (while the reply streamed) stands, and its result says the reply was then cut.
//! - Pruning: at most the last `keep_last_screenshots` images stay (older ones become a text
//!   placeholder, several at a time so that the request's prefix stays the same for a
//!   server's prompt cache most turns, see [`prune_screenshots`]); `<think>` is stripped from all but the last `keep_last_thinks` assistant
//!   messages; beyond `history_max_chars` the oldest turns are dropped (see `budget`).
//! - A reply read again before its results are recorded (an approver's edit) replaces the
//!   first one in the history.

use super::grammar::{self, Space};
use super::{
    PlainReply, Prompt, ReadOptions, Reading, Strategy, TurnContext, budget, prompts, schema,
};
use crate::action::{ActionKind, ActionResult};
use crate::model::{Content, ContentPart, Message, Reply, Role, ToolChoice};
use crate::parser::strip_think;

/// What an older screenshot is replaced with.
pub const PRUNED_SCREENSHOT: &str = "[older screenshot removed to save context]";

/// The history's first messages, never dropped: the system prompt and the task.
const HEAD: usize = 2;

/// How the model is told to act or to finish, after a problem with a reply.
const WHAT_TO_DO: &str = "call exactly one tool, or once the task is finished answer in plain text (no tool call) saying what on the screen shows it";

/// Added to the result of a call performed early from a reply then cut off at max_tokens.
const PERFORMED_BEFORE_THE_CUT: &str = "note: your reply was then cut off at max_tokens (finish_reason: length); this call had already been performed as soon as it was complete, and nothing else in the reply was performed";

/// An action of the last reply waiting for its result.
#[derive(Debug, Clone)]
struct Pending {
    /// The tool call's id; `None` for an action read from the reply's text, whose result goes
    /// back as a user message.
    id: Option<String>,
    name: String,
    /// Set for calls answered without executing them (extra calls, unreadable arguments).
    answer: Option<String>,
    /// The reply was cut off at max_tokens: the call runs only if it ran early.
    cut: bool,
}

pub struct Tools {
    options: ReadOptions,
    history: Vec<Message>,
    pending: Vec<Pending>,
    /// Problems with a reply without tool calls, sent back as a user message.
    problems: Vec<String>,
    /// The history's length before the last reply was read, until its results are recorded.
    unrecorded: Option<usize>,
    /// Turns dropped by the budget so far.
    dropped: usize,
    /// How many errors the last reading had when it was read: those after them came from the
    /// engine afterwards (a target the grounder did not find, docs/grounding.md).
    read_errors: usize,
    finish: super::finish::Finish,
}

impl Tools {
    pub fn new(options: ReadOptions) -> Self {
        Self {
            options,
            history: Vec::new(),
            pending: Vec::new(),
            problems: Vec::new(),
            unrecorded: None,
            dropped: 0,
            read_errors: 0,
            finish: Default::default(),
        }
    }

    /// The chat history as it stands.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// Reads a reply without tool calls (see the module's doc).
    fn read_text(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        if !strip_think(&reply.content).trim().is_empty() {
            // an empty assistant message is refused by some servers; the problem says it all
            self.history.push(Message::assistant(reply.content.clone()));
        }
        let bare = super::finish::bare(&self.options);
        let (mut actions, text, mut errors) =
            match super::read_plain(reply, &self.options, ctx, WHAT_TO_DO) {
                PlainReply::Action {
                    action,
                    text,
                    errors,
                } => (vec![*action], text, errors),
                PlainReply::Answer(text) => {
                    let mut errors = Vec::new();
                    self.finish.prompted(&self.history);
                    let done = self.finish.answer(&text, ctx.task, &mut errors);
                    let actions = match done {
                        true => vec![ActionKind::Done { text: text.clone() }.into()],
                        false => Vec::new(),
                    };
                    (actions, text, errors)
                }
                PlainReply::Unusable { text, errors } => (Vec::new(), text, errors),
            };
        self.finish.check(&mut actions, &mut errors, &text, bare);
        if let Some(a) = actions.first() {
            self.pending.push(Pending {
                id: None,
                name: a.kind.name().to_string(),
                answer: None,
                cut: false,
            });
        }
        self.problems = errors.clone();
        Reading {
            actions,
            text,
            bboxes: Vec::new(),
            errors,
        }
    }
}

impl Strategy for Tools {
    fn name(&self) -> &'static str {
        "tools"
    }

    fn prompt(&mut self, ctx: &TurnContext<'_>) -> Prompt {
        let url = ctx.screenshot.data_url.clone();
        // a family's grammar when its dialect is set (strategy/grammar), else franz's own
        let space = Space::of(&self.options, ctx.screenshot.size);
        let family = grammar::of(self.options.dialect);
        if self.history.is_empty() {
            let system = match (&self.options.system_prompt, family) {
                (Some(own), _) => own.clone(),
                (None, Some(g)) => grammar::prompts::tools_system(g, space),
                (None, None) => {
                    prompts::fill(prompts::TOOLS_SYSTEM, &[("coords", &space.wording())])
                }
            };
            let system = super::with_targets_note(&self.options, system, prompts::TARGETS_TOOLS);
            self.history.push(Message::system(system));
            self.history
                .push(Message::user(format!("TASK: {}", ctx.task)));
            let first = match family {
                Some(_) => "The screen now.".to_string(),
                None => format!(
                    "observe_screen: the screen now (coordinates are {} of this image).",
                    space.range()
                ),
            };
            let first = super::with_area_note(first, ctx.screenshot);
            self.history.push(Message::user_with_image(first, url));
        } else {
            let text = format!("The screen after your last action (turn {}).", ctx.turn);
            self.history.push(Message::user_with_image(
                super::with_area_note(text, ctx.screenshot),
                url,
            ));
        }
        prune_screenshots(&mut self.history, self.options.keep_last_screenshots);
        self.dropped += budget::fit(
            &mut self.history,
            self.options.history_max_chars,
            HEAD,
            self.dropped,
        );
        let tools = family.map_or_else(
            || schema::with_targets(schema::tools_strategy(space), self.options.targets_in_words),
            |g| (g.tools)(space),
        );
        Prompt {
            messages: self.history.clone(),
            tool_choice: (!tools.is_empty()).then(ToolChoice::auto),
            format: super::reply_format::tools_reply(
                &tools,
                space,
                self.finish.may_answer(ctx.task),
            ),
            tools,
            ..Prompt::default()
        }
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        // a reply read again before its results were recorded (an approver's edit) replaces
        // the one read first, so that no tool call stays unanswered
        if let Some(len) = self.unrecorded.take() {
            self.history.truncate(len);
        }
        self.unrecorded = Some(self.history.len());
        self.pending.clear();
        self.problems.clear();
        // calls without an id get one, so that their results can name them
        let mut reply = reply.clone();
        for (i, c) in reply.tool_calls.iter_mut().enumerate() {
            if c.id.as_deref().is_none_or(str::is_empty) {
                c.id = Some(format!("call_{}_{}", ctx.turn, i + 1));
            }
        }
        let reading = if reply.tool_calls.is_empty() {
            self.read_text(&reply, ctx)
        } else {
            self.history.push(Message::from_reply(&reply));
            self.read_calls(&reply, ctx)
        };
        prune_thinks(&mut self.history, self.options.keep_last_thinks);
        self.read_errors = reading.errors.len();
        reading
    }

    /// The first tool call is the one performed (`read_calls`), whatever follows it.
    fn early_call(
        &self,
        call: &crate::model::ToolCall,
        ctx: &TurnContext<'_>,
    ) -> Option<crate::action::Action> {
        let parsed = super::parse_one_call(&Reply::default(), call, &self.options, ctx);
        parsed.actions.into_iter().next()
    }

    fn scripted_reply(&mut self, turn: u32) -> Option<String> {
        super::boot_turn(&self.options, turn)
    }

    /// The loop breaker's note goes into the last action's result (the last message).
    fn loop_status(&mut self, _repeats: u32, note: Option<&str>) {
        let Some(n) = note else { return };
        let past_head = self.history.len() > HEAD;
        match self.history.last_mut().map(|m| &mut m.content) {
            Some(Content::Text(t)) if past_head => {
                t.push('\n');
                t.push_str(n);
            }
            _ => self.history.push(Message::user(n)),
        }
    }

    fn record(&mut self, reading: &Reading, results: &[ActionResult]) {
        self.unrecorded = None;
        self.finish.record(&reading.actions, results);
        let mut results = results.iter();
        let not_performed =
            not_performed(&reading.errors[self.read_errors.min(reading.errors.len())..]);
        for p in std::mem::take(&mut self.pending) {
            let content = match (p.answer, p.cut) {
                // performed early, before the cut was known (engine/early.rs): it stands
                (Some(_), true) if !reading.actions.is_empty() => match results.next() {
                    Some(r) => {
                        format!("{} ({PERFORMED_BEFORE_THE_CUT})", schema::result_payload(r))
                    }
                    None => schema::err_payload("truncated", &super::finish::cut_off_problem()),
                },
                (Some(a), _) => a,
                (None, _) => results
                    .next()
                    .map(schema::result_payload)
                    .unwrap_or_else(|| schema::err_payload("execution_failed", &not_performed)),
            };
            let message = match p.id {
                Some(id) => Message::tool(id, p.name, content),
                None => Message::user(format!(
                    "Result of {} (written in the text of your reply, not called as a tool): {content}",
                    p.name
                )),
            };
            self.history.push(message);
        }
        let problems = std::mem::take(&mut self.problems);
        if !problems.is_empty() {
            let lines: Vec<String> = problems.iter().map(|p| format!("PROBLEM: {p}")).collect();
            self.history.push(Message::user(lines.join("\n")));
        }
    }
}

impl Tools {
    /// Reads a reply's tool calls: the first is executed, the others answered with an error.
    fn read_calls(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        let Some(first) = reply.tool_calls.first() else {
            return Reading::default();
        };
        let parsed = super::parse_one_call(reply, first, &self.options, ctx);
        let mut errors = parsed.errors;
        let mut actions = parsed.actions;
        // a cut call may have lost part of its arguments: nothing of a cut reply runs
        super::finish::cut_off(reply, &mut actions, &mut errors);
        let around = strip_think(&reply.content);
        let bare = super::finish::bare(&self.options);
        self.finish
            .check(&mut actions, &mut errors, around.trim(), bare);
        let kind = if reply.truncated() {
            "truncated"
        } else {
            "invalid_args"
        };
        let answer = actions.is_empty().then(|| {
            schema::err_payload(
                kind,
                &if errors.is_empty() {
                    "the call was not understood".to_string()
                } else {
                    errors.join("; ")
                },
            )
        });
        self.pending.push(Pending {
            id: first.id.clone(),
            name: first.name.clone(),
            answer,
            cut: reply.truncated(),
        });
        for extra in reply.tool_calls.iter().skip(1) {
            errors.push(format!(
                "{}: too_many_tool_calls (only one tool call is executed per step)",
                extra.name
            ));
            self.pending.push(Pending {
                id: extra.id.clone(),
                name: extra.name.clone(),
                answer: Some(schema::too_many_tool_calls()),
                cut: false,
            });
        }
        Reading {
            actions,
            text: strip_think(&reply.content).trim().to_string(),
            bboxes: Vec::new(),
            errors,
        }
    }
}

/// Why a call's action was not performed, for its result: the errors the engine added to the
/// reading after it was read (`late`), where there are any.
fn not_performed(late: &[String]) -> String {
    match late {
        [] => "the action was not performed".to_string(),
        _ => format!("the action was not performed: {}", late.join("; ")),
    }
}

fn is_image(part: &ContentPart) -> bool {
    matches!(part, ContentPart::ImageUrl { .. })
}

/// The most turns between two prunings. Pruning rewrites an old message, so the request's
/// prefix changes there and a server's prompt cache is lost from that point: pruning several
/// images at once loses it once every `min(keep, PRUNE_STEP)` turns instead of every turn
/// (docs/context.md, "Requests a server can cache").
pub const PRUNE_STEP: usize = 4;

/// How many images a pruning leaves: the newest, and as many more as keep the next
/// `PRUNE_STEP - 1` turns within `keep`.
fn kept_after_pruning(keep: usize) -> usize {
    (keep + 1).saturating_sub(PRUNE_STEP).max(1).min(keep)
}

/// Keeps at most the last `keep` images of the history (`keep_last_screenshots` is a ceiling:
/// a small model's context holds no more): once more are there, all but the last
/// [`kept_after_pruning`] become [`PRUNED_SCREENSHOT`] at once. `keep` 0 keeps none.
pub fn prune_screenshots(history: &mut [Message], keep: usize) {
    let live = history
        .iter()
        .filter_map(|m| match &m.content {
            Content::Parts(parts) => Some(parts.iter().filter(|p| is_image(p)).count()),
            Content::Text(_) => None,
        })
        .sum::<usize>();
    if live <= keep {
        return;
    }
    let keep = kept_after_pruning(keep);
    let mut seen = 0;
    for m in history.iter_mut().rev() {
        let Content::Parts(parts) = &mut m.content else {
            continue;
        };
        for part in parts.iter_mut().rev() {
            if is_image(part) {
                seen += 1;
                if seen > keep {
                    *part = ContentPart::Text {
                        text: PRUNED_SCREENSHOT.into(),
                    };
                }
            }
        }
    }
}

/// Strips `<think>` from all but the last `keep` assistant messages.
pub fn prune_thinks(history: &mut [Message], keep: usize) {
    let mut seen = 0;
    for m in history.iter_mut().rev() {
        if m.role != Role::Assistant {
            continue;
        }
        seen += 1;
        if seen <= keep {
            continue;
        }
        if let Content::Text(t) = &mut m.content
            && t.to_ascii_lowercase().contains("think>")
        {
            *t = strip_think(t).trim().to_string();
        }
    }
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
