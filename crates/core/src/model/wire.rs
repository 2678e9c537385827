//! The wire pieces the model client shares with the modules that send through it (`adapt.rs`,
//! `context_probe.rs`, `server_info.rs`), kept below all of them: a request's JSON body in the
//! shape and constraint learned so far, a constrained reply's call read out of its content, and
//! the model list that says the server is llama-cpp-python's.

use super::constrain;
use super::learned::Learned;
use super::shape::{self, Shape};
use super::types::{ChatRequest, Reply, ToolCall};
use serde_json::Value;

/// The JSON body of `request` in `learned`'s shape and constraint.
pub fn body(request: &ChatRequest, learned: Learned) -> Value {
    let shaped;
    let request = if learned.shape == Shape::None {
        request
    } else {
        shaped = shape::apply(request, learned.shape);
        &shaped
    };
    let mut body = request.to_body();
    if let (Some(format), Some(mode)) = (&request.format, learned.mode) {
        let takes = constrain::Takes {
            grammar: learned.grammar,
            calls_in_content: learned.calls_in_content,
        };
        constrain::apply(&mut body, format, mode, takes);
    }
    body
}

/// A constrained reply that wrote its call as JSON content (`{"name", "arguments"}`, the way
/// calls are asked of servers that cannot be made to call a tool) becomes the tool call it
/// is, when it names one of the request's tools; `{"answer": "..."}` (the tools strategy's
/// final answer) becomes that answer's text.
pub fn read_content_call(request: &ChatRequest, reply: &mut Reply) {
    if request.format.is_none() || !reply.tool_calls.is_empty() {
        return;
    }
    let Ok(Value::Object(o)) = serde_json::from_str::<Value>(reply.content.trim()) else {
        return;
    };
    if let (1, Some(Value::String(answer))) = (o.len(), o.get("answer")) {
        reply.content = answer.clone();
        return;
    }
    let name = o.get("name").and_then(Value::as_str).unwrap_or("");
    let known = request.tools.iter().any(|t| t.function.name == name);
    if let (true, 2, Some(args)) = (known, o.len(), o.get("arguments")) {
        reply.tool_calls = vec![ToolCall::new(name, args.clone())];
        reply.content = String::new();
    }
}

/// llama-cpp-python lists every model with `"owned_by": "me"` and `"permissions": []`
/// (`llama_cpp/server/app.py`, `get_models`).
pub fn is_llama_cpp_python(models: &Value) -> bool {
    let Some(list) = models.get("data").and_then(Value::as_array) else {
        return false;
    };
    !list.is_empty()
        && list.iter().all(|m| {
            m.get("owned_by").and_then(Value::as_str) == Some("me")
                && m.get("permissions").is_some_and(Value::is_array)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_llama_cpp_pythons_model_list_is_recognised() {
        let llama = json!({"object": "list", "data": [
            {"id": "gemma-3-270m", "object": "model", "owned_by": "me", "permissions": []}]});
        assert!(is_llama_cpp_python(&llama));
        let lm_studio = json!({"object": "list", "data": [
            {"id": "qwen2.5-vl-7b-instruct", "object": "model", "owned_by": "organization_owner"}]});
        assert!(!is_llama_cpp_python(&lm_studio));
        let llama_cpp = json!({"object": "list", "data": [
            {"id": "m.gguf", "object": "model", "owned_by": "llamacpp", "meta": {"n_ctx_train": 32768}}]});
        assert!(!is_llama_cpp_python(&llama_cpp));
        assert!(!is_llama_cpp_python(&json!({"data": []})));
    }
}
