//! Grounding at run time (`grounding` setting, `crate::grounding`): each turn collects the
//! elements within the budget, numbers those inside the working area as marks (the executor
//! resolves `element` references against them), and adds their list to the request text.

use super::Engine;
use crate::event::ElementsCollected;
use crate::grounding::{self, Grounding};
use crate::model::{Content, ContentPart, Role};
use crate::strategy::Prompt;
use std::time::Instant;

impl Engine<'_> {
    /// Collects this turn's elements into the executor's marks; what the `observation` event
    /// says about it. `None` without grounding. A source that fails leaves no marks (the turn
    /// goes on by vision) and says why.
    pub(super) fn ground(&mut self) -> Option<ElementsCollected> {
        let source = self.grounding.as_mut()?;
        if source.mode == Grounding::None {
            return None;
        }
        let start = Instant::now();
        let (marks, report) = match source.elements.collect(source.budget) {
            Ok(found) => {
                let marks = grounding::marks(&found.elements, self.executor.area());
                let report = ElementsCollected {
                    ms: 0.0,
                    collected: found.elements.len(),
                    marks: marks.len(),
                    skipped: found.skipped,
                    error: None,
                };
                (marks, report)
            }
            Err(e) => (
                Vec::new(),
                ElementsCollected {
                    ms: 0.0,
                    collected: 0,
                    marks: 0,
                    skipped: 0,
                    error: Some(e.to_string()),
                },
            ),
        };
        self.executor.set_marks(marks);
        Some(ElementsCollected {
            ms: start.elapsed().as_secs_f64() * 1000.0,
            ..report
        })
    }

    /// Whether the marks are drawn onto the screenshot.
    pub(super) fn draws_marks(&self) -> bool {
        self.grounding
            .as_ref()
            .is_some_and(|g| g.mode == Grounding::Marks)
    }

    /// The prompt with this turn's element list appended to its last user message.
    pub(super) fn with_elements(&self, prompt: Prompt) -> Prompt {
        with_list(prompt, self.elements_text().as_deref())
    }

    /// This turn's element list as the request text carries it; `None` without grounding.
    /// Every request of the turn carries it, the strategy's own (the commander's leader) too.
    pub(super) fn elements_text(&self) -> Option<String> {
        match &self.grounding {
            Some(g) if g.mode != Grounding::None => {
                Some(grounding::request_text(self.executor.marks()))
            }
            _ => None,
        }
    }
}

/// `prompt` with the element list `list` (when there is one) after its last user text.
pub(super) fn with_list(prompt: Prompt, list: Option<&str>) -> Prompt {
    match list {
        Some(text) => add_text(prompt, text),
        None => prompt,
    }
}

/// `prompt` with `text` after the text of its last user message.
pub(super) fn add_text(mut prompt: Prompt, text: &str) -> Prompt {
    let Some(m) = prompt
        .messages
        .iter_mut()
        .rev()
        .find(|m| m.role == Role::User)
    else {
        return prompt;
    };
    match &mut m.content {
        Content::Text(t) => {
            t.push_str("\n\n");
            t.push_str(text);
        }
        Content::Parts(parts) => {
            let at = parts
                .iter()
                .rposition(|p| matches!(p, ContentPart::Text { .. }))
                .map_or(0, |i| i + 1);
            parts.insert(
                at,
                ContentPart::Text {
                    text: text.to_string(),
                },
            );
        }
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Message;

    #[test]
    fn the_list_follows_the_last_user_text() {
        let prompt = Prompt {
            messages: vec![
                Message::system("sys"),
                Message::user("first"),
                Message::user_with_image("TASK: t", "data:image/png;base64,AA"),
            ],
            ..Default::default()
        };
        let p = add_text(prompt, "ELEMENTS:\n1 push_button \"OK\" [1,2,3,4]");
        assert_eq!(p.messages[1].content, Content::Text("first".into()));
        let Content::Parts(parts) = &p.messages[2].content else {
            panic!("parts expected");
        };
        assert_eq!(
            parts[1],
            ContentPart::Text {
                text: "ELEMENTS:\n1 push_button \"OK\" [1,2,3,4]".into()
            }
        );
        assert!(matches!(parts[2], ContentPart::ImageUrl { .. }));
        let p = add_text(
            Prompt {
                messages: vec![Message::user("look")],
                ..Default::default()
            },
            "L",
        );
        assert_eq!(p.messages[0].content, Content::Text("look\n\nL".into()));
    }
}
