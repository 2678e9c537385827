//! The OpenAI chat-completions wire types franz sends, and [`Reply`], what it gets back.
//!
//! Requests are built with small constructors (`Message::user_with_image`, `Tool::function`).
//! Replies are read tolerantly: servers differ (see the "server quirks"), so
//! [`Reply::from_response`] accepts tool-call arguments as a string or an object, missing `id`
//! or `type`, content as a string, an array of parts or null, and reasoning in
//! `reasoning_content` or `reasoning`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A chat-completions request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Tool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    /// Strings that end the reply (`franz doctor` checks that the server honours them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<String>>,
    /// What the reply must be, for servers asked to constrain it (`constrain` setting); the
    /// client writes it onto the wire (`model/constrain.rs`).
    #[serde(skip)]
    pub format: Option<super::constrain::ReplyFormat>,
}

impl ChatRequest {
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        Self {
            model: model.into(),
            messages,
            temperature: None,
            top_p: None,
            max_tokens: None,
            tools: Vec::new(),
            tool_choice: None,
            stream: false,
            stop: None,
            format: None,
        }
    }

    /// The JSON body sent to the server. Streaming requests also ask for a final usage chunk.
    pub fn to_body(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if self.stream
            && let Some(map) = v.as_object_mut()
        {
            map.insert("stream_options".into(), json!({"include_usage": true}));
        }
        v
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message. Content is plain text or a list of parts (text and images).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    #[serde(default)]
    pub content: Content,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    fn with(role: Role, content: Content) -> Self {
        Self {
            role,
            content,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }
    /// A message of `role` with `content`.
    pub fn new(role: Role, content: Content) -> Self {
        Self::with(role, content)
    }
    pub fn system(text: impl Into<String>) -> Self {
        Self::with(Role::System, Content::Text(text.into()))
    }
    pub fn user(text: impl Into<String>) -> Self {
        Self::with(Role::User, Content::Text(text.into()))
    }
    /// A user message with text and one image given as a data URL (`data:image/png;base64,...`).
    pub fn user_with_image(text: impl Into<String>, data_url: impl Into<String>) -> Self {
        Self::with(
            Role::User,
            Content::Parts(vec![
                ContentPart::Text { text: text.into() },
                ContentPart::image(data_url),
            ]),
        )
    }
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::with(Role::Assistant, Content::Text(text.into()))
    }
    /// The assistant turn of a reply, to send back in the next request (tools strategy).
    pub fn from_reply(reply: &Reply) -> Self {
        let mut m = Self::with(Role::Assistant, Content::Text(reply.content.clone()));
        m.tool_calls = reply.tool_calls.clone();
        m
    }
    /// The answer to one tool call.
    pub fn tool(
        call_id: impl Into<String>,
        name: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let mut m = Self::with(Role::Tool, Content::Text(text.into()));
        m.tool_call_id = Some(call_id.into());
        m.name = Some(name.into());
        m
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

impl ContentPart {
    pub fn image(data_url: impl Into<String>) -> Self {
        ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: data_url.into(),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageUrl {
    pub url: String,
}

/// A data URL for encoded image bytes, e.g. `data_url("image/png", &png)`.
pub fn data_url(mime: &str, bytes: &[u8]) -> String {
    use base64::Engine;
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A tool the model may call (function calling).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionDef,
}

impl Tool {
    /// A function tool; `parameters` is a JSON Schema object.
    pub fn function(name: &str, description: &str, parameters: Value) -> Self {
        Self {
            kind: "function".into(),
            function: FunctionDef {
                name: name.into(),
                description: description.into(),
                parameters,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDef {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub parameters: Value,
}

/// `"auto"`, `"none"`, `"required"`, or one named function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolChoice {
    Mode(String),
    Function {
        #[serde(rename = "type")]
        kind: String,
        function: NamedFunction,
    },
}

impl ToolChoice {
    pub fn auto() -> Self {
        ToolChoice::Mode("auto".into())
    }
    pub fn required() -> Self {
        ToolChoice::Mode("required".into())
    }
    pub fn function(name: &str) -> Self {
        ToolChoice::Function {
            kind: "function".into(),
            function: NamedFunction { name: name.into() },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedFunction {
    pub name: String,
}

/// One tool call. `arguments` is kept as the server sent it: a JSON string (the standard) or
/// an object (some servers). On the wire it is always written as a string.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: Option<String>,
    pub name: String,
    pub arguments: Value,
}

impl ToolCall {
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: None,
            name: name.into(),
            arguments,
        }
    }

    /// The arguments as text: the string itself, or the object written as JSON.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(s) => s.clone(),
            Value::Null => "{}".into(),
            v => v.to_string(),
        }
    }

    /// Reads a wire tool call tolerantly: missing `id`/`type`, arguments string or object,
    /// or a flat `{"name", "arguments"}` without `function`.
    pub fn from_wire(v: &Value) -> Option<ToolCall> {
        let f = v.get("function").unwrap_or(v);
        let name = f.get("name")?.as_str()?.to_string();
        let arguments = f
            .get("arguments")
            .or_else(|| f.get("parameters"))
            .cloned()
            .unwrap_or(Value::Null);
        Some(ToolCall {
            id: v.get("id").and_then(Value::as_str).map(str::to_string),
            name,
            arguments,
        })
    }
}

impl Serialize for ToolCall {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut v = json!({
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_text()},
        });
        if let (Some(id), Some(map)) = (&self.id, v.as_object_mut()) {
            map.insert("id".into(), Value::String(id.clone()));
        }
        v.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        ToolCall::from_wire(&v).ok_or_else(|| serde::de::Error::custom("tool call without a name"))
    }
}

/// Token counts, when the server reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
    /// The prompt tokens the server took from its cache (`usage.prompt_tokens_details.
    /// cached_tokens`: OpenAI, vLLM, recent llama.cpp), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// The prompt tokens the server evaluated for this request (llama.cpp's
    /// `timings.prompt_n`: what was not in its KV cache), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_evaluated: Option<u64>,
}

impl Usage {
    /// The usage of a response (or a stream's chunk) `v`: its `usage` object, with the cached
    /// and evaluated prompt tokens when the server reports them; None without `usage`.
    pub fn of_response(v: &Value) -> Option<Usage> {
        let u = v.get("usage").filter(|u| u.is_object())?;
        let mut usage: Usage = serde_json::from_value(u.clone()).ok()?;
        usage.cached_tokens = u
            .pointer("/prompt_tokens_details/cached_tokens")
            .and_then(Value::as_u64);
        usage.prompt_evaluated = v.pointer("/timings/prompt_n").and_then(Value::as_u64);
        Some(usage)
    }

    /// The prompt tokens the server had to evaluate, and where the figure comes from:
    /// llama.cpp's `timings.prompt_n`, else `prompt_tokens` less `cached_tokens`.
    pub fn evaluated(&self) -> Option<(u64, &'static str)> {
        if let Some(n) = self.prompt_evaluated {
            return Some((n, "timings.prompt_n"));
        }
        let cached = self.cached_tokens?;
        Some((self.prompt_tokens.saturating_sub(cached), "cached_tokens"))
    }
}

/// What the model answered: what the client returns and the parser takes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    pub content: String,
    /// `reasoning_content` or `reasoning`, when the server splits it out.
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    /// `stop`, `length`, `tool_calls`, ... as the server said.
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

impl Reply {
    /// A reply that is only text.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            ..Self::default()
        }
    }

    /// Whether the server cut the reply at max_tokens: `finish_reason` `length` (OpenAI's
    /// name, which llama.cpp, vLLM, Ollama and LM Studio use), or `max_tokens` /
    /// `max_output_tokens` (the names of servers that relay Anthropic's and Google's APIs).
    pub fn truncated(&self) -> bool {
        self.finish_reason
            .as_deref()
            .map(str::trim)
            .is_some_and(|r| {
                ["length", "max_tokens", "max_output_tokens"]
                    .iter()
                    .any(|n| r.eq_ignore_ascii_case(n))
            })
    }

    /// Reads a whole chat-completions response (`{"choices":[{"message":...}]}`), or a bare
    /// assistant message (`{"role":"assistant","content":...}`).
    pub fn from_response(v: &Value) -> Result<Reply, String> {
        if let Some(choices) = v.get("choices") {
            let choice = choices
                .as_array()
                .and_then(|c| c.first())
                .ok_or("the response has no choices")?;
            let msg = choice
                .get("message")
                .or_else(|| choice.get("delta"))
                .ok_or("the first choice has no message")?;
            let mut reply = Self::from_message(msg);
            reply.finish_reason = choice
                .get("finish_reason")
                .and_then(Value::as_str)
                .map(str::to_string);
            reply.usage = Usage::of_response(v);
            return Ok(reply);
        }
        if v.get("role").is_some() || v.get("tool_calls").is_some() {
            return Ok(Self::from_message(v));
        }
        Err("not a chat-completions response: no \"choices\"".into())
    }

    fn from_message(msg: &Value) -> Reply {
        let reasoning = ["reasoning_content", "reasoning"]
            .iter()
            .find_map(|k| msg.get(*k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let tool_calls = msg
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(|calls| calls.iter().filter_map(ToolCall::from_wire).collect())
            .unwrap_or_default();
        Reply {
            content: content_text(msg.get("content").unwrap_or(&Value::Null)),
            reasoning,
            tool_calls,
            finish_reason: None,
            usage: None,
        }
    }

    /// What `franz parse` reads from stdin: a whole response or message if the text is one,
    /// else the text itself as content.
    pub fn from_any_text(text: &str) -> Reply {
        let t = text.trim();
        if t.starts_with('{')
            && let Ok(v) = serde_json::from_str::<Value>(t)
            && let Ok(r) = Reply::from_response(&v)
        {
            return r;
        }
        Reply::text(text)
    }
}

/// Content as text: a string, the text parts of an array, or nothing.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str).or(p.as_str()))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_response_keeps_llama_cpp_timings_and_cached_tokens() {
        let v = json!({"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":500,"completion_tokens":1,"total_tokens":501,
                     "prompt_tokens_details":{"cached_tokens":400}},
            "timings":{"prompt_n":100}});
        let u = Reply::from_response(&v).unwrap().usage.unwrap();
        assert_eq!((u.prompt_tokens, u.cached_tokens), (500, Some(400)));
        assert_eq!(u.evaluated(), Some((100, "timings.prompt_n")));
        let without = json!({"choices":[{"message":{"role":"assistant","content":"ok"}}]});
        assert_eq!(Reply::from_response(&without).unwrap().usage, None);
    }

    #[test]
    fn request_body_shape() {
        let mut req = ChatRequest::new(
            "m",
            vec![
                Message::system("s"),
                Message::user_with_image("look", "data:image/png;base64,AAAA"),
            ],
        );
        req.tools = vec![Tool::function(
            "observe_screen",
            "d",
            json!({"type":"object"}),
        )];
        req.tool_choice = Some(ToolChoice::auto());
        req.stream = true;
        let body = req.to_body();
        assert_eq!(body["messages"][1]["content"][1]["type"], "image_url");
        assert_eq!(
            body["messages"][1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,AAAA"
        );
        assert_eq!(body["tool_choice"], "auto");
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert!(body.get("temperature").is_none());
    }

    #[test]
    fn tolerant_response_reading() {
        let v = json!({"choices":[{"finish_reason":"tool_calls","message":{
        "role":"assistant","content":null,"reasoning":"hmm",
        "tool_calls":[
            {"function":{"name":"a","arguments":{"x":1}}},
            {"id":"c2","type":"function","function":{"name":"b","arguments":"{\"y\":2}"}}
        ]}}]});
        let r = Reply::from_response(&v).unwrap();
        assert_eq!(r.content, "");
        assert_eq!(r.reasoning.as_deref(), Some("hmm"));
        assert_eq!(r.tool_calls[0].arguments, json!({"x":1}));
        assert_eq!(r.tool_calls[1].arguments_text(), "{\"y\":2}");
        assert_eq!(r.tool_calls[1].id.as_deref(), Some("c2"));
        // written back as strings
        let m = serde_json::to_value(Message::from_reply(&r)).unwrap();
        assert_eq!(m["tool_calls"][0]["function"]["arguments"], "{\"x\":1}");
        assert!(Reply::from_response(&json!({"observation":"x"})).is_err());
        assert_eq!(
            Reply::from_any_text("{\"actions\":[]}").content,
            "{\"actions\":[]}"
        );
    }
}
