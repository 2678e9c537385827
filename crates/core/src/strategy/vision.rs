//! The vision strategy (seed 000): the reply is JSON `{observation, bboxes, actions}` with
//! several actions a turn; the observation is the next turn's text and the bboxes are drawn
//! on the next screenshot. A boot reply can start the loop without asking the model.

use super::{Prompt, ReadOptions, Reading, Strategy, TurnContext, describe_results, prompts};
use crate::action::ActionResult;
use crate::model::{Message, Reply};
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
        let system = self
            .options
            .system_prompt
            .as_deref()
            .unwrap_or(prompts::VISION_SYSTEM);
        let user = prompts::fill(
            prompts::VISION_USER,
            &[
                ("task", ctx.task),
                ("observation", &self.observation),
                ("last", &self.last),
            ],
        );
        Prompt {
            messages: vec![
                Message::system(system),
                Message::user_with_image(user, ctx.observation.data_url.clone()),
            ],
            ..Prompt::default()
        }
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        let parsed = super::parse(reply, &self.options, ctx);
        Reading {
            actions: parsed.actions,
            text: parsed.text.trim().to_string(),
            bboxes: parsed.bboxes,
            errors: parsed.errors,
        }
    }

    fn record(&mut self, reading: &Reading, results: &[ActionResult]) {
        if !reading.text.is_empty() {
            self.observation = reading.text.clone();
        }
        let mut last = describe_results(&reading.actions, results);
        if reading.actions.is_empty() {
            last = "(no action was recognised in your reply)".into();
        }
        for e in &reading.errors {
            last.push_str(&format!("\nPROBLEM: {e}"));
        }
        self.last = last;
    }

    fn scripted_reply(&mut self, turn: u32) -> Option<String> {
        if turn == 1 {
            self.options.boot_reply.clone()
        } else {
            None
        }
    }
}
