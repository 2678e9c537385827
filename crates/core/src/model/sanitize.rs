//! The exchange-log sanitizer (docs/designs.md (tool calling)): every base64 image in a request or
//! response becomes `<image sha256=HEX bytes=N>`, recursively, so logs stay small and hold no
//! screen content.
//!
//! Found are data URLs (`data:image/...;base64,...`, anywhere inside a string) and bare base64
//! strings that decode to PNG, JPEG, GIF or WebP. `sha256` and `bytes` are of the decoded image.

use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Replaces images in a JSON value, in place, at any depth.
pub fn sanitize_value(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some(clean) = sanitize_str(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sanitize_value),
        Value::Object(map) => map.values_mut().for_each(sanitize_value),
        _ => {}
    }
}

/// A sanitized copy of a JSON value.
pub fn sanitized(v: &Value) -> Value {
    let mut v = v.clone();
    sanitize_value(&mut v);
    v
}

/// Sanitizes free text (e.g. a raw body). Returns the text with images replaced.
pub fn sanitize_text(s: &str) -> String {
    sanitize_str(s).unwrap_or_else(|| s.to_string())
}

/// The placeholder for decoded image bytes.
pub fn placeholder(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("<image sha256={hex} bytes={}>", bytes.len())
}

fn is_b64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_')
}

fn decode(b64: &str) -> Vec<u8> {
    let cleaned: String = b64.chars().filter(|c| !c.is_whitespace()).collect();
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    engines
        .iter()
        .find_map(|e| e.decode(cleaned.as_bytes()).ok())
        // not decodable: hash the text itself so the placeholder is still stable
        .unwrap_or_else(|| cleaned.into_bytes())
}

fn looks_like_image(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x89PNG")
        || bytes.starts_with(b"\xff\xd8\xff")
        || bytes.starts_with(b"GIF8")
        || (bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP")
}

/// `None` when the string holds no image.
fn sanitize_str(s: &str) -> Option<String> {
    const MARK: &str = "data:image/";
    if s.contains(MARK) {
        let mut out = String::with_capacity(s.len().min(4096));
        let mut rest = s;
        while let Some(start) = rest.find(MARK) {
            out.push_str(&rest[..start]);
            let tail = &rest[start..];
            let Some(comma) = tail.find(";base64,").map(|i| i + ";base64,".len()) else {
                out.push_str(MARK);
                rest = &tail[MARK.len()..];
                continue;
            };
            let data = &tail[comma..];
            let end = data.bytes().position(|c| !is_b64(c)).unwrap_or(data.len());
            out.push_str(&placeholder(&decode(&data[..end])));
            rest = &data[end..];
        }
        out.push_str(rest);
        return Some(out);
    }
    // A bare base64 image: long, all base64, and it decodes to image magic.
    if s.len() >= 64 && s.bytes().all(|c| is_b64(c) || c == b'\n' || c == b'\r') {
        let bytes = decode(s);
        if looks_like_image(&bytes) {
            return Some(placeholder(&bytes));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PNG: &[u8] =
        b"\x89PNG\r\n\x1a\n0123456789abcdef0123456789abcdef0123456789abcdef0123456789";

    fn b64(b: &[u8]) -> String {
        base64::engine::general_purpose::STANDARD.encode(b)
    }

    #[test]
    fn replaces_images_at_any_depth() {
        let url = format!("data:image/png;base64,{}", b64(PNG));
        let mut v = json!({
            "messages": [{"content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": url}}
            ]}],
            "deep": [[{"raw": b64(PNG)}]],
            "inline": format!("before {url} after"),
            "plain": "hello",
            "b64text": b64(&[b'a'; 100]),
        });
        sanitize_value(&mut v);
        let ph = placeholder(PNG);
        assert!(ph.starts_with("<image sha256=") && ph.ends_with(&format!("bytes={}>", PNG.len())));
        assert_eq!(v["messages"][0]["content"][1]["image_url"]["url"], ph);
        assert_eq!(v["deep"][0][0]["raw"], ph);
        assert_eq!(v["inline"], format!("before {ph} after"));
        assert_eq!(v["plain"], "hello");
        // base64 that is not an image stays
        assert_eq!(v["b64text"], b64(&[b'a'; 100]));
        assert!(!v.to_string().contains(&b64(PNG)));
    }

    #[test]
    fn text_bodies_too() {
        let body = format!(
            "{{\"url\":\"data:image/jpeg;base64,{}\"}}",
            b64(b"\xff\xd8\xffjpegdata")
        );
        let clean = sanitize_text(&body);
        assert!(
            clean.contains("<image sha256=") && clean.contains("bytes=11>"),
            "{clean}"
        );
        assert_eq!(
            sanitize_text("data:image/ no base64"),
            "data:image/ no base64"
        );
    }
}
