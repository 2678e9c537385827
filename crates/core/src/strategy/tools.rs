//! The tools strategy (docs/seeds.md (tool calling)): OpenAI function calling with the designs'
//! tool schema and a chat history kept across turns.
//!
//! - The history starts with the system prompt, the task and a screenshot (the tool-calling design
//!   observes the screen before the first request).
//! - Exactly one tool call is executed per step; the others of a reply are answered with a
//!   `too_many_tool_calls` error. Results go back as role=tool messages, each turn's
//!   screenshot as a role=user image message.
//! - Pruning: only the last `keep_last_screenshots` images stay (older ones become a text
//!   placeholder); `<think>` is stripped from all but the last `keep_last_thinks` assistant
//!   messages.
//! - A reply without tool calls ends the run with its text (think tags stripped) as a `done`.

use super::{Prompt, ReadOptions, Reading, Strategy, TurnContext, prompts, schema};
use crate::action::{ActionKind, ActionResult};
use crate::model::{Content, ContentPart, Message, Reply, Role, ToolChoice};
use crate::parser::strip_think;

/// What an older screenshot is replaced with.
pub const PRUNED_SCREENSHOT: &str = "[older screenshot removed to save context]";

/// A tool call of the last reply waiting for its result.
#[derive(Debug, Clone)]
struct Pending {
    id: String,
    name: String,
    /// Set for calls answered without executing them (extra calls, unreadable arguments).
    answer: Option<String>,
}

pub struct Tools {
    options: ReadOptions,
    history: Vec<Message>,
    pending: Vec<Pending>,
}

impl Tools {
    pub fn new(options: ReadOptions) -> Self {
        Self {
            options,
            history: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// The chat history as it stands.
    pub fn history(&self) -> &[Message] {
        &self.history
    }
}

impl Strategy for Tools {
    fn name(&self) -> &'static str {
        "tools"
    }

    fn prompt(&mut self, ctx: &TurnContext<'_>) -> Prompt {
        let url = ctx.observation.data_url.clone();
        if self.history.is_empty() {
            let system = self
                .options
                .system_prompt
                .as_deref()
                .unwrap_or(prompts::TOOLS_SYSTEM);
            self.history.push(Message::system(system));
            self.history
                .push(Message::user(format!("TASK: {}", ctx.task)));
            self.history.push(Message::user_with_image(
                "observe_screen: the screen now (coordinates are 0..1000 of this image).",
                url,
            ));
        } else {
            self.history.push(Message::user_with_image(
                format!("The screen after your last action (turn {}).", ctx.turn),
                url,
            ));
        }
        prune_screenshots(&mut self.history, self.options.keep_last_screenshots);
        Prompt {
            messages: self.history.clone(),
            tools: schema::tools_strategy(),
            tool_choice: Some(ToolChoice::auto()),
            ..Prompt::default()
        }
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        // calls without an id get one, so that their results can name them
        let mut reply = reply.clone();
        for (i, c) in reply.tool_calls.iter_mut().enumerate() {
            if c.id.as_deref().is_none_or(str::is_empty) {
                c.id = Some(format!("call_{}_{}", ctx.turn, i + 1));
            }
        }
        let reply = &reply;
        self.history.push(Message::from_reply(reply));
        prune_thinks(&mut self.history, self.options.keep_last_thinks);
        self.pending.clear();
        let Some(first) = reply.tool_calls.first() else {
            let text = strip_think(&reply.content).trim().to_string();
            let text = if text.is_empty() {
                "finished (the model answered without a tool call)".to_string()
            } else {
                text
            };
            return Reading {
                actions: vec![ActionKind::Done { text: text.clone() }.into()],
                text,
                ..Reading::default()
            };
        };
        let parsed = super::parse_one_call(reply, first, &self.options, ctx);
        let mut errors = parsed.errors;
        let actions = parsed.actions;
        let answer = actions.is_empty().then(|| {
            schema::err_payload(
                "invalid_args",
                &if errors.is_empty() {
                    "the call was not understood".to_string()
                } else {
                    errors.join("; ")
                },
            )
        });
        self.pending.push(Pending {
            id: first.id.clone().unwrap_or_default(),
            name: first.name.clone(),
            answer,
        });
        for extra in reply.tool_calls.iter().skip(1) {
            errors.push(format!(
                "{}: too_many_tool_calls (only one tool call is executed per step)",
                extra.name
            ));
            self.pending.push(Pending {
                id: extra.id.clone().unwrap_or_default(),
                name: extra.name.clone(),
                answer: Some(schema::too_many_tool_calls()),
            });
        }
        Reading {
            actions,
            text: strip_think(&reply.content).trim().to_string(),
            bboxes: Vec::new(),
            errors,
        }
    }

    fn record(&mut self, _reading: &Reading, results: &[ActionResult]) {
        let mut results = results.iter();
        for p in std::mem::take(&mut self.pending) {
            let content = match p.answer {
                Some(a) => a,
                None => results
                    .next()
                    .map(schema::result_payload)
                    .unwrap_or_else(|| {
                        schema::err_payload("execution_failed", "the action was not performed")
                    }),
            };
            self.history.push(Message::tool(p.id, p.name, content));
        }
    }
}

fn is_image(part: &ContentPart) -> bool {
    matches!(part, ContentPart::ImageUrl { .. })
}

/// Keeps the last `keep` images of the history; older ones become [`PRUNED_SCREENSHOT`].
pub fn prune_screenshots(history: &mut [Message], keep: usize) {
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
mod tests {
    use super::*;

    fn images(h: &[Message]) -> usize {
        h.iter()
            .map(|m| match &m.content {
                Content::Parts(p) => p.iter().filter(|p| is_image(p)).count(),
                Content::Text(_) => 0,
            })
            .sum()
    }

    #[test]
    fn pruning_keeps_the_last_k_screenshots_and_thinks() {
        let mut h = vec![Message::system("s")];
        for i in 0..5 {
            h.push(Message::user_with_image(
                format!("s{i}"),
                "data:image/png;base64,AA",
            ));
            h.push(Message::assistant(format!("<think>t{i}</think>a{i}")));
        }
        prune_screenshots(&mut h, 2);
        prune_thinks(&mut h, 2);
        assert_eq!(images(&h), 2);
        assert!(matches!(&h[9].content, Content::Parts(_)));
        let Content::Parts(p) = &h[1].content else {
            panic!()
        };
        assert_eq!(
            p[1],
            ContentPart::Text {
                text: PRUNED_SCREENSHOT.into()
            }
        );
        assert_eq!(h[2].content, Content::Text("a0".into()));
        assert_eq!(h[10].content, Content::Text("<think>t4</think>a4".into()));
        assert_eq!(h[8].content, Content::Text("<think>t3</think>a3".into()));
        assert_eq!(h[6].content, Content::Text("a2".into()));
    }
}
