//! The module graph of a crate, read from its sources, and the import circles in it: written
//! once for the module tests of both crates (`crates/core/tests/module_cycles.rs`,
//! `crates/franz/tests/module_cycles.rs`), which include this file with `#[path]`.
//!
//! The scan reads every source file under a crate's `src`, names its module from its path
//! (`commands/act.rs` is `commands::act`), and collects the modules it refers to: every
//! `crate::` path (`use` lines and inline paths, brace groups expanded), every `super::` path,
//! and, in a file that declares `mod child;`, every `child::` path. A path names the longest
//! module it starts with. Test modules (`tests`, `tests_*`, `*_tests`, `#[cfg(test)]` files and
//! blocks) are left out: they look into their parent by design.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// The files under `dir` whose name ends in `.EXT`, sorted; at any depth when `recurse`. The one
/// walker of the tests that read the sources (the module graphs, `platform_code`,
/// `tests_reached`, `architecture_doc`).
pub fn files_with_ext(dir: &Path, ext: &str, recurse: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in entries(dir) {
        if p.is_dir() {
            if recurse {
                out.extend(files_with_ext(&p, ext, true));
            }
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
    out
}

/// Every folder under `dir`, at any depth, sorted (parents before their children).
pub fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in entries(dir).into_iter().filter(|p| p.is_dir()) {
        out.push(p.clone());
        out.extend(folders(&p));
    }
    out
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    entries
}

/// `main.rs` is the crate root (""), `commands/mod.rs` is `commands`, `commands/act.rs` is
/// `commands::act`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "main" | "lib")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The text without comments and string literals (so a doc comment or a message that mentions
/// `crate::x` does not count).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            c => out.push(c),
        }
    }
    out
}

/// The code without inline `#[cfg(test)] mod name { ... }` blocks.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = &out[at..];
        let block = rest
            .find('{')
            .filter(|&b| rest[..b].contains("mod ") && !rest[..b].contains(';'));
        let Some(open) = block else {
            out.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        };
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..at + end, "");
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Parses a path tail such as `a::b`, `{a, b::{c, d}}`, `a::*` at the start of `s`, pushing
/// every full path (as segments, after `prefix`) into `out`; returns the bytes read.
fn parse_tree(s: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let s_trim = s.trim_start();
    let mut i = s.len() - s_trim.len();
    let rest = &s[i..];
    if let Some(inner) = rest.strip_prefix('{') {
        i += 1;
        let mut consumed = 0;
        loop {
            let part = &inner[consumed..];
            let t = part.trim_start();
            consumed += part.len() - t.len();
            if t.starts_with('}') {
                return i + consumed + 1;
            }
            if t.is_empty() {
                return i + consumed;
            }
            consumed += parse_tree(&inner[consumed..], prefix, out);
            let part = &inner[consumed..];
            let t = part.trim_start();
            consumed += part.len() - t.len();
            if t.starts_with(',') {
                consumed += 1;
            }
        }
    }
    let ident: String = rest
        .chars()
        .take_while(|&c| is_ident(c) || c == '*')
        .collect();
    if ident.is_empty() {
        out.push(prefix.to_vec());
        return i;
    }
    i += ident.len();
    let mut path = prefix.to_vec();
    if ident != "*" && ident != "self" {
        path.push(ident);
    }
    if s[i..].starts_with("::") {
        i += 2;
        i += parse_tree(&s[i..], &path, out);
    } else {
        out.push(path);
    }
    i
}

/// Every path in `code` that starts with `start` (`crate::`, `super::`, `child::`), as
/// segments after it, when `start` is not the tail of a longer path.
fn paths_after(code: &str, start: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find(start) {
        let at = from + pos;
        from = at + start.len();
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            continue;
        }
        parse_tree(&code[from..], &[], &mut out);
    }
    out
}

/// The longest known module that `segments` (absolute) start with.
fn resolve(modules: &BTreeSet<String>, segments: &[String]) -> Option<String> {
    (1..=segments.len())
        .rev()
        .map(|n| segments[..n].join("::"))
        .find(|m| modules.contains(m))
}

pub fn parent(m: &str) -> String {
    m.rsplit_once("::")
        .map(|(p, _)| p.to_string())
        .unwrap_or_default()
}

pub fn graph(src: &Path) -> Graph {
    graph_of(src, true)
}

/// The graph of a crate whose folder modules (`mod.rs`) are only the faces of their children:
/// a parent's own uses of its child modules (declaring, re-exporting) are not counted, so a
/// circle takes two modules that use each other's items.
pub fn graph_without_faces(src: &Path) -> Graph {
    graph_of(src, false)
}

fn graph_of(src: &Path, parents_use_children: bool) -> Graph {
    let files = files_with_ext(src, "rs", true);
    let mut texts = BTreeMap::new();
    for f in &files {
        let m = module_of(src, f);
        let text = std::fs::read_to_string(f).expect("readable source");
        let is_test = m.split("::").any(is_test_name) || text.starts_with("#![cfg(test)]");
        if !is_test {
            texts.insert(m, without_test_modules(&code_only(&text)));
        }
    }
    let modules: BTreeSet<String> = texts.keys().cloned().collect();
    let mut g = Graph::new();
    for (m, code) in &texts {
        let own: Vec<String> = if m.is_empty() {
            vec![]
        } else {
            m.split("::").map(str::to_string).collect()
        };
        let mut targets = BTreeSet::new();
        for p in paths_after(code, "crate::") {
            targets.extend(resolve(&modules, &p));
        }
        let up = if m.is_empty() {
            vec![]
        } else {
            own[..own.len() - 1].to_vec()
        };
        for p in paths_after(code, "super::") {
            targets.extend(resolve(&modules, &[up.clone(), p].concat()));
        }
        // a parent's use of its own child modules
        let children = modules
            .iter()
            .filter(|c| parents_use_children && !c.is_empty() && parent(c) == *m);
        for child in children {
            let name = child.rsplit("::").next().unwrap_or(child);
            for p in paths_after(code, &format!("{name}::")) {
                let mut abs = own.clone();
                abs.push(name.to_string());
                abs.extend(p);
                targets.extend(resolve(&modules, &abs));
            }
        }
        targets.remove(m);
        g.insert(m.clone(), targets);
    }
    g
}

/// A cycle through `start`, if there is one.
fn cycle_from(g: &Graph, start: &str) -> Option<Vec<String>> {
    fn walk(
        g: &Graph,
        at: &str,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in g.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(g, next, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(g, start, start, &mut path, &mut seen).then(|| {
        path.push(start.to_string());
        path
    })
}

pub fn name(m: &str) -> &str {
    if m.is_empty() { "crate" } else { m }
}

/// Whether a module name segment names a test module (`tests`, `tests_finish`, `shape_tests`).
fn is_test_name(segment: &str) -> bool {
    segment == "tests" || segment.starts_with("tests_") || segment.ends_with("_tests")
}

/// Every cycle of the graph, one per set of modules, each as `a -> b -> a`.
pub fn cycles(g: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    let mut reported = BTreeSet::new();
    for m in g.keys() {
        if let Some(c) = cycle_from(g, m) {
            let key: BTreeSet<_> = c.iter().cloned().collect();
            if reported.insert(key) {
                let shown: Vec<&str> = c.iter().map(|m| name(m)).collect();
                out.push(shown.join(" -> "));
            }
        }
    }
    out
}

/// The graph as text, one module a line with the modules it imports.
pub fn render(g: &Graph) -> String {
    g.iter()
        .map(|(m, targets)| {
            let t: Vec<&str> = targets.iter().map(|t| name(t)).collect();
            format!("{} -> {}\n", name(m), t.join(", "))
        })
        .collect()
}

/// The modules that `start` reaches through one import or more.
fn reachable(g: &Graph, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![start.to_string()];
    while let Some(m) = todo.pop() {
        for next in g.get(&m).into_iter().flatten() {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen
}

/// The groups of modules that import each other in a circle (the graph's strongly connected
/// components of more than one module), each sorted.
pub fn circles(g: &Graph) -> Vec<BTreeSet<String>> {
    let reach: BTreeMap<&String, BTreeSet<String>> =
        g.keys().map(|m| (m, reachable(g, m))).collect();
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for (m, from_m) in &reach {
        if out.iter().any(|c| c.contains(*m)) {
            continue;
        }
        let group: BTreeSet<String> = from_m
            .iter()
            .filter(|n| reach.get(n).is_some_and(|r| r.contains(*m)))
            .cloned()
            .chain(std::iter::once((*m).clone()))
            .collect();
        if group.len() > 1 {
            out.push(group);
        }
    }
    out
}
