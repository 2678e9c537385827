//! The tools strategy's history budget (`history_max_chars`): beyond it the oldest turns are
//! dropped, keeping the head (system prompt and task), the last [`KEEP_TURNS`] turns and this
//! turn's screenshot, so that the request stays bounded however long a run lasts.
//!
//! A turn is a screenshot message (a user message with parts) and everything after it up to
//! the next one: the assistant's reply and the answers to its tool calls. Dropping whole turns
//! keeps the sequence valid for the OpenAI API: a role=tool message always goes with the
//! assistant message that made the call. A note after the head says how many turns are gone.
//!
//! Sizes are estimates in characters: text counts its length, an image its token estimate
//! times [`CHARS_PER_TOKEN`], and each message a few tokens of chat-template overhead.

use crate::model::{Content, ContentPart, Message, Role};

/// Characters per token: about 4 for English text under the BPE tokenizers of the GPT and
/// Qwen families (an estimate, not a count).
pub const CHARS_PER_TOKEN: usize = 4;

/// Tokens of an image whose size is not known (not a PNG data URL).
pub const UNKNOWN_IMAGE_TOKENS: usize = 1_500;

/// Pixels per image token on each axis: Qwen2-VL and Qwen2.5-VL give one token per 28x28
/// pixels; GPT-4o's high detail comes out close (a 1280x720 screenshot: 1,196 here, 1,105
/// there).
const IMAGE_TOKEN_PIXELS: usize = 28;

/// Tokens a message costs besides its content (the chat template's role markers; OpenAI's
/// guide counts 3-4).
const MESSAGE_TOKENS: usize = 4;

/// Turns kept whatever their size, besides this turn's screenshot.
pub const KEEP_TURNS: usize = 3;

/// Sized for a 32k-token context (32,768 tokens): the tool schema (3,600 characters of JSON)
/// takes 1-2k tokens once the server's chat template writes it out, and
/// the reply needs `max_tokens` (2,048 by default), which leaves about 28k tokens; 24k of them
/// at 4 characters a token (96,000 characters) keep a margin for the estimate's error. That
/// holds the system prompt, the task, the two kept screenshots (about 1,200-2,700 tokens each
/// at common screen sizes) and a few dozen turns of calls and results.
pub const DEFAULT_HISTORY_MAX_CHARS: usize = 96_000;

/// The note's ending, by which it is found again.
const NOTE_END: &str =
    "older turns were removed from this conversation to keep it within its size budget]";

/// The estimated tokens of an image given as a data URL.
pub fn image_tokens(url: &str) -> usize {
    match png_size(url) {
        Some((w, h)) => w.div_ceil(IMAGE_TOKEN_PIXELS) * h.div_ceil(IMAGE_TOKEN_PIXELS),
        None => UNKNOWN_IMAGE_TOKENS,
    }
}

/// The width and height in a PNG data URL's header (the first 24 bytes).
fn png_size(url: &str) -> Option<(usize, usize)> {
    use base64::Engine as _;
    let b64 = url.strip_prefix("data:image/png;base64,")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.get(..32)?)
        .ok()?;
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let be = |r: std::ops::Range<usize>| -> Option<usize> {
        Some(u32::from_be_bytes(bytes.get(r)?.try_into().ok()?) as usize)
    };
    Some((be(16..20)?, be(20..24)?))
}

/// The estimated size of a message in characters.
pub fn message_chars(m: &Message) -> usize {
    let content = match &m.content {
        Content::Text(t) => t.len(),
        Content::Parts(parts) => parts
            .iter()
            .map(|p| match p {
                ContentPart::Text { text } => text.len(),
                ContentPart::ImageUrl { image_url } => {
                    image_tokens(&image_url.url) * CHARS_PER_TOKEN
                }
            })
            .sum(),
    };
    let calls: usize = m
        .tool_calls
        .iter()
        .map(|c| c.name.len() + c.arguments_text().len())
        .sum();
    MESSAGE_TOKENS * CHARS_PER_TOKEN + content + calls
}

/// The estimated size of a history in characters.
pub fn history_chars(history: &[Message]) -> usize {
    history.iter().map(message_chars).sum()
}

/// Where each turn starts: the screenshot messages after the first `head` messages.
fn turn_starts(history: &[Message], head: usize) -> Vec<usize> {
    (head..history.len())
        .filter(|&i| {
            history[i].role == Role::User && matches!(history[i].content, Content::Parts(_))
        })
        .collect()
}

fn is_note(m: &Message) -> bool {
    m.role == Role::User && matches!(&m.content, Content::Text(t) if t.ends_with(NOTE_END))
}

/// Once over budget, turns are dropped until the history is within this share of it (in
/// percent): dropping rewrites the history after its head, so a server's prompt cache is
/// lost from there; dropping a quarter at once loses it once every several turns instead of
/// every turn (docs/context.md, "Requests a server can cache").
pub const REFILL_PERCENT: usize = 75;

/// Once the history is over `max_chars`, drops the oldest turns until it is within
/// [`REFILL_PERCENT`] of it, keeping its first `head` messages, the last [`KEEP_TURNS`] turns
/// and the one just begun. Returns how many turns it dropped; the note after the head counts
/// all dropped so far (`before` + these).
pub fn fit(history: &mut Vec<Message>, max_chars: usize, head: usize, before: usize) -> usize {
    let mut dropped = 0;
    if history_chars(history) <= max_chars {
        return 0;
    }
    let target = max_chars / 100 * REFILL_PERCENT;
    loop {
        let starts = turn_starts(history, head);
        if starts.len() <= KEEP_TURNS + 1 || history_chars(history) <= target {
            break;
        }
        history.drain(starts[0]..starts[1]);
        dropped += 1;
        // the note counts too
        let note = Message::user(format!("[{} {NOTE_END}", before + dropped));
        match history.get(head) {
            Some(m) if is_note(m) => history[head] = note,
            _ => history.insert(head.min(history.len()), note),
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Reply, ToolCall};

    fn png_url(w: u32, h: u32) -> String {
        let mut head = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        head.extend_from_slice(&w.to_be_bytes());
        head.extend_from_slice(&h.to_be_bytes());
        head.extend_from_slice(&[8, 6, 0, 0, 0]);
        crate::model::types::data_url("image/png", &head)
    }

    #[test]
    fn the_setting_defaults_to_the_budget_sized_here() {
        let s = crate::config::SETTINGS
            .iter()
            .find(|s| s.key == "history_max_chars")
            .unwrap();
        assert_eq!(s.default, DEFAULT_HISTORY_MAX_CHARS.to_string());
        let c = crate::config::ConfigBuilder::new()
            .env([("FRANZ_HISTORY_MAX_CHARS".to_string(), "5000".to_string())])
            .build()
            .unwrap()
            .config;
        let options = c.read_options(None);
        assert_eq!(options.history_max_chars, 5000);
        let low = crate::config::ConfigBuilder::new()
            .env([("FRANZ_HISTORY_MAX_CHARS".to_string(), "10".to_string())])
            .build();
        assert!(low.is_err(), "below the minimum");
    }

    #[test]
    fn an_image_counts_its_token_estimate() {
        assert_eq!(image_tokens(&png_url(1280, 720)), 46 * 26);
        assert_eq!(
            image_tokens("data:image/png;base64,AA"),
            UNKNOWN_IMAGE_TOKENS
        );
        assert_eq!(
            image_tokens("data:image/jpeg;base64,/9j/4AAQ"),
            UNKNOWN_IMAGE_TOKENS
        );
        let m = Message::user_with_image("abc", png_url(28, 56));
        assert_eq!(
            message_chars(&m),
            (MESSAGE_TOKENS + 2) * CHARS_PER_TOKEN + 3
        );
    }

    /// system, task, then `turns` turns of screenshot, assistant call and tool answer.
    fn history(turns: usize) -> Vec<Message> {
        let mut h = vec![Message::system("s"), Message::user("TASK: t")];
        for i in 0..turns {
            push_turn(&mut h, i);
        }
        h
    }

    /// Turn `i`: its screenshot, the assistant's call and the tool's answer.
    fn push_turn(h: &mut Vec<Message>, i: usize) {
        h.push(Message::user_with_image(
            format!("turn {i}"),
            png_url(28, 28),
        ));
        let mut call = ToolCall::new("press_key", serde_json::json!({"key": "a"}));
        call.id = Some(format!("c{i}"));
        h.push(Message::from_reply(&Reply {
            tool_calls: vec![call],
            ..Reply::text("x".repeat(100))
        }));
        h.push(Message::tool(format!("c{i}"), "press_key", "ok"));
    }

    #[test]
    fn the_oldest_turns_go_first_and_every_tool_answer_keeps_its_call() {
        let mut h = history(10);
        let dropped = fit(&mut h, 1000, 2, 0);
        assert!(dropped > 0 && history_chars(&h) <= 1000, "{dropped}");
        assert_eq!(h[0].role, Role::System);
        assert_eq!(h[1].content, Content::Text("TASK: t".into()));
        assert!(is_note(&h[2]), "{:?}", h[2]);
        assert!(
            matches!(&h[2].content, Content::Text(t) if t.starts_with(&format!("[{dropped} ")))
        );
        // every tool message answers a call of an assistant message still there
        for (i, m) in h.iter().enumerate() {
            if let Some(id) = &m.tool_call_id {
                assert!(
                    h[..i]
                        .iter()
                        .any(|a| a.tool_calls.iter().any(|c| c.id.as_ref() == Some(id)))
                );
            }
        }
        // the last turn is intact
        assert_eq!(h.last().unwrap().tool_call_id.as_deref(), Some("c9"));
        // a second fit counts on and replaces the note
        let mut more = 0;
        for i in 10..20 {
            push_turn(&mut h, i);
            more += fit(&mut h, 1000, 2, dropped + more);
        }
        assert!(more > 0);
        assert_eq!(h.iter().filter(|m| is_note(m)).count(), 1);
        assert!(
            matches!(&h[2].content, Content::Text(t) if t.starts_with(&format!("[{} ", dropped + more)))
        );
    }

    /// Dropping rewrites the history after its head: it happens once every few turns, not
    /// every turn once the budget is reached, so that a server's prompt cache holds most turns.
    #[test]
    fn turns_are_dropped_in_steps_not_one_a_turn() {
        let mut h = history(4);
        let (mut total, mut fits) = (0, 0);
        for i in 4..60 {
            push_turn(&mut h, i);
            let n = fit(&mut h, 2000, 2, total);
            total += n;
            fits += usize::from(n > 0);
            assert!(history_chars(&h) <= 2000, "{}", history_chars(&h));
        }
        assert!(total > 10, "{total}");
        assert!(fits * 3 <= total, "{fits} fits for {total} turns dropped");
    }

    #[test]
    fn the_last_turns_stay_whatever_their_size() {
        let mut h = history(10);
        fit(&mut h, 1, 2, 0);
        assert_eq!(turn_starts(&h, 2).len(), KEEP_TURNS + 1);
        let mut small = history(2);
        assert_eq!(fit(&mut small, 1, 2, 0), 0, "nothing to drop");
        assert_eq!(small, history(2));
    }
}
