//! Early execution's reader: reads a streamed reply as it arrives and says when its
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
//! A point is read only when a `)`, `]`, `}` or `>` arrived since the last read there (every
//! call, object and tag ends with one), and the prefixes read add up to at most twice the reply
//! plus 64 KiB (see [`StreamReader`]): the reader stays linear in the reply's length.
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
///
/// Linear in the reply's length (docs/architecture.md, "The parser"): the brackets, strings and
/// tags are followed as the bytes arrive, never by reading the text again from its start, and
/// the prefixes handed to the parser at points add up to at most [`REREAD_BUDGET`] times the
/// text (plus [`REREAD_FREE`]): past that a point is skipped until the text has grown enough,
/// so a reply full of points is read early less often, never for longer.
#[derive(Debug, Clone)]
pub struct StreamReader {
    options: ParseOptions,
    text: String,
    /// Bytes of `text` already looked at for points.
    looked: usize,
    /// The first action was found: nothing more is read.
    found: bool,
    /// The scan of `text[..looked]`.
    scan: Scan,
    /// The bytes of the prefixes read at points so far.
    reread: usize,
}

/// How many times the reply's length the prefixes read at points may add up to.
pub const REREAD_BUDGET: usize = 2;
/// What may be read at points beyond that (so a short reply is read at every point).
pub const REREAD_FREE: usize = 64 * 1024;

/// What the bytes looked at so far hold, followed byte by byte.
#[derive(Debug, Clone, Default)]
struct Scan {
    /// For each of [`BLOCKS`], how many opened minus how many closed.
    blocks: [i64; BLOCKS.len()],
    /// The last character closed a `</tool_call>` or `</seed:tool_call>` block.
    closed_block: bool,
    /// The brackets and strings of the calls (see [`Scan::calls`]).
    depth: usize,
    quote: Option<char>,
    escaped: bool,
    /// From the first `{` on: the JSON, and its last character that is not white space.
    json: Option<Json>,
    json_last: char,
    /// A `)`, `]`, `}` or `>` arrived since the last read at a point: only then can a new
    /// action be complete (every call, block and tag ends with one), so a reply of bare lines
    /// is never read again.
    closed_since_read: bool,
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
                    scan: Scan::default(),
                    reread: 0,
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
            self.scan = Scan::default();
            self.reread = 0;
        }
    }

    /// Adds a delta; the reply's first action once it is complete (once per reply).
    pub fn push(&mut self, delta: &str) -> Option<Action> {
        if self.found {
            return None;
        }
        self.text.push_str(delta);
        super::work::charge(delta.len());
        while self.looked < self.text.len() {
            let Some(c) = self.text[self.looked..].chars().next() else {
                break;
            };
            let end = self.looked + c.len_utf8();
            let ready = self.look(c, end);
            self.looked = end;
            if let Some(action) = ready {
                self.found = true;
                return Some(action);
            }
        }
        None
    }

    /// Follows the character `c` that ends at `end`; the first action if the text up to `end`
    /// is a point where it is complete.
    fn look(&mut self, c: char, end: usize) -> Option<Action> {
        let json = self.options.dialect == Some(Dialect::Json);
        // a JSON point is judged on the text before its `,` or `]`
        let closers = (json && matches!(c, ',' | ']'))
            .then(|| self.scan.first_json_action())
            .flatten();
        self.scan.step(c, &self.text[..end]);
        let point = match self.options.dialect {
            Some(Dialect::Json) => closers.is_some(),
            Some(Dialect::Qwen | Dialect::Tools) => self.scan.closed_block && self.scan.balanced(),
            _ => (c == '\n' || self.scan.closed_block) && self.scan.balanced(),
        };
        if !point || !self.scan.closed_since_read || self.scan.open_block() || !self.may_reread(end)
        {
            return None;
        }
        self.scan.closed_since_read = false;
        let action = match closers {
            Some(closers) => {
                let whole = format!("{}{closers}", &self.text[..end - 1]);
                asked_only(&whole, &self.options)
            }
            None => asked_only(&self.text[..end], &self.options),
        };
        // a read stopped part way (crate::parser::work) acts on nothing
        if super::work::stopped() {
            return None;
        }
        action.actions.into_iter().next()
    }

    /// Whether the prefix up to `end` may be read now: the prefixes read so far and this one
    /// stay within the budget (see [`StreamReader`]).
    fn may_reread(&mut self, end: usize) -> bool {
        let allowed = REREAD_BUDGET
            .saturating_mul(end)
            .saturating_add(REREAD_FREE);
        if self.reread.saturating_add(end) > allowed {
            return false;
        }
        self.reread += end;
        true
    }
}

/// Reads `text` in the asked dialect only: an action in another dialect runs after the whole
/// reply, never early (docs/actions.md, "Replies in another dialect").
fn asked_only(text: &str, options: &ParseOptions) -> super::ParsedReply {
    parse_asked(&crate::model::Reply::text(text), options)
}

impl Scan {
    /// Whether a `<think>`, `<answer>` or `<tool_call>` block is open.
    fn open_block(&self) -> bool {
        self.blocks.iter().any(|&n| n > 0)
    }

    /// Whether every bracket of the calls is closed and no string inside a call is open.
    fn balanced(&self) -> bool {
        self.depth == 0 && self.quote.is_none()
    }

    /// Follows `c`, the last character of `text`.
    fn step(&mut self, c: char, text: &str) {
        self.closed_block = false;
        self.closed_since_read |= matches!(c, ')' | ']' | '}' | '>');
        if c == '>' {
            self.tag(text);
        }
        self.calls(c);
        if self.json.is_none() && c == '{' {
            self.json = Some(Json::default());
        }
        if let Some(j) = self.json.as_mut() {
            j.step(c);
            if !c.is_whitespace() {
                self.json_last = c;
            }
        }
    }

    /// A `>` ended `text`: counts the block tag it ends, if any. No tag is the tail of another:
    /// `</tool_call>` holds no `<tool_call>`, `<thinking>` no `<think>`.
    fn tag(&mut self, text: &str) {
        let ends = |tag: &str| {
            let b = text.as_bytes();
            b.len() >= tag.len() && b[b.len() - tag.len()..].eq_ignore_ascii_case(tag.as_bytes())
        };
        for (i, (open, close)) in BLOCKS.iter().enumerate() {
            if ends(open) {
                self.blocks[i] += 1;
            } else if ends(close) {
                self.blocks[i] -= 1;
                self.closed_block |= matches!(*close, "</tool_call>" | "</seed:tool_call>");
            }
        }
    }

    /// The calls' brackets and strings. Quotes count only inside brackets: an apostrophe in
    /// the story is not a string.
    fn calls(&mut self, c: char) {
        if let Some(q) = self.quote {
            match c {
                _ if self.escaped => self.escaped = false,
                '\\' => self.escaped = true,
                _ if c == q => self.quote = None,
                _ => {}
            }
            return;
        }
        match c {
            '(' | '[' | '{' => self.depth += 1,
            ')' | ']' | '}' => self.depth = self.depth.saturating_sub(1),
            '"' | '\'' if self.depth > 0 => self.quote = Some(c),
            _ => {}
        }
    }

    /// At a `,` or `]` (not yet followed): when the text before it ends right after the first
    /// complete object of the top object's `"actions"` array, the brackets that close it into
    /// a whole object; `None` otherwise.
    fn first_json_action(&self) -> Option<String> {
        let s = self.json.as_ref()?;
        let depth = s.actions?;
        // the last character closed the array's first element: the array is the innermost
        if s.in_string || s.stack.len() != depth || self.json_last != '}' {
            return None;
        }
        let closers = s.stack.iter().rev();
        Some(closers.map(|o| if *o == '{' { '}' } else { ']' }).collect())
    }
}

/// The JSON scanner's state: the open brackets, and the string being read.
#[derive(Debug, Clone, Default)]
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
                // a key is short: a longer string at the top level is no key worth keeping
                _ if self.stack.len() == 1 && self.string.len() < 64 => self.string.push(c),
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
