//! What a server's body says, cut for an error message: a short snippet of any text, and the
//! server's own message out of an error body.

/// At most 200 characters of `s` on one line, for error messages. Looks at no more of `s`
/// than it shows (a snippet of a 30 MB reply costs what one of a line does).
pub fn snippet(s: &str) -> String {
    let mut chars = s.trim().chars();
    let head: String = chars
        .by_ref()
        .take(200)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if chars.as_str().is_empty() {
        return head;
    }
    head + "…"
}

/// The server's own error message if the body is `{"error": ...}`, else a snippet of it.
pub fn server_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let e = v.get("error").unwrap_or(&v);
        if let Some(m) = e.get("message").and_then(|m| m.as_str()).or(e.as_str()) {
            return snippet(m);
        }
    }
    if body.trim().is_empty() {
        return "empty body".into();
    }
    snippet(body)
}
