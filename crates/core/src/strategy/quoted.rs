//! The grammar of a quoted text in a constrained reply ([`quoted_between`]): JSON's escapes, no
//! control characters, and never a text franz refuses. franz refuses a text that is blank or
//! that repeats a prompt's example (`placeholder::is_text`: `text`, `keys`, ... in any case,
//! with blanks or brackets around it), so a constrained model must not be able to write one.
//!
//! The grammar is a little stricter than the parser where that keeps it exact and small: a
//! text starts with a character that is neither blank nor `<` or `{`, and ends with one that is
//! not blank, so it is its own trimmed, unbracketed core. The placeholders are then left out
//! by a trie of them: each node lets the text end (unless a placeholder ends there) or go on
//! with a character no placeholder continues with, after which anything may follow.
//! Written by hand because no grammar crate writes GBNF with a word list left out.

use super::gbnf::{G, lit, rule};
use std::collections::BTreeMap;

/// Plain characters a text may hold: not `"`, `\` or a control character.
const PLAIN: &str = "\"\\\\\\x00-\\x1f";
/// The blanks Rust's `trim` removes beyond ASCII's (after the controls [`PLAIN`] leaves out).
const BLANKS: &str = "\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

/// A quoted text of `min` to `max` characters (each plain or escaped), that is neither blank
/// nor a placeholder (see the module doc). In a grammar's regex it stands as any quoted text of
/// those lengths ([`G::Wide`]): the trie's regex is too large to inline at every text of a
/// grammar; [`exact`] is tested on its own.
pub fn quoted_between(min: u32, max: u32) -> G {
    wide(min, max, exact(min, max))
}

/// A quoted target in words (`click(target="...")`, docs/grounding.md) of `min` to `max`
/// characters: as [`quoted_between`], and never a target's placeholder either
/// (`placeholder::is_target`: `target`, `description`, ...).
pub fn quoted_target(min: u32, max: u32) -> G {
    let words: Vec<&str> = crate::placeholder::target_values().collect();
    wide(min, max, exact_of(min, max, &words, "target"))
}

/// `tree` (a quoted text of `min` to `max` characters) with any quoted text of those lengths
/// as its regex (see [`G::Wide`]).
fn wide(min: u32, max: u32, tree: G) -> G {
    let wider = G::Seq(vec![
        lit("\""),
        G::Rep(Box::new(any_char()), min, max.max(1)),
        lit("\""),
    ]);
    G::Wide {
        tree: Box::new(tree),
        wider: Box::new(wider),
    }
}

/// [`quoted_between`]'s language, with its own regex. A text longer than every placeholder
/// needs no trie: its part is one repetition, which keeps the grammar small.
pub fn exact(min: u32, max: u32) -> G {
    let words: Vec<&str> = crate::placeholder::text_values().collect();
    exact_of(min, max, &words, "str")
}

/// A quoted text of `min` to `max` characters that is none of `words` (lowercase; any case,
/// trimmed and unbracketed is left out), its rules named from `prefix`.
pub fn exact_of(min: u32, max: u32, words: &[&str], prefix: &str) -> G {
    let max = max.max(1);
    let lo = min.max(1);
    let name = format!("{prefix}-{min}-{max}");
    let trie = Trie::of(words);
    let longest = longest_of(words);
    let mut parts = Vec::new();
    if lo <= longest {
        let short = Text::new(lo, max.min(longest), &name);
        parts.extend(short.node(&trie, 0, 0, true));
    }
    if max > longest {
        // longer than any placeholder: any text with a first and a last character that are
        // not blank (and no bracket first, so that the parser sees the text as it is)
        let least = lo.max(longest + 1);
        let first = G::Alt(vec![
            G::Class(format!("[^{PLAIN}\\x20{BLANKS}<{{]")),
            G::Seq(vec![lit("\\"), G::Class("[\"\\\\]".into())]),
        ]);
        let rest = G::Rep(Box::new(any_char()), least - 2, max - 2);
        parts.push(G::Seq(vec![first, rest, solid_char()]));
    }
    let body = G::Alt(parts);
    let body = if min == 0 {
        G::Rep(Box::new(body), 0, 1)
    } else {
        body
    };
    rule(&name, G::Seq(vec![lit("\""), body, lit("\"")]))
}

/// Any character a text holds: plain, or one of the escapes `\"`, `\\`, `\n`, `\t`.
fn any_char() -> G {
    rule(
        "char",
        G::Alt(vec![
            G::Class(format!("[^{PLAIN}]")),
            G::Seq(vec![lit("\\"), G::Class("[\"\\\\nt]".into())]),
        ]),
    )
}

/// A character that is not blank.
fn solid_char() -> G {
    rule(
        "char-solid",
        G::Alt(vec![
            G::Class(format!("[^{PLAIN}\\x20{BLANKS}]")),
            G::Seq(vec![lit("\\"), G::Class("[\"\\\\]".into())]),
        ]),
    )
}

/// The placeholders' trie: each node's children by character, and whether a word ends there.
struct Trie {
    nodes: Vec<(BTreeMap<char, usize>, bool)>,
}

impl Trie {
    fn of(words: &[&str]) -> Trie {
        let mut trie = Trie {
            nodes: vec![(BTreeMap::new(), false)],
        };
        for word in words {
            let mut at = 0;
            for c in word.chars() {
                let next = trie.nodes.len();
                at = match trie.nodes[at].0.get(&c) {
                    Some(&n) => n,
                    None => {
                        trie.nodes[at].0.insert(c, next);
                        trie.nodes.push((BTreeMap::new(), false));
                        next
                    }
                };
            }
            trie.nodes[at].1 = true;
        }
        trie
    }
}

/// The longest of `words` in characters.
fn longest_of(words: &[&str]) -> u32 {
    let lengths = words.iter().map(|w| w.chars().count());
    u32::try_from(lengths.max().unwrap_or(0)).unwrap_or(u32::MAX)
}

/// The lengths a text may have, and the prefix of its rules' names.
struct Text<'a> {
    min: u32,
    max: u32,
    name: &'a str,
}

impl Text<'_> {
    fn new(min: u32, max: u32, name: &str) -> Text<'_> {
        Text { min, max, name }
    }

    /// The rest of a text whose first `depth` characters led to trie node `at`; `solid`: the
    /// last of them is not blank. `None`: no text goes on from here.
    fn node(&self, trie: &Trie, at: usize, depth: u32, solid: bool) -> Option<G> {
        let (children, word) = &trie.nodes[at];
        let mut alts = Vec::new();
        if depth < self.max {
            let taken: String = children.keys().map(|c| both_cases(*c)).collect();
            let taken = escaped(&taken);
            let after = self.tail(depth + 1);
            // a character no placeholder goes on with: the text is none of them, whatever follows
            let first = if depth == 0 { "<{" } else { "" };
            let solid_dev = G::Alt(vec![
                G::Class(format!("[^{PLAIN}\\x20{BLANKS}{first}{taken}]")),
                G::Seq(vec![lit("\\"), G::Class("[\"\\\\]".into())]),
            ]);
            match (depth + 1 >= self.min, after.clone()) {
                (true, Some(t)) => alts.push(G::Seq(vec![solid_dev, G::Rep(Box::new(t), 0, 1)])),
                (true, None) => alts.push(solid_dev),
                (false, Some(t)) => alts.push(G::Seq(vec![solid_dev, t])),
                (false, None) => {}
            }
            if let (true, Some(t)) = (depth > 0, after) {
                let blanks: String = [" "].into_iter().filter(|b| !taken.contains(b)).collect();
                let blank_dev = G::Alt(vec![
                    G::Class(format!("[{blanks}{BLANKS}]")),
                    G::Seq(vec![lit("\\"), G::Class("[nt]".into())]),
                ]);
                alts.push(G::Seq(vec![blank_dev, t]));
            }
            for (c, next) in children {
                if let Some(rest) = self.node(trie, *next, depth + 1, !c.is_whitespace()) {
                    let c = G::Class(format!("[{}]", escaped(&both_cases(*c))));
                    alts.push(G::Seq(vec![c, rest]));
                }
            }
        }
        let ends = depth > 0 && depth >= self.min && solid && !word;
        let g = match (alts.is_empty(), ends) {
            (true, false) => return None,
            (true, true) => lit(""),
            (false, false) => G::Alt(alts),
            (false, true) => G::Rep(Box::new(G::Alt(alts)), 0, 1),
        };
        Some(rule(&format!("{}-n{at}", self.name), g))
    }

    /// One to as many more characters as are left after `taken`, the last not blank; `None`
    /// when none are left.
    fn tail(&self, taken: u32) -> Option<G> {
        let left = self.max.checked_sub(taken).filter(|l| *l > 0)?;
        let least = self.min.saturating_sub(taken).max(1);
        let g = G::Seq(vec![
            G::Rep(Box::new(any_char()), least - 1, left - 1),
            solid_char(),
        ]);
        Some(rule(&format!("{}-t{taken}", self.name), g))
    }
}

/// `c` and its other ASCII case.
fn both_cases(c: char) -> String {
    let (lower, upper) = (c.to_ascii_lowercase(), c.to_ascii_uppercase());
    if lower == upper {
        c.to_string()
    } else {
        format!("{lower}{upper}")
    }
}

/// Characters for a class: the ones a class gives a meaning escaped.
fn escaped(chars: &str) -> String {
    chars
        .chars()
        .map(|c| match c {
            '\\' | ']' | '[' | '^' | '-' => format!("\\{c}"),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
#[path = "quoted_tests.rs"]
mod tests;
