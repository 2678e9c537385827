use super::*;
use crate::placeholder;

fn anchored(g: &G) -> regex::Regex {
    regex::Regex::new(&format!("^{}$", g.regex())).unwrap()
}

/// `s` as a constrained reply writes it: quoted, with JSON's escapes the grammar allows.
fn written(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Every string of up to `len` characters from `alphabet`.
fn every(alphabet: &[char], len: usize) -> Vec<String> {
    let mut all = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..len {
        last = last
            .iter()
            .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
            .collect();
        all.extend(last.iter().cloned());
    }
    all
}

/// What the parser refuses as a text: blank, or a prompt's example repeated.
fn refused(s: &str) -> bool {
    s.trim().is_empty() || placeholder::is_text(s)
}

#[test]
fn no_text_the_grammar_allows_is_one_franz_refuses() {
    let re = anchored(&exact(1, 64));
    let mut candidates: Vec<String> = Vec::new();
    for word in placeholder::text_values() {
        let upper = word.to_uppercase();
        let title: String = word
            .chars()
            .enumerate()
            .map(|(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c })
            .collect();
        for w in [word.to_string(), upper, title] {
            for (open, close) in [("", ""), ("<", ">"), ("{", "}"), ("< ", " >")] {
                for pad in ["", " ", "\t", "\n", "\u{a0}", "\u{3000}"] {
                    candidates.push(format!("{pad}{open}{w}{close}{pad}"));
                    candidates.push(format!("{open}{w}{close}{pad}"));
                    candidates.push(format!("{pad}{open}{w}{close}"));
                }
            }
        }
    }
    candidates.extend(every(
        &['t', 'E', 'x', ' ', '.', '\u{2026}', '<', '>', '\u{a0}'],
        5,
    ));
    let mut allowed = 0;
    for s in &candidates {
        if re.is_match(&written(s)) {
            allowed += 1;
            assert!(
                !refused(s),
                "the grammar lets a model write {s:?}, which franz refuses"
            );
        }
    }
    assert!(allowed > 1000, "only {allowed} candidates allowed");
}

#[test]
fn texts_near_the_placeholders_stay_writable() {
    let re = anchored(&exact(1, 64));
    for s in [
        "hello",
        "text editor",
        "Texts",
        "te",
        "x",
        "xx",
        "xxxx",
        "keys2",
        "reasons why",
        "open the text",
        "a b",
        "12",
        "..",
        "....",
        "ok.",
        "100%",
        "he said \"hi\"",
        "C:\\temp",
        "line\none",
        "text to typeset",
        "\u{2026}more",
        "a>",
    ] {
        assert!(!refused(s), "{s:?}");
        assert!(re.is_match(&written(s)), "{s:?} is not writable");
    }
}

#[test]
fn a_text_has_the_lengths_it_is_given_and_no_other() {
    let re = anchored(&exact(5, 10));
    for (s, ok) in [
        ("hell", false),
        ("hello", true),
        ("hello worl", true),
        ("hello world", false),
        ("texts", true),
        ("a    b", true),
    ] {
        assert_eq!(re.is_match(&written(s)), ok, "{s:?}");
    }
    let optional = anchored(&exact(0, 8));
    assert!(optional.is_match("\"\""));
    assert!(optional.is_match("\"fine\""));
    assert!(!optional.is_match("\"text\""));
}

#[test]
fn the_gbnf_defines_every_rule_it_names_once() {
    let gbnf = quoted_between(1, 64).gbnf();
    assert_eq!(gbnf, exact(1, 64).gbnf());
    assert!(!gbnf.contains("()"), "{gbnf}");
    let defined: Vec<&str> = gbnf
        .lines()
        .filter_map(|l| l.split(" ::= ").next())
        .collect();
    let mut unique = defined.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), defined.len(), "{gbnf}");
    let names = gbnf.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'));
    for name in names.filter(|w| w.starts_with("str-1-64-")) {
        assert!(
            defined.contains(&name),
            "{name} is used, not defined: {gbnf}"
        );
    }
}

/// The tree of a quoted text as the grammar writes it (not its wider regex).
fn tree_of(g: G) -> G {
    match g {
        G::Wide { tree, .. } => *tree,
        other => other,
    }
}

/// A target in words (`click(target="...")`, docs/grounding.md): no target the grammar allows
/// is one the parser refuses (a text placeholder, or `target`, `description`, ... in any case,
/// with blanks or brackets around it); targets that only look like them are allowed.
#[test]
fn no_target_the_grammar_allows_is_one_franz_refuses() {
    let re = anchored(&tree_of(quoted_target(1, 64)));
    let mut refused_ones = Vec::new();
    for word in placeholder::target_values() {
        for w in [word.to_string(), word.to_uppercase()] {
            for (open, close) in [("", ""), ("<", ">"), ("{", "}"), ("< ", " >")] {
                for pad in ["", " ", "\t", "\u{a0}"] {
                    refused_ones.push(format!("{pad}{open}{w}{close}{pad}"));
                }
            }
        }
    }
    refused_ones.push("Element Description".into());
    for s in &refused_ones {
        assert!(placeholder::is_target(s), "{s:?}");
        assert!(
            !re.is_match(&written(s)),
            "the grammar lets a model write target {s:?}"
        );
    }
    for s in [
        "the Save button",
        "descriptions",
        "targets",
        "the target",
        "description of it",
        "element",
        "OK",
        "a \"quoted\" name",
    ] {
        assert!(!placeholder::is_target(s), "{s:?}");
        assert!(re.is_match(&written(s)), "the grammar refuses target {s:?}");
    }
}
