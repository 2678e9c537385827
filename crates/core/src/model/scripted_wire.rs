//! What the scripted server says: a [`ScriptedReply`] written as a chat-completions JSON
//! body or as the SSE chunks a real server streams (content in small tokens, tool-call
//! arguments in fragments joined by `index`, a finish chunk, a usage chunk).

use serde_json::{Value, json};

/// One reply of the scripted model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScriptedReply {
    pub content: String,
    pub reasoning: Option<String>,
    /// (name, arguments) of each tool call.
    pub tool_calls: Vec<(String, Value)>,
    /// Send arguments as JSON objects (a server quirk) instead of strings.
    pub args_as_object: bool,
    /// Default: `tool_calls` when there are calls, else `stop`.
    pub finish_reason: Option<String>,
    /// A streamed reply pauses this long once its content up to the end of the first
    /// `marker` has been sent (the marker should end a token: a space or newline).
    pub pause: Option<(String, std::time::Duration)>,
    /// The `usage` the server reports: prompt tokens (default: the server's own count of the
    /// request, `prompt_tokens`) and completion tokens (default: a quarter of the content's
    /// characters, plus one).
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
}

impl ScriptedReply {
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            ..Self::default()
        }
    }
    /// Adds a tool call; `arguments` is an object (sent as a string unless `args_as_object`).
    pub fn tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.tool_calls.push((name.into(), arguments));
        self
    }
    pub fn reasoning(mut self, r: impl Into<String>) -> Self {
        self.reasoning = Some(r.into());
        self
    }
    pub fn args_as_object(mut self) -> Self {
        self.args_as_object = true;
        self
    }
    pub fn finish_reason(mut self, r: impl Into<String>) -> Self {
        self.finish_reason = Some(r.into());
        self
    }
    /// Reports this `usage` (as a server that counts differently from franz would).
    pub fn usage(mut self, prompt: u64, completion: u64) -> Self {
        self.prompt_tokens = Some(prompt);
        self.completion_tokens = Some(completion);
        self
    }
    /// Streamed, pauses for `d` after the content up to the end of the first `marker`.
    pub fn pause_after(mut self, marker: impl Into<String>, d: std::time::Duration) -> Self {
        self.pause = Some((marker.into(), d));
        self
    }

    /// The index of the SSE event (as [`sse_events`] writes them) after which the stream
    /// pauses, and for how long.
    pub fn pause_event(&self) -> Option<(usize, std::time::Duration)> {
        let (marker, d) = self.pause.as_ref()?;
        let end = self.content.find(marker.as_str())? + marker.len();
        let before = 1 + self.reasoning.as_deref().map_or(0, |r| tokens(r).len());
        let mut sent = 0;
        for (i, t) in tokens(&self.content).iter().enumerate() {
            sent += t.len();
            if sent >= end {
                return Some((before + i, *d));
            }
        }
        None
    }

    fn finish(&self) -> String {
        self.finish_reason.clone().unwrap_or_else(|| {
            if self.tool_calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            }
            .to_string()
        })
    }

    fn args(&self, a: &Value) -> Value {
        if self.args_as_object {
            a.clone()
        } else {
            Value::String(a.as_str().map_or_else(|| a.to_string(), str::to_string))
        }
    }

    fn usage_json(&self) -> Value {
        let prompt = self.prompt_tokens.unwrap_or(100);
        let completion = self
            .completion_tokens
            .unwrap_or((self.content.len() / 4 + 1) as u64);
        json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
    }
}

/// A non-streamed chat-completions response.
pub fn chat_json(r: &ScriptedReply) -> Value {
    let mut msg = json!({"role": "assistant", "content": r.content});
    if let Some(reasoning) = &r.reasoning {
        msg["reasoning_content"] = json!(reasoning);
    }
    if !r.tool_calls.is_empty() {
        msg["tool_calls"] = r
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, (name, a))| {
                json!({"id": format!("call_{i}"), "type": "function",
                       "function": {"name": name, "arguments": r.args(a)}})
            })
            .collect();
    }
    json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted-model",
        "choices": [{"index": 0, "message": msg, "finish_reason": r.finish()}],
        "usage": r.usage_json(),
    })
}

/// Splits text into small "tokens": words with their spaces, long words in pieces of 6 chars.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if c.is_whitespace() || cur.chars().count() >= 6 {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })
    .to_string()
}

/// The SSE `data:` payloads for a streamed reply, without the final `[DONE]`.
pub fn sse_events(r: &ScriptedReply) -> Vec<String> {
    let mut ev = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    if let Some(reasoning) = &r.reasoning {
        for t in tokens(reasoning) {
            ev.push(chunk(json!({"reasoning_content": t}), None));
        }
    }
    for t in tokens(&r.content) {
        ev.push(chunk(json!({"content": t}), None));
    }
    for (i, (name, a)) in r.tool_calls.iter().enumerate() {
        let head = json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function",
                                           "function": {"name": name, "arguments": ""}}]});
        ev.push(chunk(head, None));
        match r.args(a) {
            Value::String(s) => {
                for t in tokens(&s) {
                    ev.push(chunk(
                        json!({"tool_calls": [{"index": i, "function": {"arguments": t}}]}),
                        None,
                    ));
                }
            }
            obj => ev.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": obj}}]}),
                None,
            )),
        }
    }
    ev.push(chunk(json!({}), Some(&r.finish())));
    ev.push(
        json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "choices": [],
               "usage": r.usage_json()})
        .to_string(),
    );
    ev
}

/// The `GET /models` body.
pub fn models_json(models: &[String]) -> String {
    let data: Vec<Value> = models
        .iter()
        .map(|m| json!({"id": m, "object": "model", "owned_by": "franz-scripted"}))
        .collect();
    json!({"object": "list", "data": data}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_rejoin() {
        let t = "Grüße, a verylongword here";
        assert_eq!(tokens(t).concat(), t);
        assert!(tokens(t).iter().all(|x| x.chars().count() <= 6));
    }

    #[test]
    fn both_forms_carry_the_same_reply() {
        let r = ScriptedReply::text("hi").tool_call("click_element", json!({"box": [1, 2]}));
        let j = chat_json(&r);
        assert_eq!(j["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(
            j["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            "{\"box\":[1,2]}"
        );
        let mut asm = crate::model::sse::StreamAssembler::new();
        for e in sse_events(&r) {
            asm.push(&e).unwrap();
        }
        let streamed = asm.finish();
        let whole = crate::model::Reply::from_response(&j).unwrap();
        assert_eq!(streamed.content, whole.content);
        assert_eq!(streamed.tool_calls, whole.tool_calls);
    }
}
