//! The `franz` crate's modules import each other without cycles, and no command imports
//! another command (docs/architecture.md): shared helpers live in their own modules.
//!
//! The scan (the module graph, shared with the core's test) is `crates/core/tests/common/module_graph.rs`.

use crate::common::module_graph::{Graph, cycles, graph, parent};
use std::collections::BTreeSet;
use std::path::Path;

/// The problems of a module graph: cycles, and commands that import other commands.
fn problems(g: &Graph) -> Vec<String> {
    let mut out: Vec<String> = cycles(g).iter().map(|c| format!("cycle: {c}")).collect();
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
