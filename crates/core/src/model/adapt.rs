//! What the model client fits to the server before each request is sent, and learns from the
//! server's refusals for the rest of the run: the messages' shape (`shape.rs`) and the
//! constrained output (`constrain.rs`). One place, applied to every request the client sends
//! (docs/config.md, "Message shapes" and "Constrained output").
//!
//! A refusal that names what the server wants is answered at once, without the client's
//! retries (it is deterministic): the request is sent again, once per step, in the next shape
//! or the next way of constraining, and a retry progress says why. What was learned is shared
//! by the client's clones, so a run's later requests (and the commander's leader) start there.

use super::backend::{Progress, Retry};
use super::client::ModelClient;
use super::constrain::{self, Mode, ReplyFormat};
use super::error::ModelError;
use super::learned::Learned;
use super::shape::{self, MessageShape};
use super::types::{ChatRequest, Reply};
use super::wire::{body, read_content_call};

/// At most this many reshaped or re-constrained sends per request.
const MAX_STEPS: u32 = 4;

/// The server's words in an error, for learning from them.
fn refusal_text(e: &ModelError) -> Option<String> {
    match e {
        ModelError::Status { message, .. }
        | ModelError::BadReply {
            reason: message, ..
        } => Some(message.clone()),
        ModelError::Stream { reason, .. } => Some(reason.clone()),
        ModelError::Refused { detail, .. } => Some(detail.clone()),
        _ => None,
    }
}

/// What to send in after `e`, and why; `None` when `e` asks for nothing franz can change
/// (or the settings fix the shape and the way of constraining).
fn next_after(
    e: &ModelError,
    learned: Learned,
    shape_setting: MessageShape,
    format: Option<&ReplyFormat>,
) -> Option<(Learned, String)> {
    let text = refusal_text(e)?;
    let said = super::body::snippet(&text);
    if shape_setting == MessageShape::Auto
        && let Some(next) = shape::learn(learned.shape, &text)
    {
        let why = format!(
            "the server refused the messages ({said}); sending them again as message_shape {} for the rest of the run",
            next.name()
        );
        return Some((
            Learned {
                shape: next,
                ..learned
            },
            why,
        ));
    }
    let mode = learned.mode.filter(|_| format.is_some())?;
    let next = constrain::learn(mode, &text)?;
    let text_format = matches!(format, Some(ReplyFormat::Text { .. }));
    let names_grammar = text.to_ascii_lowercase().contains("grammar");
    if text_format && learned.grammar && names_grammar && mode != Mode::Grammar {
        let why = format!(
            "the server refused the grammar ({said}); sending text formats unconstrained for the rest of the run"
        );
        return Some((
            Learned {
                grammar: false,
                ..learned
            },
            why,
        ));
    }
    let why = format!(
        "the server refused the constrained request ({said}); sending it {} for the rest of the run",
        next.map_or("unconstrained".to_string(), |m| format!(
            "constrained as {}",
            m.name()
        ))
    );
    Some((
        Learned {
            mode: next,
            grammar: learned.grammar && !(mode == Mode::Grammar && names_grammar),
            ..learned
        },
        why,
    ))
}

impl ModelClient {
    /// Sends `request` shaped and constrained as learned so far, learning from refusals (see
    /// the module doc).
    pub(super) async fn ask_adapted(
        &self,
        request: &ChatRequest,
        on_progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Reply, ModelError> {
        let mut steps = 0;
        self.learn_server(request).await;
        loop {
            let learned = self.learned();
            let sent = body(request, learned);
            match self.ask(request, &sent, on_progress).await {
                Ok(mut reply) => {
                    self.note_reply(request, learned, &reply);
                    if learned.mode.is_some() {
                        read_content_call(request, &mut reply);
                    }
                    return Ok(reply);
                }
                Err(e) => {
                    let shape = self.shape_setting();
                    let format = request.format.as_ref();
                    let Some((next, why)) = next_after(&e, learned, shape, format) else {
                        return Err(e);
                    };
                    steps += 1;
                    if steps > MAX_STEPS {
                        return Err(e);
                    }
                    tracing::info!("{why}");
                    self.set_learned(next);
                    on_progress(Progress::Retry(&Retry {
                        attempt: steps + 1,
                        reason: why,
                    }));
                }
            }
        }
    }

    /// What requests are sent in now, having asked, before the first constrained request of
    /// `auto`, which server it is (see [`Learned::known`]).
    pub(super) async fn learn_server(&self, request: &ChatRequest) -> Learned {
        if request.format.is_some() && !self.learned().known {
            let takes = self.takes_grammar().await;
            self.set_learned(self.learned().known(takes));
        }
        self.learned()
    }

    /// A call request answered without a call, though `"required"` was asked: the server
    /// ignores it, and the next call requests ask for the call as content.
    fn note_reply(&self, request: &ChatRequest, learned: Learned, reply: &Reply) {
        let asked_required = matches!(request.format, Some(ReplyFormat::Call { .. }))
            && matches!(learned.mode, Some(Mode::JsonSchema | Mode::Ollama))
            && !learned.calls_in_content;
        if asked_required && reply.tool_calls.is_empty() {
            tracing::warn!(
                "the server answered a request with tool_choice \"required\" without a tool call: asking for calls as JSON content for the rest of the run"
            );
            self.set_learned(Learned {
                calls_in_content: true,
                ..learned
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Constrain;
    use crate::model::Message;
    use crate::model::Shape;
    use crate::model::learned::is_deterministic;

    fn status(message: &str) -> ModelError {
        ModelError::Status {
            url: "u".into(),
            status: 500,
            message: message.into(),
        }
    }

    #[test]
    fn a_refusal_steps_the_shape_then_the_constraint() {
        let start = Learned::from_settings(MessageShape::Auto, Constrain::Auto);
        let roles = status("failed (500: Conversation roles must alternate user/assistant/...)");
        let json = ReplyFormat::Json {
            name: "v".into(),
            schema: serde_json::json!({}),
            gbnf: "root ::= \"{}\"".into(),
        };
        let some = Some(&json);
        let (next, why) = next_after(&roles, start, MessageShape::Auto, some).unwrap();
        assert_eq!(next.shape, Shape::Alternate);
        assert!(why.contains("message_shape alternate"), "{why}");
        // a fixed shape is never changed
        assert!(next_after(&roles, start, MessageShape::Fixed(Shape::None), None).is_none());
        let schema = status("failed (500: response_format json_schema is not supported)");
        let (next, _) = next_after(&schema, start, MessageShape::Auto, some).unwrap();
        assert_eq!(next.mode, Some(Mode::JsonObject));
        let (last, why) = next_after(&schema, next, MessageShape::Auto, some).unwrap();
        assert_eq!(last.mode, None);
        assert!(why.contains("unconstrained"), "{why}");
        assert!(next_after(&schema, start, MessageShape::Auto, None).is_none());
        assert!(next_after(&status("model not loaded"), start, MessageShape::Auto, some).is_none());
        let text = ReplyFormat::Text {
            gbnf: "root ::= \"a\"".into(),
        };
        let openai = status("Unrecognized request argument supplied: grammar");
        let (off, _) = next_after(&openai, start, MessageShape::Auto, Some(&text)).unwrap();
        assert_eq!((off.grammar, off.mode), (false, Some(Mode::JsonSchema)));
        assert!(is_deterministic("Conversation roles must alternate"));
        assert!(!is_deterministic("upstream timed out"));
    }

    #[test]
    fn a_call_written_as_content_becomes_the_tool_call() {
        use crate::model::Tool;
        let mut req = ChatRequest::new("m", vec![Message::user("u")]);
        req.tools = vec![Tool::function("press_key", "d", serde_json::json!({}))];
        req.format = crate::strategy::reply_format::of_tools(
            &req.tools,
            crate::strategy::grammar::Space::Norm1000,
        );
        let mut r = Reply::text("{\"name\": \"press_key\", \"arguments\": {\"key\": \"enter\"}}");
        read_content_call(&req, &mut r);
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].name, "press_key");
        assert_eq!(
            r.tool_calls[0].arguments,
            serde_json::json!({"key": "enter"})
        );
        assert_eq!(r.content, "");
        let mut a = Reply::text("{\"answer\": \"saved\"}");
        read_content_call(&req, &mut a);
        assert_eq!((a.content.as_str(), a.tool_calls.len()), ("saved", 0));
        for other in ["{\"name\": \"rm\", \"arguments\": {}}", "left_click(1, 2)"] {
            let mut o = Reply::text(other);
            read_content_call(&req, &mut o);
            assert_eq!((o.content.as_str(), o.tool_calls.len()), (other, 0));
        }
        let mut unconstrained = Reply::text("{\"answer\": \"x\"}");
        req.format = None;
        read_content_call(&req, &mut unconstrained);
        assert_eq!(unconstrained.content, "{\"answer\": \"x\"}");
    }

    #[test]
    fn the_body_is_shaped_and_constrained() {
        let mut req = ChatRequest::new("m", vec![Message::system("s"), Message::user("u")]);
        req.format = Some(ReplyFormat::Text {
            gbnf: "root ::= \"x\"".into(),
        });
        let learned = Learned {
            shape: Shape::Strict,
            mode: Some(Mode::JsonObject),
            calls_in_content: false,
            grammar: true,
            known: true,
        };
        let b = body(&req, learned);
        assert_eq!(b["messages"].as_array().map(Vec::len), Some(1));
        assert_eq!(b["messages"][0]["role"], "user");
        assert_eq!(b["grammar"], "root ::= \"x\"");
        let plain = body(
            &req,
            Learned::from_settings(MessageShape::Auto, Constrain::Off),
        );
        assert_eq!(plain, req.to_body());
    }
}
