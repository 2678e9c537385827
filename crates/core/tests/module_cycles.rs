//! The core's modules import each other without circles (docs/architecture.md): a piece two
//! modules share lives in the lower one. A folder's `mod.rs` is counted as the face of its
//! children (its `mod` and `pub use` lines are not imports); its own items are a module like any
//! other.
//!
//! The scan (the module graph, shared with the `franz` crate's test) is
//! `tests/common/module_graph.rs`. Run with `--nocapture` to see the graph and its circles.

#[path = "common/module_graph.rs"]
mod module_graph;

use module_graph::{circles, cycles, graph_without_faces, render};
use std::path::Path;

/// Circles the constrained output's grammars brought (docs/architecture.md): the client asks
/// `adapt` for the body as sent and `context_probe` whether the server is llama-cpp-python,
/// both of which send through the client; `format` writes the JSON formats' grammars with
/// `json_grammar`, which is written with `format`'s grammar pieces. Each is to be broken by
/// moving the shared piece down; until then they are the only ones allowed, and any other
/// circle, or a change to one of these, fails.
const KNOWN_CIRCLES: &[&[&str]] = &[
    &["model::adapt", "model::client", "model::context_probe"],
    &["strategy::format", "strategy::json_grammar"],
];

#[test]
fn core_modules_import_each_other_without_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph_without_faces(&src);
    assert!(g.contains_key("engine::session"), "{g:?}");
    println!("module graph of franz-core:\n{}", render(&g));
    let found: Vec<_> = circles(&g)
        .into_iter()
        .filter(|c| {
            let names: Vec<&str> = c.iter().map(String::as_str).collect();
            !KNOWN_CIRCLES.contains(&names.as_slice())
        })
        .collect();
    for c in &found {
        println!(
            "circle: {}",
            c.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(
        found.is_empty(),
        "the core's modules import each other in circles (move the shared piece into the \
         lower module):\n  {}\ncycles:\n  {}",
        found
            .iter()
            .map(|c| c.iter().cloned().collect::<Vec<_>>().join(", "))
            .collect::<Vec<_>>()
            .join("\n  "),
        cycles(&g).join("\n  ")
    );
}
