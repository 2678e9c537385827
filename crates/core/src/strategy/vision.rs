//! The vision strategy (seed 000): the reply is JSON `{observation, bboxes, actions}` with
//! several actions a turn; the observation is the next turn's text and the bboxes are drawn
//! on the next screenshot. A boot reply can start the loop without asking the model.

use super::{Prompt, ReadOptions, Reading, Strategy, TurnContext, describe_results, prompts};
use crate::action::ActionResult;
use crate::geometry::{NormBox, Target};
use crate::model::{Message, Reply};
use crate::parser::{self, Dialect};

pub struct Vision {
    options: ReadOptions,
    observation: String,
    last: String,
}

impl Vision {
    pub fn new(mut options: ReadOptions) -> Self {
        if options.parse.dialect.is_none() {
            options.parse.dialect = Some(Dialect::Json);
        }
        Self {
            options,
            observation: "(none yet)".into(),
            last: "(none)".into(),
        }
    }
}

/// The `bboxes` of a seed-000 reply, read leniently; bad entries are skipped.
fn bboxes_of(text: &str) -> Vec<NormBox> {
    let Some(v) = parser::first_json_object(text) else {
        return Vec::new();
    };
    let Some(list) = v.get("bboxes").and_then(|b| b.as_array()) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|b| match Target::from_json(b).ok()? {
            Target::Box(nb) => Some(NormBox::from_corners(
                nb.x1.clamp(0, 1000),
                nb.y1.clamp(0, 1000),
                nb.x2.clamp(0, 1000),
                nb.y2.clamp(0, 1000),
            )),
            Target::Point(_) => None,
        })
        .collect()
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
            tools: Vec::new(),
        }
    }

    fn read(&mut self, reply: &Reply, _ctx: &TurnContext<'_>) -> Reading {
        let parsed = parser::parse_reply(reply, &self.options.parse);
        Reading {
            actions: parsed.actions,
            text: parsed.text.trim().to_string(),
            bboxes: bboxes_of(&reply.content),
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
