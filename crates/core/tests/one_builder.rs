//! Every client starts a run through the core's agent builder (`franz_core::agent`,
//! docs/architecture.md): no `RunOptions` or `SessionConfig` is written out field by field
//! anywhere else, so a new run setting reaches every client through the settings' one mapping
//! (`config/parts.rs`). The engine itself (its types, `RunOptions::default` and its own unit
//! tests, which run the engine below the builder) and the mapping are the places allowed.
//!
//! The same holds for the parts of a client that looks or acts without a model (`franz act`,
//! MCP's action tools, `franz replay --execute`, `franz screenshot`): an executor or an
//! observation pipeline is made only by the builder (`Agent::acting`), so each gets the
//! profile, the policy, the fence, the failsafe and the dry run a run has.

use std::path::{Path, PathBuf};

/// Where a literal may stand: the builder, the mapping, and the engine that defines both types.
const ALLOWED: [&str; 5] = [
    "crates/core/src/agent.rs",
    "crates/core/src/config/parts.rs",
    "crates/core/src/engine/mod.rs",
    "crates/core/src/engine/session.rs",
    "crates/core/src/engine/tests.rs",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that build `ty` with a struct literal (not its definition, an `impl`
/// or a signature that returns it).
fn literals(text: &str, ty: &str) -> Vec<usize> {
    let needle = format!("{ty} {{");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let Some(at) = code.find(&needle) else {
            continue;
        };
        let before = code[..at].trim_end();
        let declares = ["struct", "for", "->", "impl"]
            .iter()
            .any(|w| before.ends_with(w));
        if !declares {
            out.push(i + 1);
        }
    }
    out
}

#[test]
fn run_options_and_session_configs_are_built_only_by_the_agent_builder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        "crates/core/src",
        "crates/core/tests",
        "crates/franz/src",
        "crates/franz/tests",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(
        files.len() > 100,
        "the scan found the sources: {}",
        files.len()
    );
    let mut found = Vec::new();
    for f in &files {
        let name = f
            .strip_prefix(&root)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        if ALLOWED.contains(&name.as_str()) || name.ends_with("tests/one_builder.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for ty in ["RunOptions", "SessionConfig"] {
            for line in literals(&text, ty) {
                found.push(format!("{name}:{line}: a {ty} literal"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "build the run with franz_core::agent::Agent::builder (change a part with its \
         options/executor/reading/observing methods) instead of:\n  {}",
        found.join("\n  ")
    );
}

/// Where an executor or a pipeline may be made in the sources: the builder, the parts' own
/// modules (and their unit tests), and the engine's unit tests, which run below the builder.
/// The grounding model and zoom-in refinement derive their pipelines from the observation
/// settings the builder made (the grounder's image size, a crop of the screen).
fn may_make_parts(name: &str) -> bool {
    name == "crates/core/src/agent.rs"
        || name == "crates/core/src/engine/tests.rs"
        || name.starts_with("crates/core/src/grounder")
        || name.starts_with("crates/core/src/refine")
        || name.starts_with("crates/core/src/executor/")
        || name.starts_with("crates/core/src/observe/")
}

/// The lines of `text` whose code (not a comment) makes one of `calls`.
fn makes(text: &str, calls: &[&str]) -> Vec<usize> {
    let code = |line: &str| line.split("//").next().unwrap_or("").to_string();
    (text.lines().enumerate())
        .filter(|(_, line)| calls.iter().any(|c| code(line).contains(c)))
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn executors_and_pipelines_are_made_only_by_the_agent_builder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates/core/src", "crates/franz/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut found = Vec::new();
    for f in &files {
        let name = (f.strip_prefix(&root).unwrap_or(f).to_string_lossy()).replace('\\', "/");
        if may_make_parts(&name) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for line in makes(&text, &["Executor::new(", "Pipeline::new("]) {
            found.push(format!("{name}:{line}"));
        }
    }
    assert!(
        found.is_empty(),
        "make the executor or the pipeline with franz_core::agent::Agent::acting (then \
         build_executor, build_pipeline or build_hands) so that it gets the profile and the \
         safety settings of a run, instead of:\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_parts_scan_sees_a_call_and_not_a_comment() {
    let text = "// Pipeline::new(c)\nlet p = Pipeline::new(c);\nlet e = x.build_executor(r);\n";
    assert_eq!(makes(text, &["Executor::new(", "Pipeline::new("]), vec![2]);
}

#[test]
fn the_scan_sees_a_literal_and_not_a_signature() {
    let text = "fn f() -> RunOptions {\n    RunOptions {\n        task,\n    }\n}\n\
                pub struct SessionConfig {\nimpl Default for RunOptions {\n";
    assert_eq!(literals(text, "RunOptions"), vec![2]);
    assert!(literals(text, "SessionConfig").is_empty());
}
