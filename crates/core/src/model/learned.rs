//! What the client has learned about a server's way of taking requests (the messages' shape,
//! how formats are constrained), and which refusals teach it something: the state
//! `adapt.rs` changes from refusals and `client.rs` keeps.

use super::constrain::{self, Constrain, Mode};
use super::shape::{self, MessageShape, Shape};

/// What the client sends in now: set from the settings, then learned from refusals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learned {
    /// The messages' shape.
    pub shape: Shape,
    /// How formats are constrained; `None`: not at all.
    pub mode: Option<Mode>,
    /// The server ignores `tool_choice: "required"`: calls are asked for as JSON content.
    pub calls_in_content: bool,
    /// Text formats are sent as a GBNF `grammar` (until the server refuses one).
    pub grammar: bool,
    /// `auto` has asked what the server is (see [`Learned::known`]); always set otherwise.
    pub known: bool,
}

impl Learned {
    /// Where a run starts.
    pub fn from_settings(shape: MessageShape, constrain: Constrain) -> Learned {
        Learned {
            shape: shape.initial(),
            mode: constrain.initial(),
            // auto cannot know whether the server honours tool_choice "required": it asks for
            // calls as JSON content, which every server that takes a schema honours
            calls_in_content: constrain == Constrain::Auto,
            grammar: true,
            known: constrain != Constrain::Auto,
        }
    }

    /// `auto`'s start once the server is known: a GBNF `grammar` where it `takes_grammar`
    /// (llama.cpp's and llama-cpp-python's servers: their JSON-schema converters leave numbers
    /// unbounded), else as it was.
    pub fn known(self, takes_grammar: bool) -> Learned {
        Learned {
            mode: if takes_grammar {
                Some(Mode::Grammar)
            } else {
                self.mode
            },
            known: true,
            ..self
        }
    }
}

/// Whether an error body is one that sending the same request again cannot change: a chat
/// template's refusal of the messages, or a refusal of a constraint.
pub fn is_deterministic(body: &str) -> bool {
    shape::is_refusal(body) || constrain::learn(Mode::JsonSchema, body).is_some()
}
