//! Server-sent events for streamed chat completions: framing and delta assembly.
//!
//! [`SseDecoder`] turns bytes into `data:` payloads (one per event, multi-line data joined).
//! [`StreamAssembler`] folds chat-completion chunks into one [`Reply`]: content and reasoning
//! are appended, tool-call fragments are joined by `index`. Older Ollama sends no `index` or
//! always 0 with each call whole; a fragment that brings a `name` to a slot that already has
//! one therefore starts a new call. `[DONE]` ends the stream; a final usage-only chunk is kept.

use super::types::{Reply, ToolCall, Usage};
use serde_json::Value;

/// Splits a byte stream into SSE `data` payloads.
#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    data: Vec<String>,
}

impl SseDecoder {
    /// Feeds bytes; returns the payloads of the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=pos).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() {
                    out.push(self.data.join("\n"));
                    self.data.clear();
                }
            } else if let Some(rest) = line.strip_prefix("data:") {
                self.data
                    .push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
            }
            // `event:`, `id:`, `retry:` and `:` comments carry nothing we use.
        }
        out
    }

    /// At the end of the body: a last event that lacked its blank line.
    pub fn finish(&mut self) -> Option<String> {
        let rest = String::from_utf8_lossy(&std::mem::take(&mut self.buf)).to_string();
        if let Some(d) = rest.trim_end().strip_prefix("data:") {
            self.data.push(d.trim_start().to_string());
        }
        (!self.data.is_empty()).then(|| std::mem::take(&mut self.data).join("\n"))
    }
}

/// Folds chunks into a reply.
#[derive(Debug, Default)]
pub struct StreamAssembler {
    reply: Reply,
    reasoning: String,
    calls: Vec<PartialCall>,
    /// stream index -> position in `calls`
    index_map: Vec<(i64, usize)>,
    /// How many of `calls` [`StreamAssembler::completed_calls`] gave out.
    given: usize,
    done: bool,
}

#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    args: String,
    /// Arguments that arrived as an object, not as string fragments.
    args_value: Option<Value>,
}

/// What one payload meant.
#[derive(Debug, PartialEq)]
pub enum Chunk {
    /// Content text that arrived (may be empty).
    Delta(String),
    Done,
}

impl StreamAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `[DONE]` was seen.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Applies one `data:` payload. Errors name what was wrong with it.
    pub fn push(&mut self, payload: &str) -> Result<Chunk, String> {
        let payload = payload.trim();
        if payload == "[DONE]" {
            self.done = true;
            return Ok(Chunk::Done);
        }
        let v: Value = serde_json::from_str(payload).map_err(|e| {
            format!(
                "a stream chunk is not JSON ({e}): {}",
                super::body::snippet(payload)
            )
        })?;
        if let Some(err) = v.get("error") {
            return Err(format!("the server sent an error in the stream: {err}"));
        }
        if let Some(u) = Usage::of_response(&v) {
            self.reply.usage = Some(u);
        }
        // llama.cpp may send its timings in a chunk of their own
        if let (Some(u), Some(n)) = (&mut self.reply.usage, v.pointer("/timings/prompt_n")) {
            u.prompt_evaluated = n.as_u64().or(u.prompt_evaluated);
        }
        let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(Chunk::Delta(String::new()));
        };
        if let Some(fr) = choice.get("finish_reason").and_then(Value::as_str) {
            self.reply.finish_reason = Some(fr.to_string());
        }
        let Some(delta) = choice.get("delta").or_else(|| choice.get("message")) else {
            return Ok(Chunk::Delta(String::new()));
        };
        let text = delta
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        self.reply.content.push_str(&text);
        for k in ["reasoning_content", "reasoning"] {
            if let Some(r) = delta.get(k).and_then(Value::as_str) {
                self.reasoning.push_str(r);
                break;
            }
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for c in calls {
                self.push_call(c);
            }
        }
        Ok(Chunk::Delta(text))
    }

    fn push_call(&mut self, c: &Value) {
        let f = c.get("function").unwrap_or(c);
        let name = f
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        let index = c.get("index").and_then(Value::as_i64);
        let existing = match index {
            Some(i) => self
                .index_map
                .iter()
                .rev()
                .find(|(k, _)| *k == i)
                .map(|(_, p)| *p),
            None => self.calls.len().checked_sub(1),
        };
        let slot = match existing {
            Some(p) if name.is_none() || self.calls[p].name.is_empty() => p,
            _ => {
                self.calls.push(PartialCall::default());
                let p = self.calls.len() - 1;
                self.index_map.push((index.unwrap_or(p as i64), p));
                p
            }
        };
        let call = &mut self.calls[slot];
        if let Some(id) = c.get("id").and_then(Value::as_str) {
            call.id = Some(id.to_string());
        }
        if let Some(n) = name {
            call.name = n.to_string();
        }
        match f.get("arguments") {
            Some(Value::String(s)) => call.args.push_str(s),
            Some(v @ Value::Object(_)) => call.args_value = Some(v.clone()),
            _ => {}
        }
    }

    /// The tool calls complete since the last call: each one the next call followed, and the
    /// last once the finish reason came, unless it is `length` (a cut call).
    pub fn completed_calls(&mut self) -> Vec<ToolCall> {
        let finished = self.reply.finish_reason.is_some() && !self.reply.truncated();
        let whole = match finished {
            true => self.calls.len(),
            false => self.calls.len().saturating_sub(1),
        };
        let from = self.given.min(whole);
        self.given = self.given.max(whole);
        self.calls[from..whole]
            .iter()
            .filter(|c| !c.name.is_empty())
            .map(PartialCall::to_call)
            .collect()
    }

    /// The assembled reply.
    pub fn finish(mut self) -> Reply {
        if !self.reasoning.is_empty() {
            self.reply.reasoning = Some(self.reasoning);
        }
        self.reply.tool_calls = self
            .calls
            .into_iter()
            .filter(|c| !c.name.is_empty())
            .map(|c| c.to_call())
            .collect();
        self.reply
    }
}

impl PartialCall {
    fn to_call(&self) -> ToolCall {
        ToolCall {
            id: self.id.clone(),
            name: self.name.clone(),
            arguments: self
                .args_value
                .clone()
                .unwrap_or_else(|| Value::String(self.args.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assemble(chunks: &[Value]) -> Reply {
        let mut a = StreamAssembler::new();
        for c in chunks {
            a.push(&c.to_string()).unwrap();
        }
        a.push("[DONE]").unwrap();
        a.finish()
    }

    #[test]
    fn a_call_is_complete_once_the_next_began_or_the_finish_came() {
        let mut a = StreamAssembler::new();
        let mut push = |v: Value| {
            a.push(&v.to_string()).unwrap();
            a.completed_calls()
                .iter()
                .map(|c| format!("{}{}", c.name, c.arguments_text()))
                .collect::<Vec<_>>()
        };
        let call = |i: i64, name: &str, args: &str| json!({"choices":[{"delta":{"tool_calls":[{"index":i,"function":{"name":name,"arguments":args}}]}}]});
        let more = |i: i64, args: &str| json!({"choices":[{"delta":{"tool_calls":[{"index":i,"function":{"arguments":args}}]}}]});
        assert!(push(call(0, "click_element", "{\"box\":")).is_empty());
        assert!(push(more(0, "[1,2]}")).is_empty(), "the next may still add");
        assert_eq!(
            push(call(1, "type_text", "{")),
            ["click_element{\"box\":[1,2]}"]
        );
        assert!(push(more(1, "\"text\":\"a\"}")).is_empty());
        let finish = json!({"choices":[{"delta":{},"finish_reason":"tool_calls"}]});
        assert_eq!(push(finish.clone()), ["type_text{\"text\":\"a\"}"]);
        assert!(push(finish).is_empty(), "each once");
        let mut cut = StreamAssembler::new();
        cut.push(&call(0, "type_text", "{\"text\":\"a").to_string())
            .unwrap();
        let length = json!({"choices":[{"delta":{},"finish_reason":"length"}]});
        cut.push(&length.to_string()).unwrap();
        assert!(
            cut.completed_calls().is_empty(),
            "a cut call is never complete"
        );
    }

    #[test]
    fn decoder_frames_events_across_reads() {
        let mut d = SseDecoder::default();
        assert!(d.feed(b"data: {\"a\"").is_empty());
        assert_eq!(
            d.feed(b":1}\r\n\r\n: comment\n\ndata: x\ndata: y\n\n"),
            vec!["{\"a\":1}".to_string(), "x\ny".to_string()]
        );
        d.feed(b"data: [DONE]");
        assert_eq!(d.finish().as_deref(), Some("[DONE]"));
    }

    #[test]
    fn fragments_by_index() {
        let r = assemble(&[
            json!({"choices":[{"delta":{"content":"Hel","reasoning_content":"th"}}]}),
            json!({"choices":[{"delta":{"content":"lo","reasoning_content":"ink"}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"click_element","arguments":"{\"box\":"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"type_text","arguments":""}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"[1,2]}"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"text\":\"hi\"}"}}]}}]}),
            json!({"choices":[{"delta":{},"finish_reason":"tool_calls"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}),
        ]);
        assert_eq!(r.content, "Hello");
        assert_eq!(r.reasoning.as_deref(), Some("think"));
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!(r.tool_calls[0].arguments, json!("{\"box\":[1,2]}"));
        assert_eq!(r.tool_calls[1].name, "type_text");
        assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(r.usage.unwrap().total_tokens, 12);
    }

    #[test]
    fn usage_keeps_the_evaluated_and_cached_prompt_tokens_a_server_reports() {
        let llama = assemble(&[
            json!({"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":2,"total_tokens":902},
                   "timings":{"prompt_n":40,"cache_n":860}}),
        ]);
        let u = llama.usage.unwrap();
        assert_eq!(u.evaluated(), Some((40, "timings.prompt_n")));
        let openai = assemble(&[
            json!({"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":2,"total_tokens":902,
                   "prompt_tokens_details":{"cached_tokens":768}}}),
        ]);
        assert_eq!(
            openai.usage.unwrap().evaluated(),
            Some((132, "cached_tokens"))
        );
        let plain = assemble(&[
            json!({"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":2,"total_tokens":902}}),
        ]);
        assert_eq!(plain.usage.unwrap().evaluated(), None);
    }

    #[test]
    fn ollama_whole_calls_without_index() {
        let r = assemble(&[
            json!({"choices":[{"delta":{"tool_calls":[{"function":{"name":"a","arguments":{"x":1}}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"b","arguments":{"y":2}}}]}}]}),
        ]);
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!(r.tool_calls[0].arguments, json!({"x":1}));
        assert_eq!(r.tool_calls[1].name, "b");
    }

    #[test]
    fn bad_chunk_is_an_error() {
        let mut a = StreamAssembler::new();
        assert!(a.push("{not json").unwrap_err().contains("not JSON"));
        assert!(
            a.push(r#"{"error":{"message":"boom"}}"#)
                .unwrap_err()
                .contains("boom")
        );
    }
}
