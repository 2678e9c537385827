//! Replies written to make a reader slow: unclosed braces, quotes and parentheses, long single
//! tokens, tags that never close, points that hold no action. `franz bench parse` times the
//! parser on them and the tests check that its work grows linearly with their length
//! (docs/architecture.md, "The parser").

/// The classes of hostile replies: each a name and the piece repeated to make one.
pub const CLASSES: &[(&str, &str)] = &[
    ("braces", "{"),
    ("brackets", "["),
    ("quotes", "\""),
    ("apostrophes", "{'"),
    ("parentheses", "("),
    ("token", "a"),
    ("digits", "1"),
    ("spaces", " "),
    ("lines", "\n"),
    ("angles", "<"),
    ("open_calls", "click("),
    ("open_strings", "type(\"\n"),
    ("unknown_calls", "x(1)\n"),
    ("tool_calls", "<tool_call>"),
    ("tool_call_blocks", "<tool_call>{</tool_call>"),
    ("think_opens", "<think>"),
    ("think_closes", "</think>"),
    ("answers", "<answer>"),
    ("seed_calls", "<seed:tool_call>"),
    ("functions", "<function="),
    ("action_lines", "Action: click(\n"),
    ("pyautogui", "pyautogui.click(\n"),
    ("json_keys", "{\"a\":"),
    ("escapes", "{\"\\"),
    ("fences", "```\n"),
    ("prose_blocks", "{x "),
    ("empty_actions", "{},"),
];

/// The reply of `class` (a name of [`CLASSES`]) about `len` bytes long; `None` for an unknown
/// name. `prose_blocks` closes its blocks at the end (every block nests in another and none is
/// JSON), `empty_actions` sits in a JSON `"actions"` array.
pub fn reply(class: &str, len: usize) -> Option<String> {
    let (_, piece) = CLASSES.iter().find(|(name, _)| *name == class)?;
    let times = len / piece.len().max(1);
    Some(match class {
        "prose_blocks" => {
            let n = len / (piece.len() + 1);
            format!("{}{}", piece.repeat(n), "}".repeat(n))
        }
        "empty_actions" => format!("{{\"actions\": [{}", piece.repeat(times)),
        _ => piece.repeat(times),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_makes_a_reply_of_about_the_length_asked() {
        for (name, _) in CLASSES {
            let r = reply(name, 10_000).unwrap();
            assert!((9_900..=10_100).contains(&r.len()), "{name}: {}", r.len());
        }
        assert_eq!(reply("none", 10), None);
    }
}
