//! The vision strategy (docs/designs.md (vision loop)): the reply is JSON `{observation, bboxes,
//! actions}` with several actions a turn; the model's notes (its `observation` text) come back to
//! it in the next turn's prompt and the bboxes are drawn on the next screenshot. A boot reply can
//! start the loop without asking the model. How a turn ends the run (a cut-off reply, a finish,
//! a plain answer) is `finish.rs`'s rule.

use super::grammar::{self, Space};
use super::{Prompt, ReadOptions, Reading, Strategy, TurnContext, prompts};
use crate::action::ActionResult;
use crate::model::Reply;

pub struct Vision {
    options: ReadOptions,
    /// The model's notes of its last reply (what it saw and means to do), for the next prompt.
    notes: String,
    last: String,
    finish: super::finish::Finish,
}

impl Vision {
    pub fn new(mut options: ReadOptions) -> Self {
        options.dialect = super::StrategyName::Vision.dialect(options.dialect);
        Self {
            options,
            notes: "(none yet)".into(),
            last: "(none)".into(),
            finish: Default::default(),
        }
    }
}

impl Strategy for Vision {
    fn name(&self) -> &'static str {
        "vision"
    }

    fn prompt(&mut self, ctx: &TurnContext<'_>) -> Prompt {
        let vars = [
            ("task", ctx.task),
            ("notes", &self.notes),
            ("last", &self.last),
        ];
        // a family's grammar when its dialect is set (strategy/grammar), else franz's own
        let space = Space::of(&self.options, ctx.screenshot.size);
        let (system, user) = match grammar::of(self.options.dialect) {
            Some(g) => (
                grammar::prompts::vision_system(g, space),
                grammar::prompts::VISION_USER,
            ),
            None => (
                prompts::fill(prompts::VISION_SYSTEM, &[("coords", &space.wording())]),
                prompts::VISION_USER,
            ),
        };
        let mut prompt = super::one_shot_prompt(
            &self.options,
            (&system, prompts::TARGETS_JSON),
            user,
            &vars,
            ctx,
        );
        prompt.format = super::reply_format::vision(&self.options, space);
        self.finish.prompted(&prompt.messages);
        prompt
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        let parsed = super::parse(reply, &self.options, ctx);
        self.finish.reading(reply, &self.options, ctx, parsed, None)
    }

    fn record(&mut self, reading: &Reading, results: &[ActionResult]) {
        self.finish.record(&reading.actions, results);
        if !reading.text.is_empty() {
            self.notes = reading.text.clone();
        }
        self.last = super::last_turn(reading, results);
    }

    /// The loop breaker's note goes with the last turn's results, next to the observation.
    fn loop_status(&mut self, _repeats: u32, note: Option<&str>) {
        if let Some(n) = note {
            self.last = format!("{}\n{n}", self.last);
        }
    }

    fn scripted_reply(&mut self, turn: u32) -> Option<String> {
        super::boot_turn(&self.options, turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::test_support::{first_turn, screenshot};

    /// The user message of the prompt, as JSON text.
    fn prompt_text(v: &mut Vision, ctx: &TurnContext<'_>) -> String {
        serde_json::to_string(&v.prompt(ctx).messages).unwrap_or_default()
    }

    #[test]
    fn the_notes_of_a_reply_come_back_in_the_next_prompt() {
        let obs = screenshot();
        let ctx = first_turn(&obs);
        let mut v = Vision::new(ReadOptions::default());
        let first = prompt_text(&mut v, &ctx);
        assert!(
            first.contains("YOUR LAST OBSERVATION:\\n(none yet)"),
            "{first}"
        );
        let reply = Reply::text(
            "{\"observation\": \"a dialog asks to save\", \"actions\": [{\"name\": \"wait\"}]}",
        );
        let reading = v.read(&reply, &ctx);
        v.record(&reading, &[]);
        let next = prompt_text(&mut v, &ctx);
        assert!(
            next.contains("YOUR LAST OBSERVATION:\\na dialog asks to save"),
            "{next}"
        );
        assert!(!next.contains("{notes}"), "{next}");
    }
}
