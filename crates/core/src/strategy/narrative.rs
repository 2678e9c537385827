//! The narrative strategy (docs/designs.md (narrative)), the default: stateless requests holding the
//! goal, the model's own story and the last action, plus one screenshot annotated with that action.
//! The reply is one action as function-call text and a story that replaces the old one in full, so
//! the request never grows with turns. How a turn ends the run (a cut-off reply, a finish, a
//! plain answer) is `finish.rs`'s rule.

use super::grammar::{self, Space};
use super::{Prompt, ReadOptions, Reading, Strategy, TurnContext, prompts};
use crate::action::ActionResult;
use crate::model::Reply;

pub struct Narrative {
    options: ReadOptions,
    story: String,
    last: String,
    finish: super::finish::Finish,
}

impl Narrative {
    pub fn new(mut options: ReadOptions) -> Self {
        options.dialect = super::StrategyName::Narrative.dialect(options.dialect);
        Self {
            options,
            story: "(nothing yet: this is the first turn)".into(),
            last: "(none)".into(),
            finish: Default::default(),
        }
    }

    /// The current story.
    pub fn story(&self) -> &str {
        &self.story
    }
}

impl Strategy for Narrative {
    fn name(&self) -> &'static str {
        "narrative"
    }

    fn prompt(&mut self, ctx: &TurnContext<'_>) -> Prompt {
        let vars = [
            ("task", ctx.task),
            ("story", &self.story),
            ("last", &self.last),
        ];
        // a family's grammar when its dialect is set (strategy/grammar), else franz's own
        let space = Space::of(&self.options, ctx.screenshot.size);
        let system = match grammar::of(self.options.dialect) {
            Some(g) => grammar::prompts::narrative_system(g, space),
            None => prompts::fill(prompts::NARRATIVE_SYSTEM, &[("coords", &space.wording())]),
        };
        let mut prompt = super::one_shot_prompt(
            &self.options,
            (&system, prompts::TARGETS_CALLS),
            prompts::NARRATIVE_USER,
            &vars,
            ctx,
        );
        prompt.format = super::format::narrative(&self.options, space);
        self.finish.prompted(&prompt.messages);
        prompt
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        let parsed = super::parse(reply, &self.options, ctx);
        self.finish
            .reading(reply, &self.options, ctx, parsed, Some("narrative"))
    }

    fn scripted_reply(&mut self, turn: u32) -> Option<String> {
        super::boot_turn(&self.options, turn)
    }

    /// One action a turn, the first the reply gives: the rest of the reply cannot change it
    /// (`read` drops the actions after the first, and a `done`, which never runs early; a
    /// reply cut off at max_tokens performs nothing, but an action performed before the cut
    /// was known stands, `engine/early.rs`).
    fn early_reading(&self, ctx: &TurnContext<'_>) -> Option<crate::parser::ParseOptions> {
        Some(super::parse_options(&self.options, ctx))
    }

    fn record(&mut self, reading: &Reading, results: &[ActionResult]) {
        self.finish.record(&reading.actions, results);
        if !reading.text.is_empty() {
            self.story = reading.text.clone();
        }
        self.last = super::last_turn(reading, results);
    }

    /// The loop breaker's note goes into the story.
    fn loop_status(&mut self, _repeats: u32, note: Option<&str>) {
        if let Some(n) = note {
            self.story = format!("{}\n{n}", self.story);
        }
    }
}
