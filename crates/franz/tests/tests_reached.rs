//! Each crate's integration tests are one binary, `tests/main.rs` (`autotests = false` in its
//! Cargo.toml), whose `mod` lines make every test file a module. A file under `tests/` that no
//! `mod` line reaches would compile into nothing and its tests would silently never run: this
//! fails on any such `.rs` file, in every crate of the workspace, unless it is the `path` of a
//! `[[test]]` target of its own (the Windows tests under Wine).

use crate::common::module_graph::files_with_ext;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace's crates, each with a `tests/` folder.
fn crates() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| d.join("tests").is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The folder where the `mod NAME;` lines of `file` look for `NAME.rs`.
fn modules_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap().to_path_buf();
    match file.file_name().and_then(|n| n.to_str()) {
        Some("main.rs" | "mod.rs" | "lib.rs") => parent,
        _ => parent.join(file.file_stem().unwrap()),
    }
}

/// `file` and every file its `mod NAME;` lines reach (`#[path = "..."]` followed), at any depth.
fn reached(file: &Path, out: &mut BTreeSet<PathBuf>) {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{} (named by a mod line): {e}", file.display()));
    out.insert(file.to_path_buf());
    let mut path_attr: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(p) = line
            .strip_prefix("#[path = \"")
            .and_then(|r| r.strip_suffix("\"]"))
        {
            path_attr = Some(p.to_string());
            continue;
        }
        let decl = line
            .strip_prefix("pub(crate) ")
            .or_else(|| line.strip_prefix("pub "))
            .unwrap_or(line);
        if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            let next = match path_attr.take() {
                Some(p) => file.parent().unwrap().join(p),
                None => {
                    let flat = modules_dir(file).join(format!("{name}.rs"));
                    if flat.exists() {
                        flat
                    } else {
                        modules_dir(file).join(name).join("mod.rs")
                    }
                }
            };
            reached(&next, out);
        } else if !line.starts_with("#[") {
            path_attr = None;
        }
    }
}

/// The `path`s of the `[[test]]` targets in a crate's Cargo.toml.
fn own_targets(krate: &Path) -> BTreeSet<PathBuf> {
    let manifest: toml::Table = std::fs::read_to_string(krate.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let tests = manifest.get("test").and_then(|t| t.as_array());
    tests
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("path").and_then(|p| p.as_str()))
        .map(|p| krate.join(p))
        .collect()
}

#[test]
fn every_test_file_is_reached_from_its_crates_main_rs() {
    let mut missing = Vec::new();
    for krate in crates() {
        let tests = krate.join("tests");
        let main = tests.join("main.rs");
        assert!(main.exists(), "{} has no tests/main.rs", krate.display());
        let mut seen = BTreeSet::new();
        reached(&main, &mut seen);
        let targets = own_targets(&krate);
        assert!(
            targets.contains(&main),
            "{}: no [[test]] for tests/main.rs",
            krate.display()
        );
        let all: BTreeSet<PathBuf> = files_with_ext(&tests, "rs", true).into_iter().collect();
        missing.extend(
            all.iter()
                .filter(|f| !seen.contains(*f) && !targets.contains(*f))
                .map(|f| f.display().to_string()),
        );
    }
    assert!(
        missing.is_empty(),
        "test files that no `mod` line of tests/main.rs reaches (they never run; add `mod NAME;` \
         to their crate's tests/main.rs): {missing:?}"
    );
}
