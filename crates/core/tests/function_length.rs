//! Functions stay short: no function in the core (`crates/core/src`) or the CLI
//! (`crates/franz/src`) has a body longer than 80 lines as written, counting every line from
//! the opening brace to the closing one (blank lines and comments included, unlike
//! `clippy::too_many_lines`, which each crate root denies too). Run with `--nocapture` to see
//! the largest files and the longest functions.
//!
//! The scan reads the source as text: comments, strings and character literals are blanked
//! out, then each `fn name` item's braces are matched. A function in `engine/` may be listed
//! as a known exception by the marker comment `// too long: to be shortened`
//! directly above it (among its attributes and doc comments); nowhere else is one accepted.

use std::path::{Path, PathBuf};

/// The longest body allowed, in lines.
const MAX_BODY_LINES: usize = 80;
/// The source folders scanned, relative to this crate's manifest.
const SCANNED: [&str; 2] = ["src", "../franz/src"];
/// The only folder whose functions may carry the exception marker (the core's `engine/`).
const EXCEPTION_FOLDER: &str = "engine/";
/// The marker that names a known exception.
const EXCEPTION_MARKER: &str = "// too long: to be shortened";

/// One function found by the scan.
#[derive(Debug, PartialEq)]
struct FnSpan {
    name: String,
    /// 1-based line of the `fn` keyword.
    line: usize,
    /// Lines from the opening brace to the closing brace, both included.
    body_lines: usize,
    /// Whether the exception marker stands directly above it.
    marked: bool,
}

/// Replaces comments, string literals and character literals by spaces, keeping newlines, so
/// that braces inside them do not count and line numbers stay the same.
fn blank_out(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < chars.len() {
        let end = literal_end(&chars, i);
        if end == i {
            out.push(chars[i]);
            i += 1;
        } else {
            out.extend(
                chars[i..end]
                    .iter()
                    .map(|&c| if c == '\n' { '\n' } else { ' ' }),
            );
            i = end;
        }
    }
    out
}

/// If a comment or literal starts at `i`, the index just past it; otherwise `i`.
fn literal_end(chars: &[char], i: usize) -> usize {
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    let prev_is_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    match (at(i), at(i + 1)) {
        ('/', '/') => find_from(chars, i, "\n").unwrap_or(chars.len()),
        ('/', '*') => block_comment_end(chars, i),
        ('"', _) => quoted_end(chars, i + 1, '"'),
        ('b', '"') if !prev_is_ident => quoted_end(chars, i + 2, '"'),
        ('r', '"' | '#') | ('b', 'r') if !prev_is_ident => raw_string_end(chars, i),
        ('\'', '\\') => quoted_end(chars, i + 1, '\''),
        ('\'', _) if at(i + 2) == '\'' => i + 3,
        _ => i,
    }
}

/// The index just past the closing `quote` of a literal whose text starts at `from`.
fn quoted_end(chars: &[char], from: usize, quote: char) -> usize {
    let mut k = from;
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 2,
            c if c == quote => return k + 1,
            _ => k += 1,
        }
    }
    chars.len()
}

/// The index just past a raw string `r#"..."#` starting at `i` (with or without `b`); `i` if
/// what starts there is not a raw string (e.g. `r#ident`).
fn raw_string_end(chars: &[char], i: usize) -> usize {
    let mut k = i + if chars[i] == 'b' { 2 } else { 1 };
    let mut hashes = 0;
    while chars.get(k) == Some(&'#') {
        hashes += 1;
        k += 1;
    }
    if chars.get(k) != Some(&'"') {
        return i;
    }
    let closing: String = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    find_from(chars, k + 1, &closing).map_or(chars.len(), |end| end + closing.len())
}

/// The index just past a (possibly nested) block comment starting at `i`.
fn block_comment_end(chars: &[char], i: usize) -> usize {
    let mut depth = 0;
    let mut k = i;
    while k + 1 < chars.len() {
        match (chars[k], chars[k + 1]) {
            ('/', '*') => {
                depth += 1;
                k += 2;
            }
            ('*', '/') => {
                depth -= 1;
                k += 2;
                if depth == 0 {
                    return k;
                }
            }
            _ => k += 1,
        }
    }
    chars.len()
}

/// The index of the first occurrence of `needle` at or after `from`.
fn find_from(chars: &[char], from: usize, needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    (from..chars.len()).find(|&k| chars[k..].starts_with(&needle))
}

/// Every `fn name ... { ... }` item of `src` with the length of its body.
fn functions(src: &str) -> Vec<FnSpan> {
    let code: Vec<char> = blank_out(src).chars().collect();
    let original: Vec<&str> = src.lines().collect();
    let line_of = |idx: usize| code[..idx].iter().filter(|&&c| c == '\n').count() + 1;
    let mut found = Vec::new();
    for start in fn_keywords(&code) {
        let Some((name, open)) = name_and_body_start(&code, start + 2) else {
            continue;
        };
        let close = matching_brace(&code, open);
        let line = line_of(start);
        found.push(FnSpan {
            name,
            line,
            body_lines: line_of(close) - line_of(open) + 1,
            marked: marker_above(&original, line),
        });
    }
    found
}

/// The indices where the keyword `fn` stands as a word.
fn fn_keywords(code: &[char]) -> Vec<usize> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    (0..code.len().saturating_sub(2))
        .filter(|&k| code[k] == 'f' && code[k + 1] == 'n')
        .filter(|&k| k == 0 || !is_ident(code[k - 1]))
        .filter(|&k| !is_ident(code[k + 2]))
        .collect()
}

/// After the keyword: the function's name and the index of its body's `{`; `None` for a
/// `fn(..)` pointer type or a declaration without a body.
fn name_and_body_start(code: &[char], after_kw: usize) -> Option<(String, usize)> {
    let mut k = after_kw;
    while code.get(k).is_some_and(|c| c.is_whitespace()) {
        k += 1;
    }
    let name: String = code[k..]
        .iter()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .collect();
    if name.is_empty() {
        return None;
    }
    let mut depth = 0i32;
    for (offset, &c) in code[k..].iter().enumerate() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' if depth == 0 => return Some((name, k + offset)),
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The index of the `}` that closes the `{` at `open` (the end of the text if none does).
fn matching_brace(code: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    code.len().saturating_sub(1)
}

/// Whether the marker stands in the block of attributes and comments directly above `line`.
fn marker_above(lines: &[&str], line: usize) -> bool {
    lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("//") || l.starts_with("#["))
        .any(|l| l == EXCEPTION_MARKER)
}

/// The `.rs` files below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The functions under `src_root` that break the rule, as `path:line fn name (N lines)`.
fn violations(src_root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for path in rust_files(src_root) {
        let src = std::fs::read_to_string(&path).expect("read source");
        let rel = path.strip_prefix(src_root).unwrap_or(&path);
        let file = rel.to_string_lossy().replace('\\', "/");
        for f in functions(&src) {
            let excused = f.marked && file.starts_with(EXCEPTION_FOLDER);
            if f.body_lines > MAX_BODY_LINES && !excused {
                out.push(format!(
                    "{}:{} fn {} ({} lines)",
                    rel.display(),
                    f.line,
                    f.name,
                    f.body_lines
                ));
            }
        }
    }
    out
}

#[test]
fn no_function_in_the_core_or_the_cli_is_over_80_lines() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let long: Vec<String> = SCANNED
        .iter()
        .flat_map(|folder| violations(&manifest.join(folder)))
        .collect();
    println!("{}", house(manifest));
    assert!(
        long.is_empty(),
        "functions over {MAX_BODY_LINES} lines (split them into helpers that do one thing):\n{}",
        long.join("\n")
    );
}

/// The largest source files and the longest functions of the scanned folders, for the eye.
fn house(manifest: &Path) -> String {
    let mut files = Vec::new();
    let mut fns = Vec::new();
    for folder in SCANNED {
        let root = manifest.join(folder);
        for path in rust_files(&root) {
            let src = std::fs::read_to_string(&path).expect("read source");
            let shown = format!(
                "{folder}/{}",
                path.strip_prefix(&root).unwrap_or(&path).display()
            );
            for f in functions(&src) {
                fns.push((f.body_lines, format!("{shown}:{} fn {}", f.line, f.name)));
            }
            files.push((src.lines().count(), shown));
        }
    }
    files.sort_by(|a, b| b.cmp(a));
    fns.sort_by(|a, b| b.cmp(a));
    let table = |rows: &[(usize, String)]| {
        rows.iter()
            .take(15)
            .map(|(n, what)| format!("{n:6} {what}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let total: usize = files.iter().map(|(n, _)| n).sum();
    format!(
        "{} files, {total} lines; the largest (lines):\n{}\nthe longest functions (body lines):\n{}",
        files.len(),
        table(&files),
        table(&fns)
    )
}

#[test]
fn the_scan_measures_bodies_and_ignores_braces_in_literals_and_comments() {
    let src = "fn short() {\n    let s = \"}}}\"; // }\n    let c = '{';\n}\n\
               fn ptr(f: fn(u8) -> u8) -> u8 { f(1) }\n\
               trait T { fn decl(&self); }\n\
               fn raw<'a>(x: &'a str) -> &'a str {\n    let _ = r#\"{\"#;\n    /* { */\n    x\n}\n";
    let found = functions(src);
    let summary: Vec<(&str, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.body_lines))
        .collect();
    assert_eq!(summary, vec![("short", 1, 4), ("ptr", 5, 1), ("raw", 7, 5)]);
}

#[test]
fn a_long_function_is_reported_and_only_the_marker_excuses_it() {
    let body = "    let x = 1;\n".repeat(MAX_BODY_LINES);
    let long = format!("fn long() {{\n{body}}}\n");
    let found = functions(&long);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].body_lines, MAX_BODY_LINES + 2);
    assert!(!found[0].marked);
    let marked = format!("{EXCEPTION_MARKER}\n#[allow(clippy::too_many_lines)]\n{long}");
    assert!(functions(&marked)[0].marked);
    let separated = format!("{EXCEPTION_MARKER}\n\n{long}");
    assert!(!functions(&separated)[0].marked);
}
