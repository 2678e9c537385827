//! Platform code lives in the desktop crate, one folder per OS (docs/architecture.md,
//! "Desktop"): the CLI (`crates/franz/src`) is the same on every OS and asks the desktop crate
//! what the system offers (`franz_desktop::open`, `HAS_X11`, `needs_x11`, ...); the desktop
//! crate's top level is OS-free, and only its `platform.rs` (plus the `mod` lines of `lib.rs`
//! that declare the OS folders) picks an OS.
//!
//! The test reads the sources: a platform condition is a `cfg(...)`, `cfg!(...)` or
//! `cfg_attr(...)` whose predicate names `target_os`, `target_family`, `windows` or `unix`; a
//! per-OS dependency is one under a `[target.'cfg(...)'.dependencies]` table of Cargo.toml.

use crate::common::module_graph::files_with_ext;
use std::path::{Path, PathBuf};

/// The OS folders of `crates/desktop/src`.
const OS_FOLDERS: &[&str] = &["macos", "unix", "unsupported", "windows", "x11"];

/// Words that make a file name say it holds one OS's code.
const OS_WORDS: &[&str] = &[
    "atspi", "hwnd", "linux", "mac", "macos", "uia", "unix", "win", "win32", "x11", "xcap", "xlib",
];

fn crate_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text between the parenthesis that starts at byte `open` and its match.
fn balanced(text: &str, open: usize) -> &str {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..open + i];
                }
            }
            _ => {}
        }
    }
    &text[open + 1..]
}

/// Whether `predicate` names an OS (outside its string literals: `feature = "windows-ui"` does
/// not).
fn names_os(predicate: &str) -> bool {
    let unquoted: String = predicate
        .split('"')
        .step_by(2)
        .collect::<Vec<_>>()
        .join(" ");
    unquoted
        .split(|c: char| !is_ident(c))
        .any(|w| matches!(w, "target_os" | "target_family" | "windows" | "unix"))
}

/// The 1-based line numbers and predicates of the platform conditions in `text`.
fn platform_conditions(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("cfg") {
        let before_ok = !text[..at].ends_with(is_ident);
        let rest = &text[at + 3..];
        let open = ["(", "!(", "_attr("]
            .iter()
            .find(|p| rest.starts_with(**p))
            .map(|p| at + 3 + p.len() - 1);
        if let (true, Some(open)) = (before_ok, open) {
            let predicate = balanced(text, open);
            if names_os(predicate) {
                let line = text[..at].matches('\n').count() + 1;
                found.push((line, predicate.to_string()));
            }
        }
    }
    found
}

/// The names (as Rust paths spell them) of the dependencies under a platform
/// `[target.'cfg(...)'.dependencies]` table of a Cargo.toml.
fn per_os_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_target = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_target = line.starts_with("[target.") && names_os(line);
        } else if in_target
            && !line.is_empty()
            && !line.starts_with('#')
            && let Some((name, _)) = line.split_once(['=', '.'])
        {
            names.push(name.trim().replace('-', "_"));
        }
    }
    names
}

fn relative(p: &Path, root: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

#[test]
fn the_cli_has_no_platform_code() {
    let root = crate_dir("franz");
    let mut problems = Vec::new();
    for file in files_with_ext(&root.join("src"), "rs", true) {
        for (line, predicate) in platform_conditions(&read(&file)) {
            problems.push(format!(
                "{}:{line}: cfg({predicate})",
                relative(&file, &root)
            ));
        }
    }
    for name in per_os_dependencies(&read(&root.join("Cargo.toml"))) {
        problems.push(format!("Cargo.toml: per-OS dependency {name}"));
    }
    assert!(
        problems.is_empty(),
        "the CLI must ask franz_desktop what the system offers instead:\n{}",
        problems.join("\n")
    );
}

/// What in top-level file `file` of the desktop crate is one OS's code.
fn per_os_code(file: &Path, text: &str, per_os_deps: &[String]) -> Vec<String> {
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    let stem = stem.unwrap_or_default();
    let mut problems = Vec::new();
    if stem.split('_').any(|w| OS_WORDS.contains(&w)) {
        problems.push("its name names an OS: its code belongs in that OS's folder".to_string());
    }
    let lines: Vec<&str> = text.lines().collect();
    for (line, predicate) in platform_conditions(text) {
        let next = lines.get(line).map_or("", |l| l.trim());
        let declares_os_folder = OS_FOLDERS
            .iter()
            .any(|f| next == format!("mod {f};") || next == format!("pub mod {f};"));
        if stem == "platform" || (stem == "lib" && declares_os_folder) {
            continue;
        }
        problems.push(format!("line {line}: cfg({predicate})"));
    }
    for dep in per_os_deps {
        let used = text
            .match_indices(&format!("{dep}::"))
            .any(|(at, _)| !text[..at].ends_with(|c: char| is_ident(c) || c == ':'));
        if used {
            problems.push(format!("uses {dep}, a per-OS dependency"));
        }
    }
    problems
}

#[test]
fn the_desktop_crate_keeps_each_os_in_its_folder() {
    let root = crate_dir("desktop");
    let src = root.join("src");
    let deps = per_os_dependencies(&read(&root.join("Cargo.toml")));
    assert!(deps.contains(&"x11rb".to_string()), "{deps:?}");
    let mut problems = Vec::new();
    for file in files_with_ext(&src, "rs", false) {
        for p in per_os_code(&file, &read(&file), &deps) {
            problems.push(format!("{}: {p}", relative(&file, &root)));
        }
    }
    for folder in OS_FOLDERS {
        if !src.join(folder).join("mod.rs").is_file() {
            problems.push(format!("src/{folder}/mod.rs is missing"));
        }
    }
    assert!(
        problems.is_empty(),
        "per-OS code at the top level of crates/desktop/src (move it into x11/, windows/, macos/, unix/ or unsupported/):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_scanner_sees_attributes_macros_cfg_attr_and_target_tables() {
    let text = "use a;\n#[cfg(windows)]\nfn f() {}\n#[cfg(not(any(unix, target_os = \"macos\")))]\nlet x = cfg!(target_family = \"wasm\");\n#[cfg_attr(unix, allow(dead_code))]\n#[cfg(test)]\n#[cfg(feature = \"windows-ui\")]\nfn mycfg(windows: u8) {}\n";
    let lines: Vec<usize> = platform_conditions(text).iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![2, 4, 5, 6]);
    let manifest = "[dependencies]\nserde.workspace = true\n[target.'cfg(windows)'.dependencies]\n# comment\nwindows-sys.workspace = true\nwindows = { version = \"0.61\" }\n[dev-dependencies]\ntempfile = \"3\"\n";
    assert_eq!(
        per_os_dependencies(manifest),
        vec!["windows_sys", "windows"]
    );
    let deps = vec!["x11rb".to_string()];
    let top = Path::new("src/win32.rs");
    assert_eq!(per_os_code(top, "", &deps).len(), 1);
    let shared = Path::new("src/frame.rs");
    assert_eq!(
        per_os_code(shared, "use x11rb::protocol;\n", &deps).len(),
        1
    );
    assert_eq!(
        per_os_code(shared, "use my_x11rb::protocol;\n", &deps).len(),
        0
    );
    let lib = Path::new("src/lib.rs");
    assert!(per_os_code(lib, "#[cfg(windows)]\nmod windows;\n", &deps).is_empty());
    assert_eq!(
        per_os_code(lib, "#[cfg(windows)]\nmod win32;\n", &deps).len(),
        1
    );
}
