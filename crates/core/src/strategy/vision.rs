//! The vision strategy (docs/seeds.md (vision loop)): the reply is JSON `{observation, bboxes,
//! actions}` with several actions a turn; the observation is the next turn's text and the bboxes
//! are drawn on the next screenshot. A boot reply can start the loop without asking the model. A reply cut
//! off at max_tokens never ends the run: its `done` is dropped.

use super::{Prompt, ReadOptions, Reading, Strategy, TurnContext, prompts};
use crate::action::ActionResult;
use crate::model::Reply;
use crate::parser::Dialect;

pub struct Vision {
    options: ReadOptions,
    observation: String,
    last: String,
}

impl Vision {
    pub fn new(mut options: ReadOptions) -> Self {
        if options.dialect.is_none() {
            options.dialect = Some(Dialect::Json);
        }
        Self {
            options,
            observation: "(none yet)".into(),
            last: "(none)".into(),
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
            ("observation", &self.observation),
            ("last", &self.last),
        ];
        super::one_shot_prompt(
            &self.options,
            prompts::VISION_SYSTEM,
            prompts::VISION_USER,
            &vars,
            ctx,
        )
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        let parsed = super::parse(reply, &self.options, ctx);
        let mut actions = parsed.actions;
        super::plain::no_completion_if_cut(reply, &mut actions);
        Reading {
            actions,
            text: parsed.text.trim().to_string(),
            bboxes: parsed.bboxes,
            errors: parsed.errors,
        }
    }

    fn record(&mut self, reading: &Reading, results: &[ActionResult]) {
        if !reading.text.is_empty() {
            self.observation = reading.text.clone();
        }
        self.last = super::last_turn(reading, results);
    }

    fn scripted_reply(&mut self, turn: u32) -> Option<String> {
        if turn == 1 {
            self.options.boot_reply.clone()
        } else {
            None
        }
    }
}
