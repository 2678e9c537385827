//! The GBNF grammars built lately, by what they were built from. Building a format's grammar
//! takes milliseconds (each quoted text leaves the placeholders out by a trie, `quoted.rs`),
//! and every turn of a run asks for the same one, so each is built once and then copied.
//! Written by hand: a few entries behind a lock are all it needs.

use std::sync::Mutex;

/// How many grammars are kept: a few strategies and spaces (a pixel space per image size) in
/// use at once.
const KEPT: usize = 16;

static GRAMMARS: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

/// The grammar built for `key` lately, else `build()`'s, kept for next time. `key` must name
/// everything the grammar is built from.
pub fn gbnf(key: String, build: impl FnOnce() -> String) -> String {
    if let Ok(kept) = GRAMMARS.lock()
        && let Some((_, g)) = kept.iter().find(|(k, _)| *k == key)
    {
        return g.clone();
    }
    let built = build();
    if let Ok(mut kept) = GRAMMARS.lock() {
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((key, built.clone()));
    }
    built
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grammar_is_built_once_per_key_and_the_same_every_time() {
        let key = || "memo test: a key no format uses".to_string();
        let mut builds = 0;
        let first = gbnf(key(), || {
            builds += 1;
            "root ::= \"a\"".into()
        });
        let again = gbnf(key(), || {
            builds += 1;
            "something else".into()
        });
        assert_eq!(
            (first.as_str(), again.as_str()),
            ("root ::= \"a\"", "root ::= \"a\"")
        );
        assert_eq!(builds, 1);
        let other = gbnf("memo test: another key".into(), || "root ::= \"b\"".into());
        assert_eq!(other, "root ::= \"b\"");
    }
}
