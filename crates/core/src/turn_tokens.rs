//! The tokens of each model call, as a person wants to see them: the image's tokens and the
//! whole request's (franz's estimate, `model/context.rs`) from the `model_request` event, and
//! the prompt and completion tokens the server counted (its `usage`) from the `model_reply`
//! event. The terminal's turn line, the panel and the report all show them through this
//! module, so the three say the same (docs/events.md has the events' fields).

use crate::event::{Event, EventKind};

/// The gap between franz's estimate and the server's count past which the report says so.
pub const GAP_PERCENT: f64 = 10.0;

/// What franz estimated for one request (its latest attempt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Estimate {
    pub image_tokens: u64,
    pub request_tokens: u64,
}

impl Estimate {
    /// The estimate a `model_request` event carries; `None` for any other event.
    pub fn of(kind: &EventKind) -> Option<Estimate> {
        match kind {
            EventKind::ModelRequest {
                image_tokens,
                estimated_tokens,
                ..
            } => Some(Estimate {
                image_tokens: *image_tokens,
                request_tokens: *estimated_tokens,
            }),
            _ => None,
        }
    }
}

/// One model call's tokens: franz's estimate and, where the server reported `usage`, its
/// count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallTokens {
    pub turn: u32,
    /// `None` when no `model_request` came before the reply (an old run's log).
    pub estimate: Option<Estimate>,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
}

impl CallTokens {
    /// By how many percent franz's estimate of the request differs from the server's prompt
    /// tokens (relative to the server's count); `None` without both.
    pub fn gap_percent(&self) -> Option<f64> {
        gap_percent(self.estimate?.request_tokens, self.prompt_tokens?)
    }

    /// The figures on one line, e.g. `image 858 tokens, request ~2,000 (franz's estimate),
    /// server: 2,040 prompt + 12 completion`.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        if let Some(e) = self.estimate {
            parts.push(format!("image {} tokens", thousands(e.image_tokens)));
            parts.push(format!(
                "request ~{} (franz's estimate)",
                thousands(e.request_tokens)
            ));
        }
        match (self.prompt_tokens, self.completion_tokens) {
            (None, None) => parts.push("server: no usage reported".into()),
            (p, c) => parts.push(format!(
                "server: {} prompt + {} completion",
                p.map_or("?".into(), thousands),
                c.map_or("?".into(), thousands)
            )),
        }
        parts.join(", ")
    }
}

/// `100 * |estimate - server| / server`; `None` when the server counted nothing.
pub fn gap_percent(estimate: u64, server: u64) -> Option<f64> {
    (server > 0).then(|| (estimate.abs_diff(server) as f64) * 100.0 / server as f64)
}

/// A number with thousands separators: `12,345`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Pairs each `model_reply` with the latest `model_request` of its turn before it (a retried
/// request counts once, at its last attempt).
#[derive(Debug, Default)]
pub struct Tally {
    pending: Option<(u32, Estimate)>,
}

impl Tally {
    /// Takes one event; returns the call it completes, if it is a `model_reply`.
    pub fn push(&mut self, e: &Event) -> Option<CallTokens> {
        if let Some(estimate) = Estimate::of(&e.kind) {
            self.pending = Some((e.turn, estimate));
            return None;
        }
        let EventKind::ModelReply {
            prompt_tokens,
            completion_tokens,
            ..
        } = &e.kind
        else {
            return None;
        };
        let estimate = self
            .pending
            .take()
            .filter(|(turn, _)| *turn == e.turn)
            .map(|(_, est)| est);
        Some(CallTokens {
            turn: e.turn,
            estimate,
            prompt_tokens: *prompt_tokens,
            completion_tokens: *completion_tokens,
        })
    }
}

/// Every model call of a run's events, in order.
pub fn calls(events: &[Event]) -> Vec<CallTokens> {
    let mut tally = Tally::default();
    events.iter().filter_map(|e| tally.push(e)).collect()
}

/// Sums of calls (a turn's, or a run's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sums {
    pub calls: usize,
    pub image_tokens: u64,
    pub request_tokens: u64,
    /// The server's prompt tokens, over the calls it reported them for.
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// franz's estimate over the same calls as `prompt_tokens`, for the comparison.
    pub estimated_where_counted: u64,
    /// Calls with the server's prompt tokens.
    pub counted: usize,
}

impl Sums {
    pub fn add(&mut self, c: &CallTokens) {
        self.calls += 1;
        if let Some(e) = c.estimate {
            self.image_tokens += e.image_tokens;
            self.request_tokens += e.request_tokens;
        }
        self.completion_tokens += c.completion_tokens.unwrap_or(0);
        if let (Some(p), Some(e)) = (c.prompt_tokens, c.estimate) {
            self.prompt_tokens += p;
            self.estimated_where_counted += e.request_tokens;
            self.counted += 1;
        }
    }

    /// The gap between franz's estimate and the server's count over the calls with both.
    pub fn gap_percent(&self) -> Option<f64> {
        (self.counted > 0)
            .then(|| gap_percent(self.estimated_where_counted, self.prompt_tokens))
            .flatten()
    }
}

/// One turn's sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnSums {
    pub turn: u32,
    pub sums: Sums,
}

/// The calls summed per turn, in turn order, and over the run.
pub fn per_turn(calls: &[CallTokens]) -> (Vec<TurnSums>, Sums) {
    let mut turns: Vec<TurnSums> = Vec::new();
    let mut total = Sums::default();
    for c in calls {
        total.add(c);
        match turns.iter_mut().find(|t| t.turn == c.turn) {
            Some(t) => t.sums.add(c),
            None => {
                let mut sums = Sums::default();
                sums.add(c);
                turns.push(TurnSums { turn: c.turn, sums });
            }
        }
    }
    turns.sort_by_key(|t| t.turn);
    (turns, total)
}

/// The share of `now`'s tokens after the first byte where it differs from `before` (1 without
/// one): what a server that caches the last request's prefix evaluates again. `now` and
/// `before` are request texts as the run log's `exchange.jsonl` keeps them (images as
/// `<image sha256=...>` placeholders); text counts 4 characters a token, an image placeholder
/// `image` tokens. `franz bench turn --api-url` and the real-server tests share it.
pub fn new_share(before: Option<&str>, now: &str, image: f64) -> f64 {
    let tokens =
        |s: &str| s.len() as f64 / 4.0 + s.matches("<image sha256=").count() as f64 * image;
    let Some(before) = before else { return 1.0 };
    let same = before
        .bytes()
        .zip(now.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    // back to the start of an image placeholder cut in the middle, and to a character's start
    let mut from = now[..same]
        .rfind("<image")
        .filter(|at| !now[*at..same].contains('>'))
        .unwrap_or(same);
    while !now.is_char_boundary(from) {
        from -= 1;
    }
    tokens(&now[from..]) / tokens(now).max(1.0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A `model_request` event (also used by the report's token tests).
    pub(crate) fn request(turn: u32, image: u64, total: u64) -> Event {
        Event::now(
            turn,
            EventKind::ModelRequest {
                model: "m".into(),
                attempt: 1,
                messages: 2,
                images: 1,
                bytes: 10,
                reason: None,
                image: None,
                image_tokens: image,
                estimated_tokens: total,
                context_tokens: None,
            },
        )
    }

    /// A `model_reply` event with the server's usage.
    pub(crate) fn reply(turn: u32, prompt: Option<u64>, completion: Option<u64>) -> Event {
        Event::now(
            turn,
            EventKind::ModelReply {
                ms: 1.0,
                text: String::new(),
                story: None,
                actions: vec![],
                bboxes: vec![],
                prompt_tokens: prompt,
                completion_tokens: completion,
            },
        )
    }

    #[test]
    fn each_reply_takes_the_last_attempt_of_its_request() {
        let events = [
            request(1, 858, 2000),
            request(1, 858, 2001),
            reply(1, Some(2100), Some(12)),
            reply(2, None, None),
        ];
        let calls = calls(&events);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].estimate.unwrap().request_tokens, 2001);
        assert_eq!(
            calls[0].line(),
            "image 858 tokens, request ~2,001 (franz's estimate), server: 2,100 prompt + 12 completion"
        );
        assert_eq!(calls[1].estimate, None, "no request in turn 2");
        assert_eq!(calls[1].line(), "server: no usage reported");
    }

    #[test]
    fn sums_per_turn_and_the_gap_over_the_counted_calls_only() {
        let events = [
            request(1, 100, 1000),
            reply(1, Some(1200), Some(5)),
            request(1, 0, 300),
            reply(1, None, Some(3)),
            request(2, 100, 1000),
            reply(2, Some(1000), Some(7)),
        ];
        let (turns, total) = per_turn(&calls(&events));
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].sums.request_tokens, 1300);
        assert_eq!(turns[0].sums.prompt_tokens, 1200);
        // 1000 estimated against 1200 counted: 16.7 %
        let gap = turns[0].sums.gap_percent().unwrap();
        assert!((gap - 16.666).abs() < 0.01, "{gap}");
        assert_eq!(turns[1].sums.gap_percent(), Some(0.0));
        assert_eq!(total.completion_tokens, 15);
        assert_eq!(total.counted, 2);
        assert_eq!(gap_percent(5, 0), None);
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn the_new_share_starts_at_the_first_differing_byte_or_the_image_it_cuts() {
        assert_eq!(new_share(None, "abcd", 10.0), 1.0);
        assert_eq!(new_share(Some("abcdefgh"), "abcdefgh", 10.0), 0.0);
        assert_eq!(new_share(Some("abcdXXXX"), "abcdYYYY", 10.0), 0.5);
        // a new image whose hash shares a prefix with the last one's counts whole
        let a = "sys<image sha256=aa1 bytes=3>";
        let b = "sys<image sha256=aa2 bytes=3>";
        let whole = b.len() as f64 / 4.0 + 10.0;
        let image = (b.len() - 3) as f64 / 4.0 + 10.0;
        assert!((new_share(Some(a), b, 10.0) - image / whole).abs() < 1e-9);
    }
}
