//! Early execution's reader (issue 19): reads a streamed reply as it arrives and says when its
//! first action is complete and cannot change any more, so that the engine can perform it while
//! the rest (the story, the notes) still streams (`engine/early.rs`).
//!
//! It writes no second parser: at each point where an action may have closed, the dialect's own
//! parser ([`super::parse_reply`]) reads the prefix received so far, and the first action it
//! finds is the one. The points, by dialect:
//! - `calls`, `uitars`: a newline after text whose calls are balanced (every `(`, `[`, `{`
//!   closed, no string left open inside a call): a closed function-call line, a closed
//!   `Action:` line; and the end of a Seed `</seed:tool_call>` block;
//! - `qwen`, `tools` (text): the end of a `</tool_call>` block only. A bare
//!   `{"name", "arguments"}` object is not read early: a tagged block later in the reply would
//!   make the whole reply read that block alone;
//! - `json`: the end of the first object of the top object's `"actions"` array, once a `,` or
//!   `]` follows it; the prefix is read with its open brackets closed.
//!
//! Never ready while a `<think>`, `<answer>` or `<tool_call>` block is open (the whole reply
//! reads them apart). Other dialects are not read early: `pyautogui` refuses the whole code for
//! a later statement (a loop) and merges held keys into a later press; `anthropic` and `openai`
//! written as text are bare JSON objects (see `qwen` above) — as structured tool calls they
//! run early through the tools strategy (`Strategy::early_call`); under
//! auto-detection (no forced dialect) the dialect itself may change with more text.
//!
//! The prefix is read in the dialect asked for only: a reply read again in another dialect
//! (`parser/fallback.rs`) is read whole, after it ended, since a later line in the asked
//! dialect would make the whole reply read that line instead.

use super::{Dialect, ParseOptions, parse_asked};
use crate::action::Action;

/// Tags whose block the whole reply reads apart from the rest: none may be open at a point.
const BLOCKS: [(&str, &str); 5] = [
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("<answer>", "</answer>"),
    ("<tool_call>", "</tool_call>"),
    ("<seed:tool_call>", "</seed:tool_call>"),
];

/// Reads a streamed reply's content, delta by delta; see the module doc.
#[derive(Debug, Clone)]
pub struct StreamReader {
    options: ParseOptions,
    text: String,
    /// Bytes of `text` already looked at for points.
    looked: usize,
    /// The first action was found: nothing more is read.
    found: bool,
}

impl StreamReader {
    /// A reader for replies parsed with `options`; `None` when its dialect is not read early
    /// (see the module doc).
    pub fn new(options: ParseOptions) -> Option<StreamReader> {
        match options.dialect? {
            Dialect::Calls | Dialect::Uitars | Dialect::Qwen | Dialect::Tools | Dialect::Json => {
                Some(StreamReader {
                    options,
                    text: String::new(),
                    looked: 0,
                    found: false,
                })
            }
            _ => None,
        }
    }

    /// Starts over (the model call is retried: a new reply streams).
    pub fn reset(&mut self) {
        if !self.found {
            self.text.clear();
            self.looked = 0;
        }
    }

    /// Adds a delta; the reply's first action once it is complete (once per reply).
    pub fn push(&mut self, delta: &str) -> Option<Action> {
        if self.found {
            return None;
        }
        self.text.push_str(delta);
        let from = self.looked;
        self.looked = self.text.len();
        let points: Vec<usize> = (from..self.text.len())
            .filter(|&i| self.text.is_char_boundary(i + 1) || i + 1 == self.text.len())
            .map(|i| i + 1)
            .filter(|&end| self.is_point(end))
            .collect();
        for end in points {
            if let Some(action) = self.read_prefix(end) {
                self.found = true;
                return Some(action);
            }
        }
        None
    }

    /// Whether the text up to `end` (exclusive) ends where an action may have closed.
    fn is_point(&self, end: usize) -> bool {
        let prefix = &self.text[..end];
        match self.options.dialect {
            Some(Dialect::Json) => prefix.ends_with([',', ']']),
            Some(Dialect::Qwen | Dialect::Tools) => closes_a_block(prefix),
            _ => prefix.ends_with('\n') || closes_a_block(prefix),
        }
    }

    /// The first action of the prefix up to `end`, if it is complete there.
    fn read_prefix(&self, end: usize) -> Option<Action> {
        let prefix = &self.text[..end];
        if open_block(prefix) {
            return None;
        }
        let text = match self.options.dialect {
            Some(Dialect::Json) => first_json_action(prefix)?,
            _ if !balanced(prefix) => return None,
            _ => prefix.to_string(),
        };
        let reply = crate::model::Reply::text(text);
        parse_asked(&reply, &self.options)
            .actions
            .into_iter()
            .next()
    }
}

/// Whether `text` ends with the end of a `</tool_call>` or `</seed:tool_call>` block.
fn closes_a_block(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.ends_with("</tool_call>") || lower.ends_with("</seed:tool_call>")
}

/// Whether a `<think>`, `<answer>` or `<tool_call>` block is open at the end of `text`.
fn open_block(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    // no tag is the tail of another: `</tool_call>` holds no `<tool_call>`, `<thinking>` no
    // `<think>`
    BLOCKS
        .iter()
        .any(|(open, close)| lower.matches(open).count() > lower.matches(close).count())
}

/// Whether every bracket of the calls in `text` is closed and no string inside a call is open.
/// Quotes count only inside brackets: an apostrophe in the story is not a string.
fn balanced(text: &str) -> bool {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                _ if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '"' | '\'' if depth > 0 => quote = Some(c),
            _ => {}
        }
    }
    depth == 0 && quote.is_none()
}

/// The JSON scanner's state: the open brackets, and the string being read.
#[derive(Default)]
struct Json {
    stack: Vec<char>,
    in_string: bool,
    escaped: bool,
    /// The last string closed at the top object's level, and whether a `:` followed it.
    key: String,
    string: String,
    colon: bool,
    /// The stack depth of the `"actions"` array, once it opened.
    actions: Option<usize>,
}

/// `prefix` (ending in `,` or `]`) closed into a whole object when it ends right after the
/// first complete object of the top object's `"actions"` array; `None` otherwise.
fn first_json_action(prefix: &str) -> Option<String> {
    let start = prefix.find('{')?;
    let body = &prefix[start..prefix.len() - 1];
    let mut s = Json::default();
    for c in body.chars() {
        s.step(c);
    }
    let depth = s.actions?;
    // the last character closed the array's first element: the array is the innermost
    if s.in_string || s.stack.len() != depth || !body.trim_end().ends_with('}') {
        return None;
    }
    let mut whole = prefix[..prefix.len() - 1].to_string();
    for open in s.stack.iter().rev() {
        whole.push(if *open == '{' { '}' } else { ']' });
    }
    Some(whole)
}

impl Json {
    fn step(&mut self, c: char) {
        if self.in_string {
            match c {
                _ if self.escaped => self.escaped = false,
                '\\' => self.escaped = true,
                '"' => {
                    self.in_string = false;
                    if self.stack.len() == 1 {
                        self.key = std::mem::take(&mut self.string);
                        self.colon = false;
                    }
                }
                _ if self.stack.len() == 1 => self.string.push(c),
                _ => {}
            }
            return;
        }
        match c {
            '"' => self.in_string = true,
            ':' if self.stack.len() == 1 => self.colon = true,
            '[' if self.stack.len() == 1 && self.colon && self.key == "actions" => {
                self.stack.push(c);
                self.actions.get_or_insert(self.stack.len());
            }
            '{' | '[' => self.stack.push(c),
            '}' | ']' => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionKind;
    use crate::parser::CoordMode;
    use crate::parser::parse_text;

    fn reader(d: Dialect) -> StreamReader {
        StreamReader::new(ParseOptions {
            dialect: Some(d),
            coords: CoordMode::Norm,
        })
        .unwrap()
    }

    /// Feeds `reply` in pieces of `n` bytes (on char boundaries); the action and how many
    /// bytes had been fed when it came.
    fn feed(d: Dialect, reply: &str, n: usize) -> Option<(Action, usize)> {
        let mut r = reader(d);
        let mut fed = 0;
        let chars: Vec<char> = reply.chars().collect();
        for piece in chars.chunks(n) {
            let piece: String = piece.iter().collect();
            fed += piece.len();
            if let Some(a) = r.push(&piece) {
                return Some((a, fed));
            }
        }
        None
    }

    /// The first action of the whole reply, as the parser reads it.
    fn whole_first(d: Dialect, reply: &str) -> Option<Action> {
        let opts = ParseOptions {
            dialect: Some(d),
            coords: CoordMode::Norm,
        };
        parse_text(reply, &opts).actions.into_iter().next()
    }

    /// Each reply's first action comes early, before `story` began, and is the one the whole
    /// reply's parse yields first; for every piece size.
    fn early_and_same(d: Dialect, head: &str, story: &str) {
        let reply = format!("{head}{story}");
        for n in [1, 2, 3, 7, 1000] {
            let (a, fed) = feed(d, &reply, n).unwrap_or_else(|| panic!("{d} n={n}: {reply}"));
            assert_eq!(Some(a), whole_first(d, &reply), "{d} n={n}: {reply}");
            if n < 1000 {
                assert!(
                    fed <= head.len() + n,
                    "{d} n={n}: ready only after {fed} of {} bytes",
                    reply.len()
                );
            }
        }
    }

    #[test]
    fn a_closed_call_line_is_ready_before_the_story() {
        early_and_same(
            Dialect::Calls,
            "click(500, 300)\n",
            "The dialog is open. I'll press (the) OK button next.",
        );
        early_and_same(
            Dialect::Calls,
            "I'll type now:\ntype(\"a (b\\\" [c\")\n",
            "Story: it's typed.",
        );
        early_and_same(
            Dialect::Uitars,
            "Thought: the button is there.\nAction: click(start_box='(100,200)')\n",
            "\nmore text",
        );
    }

    #[test]
    fn an_open_call_or_string_is_not_ready() {
        let mut r = reader(Dialect::Calls);
        assert_eq!(r.push("type(\"line one\n"), None, "the string is open");
        assert_eq!(r.push("line two\")"), None, "no newline yet");
        let a = r.push("\nstory").unwrap();
        assert_eq!(
            a.kind,
            ActionKind::Type {
                text: "line one\nline two".into()
            }
        );
        let mut r = reader(Dialect::Calls);
        assert_eq!(r.push("click(500,\n"), None);
        assert_eq!(r.push("<think>click(1, 2)\n"), None);
    }

    #[test]
    fn a_think_block_is_read_apart() {
        early_and_same(
            Dialect::Calls,
            "<think>maybe click(1, 2)\nor not</think>\nclick(500, 300)\n",
            "the story",
        );
    }

    #[test]
    fn a_closed_tool_call_block_is_ready() {
        early_and_same(
            Dialect::Qwen,
            "I click OK.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [500, 300]}}\n</tool_call>",
            "\nThen I wait.",
        );
        let mut r = reader(Dialect::Qwen);
        assert_eq!(
            r.push("<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [500, 300]}}\n"),
            None,
            "the block is open"
        );
        let bare = "{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [5, 3]}}\n";
        let mut r = reader(Dialect::Qwen);
        assert_eq!(r.push(bare), None, "a tagged block may still follow");
    }

    #[test]
    fn a_closed_seed_block_is_ready() {
        early_and_same(
            Dialect::Uitars,
            "<seed:tool_call>\n<function=click>\n<parameter=point><point>17 58</point></parameter>\n</function>\n</seed:tool_call>",
            "\nI clicked.",
        );
    }

    #[test]
    fn the_first_json_action_is_ready_when_the_next_begins() {
        early_and_same(
            Dialect::Json,
            "{\"observation\": \"a [list] {x}\", \"actions\": [{\"name\": \"click\", \"x1\": 500, \"y1\": 300},",
            " {\"name\": \"type\", \"text\": \"hi\"}]}",
        );
        early_and_same(
            Dialect::Json,
            "```json\n{\"actions\": [{\"name\": \"key\", \"keys\": \"ctrl+s\"}]",
            ", \"observation\": \"saved\"}\n```",
        );
        let mut r = reader(Dialect::Json);
        assert_eq!(
            r.push("{\"actions\": [{\"name\": \"click\", \"x1\": 5,"),
            None
        );
        assert_eq!(r.push(" \"y1\": 3}"), None, "the next may still be a key");
    }

    #[test]
    fn nothing_without_an_action_and_nothing_twice() {
        let mut r = reader(Dialect::Calls);
        assert_eq!(r.push("Just a story.\nAnd more.\n"), None);
        assert!(r.push("click(1, 2)\n").is_some());
        assert_eq!(r.push("click(3, 4)\n"), None, "once per reply");
        let auto = ParseOptions {
            dialect: None,
            coords: CoordMode::Norm,
        };
        assert!(StreamReader::new(auto).is_none(), "auto-detection");
        for d in [Dialect::Pyautogui, Dialect::Anthropic, Dialect::Openai] {
            let opts = ParseOptions {
                dialect: Some(d),
                coords: CoordMode::Norm,
            };
            assert!(StreamReader::new(opts).is_none(), "{d}");
        }
    }

    #[test]
    fn a_retry_starts_over() {
        let mut r = reader(Dialect::Calls);
        assert_eq!(r.push("click(1, "), None);
        r.reset();
        let a = r.push("click(500, 300)\n").unwrap();
        assert_eq!(Some(a), whole_first(Dialect::Calls, "click(500, 300)\n"));
    }
}
