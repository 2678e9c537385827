//! Reading `docs/`: written once for the tests that keep the docs and the code together
//! (`docs_current` in the core, `architecture_doc` in the franz crate, which includes this file
//! with `#[path]`).

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::Path;

/// The text of `docs/NAME`.
pub fn doc(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The text of the `## title` section, up to the next `## ` heading.
pub fn section<'a>(text: &'a str, title: &str) -> &'a str {
    part(text, &format!("## {title}"))
}

/// The text under `heading` (a whole heading line, `### CLI (...)` or its start), up to the next
/// heading of the same or a higher level.
pub fn part<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let at = text
        .lines()
        .position(|l| l.starts_with(heading) && l[level..].starts_with(' '))
        .unwrap_or_else(|| panic!("no heading \"{heading}\""));
    let body: Vec<&str> = text.lines().skip(at + 1).collect();
    let end = body
        .iter()
        .position(|l| {
            let hashes = l.chars().take_while(|c| *c == '#').count();
            hashes > 0 && hashes <= level && l[hashes..].starts_with(' ')
        })
        .unwrap_or(body.len());
    let start = text
        .lines()
        .take(at + 1)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let len = body[..end].iter().map(|l| l.len() + 1).sum::<usize>();
    &text[start.min(text.len())..(start + len).min(text.len())]
}

/// The names in lines that start with `prefix` followed by a backquoted name (with `"| "`: the
/// first column of a table).
pub fn backquoted_after(text: &str, prefix: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix)?.strip_prefix('`'))
        .filter_map(|rest| rest.split('`').next())
        .map(str::to_string)
        .collect()
}
