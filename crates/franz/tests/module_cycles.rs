//! The `franz` crate's modules import each other without cycles, and no command imports
//! another command (docs/architecture.md): shared helpers live in their own modules.
//!
//! The test reads every source file under `crates/franz/src`, names its module from its path
//! (`commands/act.rs` is `commands::act`), and collects the modules it refers to: every
//! `crate::` path (`use` lines and inline paths, brace groups expanded), every `super::` path,
//! and, in a file that declares `mod child;`, every `child::` path. A path names the longest
//! module it starts with. Test modules (`tests`, `#[cfg(test)]` files) are left out: they
//! look into their parent by design.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            source_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
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

fn parent(m: &str) -> String {
    m.rsplit_once("::")
        .map(|(p, _)| p.to_string())
        .unwrap_or_default()
}

fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    source_files(src, &mut files);
    let mut texts = BTreeMap::new();
    for f in &files {
        let m = module_of(src, f);
        let text = std::fs::read_to_string(f).expect("readable source");
        let is_test = m.split("::").any(|s| s == "tests") || text.starts_with("#![cfg(test)]");
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
        for child in modules.iter().filter(|c| !c.is_empty() && parent(c) == *m) {
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

fn name(m: &str) -> &str {
    if m.is_empty() { "crate" } else { m }
}

/// The problems of a module graph: cycles, and commands that import other commands.
fn problems(g: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    let mut reported = BTreeSet::new();
    for m in g.keys() {
        if let Some(c) = cycle_from(g, m) {
            let key: BTreeSet<_> = c.iter().cloned().collect();
            if reported.insert(key) {
                let shown: Vec<&str> = c.iter().map(|m| name(m)).collect();
                out.push(format!("cycle: {}", shown.join(" -> ")));
            }
        }
    }
    let command = |m: &str| parent(m) == "commands";
    for (m, targets) in g {
        for t in targets
            .iter()
            .filter(|t| command(m) && (command(t) || *t == "commands"))
        {
            out.push(format!(
                "command {m} imports {t}: move what they share into its own module"
            ));
        }
    }
    out
}

#[test]
fn franz_modules_have_no_cycles_and_commands_do_not_import_commands() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    assert!(g.contains_key("commands::run"), "{g:?}");
    let found = problems(&g);
    assert!(
        found.is_empty(),
        "the franz crate's module graph has problems:\n  {}\n(graph: {g:#?})",
        found.join("\n  ")
    );
}

#[test]
fn the_scanner_sees_use_groups_super_and_child_paths() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path();
    std::fs::create_dir_all(src.join("commands")).unwrap();
    std::fs::write(src.join("main.rs"), "mod cli; mod commands;\n").unwrap();
    std::fs::write(
        src.join("cli.rs"),
        "// crate::commands::b is only a comment\nuse crate::{commands::{a::X, self}};\n",
    )
    .unwrap();
    std::fs::write(
        src.join("commands/mod.rs"),
        "mod a; mod b;\npub fn run() { a::go(); }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("commands/a.rs"),
        "fn f() { super::b::g(); }\n#[cfg(test)]\nmod tests {\n    use super::super::*;\n}\n",
    )
    .unwrap();
    std::fs::write(
        src.join("commands/b.rs"),
        "fn g() { let _ = \"crate::cli\"; }\n",
    )
    .unwrap();
    let g = graph(src);
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(g["cli"], set(&["commands", "commands::a"]));
    assert_eq!(g["commands"], set(&["commands::a"]));
    assert_eq!(g["commands::a"], set(&["commands::b"]));
    assert_eq!(g["commands::b"], set(&[]));
    let p = problems(&g);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("commands::a imports commands::b"), "{p:?}");
    // a cycle: b uses the dispatcher
    std::fs::write(src.join("commands/b.rs"), "use super::run;\n").unwrap();
    let p = problems(&graph(src));
    assert!(p.iter().any(|p| p.starts_with("cycle: ")), "{p:?}");
}
