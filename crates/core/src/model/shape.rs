//! Message shapes: franz's messages fitted to what a server's chat template accepts
//! (docs/config.md, "Message shapes").
//!
//! Strategies build their messages freely: the tools strategy sends the task and then the
//! screen as two user messages in a row, tool results as `tool` messages and its calls as the
//! assistant's `tool_calls`. Many real chat templates refuse that: Gemma's, Mistral's and others
//! raise "Conversation roles must alternate user/assistant/user/assistant/...", Gemma 3's
//! raises it for any `tool` message, and some (Gemma 2, Mistral v0.1) take no system message.
//! The model client applies one [`Shape`] to every request just before sending it
//! ([`apply`]); with the `message_shape` setting at `auto` it starts with [`Shape::None`] and
//! learns the shape the server needs from its refusal ([`learn`]).
//!
//! - [`Shape::None`]: the messages as the strategy built them.
//! - [`Shape::Alternate`]: after an optional first system message, user and assistant
//!   strictly alternate, starting with a user message. Tool results become user text (the
//!   tool's name and its result), the assistant's tool calls become `<tool_call>` blocks in
//!   its text, a later system message becomes user text, and consecutive messages of one role
//!   are merged into one (their texts joined by a blank line, images kept in order).
//! - [`Shape::Strict`]: [`Shape::Alternate`], and the system prompt folded into the first
//!   user message, for templates without a system role.

use super::types::{ChatRequest, Content, ContentPart, Message, Role};

/// The `message_shape` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MessageShape {
    /// Send the messages as built; on a refusal that names a shape, resend them in it (once)
    /// and keep it for the rest of the run.
    #[default]
    Auto,
    /// Always this shape.
    Fixed(Shape),
}

impl MessageShape {
    /// The shape the first request is sent in.
    pub fn initial(self) -> Shape {
        match self {
            MessageShape::Auto => Shape::None,
            MessageShape::Fixed(s) => s,
        }
    }

    /// The setting's value as written (`auto`, `none`, `alternate`, `strict`).
    pub fn name(self) -> &'static str {
        match self {
            MessageShape::Auto => "auto",
            MessageShape::Fixed(s) => s.name(),
        }
    }
}

/// How the messages of a request are shaped, from the least change to the most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Shape {
    #[default]
    None,
    Alternate,
    Strict,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::None, Shape::Alternate, Shape::Strict];

    pub fn name(self) -> &'static str {
        match self {
            Shape::None => "none",
            Shape::Alternate => "alternate",
            Shape::Strict => "strict",
        }
    }
}

/// What a refusal says the template wants, lower-cased fragments of the templates' own
/// messages (Gemma, Mistral, Llama 3.x's "only supports single tool-calls at once",
/// llama-cpp-python's built-in formats) and of servers' wordings for the same thing.
const WANTS_NO_SYSTEM: &[&str] = &[
    "system role not supported",
    "system role is not supported",
    "system message is not supported",
    "system messages are not supported",
    "only user and assistant roles are supported",
    "does not support system",
];

const WANTS_ALTERNATION: &[&str] = &[
    "roles must alternate",
    "must alternate user/assistant",
    "must alternate between",
    "only user, system and assistant roles are supported",
    "only user, assistant and system roles are supported",
    "unknown role",
    "unsupported role",
    "invalid role",
    "unexpected role",
    "role 'tool'",
    "role \"tool\"",
    "tool role",
    "tool call ids should be",
    "tool_call_id",
    "only supports single tool-call",
];

/// Whether an error body is a chat template's refusal of the messages' roles or order (a
/// deterministic error: sending the same request again cannot help).
pub fn is_refusal(body: &str) -> bool {
    wanted(body).is_some()
}

/// The shape an error body asks for, if it is a refusal of the messages' roles or order.
pub fn wanted(body: &str) -> Option<Shape> {
    let lower = body.to_ascii_lowercase();
    if WANTS_NO_SYSTEM.iter().any(|w| lower.contains(w)) {
        return Some(Shape::Strict);
    }
    WANTS_ALTERNATION
        .iter()
        .any(|w| lower.contains(w))
        .then_some(Shape::Alternate)
}

/// The shape to send in next after the server refused a request sent in `current` with
/// `body`: the one the refusal asks for, or the next stricter one when it asks for one already
/// in use; `None` when the body is no such refusal or nothing stricter is left.
pub fn learn(current: Shape, body: &str) -> Option<Shape> {
    let wanted = wanted(body)?;
    let next = if wanted > current {
        wanted
    } else {
        Shape::ALL.into_iter().find(|s| *s > current)?
    };
    Some(next)
}

/// `request` with its messages in `shape`.
pub fn apply(request: &ChatRequest, shape: Shape) -> ChatRequest {
    let mut out = request.clone();
    out.messages = messages(&request.messages, shape);
    out
}

/// `messages` in `shape`.
pub fn messages(messages: &[Message], shape: Shape) -> Vec<Message> {
    if shape == Shape::None {
        return messages.to_vec();
    }
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let m = as_plain(m, i == 0);
        match out.last_mut() {
            Some(last) if last.role == m.role => merge_into(last, m.content),
            _ => out.push(m),
        }
    }
    if out.first().is_some_and(|m| m.role == Role::Assistant) {
        out.insert(0, Message::user("(continue)"));
    }
    if shape == Shape::Strict {
        fold_system(&mut out);
    }
    out
}

/// One message as plain user, assistant or (first only) system text: tool results and later
/// system messages become user text, tool calls become `<tool_call>` blocks.
fn as_plain(m: &Message, first: bool) -> Message {
    match m.role {
        Role::System if first => Message::new(Role::System, m.content.clone()),
        Role::System => Message::new(Role::User, m.content.clone()),
        Role::Tool => {
            let name = m.name.as_deref().unwrap_or("the tool");
            let text = format!("Result of {name}: {}", text_of(&m.content));
            Message::user(text)
        }
        Role::User => Message::new(Role::User, m.content.clone()),
        Role::Assistant => {
            let mut text = text_of(&m.content);
            for call in &m.tool_calls {
                let block = serde_json::json!({
                    "name": call.name,
                    "arguments": serde_json::from_str::<serde_json::Value>(&call.arguments_text())
                        .unwrap_or_else(|_| serde_json::Value::String(call.arguments_text())),
                });
                if !text.trim().is_empty() {
                    text.push('\n');
                }
                text.push_str(&format!("<tool_call>\n{block}\n</tool_call>"));
            }
            Message::assistant(text)
        }
    }
}

/// The text of a content: the string, or its text parts joined by blank lines.
fn text_of(content: &Content) -> String {
    match content {
        Content::Text(t) => t.clone(),
        Content::Parts(parts) => parts
            .iter()
            .filter_map(|p| match p {
                ContentPart::Text { text } => Some(text.as_str()),
                ContentPart::ImageUrl { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}

/// Appends `extra` to `into`'s content: texts joined by a blank line, images kept in order.
fn merge_into(into: &mut Message, extra: Content) {
    let joined = match (std::mem::take(&mut into.content), extra) {
        (Content::Text(a), Content::Text(b)) => Content::Text(join(&a, &b)),
        (a, b) => {
            let mut parts = into_parts(a);
            parts.extend(into_parts(b));
            Content::Parts(coalesce(parts))
        }
    };
    into.content = joined;
}

fn join(a: &str, b: &str) -> String {
    match (a.trim().is_empty(), b.trim().is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}\n\n{b}"),
    }
}

fn into_parts(c: Content) -> Vec<ContentPart> {
    match c {
        Content::Text(t) if t.is_empty() => Vec::new(),
        Content::Text(text) => vec![ContentPart::Text { text }],
        Content::Parts(p) => p,
    }
}

/// Adjacent text parts joined into one (templates that trim and concatenate parts would
/// otherwise glue two sentences together).
fn coalesce(parts: Vec<ContentPart>) -> Vec<ContentPart> {
    let mut out: Vec<ContentPart> = Vec::with_capacity(parts.len());
    for p in parts {
        match (out.last_mut(), p) {
            (Some(ContentPart::Text { text: a }), ContentPart::Text { text: b }) => {
                *a = join(a, &b);
            }
            (_, p) => out.push(p),
        }
    }
    out
}

/// Moves a first system message into the first user message, ahead of its text.
fn fold_system(out: &mut Vec<Message>) {
    if out.first().is_none_or(|m| m.role != Role::System) {
        return;
    }
    let system = out.remove(0);
    match out.iter_mut().find(|m| m.role == Role::User) {
        Some(user) => {
            let rest = std::mem::take(&mut user.content);
            user.content = system.content;
            merge_into(user, rest);
        }
        None => out.insert(0, Message::new(Role::User, system.content)),
    }
}

#[cfg(test)]
#[path = "shape_tests.rs"]
mod tests;
