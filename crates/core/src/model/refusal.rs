//! Which server errors a retry can cure. A server that refuses a request because of what is in
//! it (its chat template raised, or it did not validate) refuses the same request again: those
//! fail at once with the server's message and what to change. Only errors that look transient
//! are retried: 429, a 5xx whose body names no such cause (502, 503 and 504 always), and
//! connection errors (`client.rs`).
//!
//! The wordings come from real servers: llama.cpp and llama-cpp-python send a chat template's
//! `raise_exception` as a 500 with the template's own message (Gemma's "Conversation roles must
//! alternate user/assistant/user/assistant/..."), jinja's errors by their class names, and
//! pydantic's validation errors as 4xx or 500 (`tests/fixtures/llama_cpp_python/`).

/// Why a server refused a request, when no retry can change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The model's chat template does not take the messages (their roles or order, a tool
    /// message, a system message).
    Template,
    /// The request did not validate (a field, a value or a feature the server does not take).
    Validation,
}

/// Phrases (lowercase) of a chat template's refusal.
const TEMPLATE_MARKERS: &[&str] = &[
    "roles must alternate",
    "chat template",
    "chat_template",
    "jinja",
    "templateerror",
    "template error",
    "templatesyntaxerror",
    "undefinederror",
    "raise_exception",
    "system role not supported",
    "after the optional system message",
    "invalid content type",
];

/// Phrases (lowercase) of a request that did not validate.
const VALIDATION_MARKERS: &[&str] = &[
    "validation error",
    "validationerror",
    "input should be",
    "field required",
    "extra inputs are not permitted",
    "unexpected keyword argument",
    "not supported",
    "unsupported",
    "invalid request",
    "invalid value",
    "invalid type",
    "failed to decode image",
    "failed to load image",
];

/// The refusal an error body names, if it names one.
pub fn refusal(body: &str) -> Option<Refusal> {
    let lower = body.to_lowercase();
    let has = |markers: &[&str]| markers.iter().any(|m| lower.contains(m));
    if has(TEMPLATE_MARKERS) {
        Some(Refusal::Template)
    } else if has(VALIDATION_MARKERS) {
        Some(Refusal::Validation)
    } else {
        None
    }
}

/// Whether an error status with this body is worth a retry: 429, and a 5xx that names no
/// refusal and no context overflow (501 Not Implemented never).
pub fn is_transient(status: u16, body: &str) -> bool {
    match status {
        429 | 502..=504 => true,
        501 => false,
        s if s >= 500 => {
            refusal(body).is_none() && super::context::context_overflow(body).is_none()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_and_validation_errors_are_refusals_and_others_are_not() {
        let gemma = r#"{"error":{"message":"Conversation roles must alternate user/assistant/user/assistant/...","type":"internal_server_error","param":null,"code":null}}"#;
        assert_eq!(refusal(gemma), Some(Refusal::Template));
        assert!(!is_transient(500, gemma));
        let jinja = r#"{"error":{"message":"jinja2.exceptions.UndefinedError: 'dict object' has no attribute 'content'"}}"#;
        assert_eq!(refusal(jinja), Some(Refusal::Template));
        let pydantic =
            r#"{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required"}]}"#;
        assert_eq!(refusal(pydantic), Some(Refusal::Validation));
        for transient in [
            r#"{"error":{"message":"CUDA error: out of memory"}}"#,
            "Internal Server Error",
            "",
        ] {
            assert_eq!(refusal(transient), None, "{transient}");
            assert!(is_transient(500, transient), "{transient}");
        }
        assert!(
            is_transient(503, gemma),
            "503 is unavailable, whatever it says"
        );
        assert!(is_transient(429, ""));
        assert!(!is_transient(400, ""));
        assert!(!is_transient(501, ""));
        let overflow = r#"{"error":{"message":"Prompt exceeds n_ctx: 352 > 256","type":"internal_server_error"}}"#;
        assert!(!is_transient(500, overflow), "an overflow is not retried");
    }
}
