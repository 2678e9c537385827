//! The narrative strategy (docs/seeds.md (narrative)), the default: stateless requests holding the
//! goal, the model's own story and the last action, plus one screenshot annotated with that action.
//! The reply is one action as function-call text and a story that replaces the old one in full, so
//! the request never grows with turns. A reply cut off at max_tokens never ends the run: its
//! `done` is dropped and the cut goes back to the model as a problem.

use super::grammar::{self, Space};
use super::{Prompt, ReadOptions, Reading, Strategy, TurnContext, prompts};
use crate::action::ActionResult;
use crate::model::Reply;
use crate::parser::Dialect;

pub struct Narrative {
    options: ReadOptions,
    story: String,
    last: String,
    evidence: super::plain::EvidenceRule,
}

impl Narrative {
    pub fn new(mut options: ReadOptions) -> Self {
        if options.dialect.is_none() {
            options.dialect = Some(Dialect::Calls);
        }
        Self {
            options,
            story: "(nothing yet: this is the first turn)".into(),
            last: "(none)".into(),
            evidence: Default::default(),
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
        let family = grammar::of(self.options.dialect).map(|g| {
            grammar::prompts::narrative_system(g, Space::of(&self.options, ctx.screenshot.size))
        });
        let mut prompt = super::one_shot_prompt(
            &self.options,
            family.as_deref().unwrap_or(prompts::NARRATIVE_SYSTEM),
            prompts::NARRATIVE_USER,
            &vars,
            ctx,
        );
        let space = Space::of(&self.options, ctx.screenshot.size);
        prompt.format = super::format::narrative(&self.options, space);
        prompt
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        let parsed = super::parse(reply, &self.options, ctx);
        let mut errors = parsed.errors;
        let mut actions = parsed.actions;
        if actions.is_empty()
            && let Some(done) = grammar::finish_by_answer(reply, &self.options, ctx)
        {
            actions.push(done);
            errors.clear();
        }
        super::plain::no_completion_if_cut(reply, &mut actions);
        if actions.len() > 1 {
            errors.push(format!(
                "{} actions given; the narrative strategy performs one per turn: only the first was performed",
                actions.len()
            ));
            actions.truncate(1);
        }
        self.evidence.check(&mut actions, &mut errors);
        Reading {
            actions,
            text: parsed.text.trim().to_string(),
            bboxes: Vec::new(),
            errors,
        }
    }

    fn scripted_reply(&mut self, turn: u32) -> Option<String> {
        super::boot_turn(&self.options, turn)
    }

    /// One action a turn, the first the reply gives: the rest of the reply cannot change it
    /// (`read` only drops a `done`, which never runs early, and the actions after the first).
    fn early_reading(&self, ctx: &TurnContext<'_>) -> Option<crate::parser::ParseOptions> {
        Some(super::parse_options(&self.options, ctx))
    }

    fn record(&mut self, reading: &Reading, results: &[ActionResult]) {
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
