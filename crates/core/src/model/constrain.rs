//! Constrained output (docs/config.md, "Constrained output"): the server is asked to make the
//! reply fit the strategy's format, so that a small model cannot write something franz cannot
//! read.
//!
//! A request says what its reply must be ([`ReplyFormat`], built by the strategy from the same
//! source as its prompt's grammar: `strategy/format.rs`); the model client writes it onto the
//! wire in one of the servers' ways ([`Mode`]) just before sending ([`apply`]):
//!
//! | format | `grammar` | `json_schema` | `json_object` | `ollama` |
//! |---|---|---|---|---|
//! | JSON (vision, tools) | `grammar` (GBNF) | `response_format` `json_schema` | `response_format` `json_object` with `schema` | `format` |
//! | text (narrative) | `grammar` (GBNF) | `grammar` (GBNF) | `grammar` (GBNF) | not constrained |
//! | a tool call (commander) | the call as a JSON object in the content (`{"name", "arguments"}`) by a `grammar`, `tool_choice: "none"` | `tool_choice: "required"` | the call as a JSON object in the content, `tool_choice: "none"` | `tool_choice: "required"` |
//!
//! `grammar` is llama.cpp's and llama-cpp-python's: a GBNF grammar franz writes from the format
//! (`strategy/json_grammar.rs`), whose numbers are bounded to the coordinate space, sent without
//! `response_format` (which overrides it in llama-cpp-python). `json_schema` is what OpenAI,
//! vLLM, LM Studio and llama.cpp's server take; `json_object` with a schema is llama.cpp's and
//! llama-cpp-python's (whose server answers 500 to `json_schema` and ignores `tool_choice:
//! "required"`, and whose schema converter ignores `minimum` and `maximum`). A text format's
//! `grammar` is ignored by vLLM and LM Studio; one refused, as by OpenAI, is not sent again.
//! `format` is Ollama's. With the setting at `auto` the client asks the server what it is
//! before its first constrained request (`adapt.rs`): llama.cpp's and llama-cpp-python's servers
//! get `grammar`, others `json_schema`; it then steps down on a refusal that names the
//! constraint ([`learn`]): from `grammar` to `json_schema`, to `json_object`, then to none; and
//! a server that answers a `"required"` call request without a call gets its next call requests
//! in the `json_object` way. What it learned is kept for the run.

use serde_json::{Value, json};

/// The `constrain` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Constrain {
    /// Nothing is constrained.
    #[default]
    Off,
    /// `grammar` on llama.cpp-family servers, else `json_schema`; then what the server's
    /// refusals leave.
    Auto,
    /// Always this way.
    Fixed(Mode),
}

/// How a format is written onto the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    Grammar,
    JsonSchema,
    JsonObject,
    Ollama,
}

impl Constrain {
    pub const ALL: [Constrain; 6] = [
        Constrain::Off,
        Constrain::Auto,
        Constrain::Fixed(Mode::Grammar),
        Constrain::Fixed(Mode::JsonSchema),
        Constrain::Fixed(Mode::JsonObject),
        Constrain::Fixed(Mode::Ollama),
    ];
    pub const NAMES: [&'static str; 6] = [
        "off",
        "auto",
        "grammar",
        "json_schema",
        "json_object",
        "ollama",
    ];

    pub fn name(self) -> &'static str {
        match self {
            Constrain::Off => "off",
            Constrain::Auto => "auto",
            Constrain::Fixed(m) => m.name(),
        }
    }

    /// The way the first request is constrained; `None`: not at all. `auto` starts here until
    /// the server is known (`adapt.rs`).
    pub fn initial(self) -> Option<Mode> {
        match self {
            Constrain::Off => None,
            Constrain::Auto => Some(Mode::JsonSchema),
            Constrain::Fixed(m) => Some(m),
        }
    }
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Grammar => "grammar",
            Mode::JsonSchema => "json_schema",
            Mode::JsonObject => "json_object",
            Mode::Ollama => "ollama",
        }
    }
}

/// What a reply must be.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyFormat {
    /// One JSON value of `schema` as the content (the vision strategy's object, the tools
    /// strategy's call or answer), and the same as a GBNF grammar.
    Json {
        name: String,
        schema: Value,
        gbnf: String,
    },
    /// Text of a GBNF grammar (the narrative's call line and story), with the same grammar as a
    /// regular expression for checks (`strategy/format.rs`).
    Text { gbnf: String },
    /// One call of one of the request's tools; `schema` is that call as a JSON object
    /// `{"name", "arguments"}`, for servers that cannot be made to call a tool, and `gbnf` the
    /// same as a GBNF grammar.
    Call { schema: Value, gbnf: String },
}

/// How the server takes constraints, besides the [`Mode`] of JSON ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Takes {
    /// A GBNF `grammar` for text formats (llama.cpp, llama-cpp-python; ignored by vLLM and LM
    /// Studio; refused by OpenAI, which turns it off).
    pub grammar: bool,
    /// The server ignores `tool_choice: "required"`: calls are asked for as JSON content.
    pub calls_in_content: bool,
}

/// `body` (a request's JSON) with `format` written in `mode`, as the server `takes` it.
pub fn apply(body: &mut Value, format: &ReplyFormat, mode: Mode, takes: Takes) {
    let Some(map) = body.as_object_mut() else {
        return;
    };
    let json_object = |schema: &Value| json!({"type": "json_object", "schema": schema});
    if matches!(format, ReplyFormat::Json { .. }) && map.contains_key("tools") {
        // the reply's JSON is the answer, tool calls included (llama.cpp refuses a grammar
        // next to tools it may call)
        map.insert("tool_choice".into(), Value::String("none".into()));
    }
    match (format, mode) {
        (ReplyFormat::Json { gbnf, .. } | ReplyFormat::Text { gbnf }, Mode::Grammar) => {
            map.insert("grammar".into(), Value::String(gbnf.clone()));
        }
        (ReplyFormat::Call { gbnf, .. }, Mode::Grammar) => {
            // llama.cpp refuses a grammar next to tools it may call
            map.insert("tool_choice".into(), Value::String("none".into()));
            map.insert("grammar".into(), Value::String(gbnf.clone()));
        }
        (ReplyFormat::Json { name, schema, .. }, Mode::JsonSchema) => {
            let wrapped = json!({"name": name, "schema": schema, "strict": true});
            map.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": wrapped}),
            );
        }
        (ReplyFormat::Json { schema, .. }, Mode::JsonObject) => {
            map.insert("response_format".into(), json_object(schema));
        }
        (ReplyFormat::Json { schema, .. }, Mode::Ollama) => {
            map.insert("format".into(), schema.clone());
        }
        (ReplyFormat::Text { gbnf }, Mode::JsonSchema | Mode::JsonObject) if takes.grammar => {
            map.insert("grammar".into(), Value::String(gbnf.clone()));
        }
        (ReplyFormat::Text { .. }, _) => {}
        (ReplyFormat::Call { schema, .. }, Mode::JsonObject) => {
            map.insert("tool_choice".into(), Value::String("none".into()));
            map.insert("response_format".into(), json_object(schema));
        }
        (ReplyFormat::Call { schema, .. }, _) if takes.calls_in_content => {
            map.insert("tool_choice".into(), Value::String("none".into()));
            map.insert("response_format".into(), json_object(schema));
        }
        (ReplyFormat::Call { .. }, _) => {
            map.insert("tool_choice".into(), Value::String("required".into()));
        }
    }
}

/// Words of a server's refusal of a constraint: its field names and the features they ask for.
const REFUSES: &[&str] = &[
    "response_format",
    "json_schema",
    "json_object",
    "grammar",
    "tool_choice",
    "schema",
    "\"format\"",
];

/// The way to send in next after the server refused a constrained request sent in `current`
/// with `body`: `Some(Some(next))` to step down, `Some(None)` to stop constraining, `None`
/// when the refusal is not about the constraint.
pub fn learn(current: Mode, body: &str) -> Option<Option<Mode>> {
    let lower = body.to_ascii_lowercase();
    if !REFUSES.iter().any(|w| lower.contains(w)) {
        return None;
    }
    Some(match current {
        Mode::Grammar => Some(Mode::JsonSchema),
        Mode::JsonSchema => Some(Mode::JsonObject),
        Mode::JsonObject | Mode::Ollama => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_schema() -> Value {
        json!({"type": "object", "properties": {"name": {"enum": ["a"]}}})
    }

    const PLAIN: Takes = Takes {
        grammar: true,
        calls_in_content: false,
    };

    #[test]
    fn each_mode_writes_each_format_its_own_way() {
        let json = ReplyFormat::Json {
            name: "vision".into(),
            schema: json!({"type": "object"}),
            gbnf: "root ::= \"{}\"".into(),
        };
        let mut b = json!({});
        apply(&mut b, &json, Mode::JsonSchema, PLAIN);
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["response_format"]["json_schema"]["name"], "vision");
        assert_eq!(
            b["response_format"]["json_schema"]["schema"]["type"],
            "object"
        );
        let mut b = json!({});
        apply(&mut b, &json, Mode::JsonObject, PLAIN);
        assert_eq!(
            b["response_format"],
            json!({"type": "json_object", "schema": {"type": "object"}})
        );
        let mut b = json!({"tools": []});
        apply(&mut b, &json, Mode::Ollama, PLAIN);
        assert_eq!(b["format"], json!({"type": "object"}));
        assert_eq!(b["tool_choice"], "none", "the JSON is the answer");

        let text = ReplyFormat::Text {
            gbnf: "root ::= \"a\"".into(),
        };
        let mut b = json!({});
        let refused = Takes {
            grammar: false,
            ..PLAIN
        };
        apply(&mut b, &text, Mode::JsonSchema, refused);
        apply(&mut b, &text, Mode::Ollama, PLAIN);
        assert_eq!(b, json!({}), "no grammar once refused, and none for Ollama");
        for mode in [Mode::JsonSchema, Mode::JsonObject] {
            let mut b = json!({});
            apply(&mut b, &text, mode, PLAIN);
            assert_eq!(b["grammar"], "root ::= \"a\"");
        }

        let call = ReplyFormat::Call {
            schema: call_schema(),
            gbnf: "root ::= \"{}\"".into(),
        };
        let mut b = json!({"tool_choice": "auto"});
        apply(&mut b, &call, Mode::JsonSchema, PLAIN);
        assert_eq!(b["tool_choice"], "required");
        assert!(b.get("response_format").is_none());
        for (mode, calls_in_content) in [(Mode::JsonObject, false), (Mode::JsonSchema, true)] {
            let mut b = json!({"tool_choice": "auto"});
            let takes = Takes {
                grammar: true,
                calls_in_content,
            };
            apply(&mut b, &call, mode, takes);
            assert_eq!(b["tool_choice"], "none", "{mode:?}");
            assert_eq!(b["response_format"]["schema"], call_schema());
        }
    }

    #[test]
    fn refusals_of_the_constraint_step_down_and_others_do_not() {
        let lcp = r#"{"detail":[{"type":"literal_error","loc":["body","response_format","type"],"msg":"Input should be 'text' or 'json_object'"}]}"#;
        assert_eq!(learn(Mode::JsonSchema, lcp), Some(Some(Mode::JsonObject)));
        assert_eq!(
            learn(
                Mode::JsonObject,
                "Cannot use custom grammar constraints with tools."
            ),
            Some(None)
        );
        assert_eq!(learn(Mode::JsonSchema, "model not found"), None);
        assert_eq!(Constrain::Auto.initial(), Some(Mode::JsonSchema));
        assert_eq!(Constrain::Off.initial(), None);
        for (c, n) in Constrain::ALL.iter().zip(Constrain::NAMES) {
            assert_eq!(c.name(), n);
        }
    }
}
